import type { Knex } from 'knex';
import { isUuid } from '@cagnotte/domain';

/** A row of `credentials`: the secrets kept outside the event log (see docs/auth.md). */
export interface CredentialRow {
  user_id: string;
  tenant_id: string;
  email: string;
  phone: string | null;
  password_hash: string;
  blocked_at: Date | null;
}

/** Lookups and changes of credentials, shared by login, password reset, SSO and the operator CLI. */
export class CredentialStore {
  constructor(private readonly knex: Knex) {}

  /** The tenant's credentials for this email, case-insensitively (the unique index is on lower(email)). */
  async byEmail(tenantId: string, email: string): Promise<CredentialRow | null> {
    return (await this.knex<CredentialRow>('credentials').where({ tenant_id: tenantId }).whereRaw('lower(email) = lower(?)', [email]).first()) ?? null;
  }

  async byUser(userId: string): Promise<CredentialRow | null> {
    if (!isUuid(userId)) return null;
    return (await this.knex<CredentialRow>('credentials').where({ user_id: userId }).first()) ?? null;
  }

  async setPassword(userId: string, passwordHash: string, trx: Knex | Knex.Transaction = this.knex): Promise<void> {
    await trx('credentials').where({ user_id: userId }).update({ password_hash: passwordHash, updated_at: trx.fn.now() });
  }

  async setBlocked(userId: string, blocked: boolean): Promise<void> {
    await this.knex('credentials').where({ user_id: userId }).update({ blocked_at: blocked ? this.knex.fn.now() : null, updated_at: this.knex.fn.now() });
  }
}
