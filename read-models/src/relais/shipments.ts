import { z } from 'zod';
import { ARRIVED_STATUSES, RelaisNetwork, ShipmentStatus, type DomainEvent } from '@cagnotte/event-schemas';

// The relais shipments read model (projection `relais-shipments`, migration 037): a row per shipment, a row per parcel
// of a community shipment (where its collection stands), and each community host's user (from RelaisHostApplied: the
// host routes check who the host is). Pure folds here; projectors/src/relais/shipments.ts writes the rows.

export const RELAIS_SHIPMENT_TABLES = {
  shipments: 'rm_relais_shipments',
  collections: 'rm_relais_collections',
  hosts: 'rm_relais_parcel_hosts',
} as const;

export const RELAIS_SHIPMENT_EVENTS: ReadonlySet<string> = new Set(['PoolShipmentCreated', 'PoolShipmentStatusChanged', 'RelaisParcelCollected', 'RelaisHostApplied']);

export interface ShipmentRow {
  shipment_id: string;
  pool_id: string;
  tenant_id: string;
  point_id: string;
  network: RelaisNetwork;
  tracking_number: string;
  status: ShipmentStatus;
  reservation_ids: string[];
  parcels: number;
  weight_g: number;
  expected_on: string;
  arrived_at: string | null;
  created_at: string;
  updated_at: string;
  revision: bigint;
}

export type CollectionStatus = 'waiting' | 'ready' | 'collected';

export interface CollectionRow {
  reservation_id: string;
  pool_id: string;
  tenant_id: string;
  shipment_id: string;
  point_id: string;
  host_id: string;
  status: CollectionStatus;
  ready_at: string | null;
  collected_at: string | null;
  revision: bigint;
}

type Of<T extends string> = Extract<DomainEvent, { type: T }>;

/** A community point's host id (`community:<hostId>`), else null. */
export const hostIdOfPoint = (pointId: string): string | null => (pointId.startsWith('community:') ? pointId.slice('community:'.length) : null);

/** The shipment's row as PoolShipmentCreated opens it (the tenant is the command's). */
export const shipmentRowOf = (e: Of<'PoolShipmentCreated'>, tenantId: string, revision: bigint): ShipmentRow => {
  const d = e.data;
  return {
    shipment_id: d.shipmentId,
    pool_id: d.poolId,
    tenant_id: tenantId,
    point_id: d.pointId,
    network: d.network,
    tracking_number: d.trackingNumber,
    status: 'label_created',
    reservation_ids: d.reservationIds,
    parcels: d.parcels,
    weight_g: d.weightG,
    expected_on: d.expectedOn,
    arrived_at: null,
    created_at: d.createdAt,
    updated_at: d.createdAt,
    revision,
  };
};

/** A status change folded into the shipment's row; an event at or below the row's revision changes nothing. */
export const foldShipmentStatus = (row: ShipmentRow, e: Of<'PoolShipmentStatusChanged'>, revision: bigint): ShipmentRow => {
  if (revision <= BigInt(row.revision)) return row;
  const d = e.data;
  const arrived = row.arrived_at ?? (ARRIVED_STATUSES.has(d.status) ? d.occurredAt : null);
  return { ...row, status: d.status, arrived_at: arrived, updated_at: d.recordedAt, revision };
};

/** The parcels of a community shipment, waiting at first (none for a carrier's point: collected at the counter). */
export const collectionRowsOf = (row: ShipmentRow): CollectionRow[] => {
  const hostId = hostIdOfPoint(row.point_id);
  if (!hostId) return [];
  return row.reservation_ids.map((id) => ({
    reservation_id: id,
    pool_id: row.pool_id,
    tenant_id: row.tenant_id,
    shipment_id: row.shipment_id,
    point_id: row.point_id,
    host_id: hostId,
    status: 'waiting',
    ready_at: null,
    collected_at: null,
    revision: row.revision,
  }));
};

/**
 * What a shipment's status does to its parcels' collections: arrived → ready (once), returned or failed → gone (a
 * new shipment carries them again), anything else → as they were. `null`: delete the row.
 */
export const foldCollectionOnStatus = (row: CollectionRow, shipment: ShipmentRow, revision: bigint): CollectionRow | null => {
  if (revision <= BigInt(row.revision) || row.shipment_id !== shipment.shipment_id) return row;
  if (shipment.status === 'returned' || shipment.status === 'failed') return row.status === 'collected' ? row : null;
  if (row.status === 'waiting' && shipment.arrived_at) return { ...row, status: 'ready', ready_at: shipment.arrived_at, revision };
  return row;
};

export const foldCollected = (row: CollectionRow, e: Of<'RelaisParcelCollected'>, revision: bigint): CollectionRow =>
  revision <= BigInt(row.revision) ? row : { ...row, status: 'collected', collected_at: e.data.collectedAt, revision };

// ---- views ----

const Time = z.string();
export const ShipmentView = z
  .object({
    id: z.string().uuid(),
    poolId: z.string().uuid(),
    pointId: z.string(),
    network: RelaisNetwork,
    trackingNumber: z.string(),
    status: ShipmentStatus,
    reservationIds: z.array(z.string().uuid()),
    parcels: z.number().int(),
    weightG: z.number().int(),
    expectedOn: z.string().describe('YYYY-MM-DD'),
    arrivedAt: Time.nullable().describe('When it first reached available_for_pickup or delivered'),
    createdAt: Time,
    updatedAt: Time,
  })
  .describe('PoolShipment');
export type ShipmentView = z.infer<typeof ShipmentView>;

const iso = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

export const shipmentView = (row: ShipmentRow): ShipmentView => ({
  id: row.shipment_id,
  poolId: row.pool_id,
  pointId: row.point_id,
  network: row.network,
  trackingNumber: row.tracking_number,
  status: row.status,
  reservationIds: row.reservation_ids,
  parcels: Number(row.parcels),
  weightG: Number(row.weight_g),
  expectedOn: row.expected_on,
  arrivedAt: iso(row.arrived_at),
  createdAt: iso(row.created_at)!,
  updatedAt: iso(row.updated_at)!,
});

export const HostParcelsView = z
  .object({
    items: z.array(
      ShipmentView.extend({
        collections: z.array(z.object({ reservationId: z.string().uuid(), status: z.enum(['waiting', 'ready', 'collected']), collectedAt: Time.nullable() })),
      }),
    ),
  })
  .describe('RelaisHostParcels');
export type HostParcelsView = z.infer<typeof HostParcelsView>;

export const CollectionView = z
  .object({
    code: z.string().regex(/^\d{8}$/).describe('The one-time code the buyer tells the host (8 digits)'),
    qr: z.string().describe('A payload to render as a QR code for the host to scan: it carries the code'),
    pointId: z.string(),
    shipmentId: z.string().uuid(),
    status: z.enum(['waiting', 'ready', 'collected']).describe('waiting: on its way to the host; ready: at the host; collected'),
    collectedAt: Time.nullable(),
  })
  .describe('RelaisCollection');
export type CollectionView = z.infer<typeof CollectionView>;
