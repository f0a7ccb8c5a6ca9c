import type { Knex } from 'knex';
import { RELAIS_SHIPMENT_TABLES as T, shipmentView, type CollectionRow, type HostParcelsView, type ShipmentRow, type ShipmentView } from './shipments';

/** A community host as the shipments' routes know them: whose account it is, in which tenant. */
export interface ParcelHost {
  hostId: string;
  tenantId: string;
  userId: string;
}

/** Reads of the relais shipments read model (migration 037). */
export class RelaisShipmentsReadModel {
  constructor(private readonly knex: Knex) {}

  /** A pool's shipments, oldest first. */
  async forPool(tenantId: string, poolId: string): Promise<ShipmentView[]> {
    const rows = (await this.knex<ShipmentRow>(T.shipments).where({ pool_id: poolId, tenant_id: tenantId }).orderBy([{ column: 'created_at' }, { column: 'shipment_id' }])) as ShipmentRow[];
    return rows.map(shipmentView);
  }

  /**
   * The host and their account, or null. The one place the shipments' routes learn who a host is: swap it for the hosts
   * read model (rm_relais_hosts) once it serves every host.
   */
  async host(hostId: string): Promise<ParcelHost | null> {
    const row = (await this.knex(T.hosts).where({ host_id: hostId }).first()) as { host_id: string; tenant_id: string; user_id: string } | undefined;
    return row ? { hostId: row.host_id, tenantId: row.tenant_id, userId: row.user_id } : null;
  }

  /** The shipments to a host, newest first, each with its parcels' collections. */
  async hostParcels(tenantId: string, hostId: string, limit = 200): Promise<HostParcelsView> {
    const rows = (await this.knex<ShipmentRow>(T.shipments)
      .where({ point_id: `community:${hostId}`, tenant_id: tenantId })
      .orderBy([{ column: 'created_at', order: 'desc' }, { column: 'shipment_id' }])
      .limit(limit)) as ShipmentRow[];
    const collections = rows.length
      ? ((await this.knex<CollectionRow>(T.collections).whereIn('shipment_id', rows.map((r) => r.shipment_id))) as CollectionRow[])
      : [];
    return {
      items: rows.map((r) => ({
        ...shipmentView(r),
        collections: r.reservation_ids.map((id) => {
          const c = collections.find((x) => x.reservation_id === id && x.shipment_id === r.shipment_id);
          return { reservationId: id, status: c?.status ?? 'waiting', collectedAt: c?.collected_at ? new Date(c.collected_at).toISOString() : null };
        }),
      })),
    };
  }

  /** A parcel's collection at a community host, or null (not in a community shipment). */
  async collection(tenantId: string, reservationId: string): Promise<CollectionRow | null> {
    return ((await this.knex<CollectionRow>(T.collections).where({ reservation_id: reservationId, tenant_id: tenantId }).first()) as CollectionRow | undefined) ?? null;
  }

  /** Every parcel sent to a host (collected or not): what a code the host enters may name. */
  async hostCollections(tenantId: string, hostId: string): Promise<CollectionRow[]> {
    return (await this.knex<CollectionRow>(T.collections).where({ host_id: hostId, tenant_id: tenantId })) as CollectionRow[];
  }
}
