import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent, PoolEvent, ShipmentStatus } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import type { EscrowMeta } from '../escrow/decide';
import {
  DAY,
  DEADLINE,
  POOL_ID,
  R1,
  R2,
  R3,
  R4,
  alice,
  asBuyer,
  at,
  bob,
  carol,
  closedEvent,
  deliveredEvent,
  disputeOpenedEvent,
  existing,
  expiredEvent,
  groupsFields,
  organiser,
  otherOrganiser,
  paid,
  poolWithDeadline,
  receiptEvent,
  reservations,
  u1,
} from '../escrow/fixtures.testing';
import { evolvePool, initialPool, type Pool } from '../pools/pool';
import type { BuyerActor } from '../reservations/decide';
import { deciderSpec } from '../testing/decider';
import { decideShipment, type ShipmentCommand } from './shipments';

// decideShipment: CreateShipment, RecordShipmentStatus, CollectParcel on the escrow specs' reference pool, whose
// points are a sandbox carrier's relay and a community host. Alice's parcel (R1) goes to the relay, Bob's (R2) to the
// host; Carol's hold expired at the deadline.

const HOST = '40000000-0000-4000-8000-000000000001';
const SBX = 'sandbox:SBX-001';
const CMY = `community:${HOST}`;
const S1 = '5a000000-0000-4000-8000-000000000001';
const S2 = '5a000000-0000-4000-8000-000000000002';
const T_SHIP = at(DEADLINE, DAY);
const T_ARRIVE = at(DEADLINE, 3 * DAY);

const fields = (parcelWeightG?: number) =>
  groupsFields({
    deadline: DEADLINE,
    config: { ...groupsFields().config, relais: [{ id: SBX, name: 'Relais SBX' }, { id: CMY, name: 'Chez Hélène' }], ...(parcelWeightG ? { parcelWeightG } : {}) },
  });

const chose = (reservationId: string, buyer: BuyerActor, to: string): PoolEvent => ({
  type: 'ReservationPickupPointChanged',
  data: { poolId: POOL_ID, reservationId, buyerId: buyer.userId, from: 'r1', to, changedAt: at(DEADLINE, -DAY) },
});

/** The reference pool with relais points: LOCKED, releases on receipt (or as `closed` says). */
const locked = (o: { parcelWeightG?: number; closed?: Parameters<typeof closedEvent>[0] } = {}): PoolEvent[] => [
  ...poolWithDeadline(fields(o.parcelWeightG ?? 500)),
  ...reservations(),
  chose(R1, alice, SBX),
  chose(R2, bob, CMY),
  expiredEvent(R3, carol, DEADLINE),
  closedEvent(o.closed),
];

const meta = (actor: EscrowMeta['actor'], now: string): EscrowMeta => ({ actor, now });
const create = (o: { id?: string; pointId?: string; tracking?: string; weightG?: number | null; actor?: EscrowMeta['actor']; now?: string } = {}): ShipmentCommand => ({
  type: 'CreateShipment',
  data: { shipmentId: o.id ?? S1, pointId: o.pointId ?? SBX, trackingNumber: o.tracking ?? 'SBX000000000001', weightG: o.weightG ?? null, expectedOn: '2026-03-13' },
  metadata: meta(o.actor === undefined ? organiser : o.actor, o.now ?? T_SHIP),
});
const track = (status: ShipmentStatus, o: { tracking?: string; occurredAt?: string; now?: string } = {}): ShipmentCommand => ({
  type: 'RecordShipmentStatus',
  data: { trackingNumber: o.tracking ?? 'SBX000000000001', status, carrierStatus: status.toUpperCase(), source: 'carrier', occurredAt: o.occurredAt ?? o.now ?? T_ARRIVE},
  metadata: meta(null, o.now ?? T_ARRIVE),
});
const collect = (reservationId: string, now = at(T_ARRIVE, 3600), hostId = HOST): ShipmentCommand => ({
  type: 'CollectParcel',
  data: { reservationId, hostId },
  metadata: meta({ userId: '40000000-0000-4000-8000-0000000000aa' }, now),
});

const createdEvent = (o: { id?: string; pointId?: string; tracking?: string; reservationIds?: string[]; weightG?: number } = {}): PoolEvent => {
  const pointId = o.pointId ?? SBX;
  const reservationIds = o.reservationIds ?? [pointId === SBX ? R1 : R2];
  return {
    type: 'PoolShipmentCreated',
    data: {
      poolId: POOL_ID,
      shipmentId: o.id ?? S1,
      pointId,
      network: pointId === SBX ? 'sandbox' : 'community',
      trackingNumber: o.tracking ?? 'SBX000000000001',
      reservationIds,
      parcels: reservationIds.length,
      weightG: o.weightG ?? 500 * reservationIds.length,
      expectedOn: '2026-03-13',
      createdAt: T_SHIP,
    },
  };
};
const statusEvent = (status: ShipmentStatus, previous: ShipmentStatus, o: { id?: string; tracking?: string; network?: 'sandbox' | 'community'; source?: 'carrier' | 'host'; at?: string } = {}): PoolEvent => ({
  type: 'PoolShipmentStatusChanged',
  data: {
    poolId: POOL_ID,
    shipmentId: o.id ?? S1,
    trackingNumber: o.tracking ?? 'SBX000000000001',
    network: o.network ?? 'sandbox',
    status,
    previous,
    carrierStatus: o.source === 'host' ? null : status.toUpperCase(),
    source: o.source ?? 'carrier',
    occurredAt: o.at ?? T_ARRIVE,
    recordedAt: o.at ?? T_ARRIVE,
  },
});
const CMY_TRACKING = 'CMY000000000001';
const bothShipped = (): PoolEvent[] => [...locked(), createdEvent(), createdEvent({ id: S2, pointId: CMY, tracking: CMY_TRACKING })];
/** Bob's parcel at the host (reception confirmed); Alice's still on its way. */
const atHost = (): PoolEvent[] => [...bothShipped(), statusEvent('available_for_pickup', 'label_created', { id: S2, tracking: CMY_TRACKING, network: 'community', source: 'host' })];
const collectedEvent = (reservationId = R2, buyer = bob, now = at(T_ARRIVE, 3600)): PoolEvent => ({
  type: 'RelaisParcelCollected',
  data: { poolId: POOL_ID, shipmentId: S2, reservationId, buyerId: buyer.userId, pointId: CMY, hostId: HOST, collectedAt: now },
});
const delivered = (now = T_ARRIVE, note = 'Every parcel reached its pick-up point (sandbox)'): PoolEvent => ({
  type: 'PoolDelivered',
  data: { poolId: POOL_ID, note, inspectionEndsAt: at(now, 7 * DAY), deliveredAt: now },
});

const { given } = deciderSpec<Pool, ShipmentCommand, PoolEvent>({ initial: initialPool, evolve: (s: Pool, e: DomainEvent) => evolvePool(s, e as PoolEvent), decide: decideShipment });

const creating = suite('relais shipments: create');

creating('the organiser ships the paid parcels of the buyers who chose a point: one shipment, their reservations, the weight from parcelWeightG', () => {
  const state = given(...locked()).when(create()).then([createdEvent()]);
  const s = existing(state).relais.shipments.get(S1)!;
  assert.equal([s.status, s.reservationIds, s.arrivedAt], ['label_created', [R1], null]);
});

creating('a weight given wins over parcelWeightG; without either: 400 weightG', () => {
  given(...locked()).when(create({ weightG: 1200 })).then([createdEvent({ weightG: 1200 })]);
  const noWeight = [...poolWithDeadline(groupsFields({ deadline: DEADLINE, config: { ...fields().config, parcelWeightG: undefined } })), ...locked().slice(poolWithDeadline().length)];
  const error = given(...noWeight).when(create()).thenThrows(ValidationError, 'validation_failed');
  assert.ok(error.errors.weightG);
});

creating('the same request again (same id, point and tracking): nothing; another shipment under that id: 409', () => {
  given(...locked(), createdEvent()).when(create()).then([]);
  given(...locked(), createdEvent()).when(create({ tracking: 'SBX000000000009' })).thenThrows(ConflictError, 'shipment_exists');
});

creating('parcels already in a live shipment are not shipped twice: 400 nothing_to_ship; a returned shipment gives them back', () => {
  given(...locked(), createdEvent()).when(create({ id: S2, tracking: 'SBX000000000002' })).thenThrows(IllegalStateError, 'nothing_to_ship');
  given(...locked(), createdEvent(), statusEvent('returned', 'label_created'))
    .when(create({ id: S2, tracking: 'SBX000000000002' }))
    .then([createdEvent({ id: S2, tracking: 'SBX000000000002' })]);
});

creating('only PAID parcels still in escrow: a point nobody paid for has nothing to ship; an expired hold is never shipped', () => {
  const carolPaidForHost = [...locked().slice(0, -2), ...paid({ id: R4, buyer: carol, lines: u1(1, '8.00'), n: 4 }), chose(R4, carol, CMY), expiredEvent(R3, carol, DEADLINE), closedEvent()];
  given(...carolPaidForHost).when(create({ pointId: CMY, tracking: CMY_TRACKING })).then([createdEvent({ pointId: CMY, tracking: CMY_TRACKING, reservationIds: [R2, R4] })]);
});

creating('a point not in the pool, or not a network’s: 400; an unavailable point: 409 pickup_point_unavailable; a tracking number taken: 409', () => {
  given(...locked()).when(create({ pointId: 'sandbox:SBX-404' })).thenThrows(ValidationError, 'unknown_pickup_point');
  const unavailable: PoolEvent = { type: 'PickupPointUnavailable', data: { poolId: POOL_ID, pointId: SBX, reason: 'retired', detail: null, reservationIds: [R1], detectedAt: at(DEADLINE, 60) } };
  given(...locked(), unavailable).when(create()).thenThrows(ConflictError, 'pickup_point_unavailable');
  given(...locked(), createdEvent()).when(create({ id: S2, pointId: CMY })).thenThrows(ConflictError, 'tracking_number_taken');
});

creating('only a pool that closed successfully: OPEN or FAILED is 400 pool_not_locked', () => {
  given(...locked().slice(0, -2)).when(create()).thenThrows(IllegalStateError, 'pool_not_locked');
  given(...locked({ closed: { outcome: 'FAILED' } })).when(create()).thenThrows(IllegalStateError, 'pool_not_locked');
});

creating('only its organiser: another organiser or the system 404, a buyer 403', () => {
  given(...locked()).when(create({ actor: otherOrganiser })).thenThrows(NotFoundError, 'pool_not_found');
  given(...locked()).when(create({ actor: null })).thenThrows(NotFoundError, 'pool_not_found');
  given(...locked()).when(create({ actor: asBuyer(alice) })).thenThrows(ForbiddenError, 'organise_capability_required');
});

const tracking = suite('relais shipments: tracking');

tracking('a status that moves the shipment forward is recorded with the one before it', () => {
  const state = given(...locked(), createdEvent()).when(track('in_transit')).then([statusEvent('in_transit', 'label_created')]);
  assert.is(existing(state).relais.shipments.get(S1)!.status, 'in_transit');
});

tracking('a late in_transit after delivered makes no event; the same status again or unknown neither', () => {
  const arrived = [...locked(), createdEvent(), statusEvent('delivered', 'label_created')];
  given(...arrived).when(track('in_transit', { now: at(T_ARRIVE, 60) })).then([]);
  given(...arrived).when(track('delivered', { now: at(T_ARRIVE, 60) })).then([]);
  given(...locked(), createdEvent()).when(track('unknown')).then([]);
});

tracking('an unknown tracking number: 404 shipment_not_found', () => {
  given(...locked(), createdEvent()).when(track('in_transit', { tracking: 'SBX999999999999' })).thenThrows(NotFoundError, 'shipment_not_found');
});

tracking('the last arrival delivers the pool in the same decision: the inspection period starts', () => {
  const history = [...atHost(), statusEvent('in_transit', 'label_created', { at: T_SHIP })];
  const state = given(...history).when(track('available_for_pickup')).then([statusEvent('available_for_pickup', 'in_transit'), delivered()]);
  assert.equal([existing(state).closing!.deliveredAt, existing(state).closing!.inspectionEndsAt], [T_ARRIVE, at(T_ARRIVE, 7 * DAY)]);
});

tracking('an arrival that is not the last, or with a paid parcel not shipped yet: no delivery', () => {
  given(...bothShipped()).when(track('available_for_pickup')).then([statusEvent('available_for_pickup', 'label_created')]);
  given(...locked(), createdEvent()).when(track('delivered')).then([statusEvent('delivered', 'label_created')]);
});

tracking('a pool delivered already, or one that releases at CLOSE: the status alone', () => {
  given(...atHost(), deliveredEvent()).when(track('delivered')).then([statusEvent('delivered', 'label_created')]);
  const atClose = [...locked({ closed: { release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } } }), createdEvent()];
  given(...atClose).when(track('delivered')).then([statusEvent('delivered', 'label_created')]);
});

const collecting = suite('relais shipments: collection at a community host');

collecting('a collection confirms receipt where the release waits for it: the reservation is accepted by its buyer', () => {
  const state = given(...atHost()).when(collect(R2)).then([collectedEvent(), receiptEvent(R2, bob, at(T_ARRIVE, 3600))]);
  assert.equal(existing(state).holdings.byId.get(R2)!.acceptance, { by: 'BUYER', at: at(T_ARRIVE, 3600) });
  assert.ok(existing(state).relais.collected.has(R2));
});

collecting('a reservation accepted already, disputed, or a pool released at CLOSE: the collection alone', () => {
  given(...atHost(), receiptEvent(R2, bob, at(T_ARRIVE, 60))).when(collect(R2)).then([collectedEvent()]);
  given(...atHost(), disputeOpenedEvent({ id: R2, buyer: bob, openedAt: at(T_ARRIVE, 60) })).when(collect(R2)).then([collectedEvent()]);
  const atClose = [
    ...locked({ closed: { release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } } }),
    createdEvent({ id: S2, pointId: CMY, tracking: CMY_TRACKING }),
    statusEvent('available_for_pickup', 'label_created', { id: S2, tracking: CMY_TRACKING, network: 'community', source: 'host' }),
  ];
  given(...atClose).when(collect(R2)).then([collectedEvent()]);
});

collecting('collected once: again is 409 already_collected', () => {
  given(...atHost(), collectedEvent()).when(collect(R2, at(T_ARRIVE, 7200))).thenThrows(ConflictError, 'already_collected');
});

collecting('a parcel not at the host yet: 409 parcel_not_arrived; one not sent to this host (another host, the relay’s, unknown): 404', () => {
  given(...bothShipped()).when(collect(R2)).thenThrows(ConflictError, 'parcel_not_arrived');
  given(...atHost()).when(collect(R2, at(T_ARRIVE, 3600), '40000000-0000-4000-8000-000000000002')).thenThrows(NotFoundError, 'parcel_not_found');
  given(...atHost()).when(collect(R1)).thenThrows(NotFoundError, 'parcel_not_found');
  given(...atHost()).when(collect(R4)).thenThrows(NotFoundError, 'parcel_not_found');
  given().when(collect(R2)).thenThrows(NotFoundError, 'pool_not_found');
});

creating.run();
tracking.run();
collecting.run();
