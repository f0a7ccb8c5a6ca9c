import type { Knex } from 'knex';
import { POOL_TABLES, type PoolRow } from './tables';
import { groupBuyOrderOf, groupBuyV1Of, livemodeOfDoc, unitsReservedOf, type GroupBuyOrder, type GroupBuyV1 } from './v1';
import { RESERVATION_TABLES, factsOfRow, type ReservationRow } from '../reservations/tables';
import { reservationView } from '../reservations/view';

/** Whose group-buys a /v1 caller sees: the key's owner's GROUPS pools of its tenant, in the key's mode (a FUNDING pool is no group-buy). */
export interface GroupBuyScope {
  tenantId: string;
  ownerId: string;
  livemode: boolean;
  /** The deployment's mode: a pool created before `livemode` was recorded has it. */
  production: boolean;
}

/**
 * The /v1 group-buys over the pools and reservations read models (GET /v1/group-buys…). A pool outside the scope
 * (another tenant's, another organiser's, of the other mode) is not found, as a missing one.
 */
export class GroupBuyReader {
  constructor(private readonly knex: Knex) {}

  /** The pool row, if the scope sees it. */
  async row(poolId: string, scope: GroupBuyScope): Promise<PoolRow | null> {
    const row = await this.knex<PoolRow>(POOL_TABLES.pools).where({ id: poolId, tenant_id: scope.tenantId, organiser_id: scope.ownerId, type: 'GROUPS' }).first();
    return row && livemodeOfDoc(row.doc, scope.production) === scope.livemode ? row : null;
  }

  async one(poolId: string, scope: GroupBuyScope, now: Date): Promise<GroupBuyV1 | null> {
    const row = await this.row(poolId, scope);
    if (!row) return null;
    const [reservations] = await this.reservationsOf([row.id]);
    return groupBuyV1Of(row.doc, unitsReservedOf(reservations!.map((r) => reservationView(factsOfRow(r), now))), scope.production);
  }

  /** A page newest first by `seq` (`after`/`before`: a cursor's seq), one more row than `limit` (cursorPage trims it). */
  async page(scope: GroupBuyScope, o: { limit: number; after?: string | null; before?: string | null }, now: Date): Promise<Array<{ seq: string; groupBuy: GroupBuyV1 }>> {
    const q = this.scoped(scope).select('*');
    if (o.before != null) q.where('seq', '>', o.before).orderBy('seq', 'asc');
    else {
      if (o.after != null) q.where('seq', '<', o.after);
      q.orderBy('seq', 'desc');
    }
    const rows = (await q.limit(o.limit + 1)) as Array<PoolRow & { seq: string }>;
    const held = await this.reservationsOf(rows.map((r) => r.id));
    return rows.map((r, i) => ({
      seq: r.seq,
      groupBuy: groupBuyV1Of(r.doc, unitsReservedOf(held[i]!.map((x) => reservationView(factsOfRow(x), now))), scope.production),
    }));
  }

  /** The seq of a group-buy of the scope (a list cursor), or null. */
  async seqOf(poolId: string, scope: GroupBuyScope): Promise<string | null> {
    const row = (await this.scoped(scope).where('id', poolId).first('seq')) as { seq: string } | undefined;
    return row?.seq ?? null;
  }

  /** The orders of a group-buy of the scope, newest first (null: no such group-buy). */
  async orders(poolId: string, scope: GroupBuyScope, now: Date): Promise<GroupBuyOrder[] | null> {
    const row = await this.row(poolId, scope);
    if (!row) return null;
    const [reservations] = await this.reservationsOf([row.id]);
    const pool = { status: row.doc.status, closing: row.doc.closing ?? null };
    return reservations!
      .map((r) => groupBuyOrderOf(reservationView(factsOfRow(r), now, pool), scope.livemode))
      .sort((a, b) => Date.parse(b.created) - Date.parse(a.created) || b.id.localeCompare(a.id));
  }

  private scoped(scope: GroupBuyScope) {
    return this.knex(POOL_TABLES.pools)
      .where({ tenant_id: scope.tenantId, organiser_id: scope.ownerId, type: 'GROUPS' })
      .whereRaw(`coalesce((doc->>'livemode')::boolean, ?) = ?`, [scope.production, scope.livemode]);
  }

  /** Each pool's reservations, in the order of `ids`. */
  private async reservationsOf(ids: string[]): Promise<ReservationRow[][]> {
    if (ids.length === 0) return [];
    const rows = await this.knex<ReservationRow>(RESERVATION_TABLES.reservations).whereIn('pool_id', ids);
    return ids.map((id) => rows.filter((r) => r.pool_id === id));
  }
}
