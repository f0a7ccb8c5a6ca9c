import type { Knex } from 'knex';
import { isUuid } from '../shared';

export const TENANTS_TABLE = 'rm_tenants';

export interface TenantRow {
  id: string;
  slug: string;
  name: string;
  white_label: boolean;
  approved_origins: string[];
  created_at: Date | string;
  revision: string;
}

/** A tenant as request routing and the views use it (the HTTP kit's TenantRef has this shape). */
export interface TenantView {
  id: string;
  slug: string;
  name: string;
  whiteLabel: boolean;
  approvedOrigins: string[];
}

const toTenant = (r: TenantRow): TenantView => ({
  id: r.id,
  slug: r.slug,
  name: r.name,
  whiteLabel: r.white_label,
  approvedOrigins: r.approved_origins,
});

/** The tenant directory of the HTTP kit. Tenants rarely change: answers are cached for a few seconds per process. */
export class TenantReadModel {
  private cache = new Map<string, { at: number; value: TenantView | null }>();
  constructor(
    private readonly knex: Knex,
    private readonly ttlMs = 2000,
  ) {}

  private async cached(key: string, load: () => Promise<TenantRow | undefined>): Promise<TenantView | null> {
    const hit = this.cache.get(key);
    if (hit && Date.now() - hit.at < this.ttlMs) return hit.value;
    const row = await load();
    const value = row ? toTenant(row) : null;
    if (value) this.cache.set(key, { at: Date.now(), value });
    return value;
  }

  bySlug(slug: string) {
    return this.cached(`s:${slug}`, () => this.knex<TenantRow>(TENANTS_TABLE).where({ slug }).first());
  }

  byId(id: string) {
    if (!isUuid(id)) return Promise.resolve(null);
    return this.cached(`i:${id}`, () => this.knex<TenantRow>(TENANTS_TABLE).where({ id }).first());
  }
}
