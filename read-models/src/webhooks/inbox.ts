import type { Knex } from 'knex';
import { z } from 'zod';
import { WEBHOOK_TABLES } from './endpoints';

/**
 * The sandbox inbox (docs/webhooks.md): deliveries the service received at `/sandbox/webhook-inbox/{token}`, as they
 * came (headers and the raw body, so a partner can check the signature on the exact bytes), the newest first.
 */
export const INBOX_KEEP_PER_TOKEN = 100;
export const INBOX_MAX_BODY_BYTES = 64 * 1024;
/** `ibx_` + base64url: 16 random bytes and a 10-byte MAC proving the service issued it. */
export const INBOX_TOKEN = /^ibx_[A-Za-z0-9_-]{35}$/;

export const InboxDeliverySchema = z
  .object({
    id: z.string().describe('The delivery’s place in the inbox (a decimal number, newest highest)'),
    receivedAt: z.string(),
    headers: z.record(z.string(), z.string()),
    body: z.string().describe('The raw body as received (UTF-8)'),
  })
  .describe('InboxDelivery');
export type InboxDelivery = z.infer<typeof InboxDeliverySchema>;

export class WebhookInboxReader {
  constructor(private readonly knex: Knex) {}

  async latest(token: string, limit = INBOX_KEEP_PER_TOKEN): Promise<InboxDelivery[]> {
    const rows: Array<{ id: string; received_at: Date; headers: Record<string, string>; body: string }> = await this.knex(WEBHOOK_TABLES.inbox)
      .where({ token })
      .orderBy('id', 'desc')
      .limit(limit);
    return rows.map((r) => ({ id: String(r.id), receivedAt: new Date(r.received_at).toISOString(), headers: r.headers, body: r.body }));
  }
}
