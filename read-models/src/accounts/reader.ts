import type { Knex } from 'knex';
import { isUuid } from '../shared';
import { V1_ACCOUNTS_TABLE, v1AccountDocOf, type V1AccountRow } from './tables';
import type { V1AccountDoc } from './fold';

/** Whose accounts a /v1 read sees: one tenant, one mode (a key of the other mode finds nothing). */
export interface V1Scope {
  tenantId: string;
  livemode: boolean;
  /** The mode of a signup's account (livemode null in the table): the environment's. */
  defaultLivemode: boolean;
}

const inScope = (q: Knex.QueryBuilder, scope: V1Scope): Knex.QueryBuilder =>
  q.where('tenant_id', scope.tenantId).andWhere((w) => {
    w.where('livemode', scope.livemode);
    if (scope.livemode === scope.defaultLivemode) w.orWhereNull('livemode');
  });

export interface ListPage<T> {
  items: T[];
  hasMore: boolean;
}

export class V1AccountReader {
  constructor(private readonly knex: Knex) {}

  /** The account in scope, or null (another tenant's, the other mode's and a missing one alike). */
  async find(scope: V1Scope, userId: string): Promise<(V1AccountDoc & { seq: bigint }) | null> {
    if (!isUuid(userId)) return null;
    const row = (await inScope(this.knex(V1_ACCOUNTS_TABLE).where('id', userId), scope).first()) as V1AccountRow | undefined;
    return row ? { ...v1AccountDocOf(row), seq: BigInt(row.seq) } : null;
  }

  /** Newest first, after (older than) or before (newer than) a cursor's seq. */
  async list(scope: V1Scope, page: { limit: number; after?: bigint | undefined; before?: bigint | undefined }): Promise<ListPage<V1AccountDoc>> {
    let q = inScope(this.knex(V1_ACCOUNTS_TABLE), scope);
    if (page.after !== undefined) q = q.andWhere('seq', '<', page.after.toString());
    if (page.before !== undefined) q = q.andWhere('seq', '>', page.before.toString());
    // Before a cursor: the page just newer than it, read upwards then turned back to newest first.
    const rows = (await q.orderBy('seq', page.before !== undefined ? 'asc' : 'desc').limit(page.limit + 1)) as V1AccountRow[];
    const hasMore = rows.length > page.limit;
    const kept = rows.slice(0, page.limit);
    if (page.before !== undefined) kept.reverse();
    return { items: kept.map(v1AccountDocOf), hasMore };
  }
}
