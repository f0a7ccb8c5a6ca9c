import type { Position, RecordedEvent, SubscribeOptions, SubscriptionHandle } from './port';

/** A counter bumped on every "something was appended" notice; waiters wake on a bump or a timeout. */
export class WakeSignal {
  private version = 0;
  private waiters = new Set<() => void>();

  get current(): number {
    return this.version;
  }

  bump(): void {
    this.version++;
    const ws = [...this.waiters];
    this.waiters.clear();
    for (const w of ws) w();
  }

  /** Resolves at once if bumped since `seen`, else on the next bump or after `ms`. */
  wait(seen: number, ms: number): Promise<void> {
    if (this.version !== seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Catch-up then live subscription over any `readAll`-style pull. It reads a batch, awaits the handler
 * (backpressure: nothing more is read until it resolves), and when the feed is drained it sleeps until
 * a wake signal or the poll interval. A wake that finds nothing visible yet (a slower transaction still
 * holds an earlier position) re-polls quickly with backoff instead of skipping ahead.
 */
export class PullSubscription implements SubscriptionHandle {
  private running = true;
  private pos: Position | null;
  private readonly done: Promise<void>;
  private stopWake = new WakeSignal();

  constructor(
    private readonly pull: (after: Position | null, max: number) => Promise<RecordedEvent[]>,
    private readonly wake: WakeSignal,
    private readonly options: SubscribeOptions,
    private readonly pollMs = 250,
  ) {
    this.pos = options.after ?? null;
    this.done = this.loop();
  }

  get position(): Position | null {
    return this.pos;
  }

  private async loop(): Promise<void> {
    const size = this.options.batchSize ?? 500;
    let quiet = 2;
    let failures = 0;
    while (this.running) {
      const seen = this.wake.current;
      try {
        const batch = await this.pull(this.pos, size);
        if (!this.running) break;
        if (batch.length > 0) {
          await this.options.handler(batch);
          this.pos = batch[batch.length - 1]!.position;
          quiet = 2;
          failures = 0;
          continue;
        }
        failures = 0;
        if (this.wake.current !== seen) {
          // Notified but nothing visible yet: an earlier transaction is still open. Re-poll soon.
          await Promise.race([sleep(quiet), this.stopWake.wait(this.stopWake.current, quiet)]);
          quiet = Math.min(quiet * 2, this.pollMs);
          continue;
        }
        await Promise.race([this.wake.wait(seen, this.pollMs), this.stopWake.wait(this.stopWake.current, this.pollMs)]);
      } catch (error) {
        failures++;
        this.options.onError?.(error);
        await Promise.race([sleep(Math.min(50 * 2 ** failures, 5000)), this.stopWake.wait(this.stopWake.current, 5000)]);
      }
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    this.stopWake.bump();
    await this.done;
  }
}

/** The live subscriptions of one store: each adapter opens them here and stops them all on close. */
export class SubscriptionSet {
  private readonly subs = new Set<PullSubscription>();

  get size(): number {
    return this.subs.size;
  }

  open(
    pull: (after: Position | null, max: number) => Promise<RecordedEvent[]>,
    wake: WakeSignal,
    options: SubscribeOptions,
    pollMs: number,
  ): SubscriptionHandle {
    const sub = new PullSubscription(pull, wake, options, pollMs);
    this.subs.add(sub);
    return {
      get position() {
        return sub.position;
      },
      stop: async () => {
        this.subs.delete(sub);
        await sub.stop();
      },
    };
  }

  async stopAll(): Promise<void> {
    const all = [...this.subs];
    this.subs.clear();
    await Promise.all(all.map((s) => s.stop()));
  }
}
