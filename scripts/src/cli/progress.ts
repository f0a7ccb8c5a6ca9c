/**
 * Progress of the CLI's long commands on stderr, drawn by cli-progress: on a terminal a bar redrawn in place; in a
 * pipe or a log (stderr not a terminal) one plain line at most every second, `label: done/total unit (p%), rate/s,
 * ETA …`, and a last line when it ends. stdout keeps the command's JSON alone. CLI_PROGRESS=off silences it.
 */
import { SingleBar } from 'cli-progress';

export interface Progress {
  /** Sets how much is done; `total` when the estimate changes (it never drops below what is done). */
  update(done: number, total?: number | null): void;
  /** Draws the last state and releases the terminal (idempotent). */
  stop(): void;
}

const silent: Progress = { update: () => undefined, stop: () => undefined };

/**
 * A progress report for `label` counting `unit`s; `total` may be unknown (null: counts and rate, no ETA).
 * Nothing is drawn until the first update, so a command that ends at once prints no progress at all.
 */
export const progress = (label: string, unit: string, total: number | null, stream: NodeJS.WriteStream = process.stderr): Progress => {
  if (process.env.CLI_PROGRESS === 'off') return silent;
  const tty = stream.isTTY === true;
  let known = total;
  const started = Date.now();
  const format = (withTotal: boolean) =>
    tty
      ? withTotal
        ? `${label} {bar} {percentage}% | {value}/{total} ${unit} | {rate}/s | ETA {eta_formatted}`
        : `${label} {value} ${unit} | {rate}/s`
      : withTotal
        ? `${label}: {value}/{total} ${unit} ({percentage}%), {rate}/s, ETA {eta_formatted}, elapsed {duration_formatted}`
        : `${label}: {value} ${unit}, {rate}/s, elapsed {duration_formatted}`;
  // Made at the first update: the total may come with it (escrow reconcile learns how many pools there are).
  const makeBar = () =>
    new SingleBar({
      stream,
      format: format(known !== null),
      noTTYOutput: true,
      notTTYSchedule: 1000,
      fps: 5,
      etaBuffer: 50,
      hideCursor: tty,
      // Its own SIGINT handler would keep the process alive: ours stops the bar (the cursor comes back) and exits 130.
      gracefulExit: false,
      barsize: 24,
      // In a pipe the last line is already written with its newline: no empty line after it.
      clearOnComplete: !tty,
    });
  let bar: SingleBar | null = null;
  let running = false;
  let done = 0;
  const interrupted = () => {
    bar?.stop();
    process.exit(130);
  };
  const rate = () => {
    const seconds = (Date.now() - started) / 1000;
    return seconds > 0 ? Math.round(done / seconds) : 0;
  };
  return {
    update(value, total) {
      done = value;
      if (total !== undefined) known = total;
      const shown = known === null ? value : Math.max(known, value);
      if (!running) {
        running = true;
        process.once('SIGINT', interrupted);
        bar = makeBar();
        bar.start(shown, value, { rate: rate() });
        return;
      }
      if (shown !== bar!.getTotal()) bar!.setTotal(shown);
      bar!.update(value, { rate: rate() });
    },
    stop() {
      if (!running) return;
      running = false;
      process.off('SIGINT', interrupted);
      bar!.update(done, { rate: rate() });
      bar!.stop();
    },
  };
};
