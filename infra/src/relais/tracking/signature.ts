import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Inbound carrier webhooks (docs/relais.md, "Webhook mapping") are signed with HMAC-SHA256 over the raw body, under
 * the network's secret (RELAIS_WEBHOOK_SECRET_<NETWORK>), sent as `X-Relais-Signature: sha256=<hex>`. The carriers'
 * own push formats differ; whichever relay forwards a carrier's updates to us (the carrier's configurable signing,
 * or the poller that reads a tracking API) signs this one way.
 */
export const RELAIS_SIGNATURE_HEADER = 'x-relais-signature';
const PREFIX = 'sha256=';
const HEX_SHA256 = /^[0-9a-f]{64}$/;

const mac = (secret: string, rawBody: Buffer | string): Buffer => createHmac('sha256', secret).update(rawBody).digest();

/** The header value for a body: `sha256=<hex>`. */
export const signRelaisPayload = (secret: string, rawBody: Buffer | string): string => `${PREFIX}${mac(secret, rawBody).toString('hex')}`;

/**
 * Whether `header` is the body's signature under `secret`. Anything malformed (missing, another scheme, not 64 hex
 * digits) is false before any comparison; the comparison itself is timing-safe on two 32-byte buffers.
 */
export const verifyRelaisSignature = (secret: string, rawBody: Buffer | string, header: string | string[] | undefined | null): boolean => {
  if (typeof header !== 'string' || secret.length === 0) return false;
  const value = header.trim();
  if (!value.toLowerCase().startsWith(PREFIX)) return false;
  const hex = value.slice(PREFIX.length).toLowerCase();
  if (!HEX_SHA256.test(hex)) return false;
  const given = Buffer.from(hex, 'hex');
  const expected = mac(secret, rawBody);
  return given.length === expected.length && timingSafeEqual(given, expected);
};
