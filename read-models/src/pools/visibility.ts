import type { Knex } from 'knex';
import type { MarketplaceVisibility, PoolStatus, PoolType } from '@cagnotte/event-schemas';

/**
 * Who may see a pool without owning it: the one place these rules live. Every reader (GET /api/pools/{id},
 * the catalogue, the search index) asks these predicates, or their SQL twins below, which a unit spec keeps equal.
 */
export interface VisibilityFacts {
  type: PoolType | string;
  status: PoolStatus | string;
  marketplaceVisibility: MarketplaceVisibility | string;
  archived: boolean;
}

const marketed = (v: string) => v === 'LISTED' || v === 'FEATURED';

/** Anyone may read: published GROUPS pools (not DRAFT, not archived) and LISTED or FEATURED FUNDING pools (not archived). */
export const isPubliclyReadable = (p: VisibilityFacts): boolean =>
  !p.archived && ((p.type === 'GROUPS' && p.status !== 'DRAFT') || (p.type === 'FUNDING' && marketed(p.marketplaceVisibility)));

/**
 * Who may act on a pool without owning it (reserve, pledge, ask a quote): every pool anyone may read, and a PRIVATE
 * FUNDING pool too, a pot shared by its link (whoever holds its id may pledge; it is not listed, so it is not read).
 * Another organiser's DRAFT and an archived pool are as no pool.
 */
export const isOpenToBuyers = (p: VisibilityFacts): boolean => isPubliclyReadable(p) || (!p.archived && p.type === 'FUNDING' && p.status !== 'DRAFT');

/** In the tenant's catalogue of group-buys: GROUPS pools that are LISTED or FEATURED, published and not archived. */
export const isCatalogued = (p: VisibilityFacts): boolean =>
  p.type === 'GROUPS' && p.status !== 'DRAFT' && !p.archived && marketed(p.marketplaceVisibility);

/** Findable by search: listed group-buys, and LISTED or FEATURED FUNDING pools, published and not archived. */
export const isSearchable = (p: VisibilityFacts): boolean => p.status !== 'DRAFT' && !p.archived && marketed(p.marketplaceVisibility);

/** Columns of a pools table (`rm_pools` or an alias of it) the SQL twins read. */
export interface VisibilityColumns {
  type: string;
  status: string;
  marketplaceVisibility: string;
  archivedAt: string;
}

const rmPools = (alias?: string): VisibilityColumns => {
  const c = (name: string) => (alias ? `${alias}.${name}` : name);
  return { type: c('type'), status: c('status'), marketplaceVisibility: c('marketplace_visibility'), archivedAt: c('archived_at') };
};

/** `isCatalogued` as a knex where-clause over `rm_pools` (optionally aliased). */
export const whereCatalogued = (q: Knex.QueryBuilder, alias?: string): Knex.QueryBuilder => {
  const c = rmPools(alias);
  return q.where(c.type, 'GROUPS').whereNot(c.status, 'DRAFT').whereNull(c.archivedAt).whereIn(c.marketplaceVisibility, ['LISTED', 'FEATURED']);
};
