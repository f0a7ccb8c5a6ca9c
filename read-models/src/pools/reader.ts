import type { Knex } from 'knex';
import { toGroupBuy, withBuyers, type GroupBuy, type Viewer } from './view';
import { POOL_TABLES, type MemberRow, type PickupPointRow, type PoolRow } from './tables';
import { RESERVATION_TABLES, factsOfRow, type ReservationRow } from '../reservations/tables';
import { holdsSql } from '../reservations/reader';
import { reservationView, type ReservationView } from '../reservations/view';

/** The viewer's own reservations, rendered at `now` (lazy expiry) with their pool's facts (the escrow's actions), oldest first. */
const mineOf = (rows: ReservationRow[], pool: PoolRow, now: Date): ReservationView[] =>
  [...rows]
    .sort((a, b) => new Date(a.placed_at).getTime() - new Date(b.placed_at).getTime())
    .map((r) => reservationView(factsOfRow(r), now, { status: pool.doc.status, closing: pool.doc.closing ?? null }));

/** The buyers holding units at `now` (a live PENDING or a PAID reservation), as member rows, one per buyer, by first hold. */
const BUYERS = (now: string) => `SELECT DISTINCT ON (r.pool_id, r.buyer_id) r.pool_id, r.buyer_id AS user_id, r.buyer_name AS display_name, r.placed_at AS joined_at
  FROM ${RESERVATION_TABLES.reservations} r WHERE ${holdsSql('r', now)}`;

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
  async load(
    id: string,
    viewer: Viewer,
    now: Date = new Date(),
  ): Promise<{ row: PoolRow; members: MemberRow[]; points: PickupPointRow[]; mine: ReservationView[] } | null> {
    // Members and the viewer's reservations only for a signed-in viewer: anonymous readers get them empty.
    const signedIn = `,
         (SELECT coalesce(json_agg(m ORDER BY m.joined_at), '[]') FROM ${POOL_TABLES.members} m WHERE m.pool_id = p.id) AS _members,
         (SELECT coalesce(json_agg(b), '[]') FROM (${BUYERS('$3')} AND r.pool_id = p.id ORDER BY r.pool_id, r.buyer_id, r.placed_at) b) AS _buyers,
         (SELECT coalesce(json_agg(mine), '[]') FROM ${RESERVATION_TABLES.reservations} mine WHERE mine.pool_id = p.id AND mine.buyer_id = $2) AS _mine`;
    const r = await this.sql.query<PoolRow & { _points: PickupPointRow[]; _members?: MemberRow[]; _buyers?: MemberRow[]; _mine?: ReservationRow[] }>({
      name: viewer.userId ? 'rm_pool_load_members_v2' : 'rm_pool_load',
      text: `SELECT p.*,
         (SELECT coalesce(json_agg(pp ORDER BY pp.sort_order), '[]') FROM ${POOL_TABLES.pickupPoints} pp WHERE pp.pool_id = p.id) AS _points${viewer.userId ? signedIn : ''}
       FROM ${POOL_TABLES.pools} p WHERE p.id = $1`,
      values: viewer.userId ? [id, viewer.userId, now.toISOString()] : [id],
    });
    const found = r.rows[0];
    if (!found) return null;
    const { _points, _members, _buyers, _mine, ...row } = found;
    return { row, points: _points, members: withBuyers(_members ?? [], _buyers ?? []), mine: mineOf(_mine ?? [], row, now) };
  }

  /** Members (organiser, then buyers holding units at `now`) and the viewer's own reservations, of these pools. */
  private async peopleOf(ids: string[], viewer: Viewer, now: Date): Promise<{ members: MemberRow[]; mine: ReservationRow[] }> {
    if (!viewer.userId || ids.length === 0) return { members: [], mine: [] };
    const [members, buyers, mine] = await Promise.all([
      this.knex<MemberRow>(POOL_TABLES.members).whereIn('pool_id', ids).orderBy('joined_at'),
      this.knex.raw(`${BUYERS('?')} AND r.pool_id = ANY(?::uuid[]) ORDER BY r.pool_id, r.buyer_id, r.placed_at`, [now.toISOString(), ids]),
      this.knex<ReservationRow>(RESERVATION_TABLES.reservations).whereIn('pool_id', ids).where('buyer_id', viewer.userId),
    ]);
    const buyerRows = (buyers as { rows: MemberRow[] }).rows;
    return {
      members: ids.flatMap((id) => withBuyers(members.filter((m) => m.pool_id === id), buyerRows.filter((b) => b.pool_id === id))),
      mine: mine as ReservationRow[],
    };
  }

  /** Every pool this organiser has in the tenant, archived or not (the organiser's dashboard). */
  async organisedBy(tenantId: string, organiserId: string): Promise<PoolRow[]> {
    return this.knex<PoolRow>(POOL_TABLES.pools).where({ tenant_id: tenantId, organiser_id: organiserId });
  }

  /** These pools' rows (the buyer's orders show each reservation's pool). */
  async rowsOf(ids: string[]): Promise<PoolRow[]> {
    return ids.length === 0 ? [] : this.knex<PoolRow>(POOL_TABLES.pools).whereIn('id', [...new Set(ids)]);
  }

  async view(row: PoolRow, viewer: Viewer, now: Date = new Date()): Promise<GroupBuy> {
    const [{ members, mine }, points] = await Promise.all([
      this.peopleOf([row.id], viewer, now),
      this.knex<PickupPointRow>(POOL_TABLES.pickupPoints).where({ pool_id: row.id }),
    ]);
    return toGroupBuy(row, members, points, viewer, mineOf(mine, row, now));
  }

  async list(filters: PoolFilters, viewer: Viewer, now: Date = new Date()): Promise<{ items: GroupBuy[]; total: number }> {
    const q = this.knex<PoolRow>(POOL_TABLES.pools).where('tenant_id', filters.tenantId);
    if (filters.organiserId) {
      const uid = filters.organiserId;
      if (filters.includeJoined) {
        // Joined: a recorded member, or a buyer holding units now (a live PENDING or a PAID reservation).
        const holding = this.knex(RESERVATION_TABLES.reservations)
          .select('pool_id')
          .where('buyer_id', uid)
          .where((h) => h.where('status', 'PAID').orWhere((p) => p.where('status', 'PENDING').where('expires_at', '>', now.toISOString())));
        q.where((w) =>
          w
            .where('organiser_id', uid)
            .orWhereIn('id', this.knex(POOL_TABLES.members).select('pool_id').where('user_id', uid))
            .orWhereIn('id', holding),
        );
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
    const [{ members, mine }, points] = await Promise.all([this.peopleOf(ids, viewer, now), this.knex<PickupPointRow>(POOL_TABLES.pickupPoints).whereIn('pool_id', ids)]);
    const items = rows.map((r) =>
      toGroupBuy(
        r,
        members.filter((m) => m.pool_id === r.id),
        points.filter((p) => p.pool_id === r.id),
        viewer,
        mineOf(
          mine.filter((m) => m.pool_id === r.id),
          r,
          now,
        ),
      ),
    );
    return { items, total: Number(count) };
  }
}
