import type { Knex } from 'knex';
import { toGroupBuy, type GroupBuy, type Viewer } from './view';
import { POOL_TABLES, type MemberRow, type PickupPointRow, type PoolRow } from './tables';

export interface PoolFilters {
  tenantId: string;
  /** Pools this user organises… */
  organiserId?: string;
  /** …or, with `includeJoined`, has joined. */
  includeJoined?: boolean;
  type?: string;
  status?: string;
  archived?: boolean;
  page: number;
  limit: number;
}

/** Anything that runs a parameterised query ($1…): a pg Pool. */
export interface SqlRunner {
  query<R>(q: { name?: string; text: string; values: unknown[] }): Promise<{ rows: R[] }>;
}

export class PoolReadModel {
  constructor(
    private readonly knex: Knex,
    /** The hot single-pool read goes straight to pg, without the query builder. */
    private readonly sql: SqlRunner = { query: async ({ text, values }) => (await knex.raw(text.replace(/\$\d+/g, '?'), values as never[])) as never },
  ) {}

  async find(id: string): Promise<PoolRow | null> {
    return (await this.knex<PoolRow>(POOL_TABLES.pools).where({ id }).first()) ?? null;
  }

  /**
   * The pool row with its pick-up points and (for a signed-in viewer) its members, in one round trip:
   * the hot path of GET /api/pools/{id}.
   */
  async load(id: string, viewer: Viewer): Promise<{ row: PoolRow; members: MemberRow[]; points: PickupPointRow[] } | null> {
    const members = viewer.userId
      ? `(SELECT coalesce(json_agg(m ORDER BY m.joined_at), '[]') FROM ${POOL_TABLES.members} m WHERE m.pool_id = p.id)`
      : `'[]'::json`;
    const r = await this.sql.query<PoolRow & { _points: PickupPointRow[]; _members: MemberRow[] }>({
      name: viewer.userId ? 'rm_pool_load_members' : 'rm_pool_load',
      text: `SELECT p.*,
         (SELECT coalesce(json_agg(pp ORDER BY pp.sort_order), '[]') FROM ${POOL_TABLES.pickupPoints} pp WHERE pp.pool_id = p.id) AS _points,
         ${members} AS _members
       FROM ${POOL_TABLES.pools} p WHERE p.id = $1`,
      values: [id],
    });
    const found = r.rows[0];
    if (!found) return null;
    const { _points, _members, ...row } = found;
    return { row, points: _points, members: _members };
  }

  async view(row: PoolRow, viewer: Viewer): Promise<GroupBuy> {
    const [members, points] = await Promise.all([
      viewer.userId ? this.knex<MemberRow>(POOL_TABLES.members).where({ pool_id: row.id }).orderBy('joined_at') : Promise.resolve([]),
      this.knex<PickupPointRow>(POOL_TABLES.pickupPoints).where({ pool_id: row.id }),
    ]);
    return toGroupBuy(row, members, points, viewer);
  }

  async list(filters: PoolFilters, viewer: Viewer): Promise<{ items: GroupBuy[]; total: number }> {
    const q = this.knex<PoolRow>(POOL_TABLES.pools).where('tenant_id', filters.tenantId);
    if (filters.organiserId) {
      const uid = filters.organiserId;
      if (filters.includeJoined) {
        q.where((w) => w.where('organiser_id', uid).orWhereIn('id', this.knex(POOL_TABLES.members).select('pool_id').where('user_id', uid)));
      } else q.where('organiser_id', uid);
    }
    if (filters.type) q.where('type', filters.type);
    if (filters.status) q.where('status', filters.status);
    if (filters.archived === true) q.whereNotNull('archived_at');
    if (filters.archived === false) q.whereNull('archived_at');
    const [{ count }] = (await q.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
    const rows = await q
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(filters.limit)
      .offset((filters.page - 1) * filters.limit);
    if (rows.length === 0) return { items: [], total: Number(count) };
    const ids = rows.map((r) => r.id);
    const [members, points] = await Promise.all([
      this.knex<MemberRow>(POOL_TABLES.members).whereIn('pool_id', ids).orderBy('joined_at'),
      this.knex<PickupPointRow>(POOL_TABLES.pickupPoints).whereIn('pool_id', ids),
    ]);
    const items = rows.map((r) =>
      toGroupBuy(
        r,
        members.filter((m) => m.pool_id === r.id),
        points.filter((p) => p.pool_id === r.id),
        viewer,
      ),
    );
    return { items, total: Number(count) };
  }
}
