import type { Knex } from 'knex';
import type pg from 'pg';

export interface SessionRecord {
  id: string;
  userId: string;
  tenantId: string;
  deviceId: string;
  createdAt: Date;
  expiresAt: Date;
  revokedAt: Date | null;
}

interface ActiveRow {
  id: string;
  user_id: string;
  tenant_id: string;
  device_id: string;
  created_at: Date;
  expires_at: Date;
}

/**
 * Every authenticated request asks this: one named statement, prepared once per connection, so a look-up is one
 * round trip with no SQL built per call. No cache in front: a revoke counts from the very next request, in every process.
 */
const FIND_ACTIVE = {
  name: 'session_find_active',
  text: 'SELECT id, user_id, tenant_id, device_id, created_at, expires_at FROM sessions WHERE id = $1 AND revoked_at IS NULL AND expires_at > now()',
};

/** Server-side sessions keyed by the JWT's `sid`: revoking the row revokes the token. */
export class SessionStore {
  constructor(
    private readonly knex: Knex,
    /** The hot look-up's pool (findActive). */
    private readonly pool: pg.Pool,
  ) {}

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

  /** The session if it exists, is not revoked and has not expired. `id` must be a uuid (the column's type). */
  async findActive(id: string): Promise<SessionRecord | null> {
    const row = (await this.pool.query<ActiveRow>({ ...FIND_ACTIVE, values: [id] })).rows[0];
    return row
      ? { id: row.id, userId: row.user_id, tenantId: row.tenant_id, deviceId: row.device_id, createdAt: row.created_at, expiresAt: row.expires_at, revokedAt: null }
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
