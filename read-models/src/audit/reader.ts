import type { Knex } from 'knex';
import { ACCOUNTS_TABLE } from '../identity/accounts';
import { isUuid } from '../shared';
import { AUDIT_TABLES, dealStreamOf, poolStreamOf, type AuditEventRow } from './tables';

/** Which events of a pool's history: all of them, some types (the escrow's), or one reservation's. */
export interface HistoryFilter {
  types?: ReadonlySet<string>;
  reservationId?: string;
}

/** A history row with the stored hash of revision − 1 of its stream, for checking its link without a second query. */
export type HistoryRow = AuditEventRow & { predecessor_hash: string | null; has_predecessor: boolean };

export interface AuditorListing {
  userId: string;
  email: string | null;
  displayName: string | null;
  grantedAt: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();

/** Reads the audit read model: pools' stored histories and tenants' auditors. */
export class AuditReadModel {
  constructor(private readonly knex: Knex) {}

  /**
   * The pool's tenant and organiser, from its first event (PoolCreated, data upcast), or null before the pool exists.
   * The history and who may read it come from the same table, so they are never out of step.
   */
  async pool(poolId: string): Promise<{ tenantId: string | null; organiserId: string | null } | null> {
    if (!isUuid(poolId)) return null;
    const row = (await this.knex(AUDIT_TABLES.events)
      .where({ stream_id: poolStreamOf(poolId), revision: 0 })
      .first(this.knex.raw(`coalesce(current_data->>'tenantId', tenant_id) AS tenant_id`), this.knex.raw(`current_data->>'organiserId' AS organiser_id`))) as
      | { tenant_id: string | null; organiser_id: string | null }
      | undefined;
    return row ? { tenantId: row.tenant_id, organiserId: row.organiser_id } : null;
  }

  /** The buyer of a reservation of the pool, from its first event (ReservationPlaced), or null when it has none there. */
  async buyerOf(poolId: string, reservationId: string): Promise<string | null> {
    if (!isUuid(reservationId)) return null;
    const row = (await this.knex(AUDIT_TABLES.events)
      .where({ stream_id: poolStreamOf(poolId), reservation_id: reservationId })
      .orderBy('revision')
      .first(this.knex.raw(`current_data->>'buyerId' AS buyer_id`))) as { buyer_id: string | null } | undefined;
    return row?.buyer_id ?? null;
  }

  async isAuditor(tenantId: string, userId: string): Promise<boolean> {
    if (!isUuid(tenantId) || !isUuid(userId)) return false;
    return !!(await this.knex(AUDIT_TABLES.auditors).where({ tenant_id: tenantId, user_id: userId, active: true }).first('user_id'));
  }

  /** A tenant's current auditors, first granted first, with the account they are (email and name from identity's table). */
  async auditors(tenantId: string): Promise<AuditorListing[]> {
    const rows = (await this.knex(`${AUDIT_TABLES.auditors} as a`)
      .leftJoin(`${ACCOUNTS_TABLE} as u`, 'u.id', 'a.user_id')
      .where({ 'a.tenant_id': tenantId, 'a.active': true })
      .orderBy([{ column: 'a.granted_at' }, { column: 'a.user_id' }])
      .select('a.user_id', 'a.granted_at', 'u.email', 'u.display_name')) as Array<{ user_id: string; granted_at: Date; email: string | null; display_name: string | null }>;
    return rows.map((r) => ({ userId: r.user_id, email: r.email, displayName: r.display_name, grantedAt: iso(r.granted_at) }));
  }

  /** A deal's tenant, mode and the users who may read its history (its creator and parties), from DealCreated; null before it exists. */
  async deal(dealId: string): Promise<{ tenantId: string; livemode: boolean; readers: string[] } | null> {
    if (!isUuid(dealId)) return null;
    const row = (await this.knex(AUDIT_TABLES.events).where({ stream_id: dealStreamOf(dealId), revision: 0 }).first('current_data')) as { current_data: Record<string, unknown> } | undefined;
    if (!row) return null;
    const d = row.current_data as { tenantId: string; livemode: boolean; createdBy: string; buyerId: string; sellerId: string; brokerId: string | null };
    return { tenantId: d.tenantId, livemode: d.livemode, readers: [d.createdBy, d.buyerId, d.sellerId, ...(d.brokerId ? [d.brokerId] : [])] };
  }

  /** One page of a deal's history, oldest first. */
  dealHistory(dealId: string, page: number, limit: number): Promise<{ rows: HistoryRow[]; total: number }> {
    return this.streamHistory(dealStreamOf(dealId), {}, page, limit);
  }

  /** One page of a pool's history, oldest first, and how many events the filter selects in all. */
  history(poolId: string, filter: HistoryFilter, page: number, limit: number): Promise<{ rows: HistoryRow[]; total: number }> {
    return this.streamHistory(poolStreamOf(poolId), filter, page, limit);
  }

  private async streamHistory(streamId: string, filter: HistoryFilter, page: number, limit: number): Promise<{ rows: HistoryRow[]; total: number }> {
    const where = ['e.stream_id = ?'];
    const params: Knex.Value[] = [streamId];
    if (filter.types) {
      where.push('e.type = ANY(?::text[])');
      params.push([...filter.types]);
    }
    if (filter.reservationId !== undefined) {
      where.push('e.reservation_id = ?');
      params.push(filter.reservationId);
    }
    const T = AUDIT_TABLES.events;
    const count = await this.knex.raw(`SELECT count(*)::int AS total FROM ${T} e WHERE ${where.join(' AND ')}`, params);
    const rows = await this.knex.raw(
      `SELECT e.*, p.hash AS predecessor_hash, (p.stream_id IS NOT NULL) AS has_predecessor
         FROM ${T} e LEFT JOIN ${T} p ON p.stream_id = e.stream_id AND p.revision = e.revision - 1
        WHERE ${where.join(' AND ')}
        ORDER BY e.revision LIMIT ? OFFSET ?`,
      [...params, limit, (page - 1) * limit],
    );
    return { rows: rows.rows as HistoryRow[], total: (count.rows[0] as { total: number }).total };
  }

  /** Every event of a pool's stream, oldest first: what its state at any point is folded from. */
  async stream(poolId: string): Promise<AuditEventRow[]> {
    if (!isUuid(poolId)) return [];
    return (await this.knex(AUDIT_TABLES.events).where({ stream_id: poolStreamOf(poolId) }).orderBy('revision')) as AuditEventRow[];
  }
}
