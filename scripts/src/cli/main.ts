/**
 * The operator CLI's entry point (`pnpm cli …`, docs in README.md#operator-cli). It loads only what a command needs:
 * the help and `ledger info` (configuration alone) answer without the services, the Stellar SDK or the database
 * drivers; every other command loads ../cli.ts, which opens the services for its time. `pnpm cli` runs it compiled
 * (scripts/cli.mjs), so no TypeScript is transpiled on each call.
 */
import { USAGE } from './usage';

const main = async () => {
  const argv = process.argv.slice(2).filter((a, i) => !(i === 0 && a === '--'));
  if (argv.length === 0 || argv.includes('--help')) {
    console.log(USAGE);
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

void main();
