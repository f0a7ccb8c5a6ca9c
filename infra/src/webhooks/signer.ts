import { createHmac, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { WEBHOOK_PUBLIC_KEY_PREFIX, WEBHOOK_SECRET_PREFIX } from './keyring';

export interface SignedDeliveryHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** What is signed (Standard Webhooks): `{id}.{timestamp}.{body}`, the body exactly as sent. */
const signedContent = (id: string, timestamp: number, body: string | Buffer): Buffer =>
  Buffer.concat([Buffer.from(`${id}.${timestamp}.`), typeof body === 'string' ? Buffer.from(body, 'utf8') : body]);

const secretBytes = (secret: string): Buffer => {
  if (!secret.startsWith(WEBHOOK_SECRET_PREFIX)) throw new Error('a webhook secret starts with whsec_');
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  if (key.length === 0) throw new Error('empty webhook secret');
  return key;
};

/**
 * The Standard Webhooks headers of one delivery: `webhook-id` (the event id, the same on every retry and replay),
 * `webhook-timestamp` (unix seconds of this attempt) and `webhook-signature`, space-separated: `v1,<base64 HMAC-SHA256>`
 * per active secret (both sign during a rotation), then `v1a,<base64 ed25519>` with the tenant's key when given.
 */
export const signDelivery = (input: { id: string; timestamp: number; body: string | Buffer; secrets: string[]; ed25519?: KeyObject }): SignedDeliveryHeaders => {
  if (!Number.isInteger(input.timestamp) || input.timestamp < 0) throw new Error('timestamp must be unix seconds');
  if (/[\s,.]/.test(input.id) || input.id.length === 0) throw new Error('a webhook id has no space, comma or dot');
  if (input.secrets.length === 0 && !input.ed25519) throw new Error('nothing to sign with');
  const content = signedContent(input.id, input.timestamp, input.body);
  const signatures = input.secrets.map((s) => `v1,${createHmac('sha256', secretBytes(s)).update(content).digest('base64')}`);
  if (input.ed25519) signatures.push(`v1a,${sign(null, content, input.ed25519).toString('base64')}`);
  return { 'webhook-id': input.id, 'webhook-timestamp': String(input.timestamp), 'webhook-signature': signatures.join(' ') };
};

/** The KeyObject of a `whpk_…` public key (raw 32 bytes, base64). */
export const ed25519PublicKey = (publicKey: string): KeyObject => {
  if (!publicKey.startsWith(WEBHOOK_PUBLIC_KEY_PREFIX)) throw new Error('an ed25519 webhook public key starts with whpk_');
  const raw = Buffer.from(publicKey.slice(WEBHOOK_PUBLIC_KEY_PREFIX.length), 'base64');
  if (raw.length !== 32) throw new Error('an ed25519 public key is 32 bytes');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
};

/** True when one `v1a` signature of the header verifies with the `whpk_…` key (a receiver's check; the specs use it). */
export const verifyEd25519Delivery = (input: { headers: SignedDeliveryHeaders; body: string | Buffer; publicKey: string }): boolean => {
  const key = ed25519PublicKey(input.publicKey);
  const content = signedContent(input.headers['webhook-id'], Number(input.headers['webhook-timestamp']), input.body);
  return input.headers['webhook-signature']
    .split(' ')
    .map((s) => s.split(','))
    .some(([version, sig]) => version === 'v1a' && !!sig && verify(null, content, key, Buffer.from(sig, 'base64')));
};
