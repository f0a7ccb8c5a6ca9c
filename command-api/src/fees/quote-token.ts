import { createHmac, timingSafeEqual } from 'node:crypto';
import type { QuotedReservation } from '@cagnotte/domain';

/**
 * A deposit quote's id is the quote itself, signed: `q1.<base64url JSON>.<base64url HMAC-SHA256>`. Placing a
 * reservation with it needs no storage (nothing to expire, nothing to lose in a restart), and a buyer cannot alter a
 * price, reuse another buyer's quote or carry it to another pool: the route verifies it, the decider holds the
 * placement to it on the pool's revision (domain/src/reservations/decide.ts, holdToQuote).
 */
export interface QuoteClaims extends QuotedReservation {
  poolId: string;
  buyerId: string;
}

const b64 = (b: Buffer) => b.toString('base64url');

export const makeQuoteSigner = (secret: string) => {
  // A key of its own, derived from the service secret: a quote id is never a valid token of any other kind.
  const key = createHmac('sha256', secret).update('cagnotte:deposit-quote:v1').digest();
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest();
  return {
    sign: (claims: QuoteClaims): string => {
      const payload = b64(Buffer.from(JSON.stringify(claims)));
      return `q1.${payload}.${b64(mac(payload))}`;
    },
    /** The claims of an intact quote id, or null (malformed, altered, or signed with another secret). */
    verify: (token: string): QuoteClaims | null => {
      const m = /^q1\.([A-Za-z0-9_-]+)\.([A-Za-z0-9_-]{43})$/.exec(token);
      if (!m) return null;
      const given = Buffer.from(m[2]!, 'base64url');
      const want = mac(m[1]!);
      if (given.length !== want.length || !timingSafeEqual(given, want)) return null;
      try {
        return JSON.parse(Buffer.from(m[1]!, 'base64url').toString('utf8')) as QuoteClaims;
      } catch {
        return null;
      }
    },
  };
};
export type QuoteSigner = ReturnType<typeof makeQuoteSigner>;
