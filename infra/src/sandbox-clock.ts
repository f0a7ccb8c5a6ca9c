import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SandboxLedger } from '@cagnotte/sandbox-ledger';
import type { Logger } from './logger';
import type { Redis } from './redis';
import type { JobQueue } from './jobs/port';
import { MAX_ADVANCE_SECONDS } from './sandbox-duration';

/**
 * The service's clock in sandbox: the system time plus the sandbox network's offset (`SandboxLedger.advanceTime`,
 * persisted per network in `sandbox_ledger_networks`), so the command side, the jobs and the ledger read one time.
 *
 * Callers want a synchronous `() => Date`, so the offset is kept in memory: read at start, replaced when `advance`
 * (in any process) publishes the new offset on Redis, and re-read every `refreshMs` in case a message was missed
 * (a process that was reconnecting, or `advanceTime` called on the ledger directly). A message only makes a process
 * re-read the persisted offset, which only grows: a late or repeated message cannot move the clock back. Production never builds one: its clock is `() => new Date()`.
 */
export interface ClockAdvance {
  network: string;
  advancedBySeconds: number;
  offsetSeconds: number;
  /** The clock after the advance. */
  now: Date;
  /** Delayed jobs whose time (by this clock) had come and that now run. */
  promotedJobs: number;
}

/** The clock as `GET /sandbox/clock` (query side) and the advance (command side) show it. */
export const SandboxClockView = z.object({
  network: z.string().describe('The sandbox network (its passphrase): the clock is one per network'),
  offsetSeconds: z.number().int().describe('How far the clock runs ahead of real time'),
  now: z.string().describe('The clock now (ISO 8601)'),
});

/** What /docs shows for the clock: a week ahead of real time. */
export const SANDBOX_CLOCK_EXAMPLE: z.infer<typeof SandboxClockView> = {
  network: 'Cagnotte Sandbox Network ; November 2026',
  offsetSeconds: 604_800,
  now: '2026-12-04T10:15:00.000Z',
};

export interface SandboxClockOptions {
  ledger: SandboxLedger;
  /** The process's Redis client: publishes advances; a duplicate of it listens. */
  redis: Redis;
  /** REDIS_KEY_PREFIX: deployments and test runs sharing a Redis hear only their own advances. */
  keyPrefix: string;
  logger: Logger;
  /** The fallback re-read of the persisted offset (default 2 s). */
  refreshMs?: number;
}

export class SandboxClock {
  private offsetSeconds = 0;
  private subscriber: Redis | null = null;
  private timer: NodeJS.Timeout | null = null;
  private readonly channel: string;

  private constructor(private readonly o: SandboxClockOptions) {
    // One channel per network: several sandbox networks (a spec's own passphrase) may share a key prefix.
    const network = createHash('sha256').update(o.ledger.passphrase).digest('hex').slice(0, 16);
    this.channel = `${o.keyPrefix}sandbox-clock:${network}`;
  }

  /** Reads the offset, then listens for advances and re-reads it periodically until `close()`. */
  static async open(o: SandboxClockOptions): Promise<SandboxClock> {
    const clock = new SandboxClock(o);
    await clock.refresh();
    await clock.listen();
    clock.timer = setInterval(() => {
      clock.refresh().catch((e: Error) => o.logger.warn({ err: e.message }, 'sandbox clock: could not re-read the offset; keeping the last one'));
    }, o.refreshMs ?? 2_000);
    clock.timer.unref();
    return clock;
  }

  /** The time by this clock: system time plus the network's offset. Bound, so it can be handed around as `() => Date`. */
  readonly now = (): Date => new Date(Date.now() + this.offsetSeconds * 1000);

  get network(): string {
    return this.o.ledger.passphrase;
  }

  get offset(): number {
    return this.offsetSeconds;
  }

  /** Re-reads the persisted offset; answers the offset now in use. */
  async refresh(): Promise<number> {
    this.raise(await this.o.ledger.clockOffsetSeconds());
    return this.offsetSeconds;
  }

  /**
   * Moves the network's clock (the ledger's offset: the ledger and this clock cannot disagree), tells every process,
   * then brings forward the delayed jobs whose time has come by the new clock (and re-times the others).
   */
  async advance(seconds: number, jobs: JobQueue): Promise<ClockAdvance> {
    if (!Number.isSafeInteger(seconds) || seconds <= 0 || seconds > MAX_ADVANCE_SECONDS) {
      throw new RangeError(`the clock moves forward by 1 s to ${MAX_ADVANCE_SECONDS} s (3650 days), got ${seconds}`);
    }
    await this.o.ledger.advanceTime(seconds);
    const offsetSeconds = await this.refresh();
    await this.o.redis.publish(this.channel, String(offsetSeconds));
    const promotedJobs = await jobs.bringForward(this.now());
    return { network: this.network, advancedBySeconds: seconds, offsetSeconds, now: this.now(), promotedJobs };
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    const subscriber = this.subscriber;
    this.subscriber = null;
    if (subscriber) await subscriber.quit().catch(() => subscriber.disconnect());
  }

  private raise(offsetSeconds: number) {
    if (Number.isFinite(offsetSeconds) && offsetSeconds > this.offsetSeconds) this.offsetSeconds = offsetSeconds;
  }

  private async listen() {
    // A connection in subscriber mode runs no other command: a duplicate of its own. Channels are not keys, so the
    // client's keyPrefix does not apply to them: the prefix is in the channel's name.
    const subscriber = this.o.redis.duplicate();
    subscriber.on('error', (err: Error) => this.o.logger.warn({ err: err.message }, 'sandbox clock: redis subscriber error'));
    // The message is a cue, the database the truth: the offset is re-read, so a message from another deployment
    // that shares this Redis, prefix and passphrase (test runs on databases of their own) moves nothing.
    subscriber.on('message', (channel: string) => {
      if (channel !== this.channel) return;
      this.refresh().catch((e: Error) => this.o.logger.warn({ err: e.message }, 'sandbox clock: could not re-read the offset after an advance; the periodic re-read will'));
    });
    await subscriber.subscribe(this.channel);
    this.subscriber = subscriber;
  }
}
