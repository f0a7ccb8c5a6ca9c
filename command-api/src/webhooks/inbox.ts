import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request } from 'express';
import type { Knex } from 'knex';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '@cagnotte/domain';
import { PayloadTooLargeError, defineRoute, rawBodyOf, type RateLimiter, type RouteDef } from '@cagnotte/infra';
import { INBOX_KEEP_PER_TOKEN, INBOX_MAX_BODY_BYTES, INBOX_TOKEN, WEBHOOK_TABLES } from '@cagnotte/read-models';

export const SANDBOX_INBOX_PATH = '/sandbox/webhook-inbox/';

/**
 * Inbox tokens are `ibx_` + base64url of 16 random bytes and a 10-byte MAC of them under a key derived from
 * WEBHOOK_ENCRYPTION_KEY: the inbox stores deliveries only for tokens it issued, without a table of tokens.
 */
export class InboxTokens {
  private readonly key: Buffer;

  constructor(encryptionKey: Buffer) {
    this.key = createHash('sha256').update('cagnotte webhook inbox tokens').update(encryptionKey).digest();
  }

  issue(): string {
    const nonce = randomBytes(16);
    return `ibx_${Buffer.concat([nonce, this.mac(nonce)]).toString('base64url')}`;
  }

  isIssued(token: string): boolean {
    if (!INBOX_TOKEN.test(token)) return false;
    const raw = Buffer.from(token.slice(4), 'base64url');
    // 26 bytes take 35 base64 characters with 2 spare bits in the last: only the canonical spelling is the token (else
    // two tokens, differing in those bits, would name one inbox).
    return raw.length === 26 && raw.toString('base64url') === token.slice(4) && timingSafeEqual(raw.subarray(16), this.mac(raw.subarray(0, 16)));
  }

  private mac(nonce: Buffer): Buffer {
    return createHmac('sha256', this.key).update(nonce).digest().subarray(0, 10);
  }
}

/** Headers kept with a delivery: what a receiver reads (never a credential that might ride along). */
const keptHeaders = (req: Request): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'authorization' || name === 'cookie' || value === undefined) continue;
    out[name] = (Array.isArray(value) ? value.join(', ') : value).slice(0, 2000);
  }
  return out;
};

/** The body as received, at most `limit` bytes: the JSON parser's bytes, else the stream read here. */
export const readRawBody = async (req: Request, limit: number): Promise<Buffer> => {
  const parsed = rawBodyOf(req);
  if (parsed) {
    if (parsed.length > limit) throw new PayloadTooLargeError(limit);
    return parsed;
  }
  if (!req.readable) return Buffer.alloc(0);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) throw new PayloadTooLargeError(limit);
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
};

const TAGS = ['Webhooks (sandbox inbox)'];

/**
 * The sandbox inbox (docs/webhooks.md): a URL of the service itself that an endpoint may point at, so a partner sees
 * signed deliveries before writing a receiver. Served only when APP_ENV is not production.
 */
export const makeInboxCommandRoutes = (deps: { knex: Knex; tokens: InboxTokens; rateLimiter: RateLimiter }): RouteDef[] => [
  defineRoute({
    method: 'post',
    path: '/sandbox/webhook-inbox',
    operationId: 'createSandboxWebhookInbox',
    summary: 'Open a sandbox webhook inbox',
    description: 'Sandbox only. Answers a token and its URL: use the URL as a webhook endpoint’s `url` (http is allowed for it), then read the deliveries with GET on it.',
    tags: TAGS,
    auth: 'none',
    rateLimit: { name: 'webhook-inbox-open', limit: 30, windowSeconds: 60 },
    success: { status: 201, description: 'A new inbox', schema: z.object({ token: z.string(), url: z.string() }) },
    errors: [404, 429],
    handler: async (ctx) => {
      const token = deps.tokens.issue();
      return { status: 201, data: { token, url: `${ctx.req.protocol}://${ctx.req.get('host')}${SANDBOX_INBOX_PATH}${token}` } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/sandbox/webhook-inbox/{token}',
    summary: 'Deliver to a sandbox webhook inbox',
    description: `Sandbox only. Stores the request's headers and raw body (at most ${INBOX_MAX_BODY_BYTES} bytes; 413 beyond) and keeps the last ${INBOX_KEEP_PER_TOKEN} per inbox. At most 300 deliveries a minute per inbox.`,
    tags: TAGS,
    auth: 'none',
    params: z.object({ token: z.string().max(100) }),
    success: { status: 200, description: 'Stored', schema: z.object({ received: z.literal(true), id: z.string() }) },
    errors: [400, 404, 413, 429],
    handler: async (ctx) => {
      const { token } = ctx.params as { token: string };
      if (!deps.tokens.isIssued(token)) throw new NotFoundError('webhook_inbox');
      await deps.rateLimiter.hit({ name: 'webhook-inbox-deliver', limit: 300, windowSeconds: 60 }, token);
      const raw = await readRawBody(ctx.req, INBOX_MAX_BODY_BYTES);
      const body = raw.toString('utf8');
      if (body.includes('\u0000')) throw new ValidationError({ body: ['must not contain NUL characters'] });
      const id = await deps.knex.transaction(async (trx) => {
        const [row] = (await trx(WEBHOOK_TABLES.inbox).insert({ token, headers: JSON.stringify(keptHeaders(ctx.req)), body }).returning('id')) as Array<{ id: string }>;
        // Only the newest deliveries stay.
        await trx.raw(`DELETE FROM ${WEBHOOK_TABLES.inbox} WHERE token = ? AND id < (SELECT min(id) FROM (SELECT id FROM ${WEBHOOK_TABLES.inbox} WHERE token = ? ORDER BY id DESC LIMIT ?) AS kept)`, [
          token,
          token,
          INBOX_KEEP_PER_TOKEN,
        ]);
        return String(row!.id);
      });
      return { data: { received: true, id } };
    },
  }),
];
