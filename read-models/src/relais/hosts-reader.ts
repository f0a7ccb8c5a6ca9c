import type { Knex } from 'knex';
import { isUuid } from '../shared';
import type { RelaisHostDoc } from './hosts-fold';
import { RELAIS_HOSTS_TABLE, RELAIS_HOST_BOOKINGS_TABLE, calendarDateOf, relaisHostDocOf, type RelaisHostBookingRow, type RelaisHostRow } from './hosts-tables';
import type { RelaisHostDay, RelaisHostStatus } from './hosts-view';

/** The community hosts as rm_relais_hosts holds them. Every read is of one tenant. */
export class RelaisHostReader {
  constructor(private readonly knex: Knex) {}

  async find(tenantId: string, hostId: string): Promise<RelaisHostDoc | null> {
    if (!isUuid(hostId)) return null;
    const row = (await this.knex(RELAIS_HOSTS_TABLE).where({ id: hostId, tenant_id: tenantId }).first()) as RelaisHostRow | undefined;
    return row ? relaisHostDocOf(row) : null;
  }

  /** Oldest application first; `userId`: that member's own; `status`: those in it. */
  async list(tenantId: string, filter: { status?: RelaisHostStatus | undefined; userId?: string | undefined; limit?: number | undefined } = {}): Promise<RelaisHostDoc[]> {
    let q = this.knex(RELAIS_HOSTS_TABLE).where({ tenant_id: tenantId });
    if (filter.status !== undefined) q = q.andWhere('status', filter.status);
    if (filter.userId !== undefined) q = q.andWhere('user_id', filter.userId);
    const rows = (await q.orderBy('seq', 'asc').limit(filter.limit ?? 500)) as RelaisHostRow[];
    return rows.map(relaisHostDocOf);
  }

  /** Every tenant's hosts (the operator CLI). */
  async listAll(filter: { status?: RelaisHostStatus | undefined; tenantId?: string | undefined } = {}): Promise<RelaisHostDoc[]> {
    let q = this.knex(RELAIS_HOSTS_TABLE);
    if (filter.tenantId !== undefined) q = q.where('tenant_id', filter.tenantId);
    if (filter.status !== undefined) q = q.andWhere('status', filter.status);
    const rows = (await q.orderBy('seq', 'asc').limit(10_000)) as RelaisHostRow[];
    return rows.map(relaisHostDocOf);
  }

  /** The days from `from` to `to` (both included) that have live bookings, with the parcels each holds and what is left. */
  async days(host: RelaisHostDoc, range: { from: string; to: string }): Promise<RelaisHostDay[]> {
    const rows = (await this.knex(RELAIS_HOST_BOOKINGS_TABLE)
      .where({ host_id: host.hostId, released: false })
      .andWhere('date', '>=', range.from)
      .andWhere('date', '<=', range.to)
      .orderBy([{ column: 'date', order: 'asc' }, { column: 'booked_at', order: 'asc' }])) as RelaisHostBookingRow[];
    const byDay = new Map<string, RelaisHostDay>();
    const capacity = host.profile.capacity.parcelsPerDay;
    for (const r of rows) {
      const date = calendarDateOf(r.date);
      const day = byDay.get(date) ?? { date, parcels: 0, capacity, remaining: capacity, bookings: [] };
      day.parcels += r.parcels;
      day.remaining = Math.max(0, capacity - day.parcels);
      day.bookings.push({ shipmentId: r.shipment_id, poolId: r.pool_id, parcels: r.parcels, bookedAt: new Date(r.booked_at).toISOString() });
      byDay.set(date, day);
    }
    return [...byDay.values()];
  }
}
