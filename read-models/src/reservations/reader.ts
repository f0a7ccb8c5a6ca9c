import type { Knex } from 'knex';
import { RESERVATION_TABLES, type ReservationRow } from './tables';

export interface ReservationPage {
  rows: ReservationRow[];
  total: number;
}

/** A buyer who holds units in a pool (a live PENDING or PAID reservation): a member of it. */
export interface ReservationMember {
  pool_id: string;
  user_id: string;
  display_name: string;
  joined_at: Date;
}

/** SQL of "this reservation holds at $now": PAID, or PENDING before its expiry (lazy expiry, as effectiveStatus). */
export const holdsSql = (alias: string, nowParam: string) => `(${alias}.status = 'PAID' OR (${alias}.status = 'PENDING' AND ${alias}.expires_at > ${nowParam}))`;

/** Reads of the reservations read model (rm_reservations). */
export class ReservationReadModel {
  constructor(private readonly knex: Knex) {}

  private get table() {
    return this.knex<ReservationRow>(RESERVATION_TABLES.reservations);
  }

  /** A buyer's reservations in a tenant, newest first, paged. */
  async byBuyer(tenantId: string, buyerId: string, page: number, limit: number): Promise<ReservationPage> {
    const q = this.table.where({ tenant_id: tenantId, buyer_id: buyerId });
    const [{ count }] = (await q.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
    const rows = await q
      .orderBy([{ column: 'placed_at', order: 'desc' }, { column: 'id', order: 'desc' }])
      .limit(limit)
      .offset((page - 1) * limit);
    return { rows: rows as ReservationRow[], total: Number(count) };
  }

  /** One reservation of this buyer in this tenant; null for anyone else's (never tells it exists). */
  async forBuyer(tenantId: string, buyerId: string, id: string): Promise<ReservationRow | null> {
    return ((await this.table.where({ id, tenant_id: tenantId, buyer_id: buyerId }).first()) as ReservationRow | undefined) ?? null;
  }

  /** Every reservation of these pools, oldest first. */
  async byPools(poolIds: string[]): Promise<ReservationRow[]> {
    if (poolIds.length === 0) return [];
    return (await this.table.whereIn('pool_id', poolIds).orderBy([{ column: 'placed_at', order: 'asc' }, { column: 'id', order: 'asc' }])) as ReservationRow[];
  }

  /** A buyer's PENDING and PAID reservations in a tenant: what their spending is made of (spendingOf). */
  async spendingRows(tenantId: string, buyerId: string): Promise<ReservationRow[]> {
    return (await this.table.where({ tenant_id: tenantId, buyer_id: buyerId }).whereIn('status', ['PENDING', 'PAID'])) as ReservationRow[];
  }

  /** The buyers holding units in these pools at `now`, each once per pool, by their first holding reservation. */
  async members(poolIds: string[], now: Date): Promise<ReservationMember[]> {
    if (poolIds.length === 0) return [];
    const r = await this.knex.raw(
      `SELECT DISTINCT ON (r.pool_id, r.buyer_id) r.pool_id, r.buyer_id AS user_id, r.buyer_name AS display_name, r.placed_at AS joined_at
         FROM ${RESERVATION_TABLES.reservations} r
        WHERE r.pool_id = ANY(?::uuid[]) AND ${holdsSql('r', '?')}
        ORDER BY r.pool_id, r.buyer_id, r.placed_at`,
      [poolIds, now.toISOString()],
    );
    return r.rows as ReservationMember[];
  }
}
