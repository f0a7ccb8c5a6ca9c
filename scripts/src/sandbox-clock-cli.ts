/**
 * The sandbox clock's verbs of the operator CLI (`pnpm cli sandbox clock advance <duration>`, `… show`), mounted by
 * cli.ts. One clock for the sandbox network and the service (infra/src/sandbox-clock.ts, docs/sandbox.md): an advance
 * moves the ledger's offset, tells every running process, and runs the timers that became due. Sandbox only.
 */
import { DurationError, parseDuration, type SandboxClock, type Services } from '@cagnotte/infra';

type Command = (s: Services, args: string[]) => Promise<void>;

export interface SandboxClockCliDeps {
  usage: (message: string) => Error;
  print: (value: unknown) => void;
}

export const sandboxClockCommands = ({ usage, print }: SandboxClockCliDeps): Record<string, Command> => {
  const clockOf = (s: Services): SandboxClock => {
    if (!s.sandboxClock) throw usage('the sandbox clock exists in sandbox only (LEDGER_MODE=sandbox, APP_ENV not production): elsewhere time is the system\'s');
    return s.sandboxClock;
  };
  const show = async (s: Services) => {
    const clock = clockOf(s);
    const offsetSeconds = await clock.refresh();
    print({ network: clock.network, offsetSeconds, now: clock.now().toISOString() });
  };
  const advance = async (s: Services, args: string[]) => {
    const clock = clockOf(s);
    if (args.length !== 1) throw usage('sandbox clock advance needs one duration: e.g. 90s, 15m, 2h, 7d, 1d12h, P7D or PT2H');
    let seconds: number;
    try {
      seconds = parseDuration(args[0]!);
    } catch (e) {
      if (e instanceof DurationError) throw usage(e.message);
      throw e;
    }
    const moved = await clock.advance(seconds, s.jobs);
    print({ ...moved, now: moved.now.toISOString() });
  };
  return {
    'sandbox clock': async (s, args) => {
      const [verb, ...rest] = args;
      if (verb === 'show' && rest.length === 0) return show(s);
      if (verb === 'advance') return advance(s, rest);
      throw usage(verb === 'show' ? 'sandbox clock show takes no argument' : 'sandbox clock takes advance <duration> or show');
    },
  };
};
