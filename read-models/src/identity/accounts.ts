import { z } from 'zod';
import type { Knex } from 'knex';
import { isUuid } from '../shared';

export const ACCOUNTS_TABLE = 'rm_accounts';

export interface AccountRow {
  id: string;
  tenant_id: string;
  email: string;
  phone: string | null;
  display_name: string;
  role: string;
  account_type: string;
  country: string;
  currency: string;
  timezone: string;
  signup_source: string;
  registered_at: Date;
  ledger_account: string | null;
  company_name: string | null;
  siret: string | null;
  tax_country: string | null;
  tax_id: string | null;
  rccm: string | null;
  revision: string;
}

/** The user as the API shows it in login answers and /api/auth/me. */
export const UserSummarySchema = z.object({
  id: z.string().uuid(),
  email: z.string(),
  phone: z.string().nullable(),
  displayName: z.string(),
  role: z.string(),
  accountType: z.string(),
});

export const toUserSummary = (a: AccountRow) => ({
  id: a.id,
  email: a.email,
  phone: a.phone,
  displayName: a.display_name,
  role: a.role,
  accountType: a.account_type,
});

export class AccountReadModel {
  constructor(private readonly knex: Knex) {}
  async find(id: string): Promise<AccountRow | null> {
    if (!isUuid(id)) return null;
    return (await this.knex<AccountRow>(ACCOUNTS_TABLE).where({ id }).first()) ?? null;
  }

  /** An account of the tenant by id, email (case-insensitive) or phone. */
  async findInTenant(tenantId: string, identifier: string): Promise<AccountRow | null> {
    const q = this.knex<AccountRow>(ACCOUNTS_TABLE).where({ tenant_id: tenantId });
    if (isUuid(identifier)) q.where({ id: identifier });
    else if (identifier.includes('@')) q.whereRaw('lower(email) = lower(?)', [identifier]);
    else q.where({ phone: identifier });
    return (await q.first()) ?? null;
  }
}
