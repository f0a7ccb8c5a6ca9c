import type { Knex } from 'knex';
import { POOL_TABLES, type MemberRow, type PoolRow } from '../pools/tables';
import { whereCatalogued } from '../pools/visibility';
import { escapeLike, toGroupBuyCard, toMerchantCard, type GroupBuyCard, type MerchantCard } from './cards';
import { merchantDocOfRow } from './fold';
import { CATALOGUE_TABLES, type MerchantRow } from './tables';

export interface CataloguePage {
  tenantId: string;
  /** Filters on the name (merchants) or title (group-buys), accent- and case-insensitive. */
  q?: string;
  page: number;
  limit: number;
}

/** The catalogue's reads: ACTIVE merchants and catalogued group-buys of a tenant, and a user's own merchant profile. */
export class CatalogueReadModel {
  constructor(private readonly knex: Knex) {}

  /** ACTIVE merchants, by name. */
  async merchants(p: CataloguePage): Promise<{ items: MerchantCard[]; total: number }> {
    const base = this.knex<MerchantRow>(CATALOGUE_TABLES.merchants).where({ tenant_id: p.tenantId, status: 'ACTIVE' });
    if (p.q) base.whereRaw(`cg_fold(name) LIKE '%' || cg_fold(?) || '%'`, [escapeLike(p.q)]);
    const [{ count }] = (await base.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
    const rows = await base.orderBy([{ column: 'name' }, { column: 'id' }]).limit(p.limit).offset((p.page - 1) * p.limit);
    return { items: rows.map((r) => toMerchantCard(merchantDocOfRow(r).merchant)), total: Number(count) };
  }

  /** Catalogued group-buys (the visibility rule `isCatalogued`, as SQL), FEATURED first, then newest. */
  async groupBuys(p: CataloguePage): Promise<{ items: GroupBuyCard[]; total: number }> {
    const base = whereCatalogued(this.knex<PoolRow>(POOL_TABLES.pools).where({ tenant_id: p.tenantId }));
    if (p.q) base.whereRaw(`cg_fold(title) LIKE '%' || cg_fold(?) || '%'`, [escapeLike(p.q)]);
    const [{ count }] = (await base.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
    const rows: Array<Pick<PoolRow, 'id' | 'doc'>> = await base
      .select('id', 'doc')
      .orderByRaw(`(marketplace_visibility = 'FEATURED') DESC, created_at DESC, id`)
      .limit(p.limit)
      .offset((p.page - 1) * p.limit);
    const members: Array<Pick<MemberRow, 'pool_id' | 'display_name'>> = rows.length
      ? await this.knex<MemberRow>(POOL_TABLES.members).whereIn('pool_id', rows.map((r) => r.id)).orderBy('joined_at').select('pool_id', 'display_name')
      : [];
    const items = rows.map((r) => toGroupBuyCard(r.doc, members.filter((m) => m.pool_id === r.id).map((m) => m.display_name)));
    return { items, total: Number(count) };
  }

  /** The user's ACTIVE merchant profile in the tenant, or null. */
  async activeMerchantOf(userId: string, tenantId: string): Promise<MerchantRow | null> {
    return (
      (await this.knex<MerchantRow>(CATALOGUE_TABLES.merchants).where('owner_user_id', userId).andWhere('tenant_id', tenantId).andWhere('status', 'ACTIVE').first()) ??
      null
    );
  }
}
