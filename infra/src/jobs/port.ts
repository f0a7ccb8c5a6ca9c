/**
 * The jobs port: background work that must happen once an event or a row exists (deliver a mail, and later on
 * the money path: a pool's deadline, a reservation's expiry, the end of an inspection period).
 *
 * Delivery is AT LEAST ONCE, made effectively once by two layers (docs/jobs.md):
 *  1. the queue: every job is keyed by the id of the event or row that caused it; enqueuing a key that is still
 *     known (waiting, delayed, active, or finished within the keep window) does nothing;
 *  2. the handler: a job can still run twice (a worker crashed after its side effect and before the queue heard
 *     of it, or the same key came back after the keep window), so every handler checks its own effect first.
 */

export interface EnqueueOptions {
  /** Run no earlier than this many milliseconds from now. */
  delayMs?: number;
  /** Run no earlier than this instant by the queue's clock (wins over delayMs). A past instant runs at once. */
  runAt?: Date;
}

export interface JobContext {
  queue: string;
  /** The key it was enqueued with (the causing event's or row's id). */
  key: string;
  /** 1 on the first run, then 2, 3… on retries (a crashed run counts too). */
  attempt: number;
}

/** Throw to fail the attempt: the job is retried with backoff, and after its last attempt it stays as failed. */
export type JobHandler<P> = (payload: P, context: JobContext) => Promise<void>;

export interface WorkerOptions {
  /** Jobs this worker runs at the same time (default 1). */
  concurrency?: number;
  /**
   * How long a running job's lock lasts without renewal (the worker renews it while the handler runs). A worker
   * that dies leaves the lock to expire: its job is then retried by another worker. Default 30 s.
   */
  lockMs?: number;
  /** How often this worker looks for jobs whose lock expired (default 30 s). */
  stalledCheckMs?: number;
}

export interface JobWorker {
  /** Stops taking jobs and waits for the running ones; `force` abandons them (they run again elsewhere). */
  close(options?: { force?: boolean }): Promise<void>;
}

export interface QueueCounts {
  waiting: number;
  active: number;
  delayed: number;
  /** Jobs that failed their last attempt and are kept for the operator. */
  failed: number;
  completed: number;
  /** Failed attempts since the queue's keys were created (retried ones included): a counter. */
  failedAttempts: number;
}

export interface JobQueue {
  /** Queues one job; a second enqueue of the same key on the same queue is a no-op. Answers the queue's job id. */
  enqueue<P>(queue: string, key: string, payload: P, options?: EnqueueOptions): Promise<string>;
  /** Queues several jobs of one queue in one round trip (each as enqueue would: a key the queue knows is a no-op). */
  enqueueMany<P>(queue: string, jobs: ReadonlyArray<{ key: string; payload: P; options?: EnqueueOptions }>): Promise<void>;
  startWorker<P>(queue: string, handler: JobHandler<P>, options?: WorkerOptions): JobWorker;
  /**
   * The clock moved (the sandbox clock's advance): every delayed job scheduled for a time (`runAt`) that `now` has
   * reached runs at once, and the others are re-timed against `now`. Jobs delayed by a duration (`delayMs`, a
   * retry's backoff) keep their delay. Answers how many jobs were brought forward.
   */
  bringForward(now: Date): Promise<number>;
  /** Per queue: every queue this process declared or used. */
  counts(): Promise<Record<string, QueueCounts>>;
  /** Closes the workers started here (waiting for their running jobs) and every connection. */
  close(): Promise<void>;
}

/** Queue names used by the service (a queue name is a Redis key part: no `:`). */
export const JOB_QUEUES = {
  mail: 'mail',
  /** A reservation's expiry: delayed until it, keyed by the reservation (command-api/src/reservations/expiry.ts). */
  reservationExpiry: 'reservation-expiry',
  /** The escrow's timers (command-api/src/escrow/jobs.ts), each keyed by the event that set it (projectors/src/escrow/timers.ts). */
  poolDeadline: 'pool-deadline',
  inspectionEnd: 'inspection-end',
  disputeLapse: 'dispute-lapse',
  escrowRecovery: 'escrow-recovery',
  /** The invoices a released reservation makes (command-api/src/invoicing/jobs.ts), keyed `invoice:<ReservationSettled id>` (projectors/src/invoicing/issuer.ts). */
  invoice: 'invoice',
  /** A payment request's due time (command-api/src/requests/jobs.ts), keyed by the request (projectors/src/requests/timers.ts). */
  requestExpiry: 'request-expiry',
  /** Webhook attempts (command-api/src/webhooks/delivery.ts), keyed `<endpointId>:<eventId>[:<attempt>]` (docs/webhooks.md). */
  webhookDeliveries: 'webhook-deliveries',
  /** The periodic check of the pools' directory pick-up points (command-api/src/relais/pool-points.ts), keyed by its period. */
  relaisPointCheck: 'relais-point-check',
} as const;
