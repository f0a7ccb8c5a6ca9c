import { ARRIVED_STATUSES, advancesShipment, parsePickupPointId, type PoolEvent, type ShipmentStatus } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { deliveryOf, isHeld, receiptConfirmable, receiptConfirmedEvent, type EscrowMeta } from '../escrow/decide';
import { requireOrganiserOf } from '../pools/organiser';
import type { ExistingPool, Pool } from '../pools/pool';
import type { Reservation } from '../reservations/holdings';
import { shipmentByTracking, type ShipmentState } from './pool-state';

// A pool's shipments (docs/relais.md): the organiser ships the parcels of the buyers who chose one point, tracking
// updates move each shipment forward only, the last arrival delivers the pool (the escrow's inspection period starts),
// and a collection at a community host confirms the buyer's receipt. Decided over `pool.relais` and the escrow's
// closing; the escrow's own rules (domain/src/escrow/decide.ts) say when a pool is delivered and a receipt confirmed.

export type ShipmentCommand =
  | {
      type: 'CreateShipment';
      data: {
        shipmentId: string;
        pointId: string;
        trackingNumber: string;
        /** The shipment's weight; absent: the pool's `parcelWeightG` times its parcels. */
        weightG: number | null;
        /** YYYY-MM-DD */
        expectedOn: string;
      };
      metadata: EscrowMeta;
    }
  | {
      type: 'RecordShipmentStatus';
      data: { trackingNumber: string; status: ShipmentStatus; carrierStatus: string | null; source: 'carrier' | 'host' | 'sandbox'; occurredAt: string };
      metadata: EscrowMeta;
    }
  | { type: 'CollectParcel'; data: { reservationId: string; hostId: string }; metadata: EscrowMeta };

/** A shipment still on its way or arrived: a returned or failed one gives its reservations back to be shipped again. */
export const isLiveShipment = (s: ShipmentState): boolean => s.status !== 'returned' && s.status !== 'failed';

export const hasArrived = (s: ShipmentState): boolean => s.arrivedAt !== null || ARRIVED_STATUSES.has(s.status);

/** Reservation id → the live shipment carrying its parcel. */
export const shippedReservations = (pool: ExistingPool): Map<string, ShipmentState> => {
  const shipped = new Map<string, ShipmentState>();
  for (const s of pool.relais.shipments.values()) if (isLiveShipment(s)) for (const id of s.reservationIds) shipped.set(id, s);
  return shipped;
};

/** The parcels waiting to be shipped to `pointId`: PAID reservations still in escrow that chose it and are in no live shipment. */
export const toShipTo = (pool: ExistingPool, pointId: string): Reservation[] => {
  const shipped = shippedReservations(pool);
  return [...pool.holdings.byId.values()].filter((r) => r.relaisId === pointId && isHeld(r) && !shipped.has(r.id));
};

/** Every live shipment arrived and every held reservation is in one: the pool's parcels all reached their points. */
const everyParcelArrived = (pool: ExistingPool): boolean => {
  const shipped = shippedReservations(pool);
  for (const s of pool.relais.shipments.values()) if (isLiveShipment(s) && !hasArrived(s)) return false;
  for (const r of pool.holdings.byId.values()) if (isHeld(r) && !shipped.has(r.id)) return false;
  return shipped.size > 0;
};

const decideCreate = (pool: ExistingPool, command: Extract<ShipmentCommand, { type: 'CreateShipment' }>): PoolEvent[] => {
  const d = command.data;
  const { now } = command.metadata;
  const existing = pool.relais.shipments.get(d.shipmentId);
  if (existing) {
    // The same request again (its Idempotency-Key made the same id): nothing new; another shipment under its id is a conflict.
    if (existing.pointId === d.pointId && existing.trackingNumber === d.trackingNumber) return [];
    throw new ConflictError('shipment_exists', 'A shipment with this id already exists');
  }
  if (pool.status !== 'LOCKED' || pool.closing?.outcome !== 'SUCCEEDED') throw new IllegalStateError('pool_not_locked', 'Parcels are shipped once the pool closed successfully');
  const point = (pool.fields.config.relais ?? []).find((p) => p.id === d.pointId);
  const parsed = parsePickupPointId(d.pointId);
  if (!point || !parsed) throw new ValidationError({ pointId: [`no pick-up point ${d.pointId} of a network in this pool`] }, 'Unknown pick-up point', 'unknown_pickup_point');
  const unavailable = pool.relais.unavailable.get(d.pointId);
  if (unavailable) throw new ConflictError('pickup_point_unavailable', `The pick-up point ${d.pointId} is unavailable (${unavailable.reason}): its buyers choose again`);
  if (shipmentByTracking(pool.relais, d.trackingNumber)) throw new ConflictError('tracking_number_taken', 'Another shipment of this pool has this tracking number');
  const parcels = toShipTo(pool, d.pointId);
  if (parcels.length === 0) throw new IllegalStateError('nothing_to_ship', `No paid parcel waits to be shipped to ${d.pointId}`);
  const weightG = d.weightG ?? (pool.fields.config.parcelWeightG ? pool.fields.config.parcelWeightG * parcels.length : null);
  if (weightG === null) throw new ValidationError({ weightG: ['required: the pool declares no parcelWeightG'] });
  if (weightG > 1_000_000) throw new ValidationError({ weightG: ['at most 1000000 g in one shipment'] });
  return [
    {
      type: 'PoolShipmentCreated',
      data: {
        poolId: pool.id,
        shipmentId: d.shipmentId,
        pointId: d.pointId,
        network: parsed.network,
        trackingNumber: d.trackingNumber,
        reservationIds: parcels.map((r) => r.id),
        parcels: parcels.length,
        weightG,
        expectedOn: d.expectedOn,
        createdAt: now,
      },
    },
  ];
};

const decideStatus = (pool: ExistingPool, command: Extract<ShipmentCommand, { type: 'RecordShipmentStatus' }>): PoolEvent[] => {
  const d = command.data;
  const { now } = command.metadata;
  const shipment = shipmentByTracking(pool.relais, d.trackingNumber);
  if (!shipment) throw new NotFoundError('shipment');
  // Forward only: a late or repeated status (a replayed webhook, in_transit after delivered) changes nothing.
  if (!advancesShipment(shipment.status, d.status)) return [];
  const changed: PoolEvent = {
    type: 'PoolShipmentStatusChanged',
    data: {
      poolId: pool.id,
      shipmentId: shipment.id,
      trackingNumber: shipment.trackingNumber,
      network: shipment.network,
      status: d.status,
      previous: shipment.status,
      carrierStatus: d.carrierStatus,
      source: d.source,
      occurredAt: d.occurredAt,
      recordedAt: now,
    },
  };
  if (!ARRIVED_STATUSES.has(d.status)) return [changed];
  // Whether this arrival is the last one, on the pool as it will be with it.
  const arrived: ExistingPool = { ...pool, relais: { ...pool.relais, shipments: new Map(pool.relais.shipments).set(shipment.id, { ...shipment, status: d.status, arrivedAt: shipment.arrivedAt ?? d.occurredAt }) } };
  return everyParcelArrived(arrived) ? [changed, ...deliveryOf(pool, `Every parcel reached its pick-up point (${shipment.network})`, now)] : [changed];
};

const decideCollect = (pool: ExistingPool, command: Extract<ShipmentCommand, { type: 'CollectParcel' }>): PoolEvent[] => {
  const { reservationId, hostId } = command.data;
  const { now } = command.metadata;
  const pointId = `community:${hostId}`;
  const r = pool.holdings.byId.get(reservationId);
  const shipment = r ? [...pool.relais.shipments.values()].find((s) => s.pointId === pointId && s.reservationIds.includes(r.id)) : undefined;
  // A parcel that was never sent to this host does not exist for them.
  if (!r || !shipment) throw new NotFoundError('parcel');
  if (pool.relais.collected.has(r.id)) throw new ConflictError('already_collected', 'This parcel was collected already');
  if (!hasArrived(shipment) || !isLiveShipment(shipment)) throw new ConflictError('parcel_not_arrived', 'The parcel has not reached the host yet');
  const collected: PoolEvent = {
    type: 'RelaisParcelCollected',
    data: { poolId: pool.id, shipmentId: shipment.id, reservationId: r.id, buyerId: r.buyerId, pointId, hostId, collectedAt: now },
  };
  return receiptConfirmable(pool, r) ? [collected, receiptConfirmedEvent(pool, r, now)] : [collected];
};

export const decideShipment = (command: ShipmentCommand, state: Pool): PoolEvent[] => {
  // The organiser creates shipments; tracking updates and collections come from the system (the caller checked the
  // carrier's signature or the host): the pool is found by them, so a missing one is a 404 like any other.
  if (command.type === 'CreateShipment') requireOrganiserOf(state, command.metadata.actor);
  if (state.status === 'none') throw new NotFoundError('pool');
  switch (command.type) {
    case 'CreateShipment':
      return decideCreate(state, command);
    case 'RecordShipmentStatus':
      return decideStatus(state, command);
    case 'CollectParcel':
      return decideCollect(state, command);
    default:
      return assertNever(command);
  }
};
