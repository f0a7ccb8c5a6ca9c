/**
 * The operator CLI's entry point (`pnpm cli …`, docs in README.md#operator-cli). It loads only what a command needs:
 * the help, an unknown command's answer and `ledger info` (configuration alone) come without the services, the
 * Stellar SDK or the database drivers; every other command loads ../cli.ts, which opens the services for its time.
 * `pnpm cli` runs it compiled (scripts/cli.mjs), so no TypeScript is transpiled on each call.
 */
import { USAGE } from './usage';
import { helpFor, resolveCommand, unknownCommandLine } from './help';

const main = async () => {
  const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
  if (argv.length === 0 || (argv.length === 1 && (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help'))) {
    console.log(USAGE);
    return;
  }
  // `help <command>` and `<command> --help`: that command's usage (or every command under a noun: `pool --help`).
  if (argv[0] === 'help' || argv.includes('--help') || argv.includes('-h')) {
    const words = (argv[0] === 'help' ? argv.slice(1) : argv).filter((a) => a !== '--help' && a !== '-h');
    const help = helpFor(words.filter((a) => !a.startsWith('-')));
    if (help) {
      console.log(help);
      return;
    }
    console.error(unknownCommandLine(words));
    process.exitCode = 2;
    return;
  }
  if (!resolveCommand(argv)) {
    console.error(unknownCommandLine(argv));
    process.exitCode = 2;
    return;
  }
  if (argv[0] === 'ledger' && argv[1] === 'info') {
    const [{ loadConfigOrExit }, { ledgerInfo }] = await Promise.all([import('@cagnotte/infra/src/config'), import('./ledger-info')]);
    console.log(JSON.stringify(ledgerInfo(loadConfigOrExit()), null, 2));
    return;
  }
  const { runCommand } = await import('../cli');
  await runCommand(argv);
};

main().catch((e: unknown) => {
  // Exit 3: the command could not run (a dependency unreachable, or a bug); the stack only when asked for.
  const err = e as { message?: string; code?: string; stack?: string };
  console.error(`error: ${err?.message ?? String(e)}${err?.code ? ` (${err.code})` : ''}`);
  if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(err?.stack);
  process.exitCode = 3;
});
