import { z } from 'zod';
import { isUuid } from '@cagnotte/domain';
import type { Knex } from 'knex';
import type { TenantDirectory, TenantRef } from '../http/route';

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

interface TenantRow {
  id: string;
  slug: string;
  name: string;
  white_label: boolean;
  approved_origins: string[];
}

const toTenant = (r: TenantRow): TenantRef => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  whiteLabel: r.white_label,
  approvedOrigins: r.approved_origins,
});

/** Tenants rarely change: answers are cached for a few seconds per process. */
export class TenantReadModel implements TenantDirectory {
  private cache = new Map<string, { at: number; value: TenantRef | null }>();
  constructor(
    private readonly knex: Knex,
    private readonly ttlMs = 2000,
  ) {}

  private async cached(key: string, load: () => Promise<TenantRow | undefined>): Promise<TenantRef | null> {
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const row = await load();
    const value = row ? toTenant(row) : null;
    if (value) this.cache.set(key, { at: Date.now(), value });
    return value;
  }

  bySlug(slug: string) {
    return this.cached(`s:${slug}`, () => this.knex<TenantRow>('rm_tenants').where({ slug }).first());
  }

  byId(id: string) {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.cached(`i:${id}`, () => this.knex<TenantRow>('rm_tenants').where({ id }).first());
  }
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
    return (await this.knex<AccountRow>('rm_accounts').where({ id }).first()) ?? null;
  }

  /** An account of the tenant by id, email (case-insensitive) or phone. */
  async findInTenant(tenantId: string, identifier: string): Promise<AccountRow | null> {
    const q = this.knex<AccountRow>('rm_accounts').where({ tenant_id: tenantId });
    if (isUuid(identifier)) q.where({ id: identifier });
    else if (identifier.includes('@')) q.whereRaw('lower(email) = lower(?)', [identifier]);
    else q.where({ phone: identifier });
    return (await q.first()) ?? null;
  }
}
