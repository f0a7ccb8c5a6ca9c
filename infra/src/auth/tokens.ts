import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { UnauthorizedError } from '@cagnotte/domain';

export const ACCESS_TOKEN_TTL_SECONDS = 7 * 24 * 3600;
export const PASSWORD_RESET_TTL_SECONDS = 30 * 60;
export const SSO_CODE_TTL_SECONDS = 2 * 60;
/** How far in the future a token's `iat` may be (clocks of two servers disagree a little, not more). */
export const CLOCK_SKEW_SECONDS = 30;

/** Short-lived tokens bound to one purpose: a reset token is no access token, and the other way round. */
export type PurposeKind = 'password-reset' | 'partner-sso';

export interface PurposeClaims {
  sub: string;
  tid: string;
  jti: string;
  kind: PurposeKind;
  exp: number;
  /** password-reset: a fingerprint of the password hash it was issued against (a changed password kills it). */
  pwf?: string;
}

export interface AccessClaims {
  sub: string;
  sid: string;
  tid: string;
  did: string;
  kind: 'access';
}

export interface TokenSettings {
  secret: string;
  keyId: string;
  /** Keys retired from signing but still accepted until their tokens expire: kid → secret. */
  previousKeys?: Record<string, string>;
  issuer: string;
  audience: string;
}

/**
 * HS256 tokens: the algorithm is pinned on verify, issuer, audience and expiry are checked, `exp` and `iat` are
 * required and `iat` may not lie in the future (beyond CLOCK_SKEW_SECONDS), `kid` names the key.
 */
export class TokenService {
  constructor(private readonly settings: TokenSettings) {}

  signAccess(claims: Omit<AccessClaims, 'kind'>, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): { token: string; expiresAt: Date } {
    return { token: this.sign({ ...claims, kind: 'access' }, ttlSeconds), expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
  }

  signPurpose(kind: PurposeKind, claims: { sub: string; tid: string; pwf?: string }, ttlSeconds: number): { token: string; jti: string; expiresAt: Date } {
    const jti = randomUUID();
    return { token: this.sign({ ...claims, kind }, ttlSeconds, jti), jti, expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
  }

  /** Every token: HS256 with the current key's `kid`, issuer, audience and expiry. */
  private sign(payload: object, ttlSeconds: number, jwtid?: string): string {
    return jwt.sign(payload, this.settings.secret, {
      algorithm: 'HS256',
      keyid: this.settings.keyId,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      expiresIn: ttlSeconds,
      ...(jwtid ? { jwtid } : {}),
    });
  }

  /** Verifies a purpose token of exactly this kind; answers null (never throws) on any failure. */
  verifyPurpose(kind: PurposeKind, token: string): PurposeClaims | null {
    try {
      const p = this.verify(token) as Partial<PurposeClaims>;
      if (p.kind !== kind || typeof p.sub !== 'string' || typeof p.tid !== 'string' || typeof p.jti !== 'string' || typeof p.exp !== 'number') return null;
      return p as PurposeClaims;
    } catch {
      return null;
    }
  }

  private verify(token: string): unknown {
    const decoded = jwt.decode(token, { complete: true });
    const kid = decoded?.header.kid;
    const secret = kid === this.settings.keyId ? this.settings.secret : kid ? this.settings.previousKeys?.[kid] : undefined;
    if (!secret) throw new Error('unknown key id');
    const payload = jwt.verify(token, secret, { algorithms: ['HS256'], issuer: this.settings.issuer, audience: this.settings.audience });
    // jsonwebtoken accepts a token without `exp` (it never expires) and one issued in the future: we sign neither.
    if (typeof payload !== 'object' || typeof payload.exp !== 'number' || typeof payload.iat !== 'number') throw new Error('exp and iat are required');
    if (payload.iat > Math.floor(Date.now() / 1000) + CLOCK_SKEW_SECONDS) throw new Error('issued in the future');
    return payload;
  }

  verifyAccess(token: string): AccessClaims {
    let payload: unknown;
    try {
      payload = this.verify(token);
    } catch {
      throw new UnauthorizedError('Invalid or expired token', 'invalid_token');
    }
    const p = payload as Partial<AccessClaims>;
    if (p.kind !== 'access' || !p.sub || !p.sid || !p.tid || !p.did) throw new UnauthorizedError('Invalid or expired token', 'invalid_token');
    return p as AccessClaims;
  }
}
