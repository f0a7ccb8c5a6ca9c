import type { EnqueueOptions, JobHandler, JobQueue, JobWorker, WorkerOptions } from './port';

/**
 * Work due at a time, on the jobs port: a delayed job keyed by the event that caused it, e.g.
 * `pool-deadline:<eventId>`. Scheduling the same (kind, event) twice schedules it once, so a projector or process
 * manager may schedule on every (re)delivery of the event. The handler must still be idempotent (docs/jobs.md):
 * it decides from the streams at run time (is the pool still open? is the reservation still unpaid?), never from
 * the payload alone.
 */
export class Scheduler<P> {
  constructor(
    private readonly jobs: JobQueue,
    /** One queue per kind of scheduled work keeps their depth and failures apart in /metrics. */
    readonly queue: string,
  ) {}

  /** The job's key: what caused it (`<kind>:<eventId>`). */
  static keyOf(kind: string, eventId: string): string {
    return `${kind}:${eventId}`;
  }

  /** Runs `payload` at or after `runAt` (at once if past). Answers the queue's job id. */
  at(kind: string, eventId: string, runAt: Date, payload: P): Promise<string> {
    const options: EnqueueOptions = { runAt };
    return this.jobs.enqueue(this.queue, Scheduler.keyOf(kind, eventId), payload, options);
  }

  /** Starts a worker for this queue in this process (the processes that run background work call it). */
  run(handler: JobHandler<P>, options?: WorkerOptions): JobWorker {
    return this.jobs.startWorker(this.queue, handler, options);
  }
}
