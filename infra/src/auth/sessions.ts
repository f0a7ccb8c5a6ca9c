import type { Knex } from 'knex';

export interface SessionRecord {
  id: string;
  userId: string;
  tenantId: string;
  deviceId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

/** Server-side sessions keyed by the JWT's `sid`: revoking the row revokes the token. */
export class SessionStore {
  constructor(private readonly knex: Knex) {}

  async create(s: { id: string; userId: string; tenantId: string; deviceId: string; expiresAt: Date; ip: string | null; userAgent: string | null }) {
    await this.knex('sessions').insert({
      id: s.id,
      user_id: s.userId,
      tenant_id: s.tenantId,
      device_id: s.deviceId,
      expires_at: s.expiresAt,
      ip: s.ip,
      user_agent: s.userAgent?.slice(0, 300) ?? null,
    });
  }

  async findActive(id: string): Promise<SessionRecord | null> {
    const row = await this.knex('sessions').where({ id }).whereNull('revoked_at').where('expires_at', '>', this.knex.fn.now()).first();
    return row
      ? {
          id: row.id,
          userId: row.user_id,
          tenantId: row.tenant_id,
          deviceId: row.device_id,
          createdAt: row.created_at,
          expiresAt: row.expires_at,
          revokedAt: row.revoked_at,
        }
      : null;
  }

  async revoke(id: string): Promise<void> {
    await this.knex('sessions').where({ id }).whereNull('revoked_at').update({ revoked_at: this.knex.fn.now() });
  }

  /** Pass `trx` to revoke within a larger change (a password reset revokes in the same transaction). */
  async revokeAllForUser(userId: string, trx: Knex | Knex.Transaction = this.knex): Promise<number> {
    return trx('sessions').where({ user_id: userId }).whereNull('revoked_at').update({ revoked_at: trx.fn.now() });
  }
}
