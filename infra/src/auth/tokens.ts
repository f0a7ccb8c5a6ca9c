import jwt from 'jsonwebtoken';
import { UnauthorizedError } from '@cagnotte/domain';

export const ACCESS_TOKEN_TTL_SECONDS = 7 * 24 * 3600;

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
  issuer: string;
  audience: string;
}

/** HS256 access tokens: the algorithm is pinned on verify, issuer, audience and expiry are checked, `kid` names the key. */
export class TokenService {
  constructor(private readonly settings: TokenSettings) {}

  signAccess(claims: Omit<AccessClaims, 'kind'>, ttlSeconds = ACCESS_TOKEN_TTL_SECONDS): { token: string; expiresAt: Date } {
    const token = jwt.sign({ ...claims, kind: 'access' }, this.settings.secret, {
      algorithm: 'HS256',
      keyid: this.settings.keyId,
      issuer: this.settings.issuer,
      audience: this.settings.audience,
      expiresIn: ttlSeconds,
    });
    return { token, expiresAt: new Date(Date.now() + ttlSeconds * 1000) };
  }

  verifyAccess(token: string): AccessClaims {
    let payload: unknown;
    try {
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || decoded.header.kid !== this.settings.keyId) throw new Error('unknown key id');
      payload = jwt.verify(token, this.settings.secret, {
        algorithms: ['HS256'],
        issuer: this.settings.issuer,
        audience: this.settings.audience,
      });
    } catch {
      throw new UnauthorizedError('Invalid or expired token', 'invalid_token');
    }
    const p = payload as Partial<AccessClaims>;
    if (p.kind !== 'access' || !p.sub || !p.sid || !p.tid || !p.did) throw new UnauthorizedError('Invalid or expired token', 'invalid_token');
    return p as AccessClaims;
  }
}
