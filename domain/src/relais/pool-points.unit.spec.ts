import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent, PoolEvent } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { evolvePool, initialPool, type Pool } from '../pools/pool';
import { deciderSpec } from '../testing/decider';
import { decideReservation } from '../reservations/decide';
import {
  LATER,
  NOW,
  POOL_ID,
  R1,
  R2,
  R3,
  alice,
  at,
  bob,
  groupsFields,
  openPool,
  organiserActor,
  place,
  placedEvent,
  poolCreated,
  reservationSpec,
} from '../reservations/fixtures.testing';
import { decidePoolPoints, type PoolPointCommand } from './pool-points';

// decidePoolPoints: a point becoming unavailable, a buyer choosing again; and reserving on an unavailable point.

const A = 'sandbox:SBX-001';
const B = 'sandbox:SBX-002';
const C = 'sandbox:SBX-003';
const fields = groupsFields({
  config: {
    units: [{ id: 'u1', label: 'Panier', price: '10.00' }],
    relais: [
      { id: A, name: 'Relais A' },
      { id: B, name: 'Relais B' },
      { id: C, name: 'Relais C' },
      { id: 'r1', name: 'Épicerie' },
    ],
  },
});

const { given } = deciderSpec<Pool, PoolPointCommand, PoolEvent>({
  initial: initialPool,
  evolve: (s, e: DomainEvent) => evolvePool(s, e as PoolEvent),
  decide: decidePoolPoints,
});

const placedAt = (id: string, relaisId: string, buyer = alice, placed = NOW): PoolEvent => {
  const e = placedEvent({ id, buyer, lines: [{ unitId: 'u1', quantity: 1, unitPrice: '10.00' }], amount: '10.00', placedAt: placed, expiresAt: at(placed, 900) });
  return { ...e, data: { ...e.data, relaisId } } as PoolEvent;
};
const paid = (id: string, buyer = alice): PoolEvent => ({
  type: 'ReservationPaid',
  data: { poolId: POOL_ID, reservationId: id, buyerId: buyer.userId, txHash: 'ab'.repeat(32), ledger: 7, balanceId: `00000000${'cd'.repeat(32)}`, amount: '10.00', via: 'txHash', paidAt: at(NOW, 60) },
});
const closed: PoolEvent = {
  type: 'PoolClosed',
  data: {
    poolId: POOL_ID,
    outcome: 'SUCCEEDED',
    reason: 'ORGANISER',
    closedAt: at(NOW, 120),
    paidUnits: 1,
    paidAmount: '10.00',
    finalPrices: [{ unitId: 'u1', price: '10.00' }],
    fees: { platformFeePercent: '2', organiserCommissionPercent: null },
    release: { after: 'RECEIPT', inspectionDays: 3, disputeResponseDays: 7 },
  },
};
const shipped = (pointId: string, reservationIds: string[]): PoolEvent => ({
  type: 'PoolShipmentCreated',
  data: {
    poolId: POOL_ID,
    shipmentId: '20000000-0000-4000-8000-000000000001',
    pointId,
    network: 'sandbox',
    trackingNumber: 'SBX000000000001',
    reservationIds,
    parcels: reservationIds.length,
    weightG: 500,
    expectedOn: '2026-03-05',
    createdAt: at(NOW, 180),
  },
});

const mark = (pointId = A, reason: 'retired' | 'temporarily_closed' = 'retired', now = at(NOW, 300)): PoolPointCommand => ({
  type: 'MarkPickupPointUnavailable',
  data: { pointId, reason, detail: null },
  metadata: { now },
});
const unavailable = (reservationIds: string[], o: { pointId?: string; reason?: 'retired' | 'temporarily_closed'; at?: string } = {}): PoolEvent => ({
  type: 'PickupPointUnavailable',
  data: { poolId: POOL_ID, pointId: o.pointId ?? A, reason: o.reason ?? 'retired', detail: null, reservationIds, detectedAt: o.at ?? at(NOW, 300) },
});
const change = (relaisId: string, o: { id?: string; userId?: string; now?: string } = {}): PoolPointCommand => ({
  type: 'ChangePickupPoint',
  data: { reservationId: o.id ?? R1, relaisId },
  metadata: { actor: { userId: o.userId ?? alice.userId }, now: o.now ?? at(NOW, 400) },
});
const changed = (from: string | null, to: string, o: { id?: string; now?: string } = {}): PoolEvent => ({
  type: 'ReservationPickupPointChanged',
  data: { poolId: POOL_ID, reservationId: o.id ?? R1, buyerId: alice.userId, from, to, changedAt: o.now ?? at(NOW, 400) },
});

const marking = suite('relais pool points: MarkPickupPointUnavailable');

marking('lists the live reservations (PENDING or PAID) that chose the point, not the others', () => {
  given(
    ...openPool(fields),
    placedAt(R1, A), // PENDING, live at NOW + 5 min
    placedAt(R2, A, bob),
    paid(R2, bob),
    placedAt(R3, B, bob),
  )
    .when(mark())
    .then([unavailable([R1, R2])]);
});

marking('a cancelled or stale PENDING reservation is not asked to choose again', () => {
  const cancelled: PoolEvent = { type: 'ReservationCancelled', data: { poolId: POOL_ID, reservationId: R1, buyerId: alice.userId, cancelledAt: at(NOW, 10) } };
  given(...openPool(fields), placedAt(R1, A), cancelled, placedAt(R2, A, bob))
    .when(mark(A, 'retired', LATER)) // R2 expired at NOW + 15 min, LATER is NOW + 1 h
    .then([unavailable([], { at: LATER })]);
});

marking('a DRAFT pool records it too (its organiser must pick another before publishing); no reservation yet', () => {
  given(poolCreated(fields)).when(mark()).then([unavailable([])]);
});

marking('already unavailable for that reason: no event; for another reason: recorded again', () => {
  given(...openPool(fields), placedAt(R1, A), unavailable([R1])).when(mark()).then([]);
  given(...openPool(fields), placedAt(R1, A), unavailable([R1], { reason: 'temporarily_closed' }))
    .when(mark())
    .then([unavailable([R1])]);
});

marking('nothing to do: a point the pool does not have, a pool past shipping, a point already shipped to', () => {
  given(...openPool(fields)).when(mark('sandbox:SBX-999')).then([]);
  given(...openPool(fields), placedAt(R1, A), { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: at(NOW, 100) } } as PoolEvent)
    .when(mark())
    .then([]);
  given(...openPool(fields), placedAt(R1, A), paid(R1), closed, shipped(A, [R1])).when(mark()).then([]);
});

marking('a LOCKED pool: its PAID reservations not yet shipped are listed', () => {
  given(...openPool(fields), placedAt(R1, A), paid(R1), placedAt(R2, B, bob), paid(R2, bob), closed, shipped(B, [R2]))
    .when(mark())
    .then([unavailable([R1])]);
});

marking('no pool: not found', () => {
  given().when(mark()).thenThrows(NotFoundError, 'pool_not_found');
});

const choosing = suite('relais pool points: ChangePickupPoint');

choosing('the buyer moves a live reservation to another available point of the pool', () => {
  const state = given(...openPool(fields), placedAt(R1, A), unavailable([R1]))
    .when(change(B))
    .then([changed(A, B)]);
  assert.is(state.status !== 'none' && state.holdings.byId.get(R1)!.relaisId, B);
});

choosing('before any unavailability too (a PAID reservation in a LOCKED pool, not shipped)', () => {
  given(...openPool(fields), placedAt(R1, A), paid(R1), closed).when(change('r1')).then([changed(A, 'r1')]);
});

choosing('the same point again: no event (idempotent)', () => {
  given(...openPool(fields), placedAt(R1, A), unavailable([R1]), changed(A, B)).when(change(B, { now: at(NOW, 500) })).then([]);
});

choosing('an unavailable point is refused (409), an unknown one is a 400', () => {
  given(...openPool(fields), placedAt(R1, A), unavailable([R1])).when(change(A)).thenThrows(ConflictError, 'pickup_point_unavailable');
  const e = given(...openPool(fields), placedAt(R1, A)).when(change('sandbox:SBX-999')).thenThrows(ValidationError, 'validation_failed');
  assert.ok(e.errors.relaisId);
});

choosing('only the buyer: the organiser and another buyer get 404, a stranger the pool’s 404', () => {
  given(...openPool(fields), placedAt(R1, A), placedAt(R2, B, bob)).when(change(C, { userId: bob.userId })).thenThrows(NotFoundError, 'reservation_not_found');
  given(...openPool(fields), placedAt(R1, A)).when(change(C, { userId: organiserActor.userId })).thenThrows(NotFoundError, 'reservation_not_found');
  given(...openPool(fields), placedAt(R1, A)).when(change(C, { userId: 'e0000000-0000-4000-8000-00000000000e' })).thenThrows(NotFoundError, 'pool_not_found');
  given(...openPool(fields), placedAt(R1, A)).when(change(C, { id: R3 })).thenThrows(NotFoundError, 'reservation_not_found');
});

choosing('a reservation that no longer holds, a shipped parcel, a pool past shipping: refused', () => {
  given(...openPool(fields), placedAt(R1, A)).when(change(B, { now: LATER })).thenThrows(IllegalStateError, 'reservation_not_live');
  given(...openPool(fields), placedAt(R1, A), paid(R1), closed, shipped(A, [R1])).when(change(B)).thenThrows(ConflictError, 'parcel_already_shipped');
  given(...openPool(fields), placedAt(R1, A), paid(R1), { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: at(NOW, 100) } } as PoolEvent)
    .when(change(B))
    .thenThrows(IllegalStateError, 'pickup_point_change_closed');
});

const reserving = suite('relais pool points: reserving on an unavailable point');
const reservations = reservationSpec();

reserving('PlaceReservation on a point that became unavailable is a 409 pickup_point_unavailable; another point is fine', () => {
  reservations
    .given(...openPool(fields), unavailable([]))
    .when(place({ relaisId: A, lines: [{ unitId: 'u1', quantity: 1 }] }))
    .thenThrows(ConflictError, 'pickup_point_unavailable');
  const events = decideReservation(place({ relaisId: B, lines: [{ unitId: 'u1', quantity: 1 }] }), reservations.fold([...openPool(fields), unavailable([])]));
  assert.is(events.length, 1);
  assert.is(events[0]!.type, 'ReservationPlaced');
});

marking.run();
choosing.run();
reserving.run();
