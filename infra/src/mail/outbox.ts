import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { isUuid } from '@cagnotte/domain';

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
 * has one); the relay hands each row to the mail job queue and the mail job sends it (./delivery.ts,
 * docs/jobs.md). A crash between the two loses nothing.
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
