import { z } from 'zod';
import { event, type EventOf } from '../define';
import { Id, IsoDate } from '../common';
import { CalendarDate, Closure, Geo, OpeningHours, PickupPointId, PointAddress, RelaisNetwork, ShipmentStatus } from './point';

// Relais (docs/relais.md). Two kinds of streams:
// - `relais-host-<hostId>`: a community host (a member of the tenant under the RELAIS mandate): application,
//   approval, profile, status, and the parcels booked on each day (capacity is decided there);
// - `pool-<poolId>`: what happens to a pool's parcels (its points becoming unavailable, buyers re-choosing,
//   shipments and their tracking, collections), decided by the pool aggregate with the escrow it moves.

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
const TrackingNumber = z.string().regex(/^[A-Za-z0-9-]{4,40}$/);

export const HostCapacity = z
  .object({
    parcelsPerDay: z.number().int().min(1).max(500),
    maxWeightG: z.number().int().min(1).max(1_000_000),
  })
  .strict();
export type HostCapacity = z.infer<typeof HostCapacity>;

/** What a host declares, and may change later. */
export const HostProfile = z
  .object({
    name: z.string().min(1).max(200),
    address: PointAddress,
    geo: Geo,
    openingHours: OpeningHours,
    closures: z.array(Closure).max(50),
    capacity: HostCapacity,
    photoUrl: z.string().url().max(2000).nullable(),
  })
  .strict();
export type HostProfile = z.infer<typeof HostProfile>;

export const RelaisHostApplied = event(
  'RelaisHostApplied',
  1,
  z
    .object({
      hostId: Id,
      tenantId: Id,
      userId: Id,
      profile: HostProfile,
      /** The RELAIS mandate the host accepted (version and sha256 of its text). */
      mandate: z.object({ version: z.string().min(1).max(40), hash: Sha256 }).strict(),
      appliedAt: IsoDate,
    })
    .strict(),
);

export const RelaisHostApproved = event('RelaisHostApproved', 1, z.object({ hostId: Id, approvedBy: z.string().min(1).max(200), approvedAt: IsoDate }).strict());
export const RelaisHostRejected = event(
  'RelaisHostRejected',
  1,
  z.object({ hostId: Id, rejectedBy: z.string().min(1).max(200), reason: z.string().max(500).nullable(), rejectedAt: IsoDate }).strict(),
);
export const RelaisHostProfileUpdated = event('RelaisHostProfileUpdated', 1, z.object({ hostId: Id, changes: HostProfile.partial(), updatedAt: IsoDate }).strict());
/** The host opens again, pauses (`temporarily_closed`) or leaves the network (`retired`, final). */
export const RelaisHostStatusChanged = event(
  'RelaisHostStatusChanged',
  1,
  z.object({ hostId: Id, status: z.enum(['active', 'temporarily_closed', 'retired']), reason: z.string().max(500).nullable(), changedAt: IsoDate }).strict(),
);
/** Parcels of one shipment booked on a day: the day's total never exceeds `capacity.parcelsPerDay`. */
export const RelaisHostParcelsBooked = event(
  'RelaisHostParcelsBooked',
  1,
  z.object({ hostId: Id, shipmentId: Id, poolId: Id, date: CalendarDate, parcels: z.number().int().min(1).max(500), bookedAt: IsoDate }).strict(),
);
/** A booking given back (the shipment was not created after all). */
export const RelaisHostBookingReleased = event('RelaisHostBookingReleased', 1, z.object({ hostId: Id, shipmentId: Id, releasedAt: IsoDate }).strict());

export const relaisHostEvents = [
  RelaisHostApplied,
  RelaisHostApproved,
  RelaisHostRejected,
  RelaisHostProfileUpdated,
  RelaisHostStatusChanged,
  RelaisHostParcelsBooked,
  RelaisHostBookingReleased,
] as const;
export type RelaisHostEvent = EventOf<(typeof relaisHostEvents)[number]>;

// ---- on the pool's stream ----

export const UnavailableReason = z.enum(['temporarily_closed', 'retired', 'closed_on_date', 'too_heavy', 'refused_at_label', 'not_found']);
export type UnavailableReason = z.infer<typeof UnavailableReason>;

/** A point of the pool can no longer take its parcels: the buyers who chose it must choose again. */
export const PickupPointUnavailable = event(
  'PickupPointUnavailable',
  1,
  z
    .object({
      poolId: Id,
      pointId: z.string().min(1).max(64),
      reason: UnavailableReason,
      detail: z.string().max(500).nullable(),
      /** The live reservations (PENDING or PAID) that had chosen it. */
      reservationIds: z.array(Id).max(10_000),
      detectedAt: IsoDate,
    })
    .strict(),
);

/** A buyer chose another point of the pool for a reservation (after theirs became unavailable, or before shipping). */
export const ReservationPickupPointChanged = event(
  'ReservationPickupPointChanged',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, from: z.string().min(1).max(64).nullable(), to: z.string().min(1).max(64), changedAt: IsoDate }).strict(),
);

/** The organiser ships the parcels of the buyers who chose one point (one label, one tracking number). */
export const PoolShipmentCreated = event(
  'PoolShipmentCreated',
  1,
  z
    .object({
      poolId: Id,
      shipmentId: Id,
      pointId: PickupPointId,
      network: RelaisNetwork,
      trackingNumber: TrackingNumber,
      reservationIds: z.array(Id).min(1).max(10_000),
      parcels: z.number().int().min(1).max(10_000),
      weightG: z.number().int().min(1).max(1_000_000),
      /** The day the parcels are expected at the point (a community host's booking is for that day). */
      expectedOn: CalendarDate,
      createdAt: IsoDate,
    })
    .strict(),
);

/**
 * A shipment moved forward in the vocabulary (never back: SHIPMENT_STATUS_RANK). `source`: a carrier's webhook,
 * the community host confirming reception, or the sandbox carrier.
 */
export const PoolShipmentStatusChanged = event(
  'PoolShipmentStatusChanged',
  1,
  z
    .object({
      poolId: Id,
      shipmentId: Id,
      trackingNumber: TrackingNumber,
      network: RelaisNetwork,
      status: ShipmentStatus,
      previous: ShipmentStatus.nullable(),
      /** The carrier's own code, as received. */
      carrierStatus: z.string().max(100).nullable(),
      source: z.enum(['carrier', 'host', 'sandbox']),
      occurredAt: IsoDate,
      recordedAt: IsoDate,
    })
    .strict(),
);

/**
 * A buyer collected their parcel at a community host with the one-time code the service issued them. Where the
 * pool's release waits for receipt, the same decision confirms the buyer's receipt (ReservationReceiptConfirmed).
 */
export const RelaisParcelCollected = event(
  'RelaisParcelCollected',
  1,
  z
    .object({
      poolId: Id,
      shipmentId: Id,
      reservationId: Id,
      buyerId: Id,
      pointId: PickupPointId,
      /** The host who entered the code (community), null for a carrier's point. */
      hostId: Id.nullable(),
      collectedAt: IsoDate,
    })
    .strict(),
);

export const poolRelaisEvents = [PickupPointUnavailable, ReservationPickupPointChanged, PoolShipmentCreated, PoolShipmentStatusChanged, RelaisParcelCollected] as const;
export type PoolRelaisEvent = EventOf<(typeof poolRelaisEvents)[number]>;
