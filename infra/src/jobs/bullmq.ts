import { Queue, Worker, type ConnectionOptions, type Job, type JobsOptions } from 'bullmq';
import { Redis } from 'ioredis';
import type { Logger } from '../logger';
import type { EnqueueOptions, JobHandler, JobQueue, JobWorker, QueueCounts, WorkerOptions } from './port';

export interface BullJobQueueOptions {
  /** redis://[user:pass@]host:port[/db] (rediss:// for TLS). */
  url: string;
  /**
   * Namespaces every key (config REDIS_KEY_PREFIX): bullmq refuses ioredis' own `keyPrefix`, so the prefix goes
   * through bullmq's `prefix` option; test runs and deployments sharing one Redis stay apart.
   */
  keyPrefix: string;
  logger: Logger;
  /** Queues reported by counts() even before this process uses them (the API reports the mail queue). */
  queues?: readonly string[];
  /** Attempts per job before it stays as failed (default 8). */
  attempts?: number;
  /** First retry delay; it doubles per attempt (default 30 s: 30 s, 1 min, 2 min … about an hour over 8 attempts). */
  retryBaseMs?: number;
  /** How long a completed job's key is kept, so that enqueuing the same key again is a no-op (default 7 days). */
  keepCompletedSeconds?: number;
  /** How long a job that failed all its attempts stays visible (default 30 days). */
  keepFailedSeconds?: number;
  /**
   * The clock `runAt` is measured by (the service's: the sandbox clock runs ahead of the system's once advanced);
   * the system clock by default.
   */
  clock?: () => Date;
  /**
   * Brings `clock` up to date (the sandbox clock re-reads its offset). Called before a job scheduled for a time that
   * the clock has not reached yet: an advance in another process promoted it, and the message telling this process
   * may still be on its way. The handler then reads the time the job was brought forward for.
   */
  syncClock?: () => Promise<unknown>;
}

/** Job options as stored, with the instant a job was scheduled for (by the queue's clock, ms): bullmq keeps unknown options. */
type TimedOptions = JobsOptions & { runAt?: number };

/** Delayed jobs read per round trip while bringing jobs forward. */
const DELAYED_PAGE = 500;

/** A key of ours as a bullmq job id: bullmq rejects ids with `:` and ids that parse as integers. Injective. */
export const jobIdOf = (key: string): string => {
  const id = encodeURIComponent(key);
  return /^\d+$/.test(id) ? `#${id}` : id;
};

const keyOf = (jobId: string): string => decodeURIComponent(jobId.startsWith('#') ? jobId.slice(1) : jobId);

const connectionOf = (url: string): ConnectionOptions => {
  const u = new URL(url);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  return {
    host: u.hostname.replace(/^\[|\]$/g, ''),
    port: u.port ? Number(u.port) : 6379,
    db: Number.isInteger(db) ? db : 0,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === 'rediss:' ? { tls: {} } : {}),
    // bullmq's blocking connections require it (a command waits across reconnects instead of failing).
    maxRetriesPerRequest: null,
  };
};

/** The retry delay before attempt `attemptsMade + 1` (bullmq's exponential backoff, no jitter). */
export const retryDelayMs = (baseMs: number, attemptsMade: number): number => Math.round(2 ** Math.max(0, attemptsMade - 1) * baseMs);

/** The jobs port on bullmq (Redis). One Queue per queue name, opened on first use; workers are started explicitly. */
export class BullJobQueue implements JobQueue {
  private readonly queues = new Map<string, Queue>();
  private readonly workers = new Set<Worker>();
  private readonly known: Set<string>;
  private readonly connection: ConnectionOptions;
  private readonly prefix: string;
  /** Failed attempts are counted in Redis, per queue, so /metrics on any process sees the workers' failures. */
  private counterClient: Redis | null = null;
  private closed = false;

  constructor(private readonly o: BullJobQueueOptions) {
    this.connection = connectionOf(o.url);
    this.prefix = `${o.keyPrefix}bull`;
    this.known = new Set(o.queues ?? []);
  }

  private queue(name: string): Queue {
    if (this.closed) throw new Error('the job queue is closed');
    let q = this.queues.get(name);
    if (!q) {
      const created = new Queue(name, {
        connection: this.connection,
        prefix: this.prefix,
        defaultJobOptions: {
          attempts: this.o.attempts ?? 8,
          backoff: { type: 'exponential', delay: this.o.retryBaseMs ?? 30_000 },
          removeOnComplete: { age: this.o.keepCompletedSeconds ?? 7 * 86_400 },
          removeOnFail: { age: this.o.keepFailedSeconds ?? 30 * 86_400 },
        },
      });
      created.on('error', (err) => this.o.logger.warn({ queue: name, err: err.message }, 'job queue error'));
      this.queues.set(name, created);
      this.known.add(name);
      q = created;
    }
    return q;
  }

  private counters(): Redis {
    this.counterClient ??= new Redis(this.o.url, { keyPrefix: this.o.keyPrefix, maxRetriesPerRequest: 2, lazyConnect: false });
    return this.counterClient;
  }

  private failedAttemptsKey = () => 'jobs:failed-attempts';

  private now = (): number => (this.o.clock ? this.o.clock().getTime() : Date.now());

  /**
   * A job's options: its delay from now, and for a job due at a time that time itself, so that a clock that moves
   * (bringForward) can tell when it is due.
   */
  private optionsOf(key: string, options: EnqueueOptions, now: number): TimedOptions {
    const delay = options.runAt ? options.runAt.getTime() - now : (options.delayMs ?? 0);
    return { jobId: jobIdOf(key), ...(delay > 0 ? { delay } : {}), ...(options.runAt ? { runAt: options.runAt.getTime() } : {}) };
  }

  async enqueue<P>(name: string, key: string, payload: P, options: EnqueueOptions = {}): Promise<string> {
    const opts = this.optionsOf(key, options, this.now());
    // A job id still known to the queue makes add() a no-op (it answers the existing job): the dedup by key.
    await this.queue(name).add(name, payload, opts);
    return opts.jobId!;
  }

  async enqueueMany<P>(name: string, jobs: ReadonlyArray<{ key: string; payload: P; options?: EnqueueOptions }>): Promise<void> {
    if (jobs.length === 0) return;
    const now = this.now();
    // addBulk: one MULTI for the lot; a job id the queue still knows is skipped, as add() skips it.
    await this.queue(name).addBulk(jobs.map((j) => ({ name, data: j.payload, opts: this.optionsOf(j.key, j.options ?? {}, now) })));
  }

  async bringForward(now: Date): Promise<number> {
    let promoted = 0;
    for (const name of [...this.known].sort()) {
      const queue = this.queue(name);
      // Pages from the end: a promoted job leaves the delayed set, so the ranks before it do not move.
      const total = await queue.getDelayedCount();
      for (let end = total - 1; end >= 0; end -= DELAYED_PAGE) {
        const page = await queue.getDelayed(Math.max(0, end - DELAYED_PAGE + 1), end);
        for (const job of page) if (await this.retime(job, now.getTime())) promoted++;
      }
    }
    return promoted;
  }

  /** Runs a job due at a time `now` has reached, re-times one not due yet; a retry's backoff stays in real time. */
  private async retime(job: Job, now: number): Promise<boolean> {
    const runAt = (job.opts as TimedOptions).runAt;
    if (typeof runAt !== 'number' || job.attemptsMade > 0) return false;
    try {
      if (runAt <= now) {
        await job.promote();
        return true;
      }
      await job.changeDelay(runAt - now);
    } catch (e) {
      // It left the delayed set meanwhile (a worker took it, or it was removed): nothing to bring forward.
      this.o.logger.debug({ queue: job.queueName, key: keyOf(job.id ?? ''), err: (e as Error).message }, 'bringForward: job no longer delayed');
    }
    return false;
  }

  startWorker<P>(name: string, handler: JobHandler<P>, options: WorkerOptions = {}): JobWorker {
    if (this.closed) throw new Error('the job queue is closed');
    this.known.add(name);
    const worker = new Worker(
      name,
      async (job: Job) => {
        const runAt = (job.opts as TimedOptions).runAt;
        if (this.o.syncClock && typeof runAt === 'number' && runAt > this.now()) await this.o.syncClock();
        await handler(job.data as P, { queue: name, key: keyOf(job.id ?? ''), attempt: Math.max(job.attemptsStarted, job.attemptsMade + 1) });
      },
      {
        connection: this.connection,
        prefix: this.prefix,
        concurrency: options.concurrency ?? 1,
        ...(options.lockMs ? { lockDuration: options.lockMs } : {}),
        ...(options.stalledCheckMs ? { stalledInterval: options.stalledCheckMs } : {}),
      },
    );
    worker.on('failed', (job, err) => {
      this.o.logger.warn({ queue: name, key: job ? keyOf(job.id ?? '') : null, attemptsMade: job?.attemptsMade, err: err.message }, 'job attempt failed');
      void this.counters()
        .hincrby(this.failedAttemptsKey(), name, 1)
        // Only the metric is lost: the job itself is retried by bullmq. Said, not swallowed.
        .catch((e: Error) => this.o.logger.warn({ queue: name, err: e.message }, 'job_failed_attempts_total not counted: Redis did not answer'));
    });
    worker.on('error', (err) => this.o.logger.warn({ queue: name, err: err.message }, 'job worker error'));
    this.workers.add(worker);
    return {
      close: async ({ force = false } = {}) => {
        this.workers.delete(worker);
        await worker.close(force);
      },
    };
  }

  async counts(): Promise<Record<string, QueueCounts>> {
    const names = [...this.known].sort();
    const failedAttempts = names.length > 0 ? await this.counters().hmget(this.failedAttemptsKey(), ...names) : [];
    const out: Record<string, QueueCounts> = {};
    await Promise.all(
      names.map(async (name, i) => {
        const c = await this.queue(name).getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed', 'prioritized');
        out[name] = {
          waiting: (c.waiting ?? 0) + (c.prioritized ?? 0),
          active: c.active ?? 0,
          delayed: c.delayed ?? 0,
          failed: c.failed ?? 0,
          completed: c.completed ?? 0,
          failedAttempts: Number(failedAttempts[i] ?? 0),
        };
      }),
    );
    return out;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.workers].map((w) => w.close()));
    this.workers.clear();
    await Promise.allSettled([...this.queues.values()].map((q) => q.close()));
    this.queues.clear();
    if (this.counterClient) await this.counterClient.quit().catch(() => this.counterClient?.disconnect());
  }
}
