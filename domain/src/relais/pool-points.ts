import type { PoolEvent, UnavailableReason } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import type { ExistingPool, Pool } from '../pools/pool';
import { requireBuyerIn } from '../reservations/buyer';
import { holdsAt } from '../reservations/holdings';

// A pool's pick-up points after it was created (docs/relais.md): a point the directory no longer vouches for becomes
// unavailable (its buyers are asked to choose again), and a buyer re-chooses among the pool's available points.

export type PoolPointCommand =
  /** The system (a carrier's signal, a host's status, the periodic check) found the point unusable. */
  | { type: 'MarkPickupPointUnavailable'; data: { pointId: string; reason: UnavailableReason; detail: string | null }; metadata: { now: string } }
  /** The buyer of the reservation picks another point of the pool. */
  | { type: 'ChangePickupPoint'; data: { reservationId: string; relaisId: string }; metadata: { actor: { userId: string }; now: string } };

/** The pool statuses whose parcels are still to be shipped: a point can still let them down. */
const POINT_STATUSES: ReadonlySet<string> = new Set(['DRAFT', 'OPEN', 'LOCKED']);
/** A buyer re-chooses while the pool takes reservations or waits for its shipments. */
const RECHOICE_STATUSES: ReadonlySet<string> = new Set(['OPEN', 'LOCKED']);

const isPointOf = (pool: ExistingPool, pointId: string): boolean => (pool.fields.config.relais ?? []).some((p) => p.id === pointId);

/** The reservations already in a shipment of the pool (their parcel left: their point can no longer change). */
const shippedReservations = (pool: ExistingPool): Set<string> => {
  const ids = new Set<string>();
  for (const s of pool.relais.shipments.values()) for (const id of s.reservationIds) ids.add(id);
  return ids;
};

const markUnavailable = (pool: Pool, c: Extract<PoolPointCommand, { type: 'MarkPickupPointUnavailable' }>): PoolEvent[] => {
  if (pool.status === 'none') throw new NotFoundError('pool');
  const { pointId, reason, detail } = c.data;
  // Nothing to do (and a fan-out over a read model that is a step behind must not fail): a pool past shipping, a
  // point it no longer has, one already known unavailable for that reason, or one its parcels were shipped to.
  if (!POINT_STATUSES.has(pool.status) || !isPointOf(pool, pointId)) return [];
  if (pool.relais.unavailable.get(pointId)?.reason === reason) return [];
  if ([...pool.relais.shipments.values()].some((s) => s.pointId === pointId)) return [];
  const shipped = shippedReservations(pool);
  const reservationIds: string[] = [];
  for (const r of pool.holdings.byId.values()) {
    if (r.relaisId === pointId && holdsAt(r, c.metadata.now) && !shipped.has(r.id)) reservationIds.push(r.id);
  }
  return [{ type: 'PickupPointUnavailable', data: { poolId: pool.id, pointId, reason, detail, reservationIds, detectedAt: c.metadata.now } }];
};

const changePoint = (state: Pool, c: Extract<PoolPointCommand, { type: 'ChangePickupPoint' }>): PoolEvent[] => {
  const { reservationId, relaisId } = c.data;
  const { userId } = c.metadata.actor;
  const pool = requireBuyerIn(state, userId);
  const r = pool.holdings.byId.get(reservationId);
  // Only the buyer: the organiser and other buyers are answered as for a reservation that does not exist.
  if (!r || r.buyerId !== userId) throw new NotFoundError('reservation');
  if (!RECHOICE_STATUSES.has(pool.status)) throw new IllegalStateError('pickup_point_change_closed', 'This pool no longer takes a change of pick-up point');
  if (!holdsAt(r, c.metadata.now)) throw new IllegalStateError('reservation_not_live', 'Only a PENDING or PAID reservation can change its pick-up point');
  if (shippedReservations(pool).has(r.id)) throw new ConflictError('parcel_already_shipped', 'This reservation’s parcel has already been shipped to its pick-up point');
  if (!isPointOf(pool, relaisId)) {
    const none = (pool.fields.config.relais ?? []).length === 0;
    throw new ValidationError({ relaisId: [none ? 'this pool has no pick-up points' : `no pick-up point ${relaisId} in this pool`] });
  }
  if (pool.relais.unavailable.has(relaisId)) throw pointUnavailable(pool, relaisId);
  if (r.relaisId === relaisId) return [];
  return [{ type: 'ReservationPickupPointChanged', data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, from: r.relaisId, to: relaisId, changedAt: c.metadata.now } }];
};

/** The refusal of a point of the pool that became unavailable (reserving on it, or re-choosing it): 409. */
export const pointUnavailable = (pool: ExistingPool, pointId: string): ConflictError =>
  new ConflictError('pickup_point_unavailable', `The pick-up point ${pointId} is no longer available (${pool.relais.unavailable.get(pointId)?.reason ?? 'unavailable'}): choose another`, {
    relaisId: ['this pick-up point is no longer available: choose another of the pool'],
  });

/** Decides a command on a pool's pick-up points. */
export const decidePoolPoints = (command: PoolPointCommand, state: Pool): PoolEvent[] => {
  switch (command.type) {
    case 'MarkPickupPointUnavailable':
      return markUnavailable(state, command);
    case 'ChangePickupPoint':
      return changePoint(state, command);
    default:
      return assertNever(command);
  }
};
