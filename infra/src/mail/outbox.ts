import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import nodemailer from 'nodemailer';
import { isUuid } from '@cagnotte/domain';
import type { Logger } from '../logger';

export interface OutgoingMail {
  tenantId: string | null;
  kind: string;
  to: string;
  subject: string;
  text: string;
}

export interface MailRecord extends OutgoingMail {
  id: string;
  createdAt: Date;
  attempts: number;
  sentAt: Date | null;
  lastError: string | null;
}

interface MailRow {
  id: string;
  tenant_id: string | null;
  kind: string;
  to_address: string;
  subject: string;
  body_text: string;
  created_at: Date;
  attempts: number;
  sent_at: Date | null;
  last_error: string | null;
}

const toRecord = (r: MailRow): MailRecord => ({
  id: r.id,
  tenantId: r.tenant_id,
  kind: r.kind,
  to: r.to_address,
  subject: r.subject,
  text: r.body_text,
  createdAt: r.created_at,
  attempts: r.attempts,
  sentAt: r.sent_at,
  lastError: r.last_error,
});

/**
 * The transactional outbox for e-mail: a request writes its message here (in its own transaction when it
 * has one), and the worker delivers it. A crash between the two loses nothing and sends nothing twice
 * within one worker's claim.
 */
export class MailOutbox {
  constructor(private readonly knex: Knex) {}

  async enqueue(mail: OutgoingMail, trx: Knex | Knex.Transaction = this.knex): Promise<string> {
    const id = randomUUID();
    await trx('mail_outbox').insert({ id, tenant_id: mail.tenantId, kind: mail.kind, to_address: mail.to, subject: mail.subject, body_text: mail.text });
    return id;
  }

  /**
   * Queues the mail when `send`, else runs the very same statement and inserts nothing: the caller does the same
   * work whether or not a mail goes out (forgot-password must not tell, by its cost, whether an account exists).
   */
  async enqueueWhen(send: boolean, mail: OutgoingMail): Promise<string | null> {
    const id = randomUUID();
    const result = await this.knex.raw<{ rowCount: number }>(
      'INSERT INTO mail_outbox (id, tenant_id, kind, to_address, subject, body_text) SELECT ?, ?, ?, ?, ?, ? WHERE ?',
      [id, mail.tenantId, mail.kind, mail.to, mail.subject, mail.text, send],
    );
    return result.rowCount === 1 ? id : null;
  }

  async list(options: { to?: string; limit?: number } = {}): Promise<MailRecord[]> {
    const q = this.knex<MailRow>('mail_outbox').orderBy('created_at', 'desc').limit(Math.min(Math.max(options.limit ?? 20, 1), 500));
    if (options.to) q.whereRaw('lower(to_address) = lower(?)', [options.to]);
    return (await q).map(toRecord);
  }

  async get(id: string): Promise<MailRecord | null> {
    if (!isUuid(id)) return null;
    const row = await this.knex<MailRow>('mail_outbox').where({ id }).first();
    return row ? toRecord(row) : null;
  }
}

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

const MAX_ATTEMPTS = 8;

/**
 * Delivers due messages: claims a batch with FOR UPDATE SKIP LOCKED (several workers never send the same
 * row), sends each, marks it sent, or schedules a retry with a growing delay; after 8 attempts it stops
 * and keeps the last error for the operator.
 */
export class MailWorker {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;

  constructor(
    private readonly knex: Knex,
    private readonly transport: MailTransport,
    private readonly from: string,
    private readonly logger: Logger,
    private readonly intervalMs = 1000,
  ) {}

  /** One pass: answers how many messages were sent. */
  async deliverDue(batch = 20): Promise<number> {
    let sent = 0;
    await this.knex.transaction(async (trx) => {
      const rows: MailRow[] = await trx('mail_outbox')
        .whereNull('sent_at')
        .where('attempts', '<', MAX_ATTEMPTS)
        .where('next_attempt_at', '<=', trx.fn.now())
        .orderBy('next_attempt_at')
        .limit(batch)
        .forUpdate()
        .skipLocked();
      for (const row of rows) {
        try {
          await this.transport.send({ from: this.from, to: row.to_address, subject: row.subject, text: row.body_text });
          await trx('mail_outbox').where({ id: row.id }).update({ sent_at: trx.fn.now(), attempts: row.attempts + 1, last_error: null });
          sent++;
        } catch (e) {
          const attempts = row.attempts + 1;
          const message = e instanceof Error ? e.message.slice(0, 500) : 'send failed';
          this.logger.warn({ mailId: row.id, attempts, err: message }, 'mail delivery failed');
          await trx('mail_outbox')
            .where({ id: row.id })
            .update({ attempts, last_error: message, next_attempt_at: trx.raw(`now() + make_interval(secs => ?)`, [30 * attempts * attempts]) });
        }
      }
    });
    return sent;
  }

  start(): void {
    if (this.timer) return;
    const tick = () => {
      this.running = this.deliverDue()
        .then(() => undefined)
        .catch((e: unknown) => this.logger.error({ err: e }, 'mail worker pass failed'))
        .finally(() => {
          this.running = null;
          if (this.timer) {
            this.timer = setTimeout(tick, this.intervalMs);
            this.timer.unref();
          }
        });
    };
    this.timer = setTimeout(tick, this.intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}

/**
 * Starts delivering the outbox when SMTP_URL is set (the embedded app and the worker process both call it;
 * several workers share the work). Without it mail stays queued: in sandbox the operator reads it with
 * `pnpm cli mail list`. Answers the stop function.
 */
export const startMailDelivery = (deps: { knex: Knex; logger: Logger; config: { SMTP_URL?: string; MAIL_FROM: string; APP_ENV: string } }): (() => Promise<void>) => {
  if (!deps.config.SMTP_URL) {
    if (deps.config.APP_ENV === 'production') deps.logger.warn('SMTP_URL is not set: outgoing mail (password resets) stays queued in mail_outbox');
    return async () => undefined;
  }
  const worker = new MailWorker(deps.knex, smtpTransport(deps.config.SMTP_URL), deps.config.MAIL_FROM, deps.logger);
  worker.start();
  return () => worker.stop();
};
