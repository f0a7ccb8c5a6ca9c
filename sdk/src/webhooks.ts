/**
 * Verifying a webhook delivery (Standard Webhooks 1.0, as docs/webhooks.md says the service signs): `webhook-id`,
 * `webhook-timestamp` (unix seconds) and `webhook-signature`, a space-separated list of `v1,<base64 HMAC-SHA256>`
 * (one per active secret, keyed with the bytes of the base64 after `whsec_`) and `v1a,<base64 ed25519>` (the tenant's
 * key, public as `whpk_…` at GET /v1/webhooks/signing-key), each over `${id}.${timestamp}.${body}`.
 */
import { createHmac, createPublicKey, timingSafeEqual, verify as verifySignature, type KeyObject } from 'node:crypto';
import { WebhookVerificationError } from './errors';

/** Node's `req.headers`, a fetch `Headers`, or a plain map (any case). */
export type WebhookHeaders =
  | Headers
  | Record<string, string | string[] | undefined>
  | { 'webhook-id': string; 'webhook-timestamp': string; 'webhook-signature': string };

export interface VerifyOptions {
  /** How far the timestamp may be from now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** The clock (tests). */
  now?: () => Date;
}

const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

const header = (headers: WebhookHeaders, name: string): string | undefined => {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers) as Array<[string, string | string[] | undefined]>) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
};

const hmacKey = (secret: string): Buffer => {
  const key = Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
  if (key.length === 0) throw new WebhookVerificationError('the webhook secret is empty');
  return key;
};

const ed25519Key = (publicKey: string): KeyObject => {
  const raw = Buffer.from(publicKey.slice('whpk_'.length), 'base64');
  if (raw.length !== 32) throw new WebhookVerificationError('an ed25519 webhook public key (whpk_…) is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
};

const sameBytes = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * Checks a delivery and answers its event, parsed. `secret` is the endpoint's `whsec_…` (checks the `v1` HMACs) or
 * the tenant's `whpk_…` public key (checks the `v1a` ed25519 signatures); during a rotation pass both secrets
 * (any one verifying is enough). `payload` must be the body exactly as received, before any JSON parsing.
 * Throws WebhookVerificationError when a header is missing, the timestamp is more than 5 minutes away from now, or
 * no signature verifies.
 */
export const verifyWebhook = <T = unknown>(payload: string | Buffer, headers: WebhookHeaders, secret: string | string[], options: VerifyOptions = {}): T => {
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!id || !timestamp || !signatures) throw new WebhookVerificationError('missing webhook-id, webhook-timestamp or webhook-signature');
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError('webhook-timestamp is not unix seconds');
  const now = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const sentAt = Number(timestamp);
  if (sentAt < now - tolerance) throw new WebhookVerificationError('webhook-timestamp is too old');
  if (sentAt > now + tolerance) throw new WebhookVerificationError('webhook-timestamp is too far in the future');

  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  const content = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, 'utf8'), body]);
  const offered = signatures
    .split(' ')
    .filter(Boolean)
    .flatMap((entry) => {
      const comma = entry.indexOf(',');
      return comma < 0 ? [] : [{ version: entry.slice(0, comma), signature: Buffer.from(entry.slice(comma + 1), 'base64') }];
    });

  const verified = (Array.isArray(secret) ? secret : [secret]).some((key) => {
    if (key.startsWith('whpk_')) {
      const publicKey = ed25519Key(key);
      return offered.some((s) => s.version === 'v1a' && s.signature.length === 64 && verifySignature(null, content, publicKey, s.signature));
    }
    const expected = createHmac('sha256', hmacKey(key)).update(content).digest();
    return offered.some((s) => s.version === 'v1' && sameBytes(s.signature, expected));
  });
  if (!verified) throw new WebhookVerificationError('no signature matches');
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch {
    throw new WebhookVerificationError('the payload is not JSON');
  }
};
