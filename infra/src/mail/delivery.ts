import type { Knex } from 'knex';
import nodemailer from 'nodemailer';
import type { Logger } from '../logger';
import { retryDelayMs } from '../jobs/bullmq';
import { JOB_QUEUES, type JobQueue, type JobWorker } from '../jobs/port';

/**
 * Mail delivery on the jobs port (docs/jobs.md):
 *  outbox row (written in the caller's transaction) → relay (hands each row to the `mail` queue once, keyed by the
 *  row id) → mail job (loads the row, sends SMTP outside any transaction, marks it sent in one short statement).
 * At least once: a crash between the SMTP answer and the mark sends that mail again on the retry; a job for a row
 * already marked sent sends nothing.
 */

export interface MailTransport {
  readonly name: string;
  send(mail: { from: string; to: string; subject: string; text: string }): Promise<void>;
}

/** SMTP through nodemailer: `SMTP_URL` such as smtps://user:pass@smtp.example.com:465. */
export const smtpTransport = (url: string): MailTransport => {
  const transporter = nodemailer.createTransport(url);
  return {
    name: 'smtp',
    async send(mail) {
      await transporter.sendMail(mail);
    },
  };
};

export interface MailJob {
  /** The mail_outbox row id (also the job's key). */
  id: string;
}

/** Hands outbox rows to the mail queue. Several relays may run: the job key makes a double handover a no-op. */
export class MailRelay {
  constructor(
    private readonly knex: Knex,
    private readonly jobs: JobQueue,
    /** Rows that used up their attempts (before jobs, or as failed jobs) are not handed over again. */
    private readonly maxAttempts: number,
  ) {}

  /**
   * One pass: rows never handed over, then (safety net) rows handed over 10+ minutes ago and still unsent, in case
   * their job was lost (Redis flushed): re-enqueuing a job the queue still knows (delayed for a retry, failed and
   * kept) is a no-op. Answers how many rows it handed over.
   */
  async relayPending(batch = 100): Promise<number> {
    const fresh: Array<{ id: string }> = await this.knex('mail_outbox')
      .select('id')
      .whereNull('handed_over_at')
      .whereNull('sent_at')
      .where('attempts', '<', this.maxAttempts)
      .orderBy('created_at')
      .limit(batch);
    const stale: Array<{ id: string }> = await this.knex('mail_outbox')
      .select('id')
      .whereNull('sent_at')
      .where('attempts', '<', this.maxAttempts)
      .where('handed_over_at', '<', this.knex.raw(`now() - interval '10 minutes'`))
      .orderBy('handed_over_at')
      .limit(batch);
    const ids = [...fresh, ...stale].map((r) => r.id);
    // Enqueue first, mark after: a crash in between hands the row over again, which the job key absorbs.
    for (const id of ids) await this.jobs.enqueue<MailJob>(JOB_QUEUES.mail, id, { id });
    if (ids.length > 0) await this.knex('mail_outbox').whereIn('id', ids).whereNull('sent_at').update({ handed_over_at: this.knex.fn.now() });
    return fresh.length;
  }
}

export type DeliveryOutcome = 'sent' | 'already-sent' | 'missing';

/** The mail job's handler: idempotent by the row's `sent_at`. */
export class MailSender {
  constructor(
    private readonly knex: Knex,
    private readonly transport: MailTransport,
    private readonly from: string,
    private readonly logger: Logger,
    /** The jobs' first retry delay: recorded as the row's next_attempt_at for the operator. */
    private readonly retryBaseMs: number,
  ) {}

  async deliver(id: string): Promise<DeliveryOutcome> {
    const row: { to_address: string; subject: string; body_text: string; sent_at: Date | null; attempts: number } | undefined = await this.knex('mail_outbox')
      .select('to_address', 'subject', 'body_text', 'sent_at', 'attempts')
      .where({ id })
      .first();
    if (!row) return 'missing';
    if (row.sent_at) return 'already-sent';
    try {
      // No transaction and no row lock is held here: a slow SMTP server holds nothing in PostgreSQL.
      await this.transport.send({ from: this.from, to: row.to_address, subject: row.subject, text: row.body_text });
    } catch (e) {
      const attempts = row.attempts + 1;
      const message = e instanceof Error ? e.message.slice(0, 500) : 'send failed';
      this.logger.warn({ mailId: id, attempts, err: message }, 'mail delivery failed');
      await this.knex.raw(
        'UPDATE mail_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at = now() + make_interval(secs => ?) WHERE id = ? AND sent_at IS NULL',
        [message, retryDelayMs(this.retryBaseMs, attempts) / 1000, id],
      );
      throw e; // the job retries with backoff, then stays failed
    }
    await this.knex.raw('UPDATE mail_outbox SET sent_at = now(), attempts = attempts + 1, last_error = NULL WHERE id = ? AND sent_at IS NULL', [id]);
    return 'sent';
  }
}

export interface MailDeliveryDeps {
  knex: Knex;
  jobs: JobQueue;
  logger: Logger;
  config: { SMTP_URL?: string; MAIL_FROM: string; APP_ENV: string; JOBS_ATTEMPTS: number; JOBS_RETRY_BASE_MS: number; MAIL_WORKER_CONCURRENCY: number };
}

/** Runs the relay every `intervalMs` and a mail worker; answers the stop function. */
export const runMailDelivery = (deps: MailDeliveryDeps, transport: MailTransport, options: { intervalMs?: number } = {}): (() => Promise<void>) => {
  const { knex, jobs, logger, config } = deps;
  const relay = new MailRelay(knex, jobs, config.JOBS_ATTEMPTS);
  const sender = new MailSender(knex, transport, config.MAIL_FROM, logger, config.JOBS_RETRY_BASE_MS);
  const worker: JobWorker = jobs.startWorker<MailJob>(JOB_QUEUES.mail, async ({ id }) => void (await sender.deliver(id)), {
    concurrency: config.MAIL_WORKER_CONCURRENCY,
  });
  const intervalMs = options.intervalMs ?? 1000;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  let stopped = false;
  const tick = () => {
    running = relay
      .relayPending()
      .then(() => undefined)
      .catch((e: unknown) => logger.error({ err: e }, 'mail relay pass failed'))
      .finally(() => {
        running = null;
        if (!stopped) {
          timer = setTimeout(tick, intervalMs);
          timer.unref();
        }
      });
  };
  timer = setTimeout(tick, 0);
  timer.unref();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    // A pass blocked on an unreachable Redis (bullmq's commands wait across reconnects) must not hold shutdown.
    await Promise.race([running, new Promise((r) => setTimeout(r, 5_000).unref())]);
    await worker.close();
  };
};

/**
 * Starts delivering the outbox when SMTP_URL is set (the embedded app and the worker process both call it;
 * several processes share the work). Without it mail stays queued: in sandbox the operator reads it with
 * `pnpm cli mail list`. Answers the stop function.
 */
export const startMailDelivery = (deps: MailDeliveryDeps): (() => Promise<void>) => {
  if (!deps.config.SMTP_URL) {
    if (deps.config.APP_ENV === 'production') deps.logger.warn('SMTP_URL is not set: outgoing mail (password resets) stays queued in mail_outbox');
    return async () => undefined;
  }
  return runMailDelivery(deps, smtpTransport(deps.config.SMTP_URL));
};
