import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent, PoolEvent } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { evolvePool, initialPool, type Pool } from '../pools/pool';
import { deciderSpec } from '../testing/decider';
import { decideReservation, type ReservationCommand } from './decide';
import type { ObservedDeposit } from './deposit';
import { unitCounts } from './holdings';

const POOL = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a10';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const ORGANISER = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a02';
const ANN = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a03';
const BOB = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a04';
const R1 = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1b01';
const R2 = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1b02';
const ESCROW = `G${'E'.repeat(55)}`;
const ANN_ACCOUNT = `G${'A'.repeat(55)}`;
const ISSUER = `G${'I'.repeat(55)}`;
const T0 = '2026-03-01T09:00:00.000Z';
const T1 = '2026-03-01T09:05:00.000Z';
const EXPIRES = '2026-03-01T09:15:00.000Z';
const LATER = '2026-03-01T09:20:00.000Z';
const RECLAIM = '2026-05-01T00:00:00.000Z';
const MEMO = 'ab'.repeat(32);
const TX = 'cd'.repeat(32);
const BALANCE = `00000000${'ef'.repeat(32)}`;

const { given } = deciderSpec<Pool, ReservationCommand, PoolEvent>({
  initial: initialPool,
  evolve: (s, e: DomainEvent) => evolvePool(s, e as PoolEvent),
  decide: decideReservation,
});

const created = (units = [{ id: 'u', label: 'Unit', price: '10.00', quantity: 3, maxPerBuyer: 2, tiers: [{ minQuantity: 3, price: '8.00' }] }], type: 'GROUPS' | 'FUNDING' = 'GROUPS'): PoolEvent => ({
  type: 'PoolCreated',
  data: {
    poolId: POOL, tenantId: TENANT, type, organiserId: ORGANISER, organiserName: 'Org', createdAt: T0,
    title: 'Pool', description: '', country: 'FR', currency: 'EUR', marketplaceVisibility: 'PRIVATE',
    config: type === 'GROUPS' ? { units, relais: [{ id: 'r1', name: 'Relais' }] } : { pledge: { min: '5', max: '100' } },
    sellerId: null, payoutAccount: null, organiserCommissionPercent: null, targetAmount: type === 'FUNDING' ? '500' : null, deadline: null,
  },
});
const published: PoolEvent = { type: 'PoolPublished', data: { poolId: POOL, publishedAt: T0 } };
const escrow: PoolEvent = {
  type: 'PoolEscrowOpened',
  data: { poolId: POOL, accountId: ESCROW, organiserSigner: `G${'O'.repeat(55)}`, platformSigner: `G${'P'.repeat(55)}`, threshold: 2, reclaimAfter: RECLAIM, setupTxHash: null, openedAt: T0 },
};
const open = (type: 'GROUPS' | 'FUNDING' = 'GROUPS') => [created(undefined, type), published, escrow];

const meta = (userId = ANN, now = T1) => ({ actor: { userId, displayName: userId === ANN ? 'Ann' : 'Bob' }, now, ip: null });
const place = (quantity: number, o: { id?: string; buyer?: string; now?: string; relaisId?: string | null; unitId?: string } = {}): ReservationCommand => ({
  type: 'PlaceReservation',
  data: { reservationId: o.id ?? R1, lines: [{ unitId: o.unitId ?? 'u', quantity }], pledge: null, relaisId: o.relaisId === undefined ? 'r1' : o.relaisId, ttlSeconds: 600 },
  metadata: meta(o.buyer, o.now),
});
const placed = (quantity: number, o: { id?: string; buyer?: string; price?: string; expiresAt?: string } = {}): PoolEvent => ({
  type: 'ReservationPlaced',
  data: {
    poolId: POOL, reservationId: o.id ?? R1, buyerId: o.buyer ?? ANN, buyerName: (o.buyer ?? ANN) === ANN ? 'Ann' : 'Bob',
    lines: [{ unitId: 'u', quantity, unitPrice: o.price ?? '10.00' }], pledge: null,
    amount: `${(Number(o.price ?? '10') * quantity).toFixed(2)}`, depositFee: '0.00', relaisId: 'r1', expiresAt: o.expiresAt ?? EXPIRES, placedAt: T1,
  },
});
const signed = (id = R1): PoolEvent => ({
  type: 'ReservationSigned',
  data: { poolId: POOL, reservationId: id, buyerId: ANN, terms: { version: 'v', hash: '12'.repeat(32) }, source: ANN_ACCOUNT, escrowAccount: ESCROW, memoHash: MEMO, reclaimAfter: RECLAIM, ip: null, signedAt: T0 },
});
const at = Math.floor(Date.parse(RECLAIM) / 1000);
const deposit = (o: Partial<ObservedDeposit> = {}): ObservedDeposit => ({
  txHash: TX, ledger: 7, successful: true, closedAt: T1, from: ANN_ACCOUNT, operationCount: 1, isClaimableBalance: true,
  assetCode: 'EURC', assetIssuer: ISSUER, amount: '20.0000000', memoHash: MEMO, balanceId: BALANCE,
  claimants: [{ destination: ESCROW, predicate: { before: at } }, { destination: ANN_ACCOUNT, predicate: { notBefore: at } }],
  ...o,
});
const pay = (d: ObservedDeposit, now = T1): ReservationCommand => ({ type: 'PayReservation', data: { reservationId: R1, deposit: d, via: 'txHash', asset: { code: 'EURC', issuer: ISSUER } }, metadata: meta(ANN, now) });
const paidEvent: PoolEvent = { type: 'ReservationPaid', data: { poolId: POOL, reservationId: R1, buyerId: ANN, txHash: TX, ledger: 7, balanceId: BALANCE, amount: '20.00', via: 'txHash', paidAt: T1 } };

const reserve = suite('reservations: place');

reserve('given an open pool, when a buyer reserves, then the units are held until the expiry at the base price', () => {
  given(...open()).when(place(2)).then([placed(2)]);
});

reserve('no oversell: up to the stock exactly; one more is a 409 that says what is left; stale holds do not count and expire on the way', () => {
  given(...open(), placed(2, { id: R2, buyer: BOB })).when(place(1)).then([placed(1, { price: '8.00' })]);
  const e = given(...open(), placed(2, { id: R2, buyer: BOB })).when(place(2)).thenThrows(ConflictError, 'insufficient_stock');
  assert.equal(e.errors, { 'lines.0.quantity': ['only 1 of u left'] });
  given(...open(), placed(2, { id: R2, buyer: BOB }))
    .when(place(2, { now: LATER }))
    .then([
      { type: 'ReservationExpired', data: { poolId: POOL, reservationId: R2, buyerId: BOB, expiresAt: EXPIRES, expiredAt: LATER } },
      { ...placed(2), data: { ...(placed(2).data as object), expiresAt: '2026-03-01T09:30:00.000Z', placedAt: LATER } } as PoolEvent,
    ]);
});

reserve('the tier price applies once the total held reaches it, this reservation included', () => {
  given(...open(), placed(1, { id: R2, buyer: BOB })).when(place(2)).then([placed(2, { price: '8.00' })]);
});

reserve('per-buyer maximum counts the buyer’s live reservations; unknown and duplicate units, relais rules', () => {
  given(...open(), placed(1, { id: R2 })).when(place(2)).thenThrows(ValidationError, 'per_buyer_limit');
  given(...open()).when(place(1, { unitId: 'nope' })).thenThrows(ValidationError, 'validation_failed');
  given(...open()).when(place(1, { relaisId: null })).thenThrows(ValidationError, 'validation_failed');
  given(...open()).when(place(1, { relaisId: 'r9' })).thenThrows(ValidationError, 'validation_failed');
  given(...open())
    .when({ ...place(1), data: { ...(place(1).data as object), lines: [{ unitId: 'u', quantity: 1 }, { unitId: 'u', quantity: 1 }] } } as ReservationCommand)
    .thenThrows(ValidationError, 'validation_failed');
});

reserve('only an open, published pool with an escrow takes reservations; its organiser does not reserve; another id twice is a conflict', () => {
  given(created()).when(place(1)).thenThrows(IllegalStateError, 'pool_not_open');
  given(created(), published).when(place(1)).thenThrows(IllegalStateError, 'escrow_not_open');
  given(...open(), { type: 'PoolArchived', data: { poolId: POOL, archivedAt: T0 } }).when(place(1)).thenThrows(IllegalStateError, 'pool_not_open');
  given(...open()).when(place(1, { buyer: ORGANISER })).thenThrows(ForbiddenError, 'organiser_cannot_reserve');
  given(...open(), placed(1)).when(place(1)).thenThrows(ConflictError, 'reservation_exists');
  given().when(place(1)).thenThrows(NotFoundError, 'pool_not_found');
});

reserve('FUNDING: a free pledge within the pool’s bounds', () => {
  const pledge = (amount: string): ReservationCommand => ({ type: 'PlaceReservation', data: { reservationId: R1, lines: [], pledge: amount, relaisId: null, ttlSeconds: 600 }, metadata: meta() });
  const state = given(...open('FUNDING'));
  state.when(pledge('4.99')).thenThrows(ValidationError, 'pledge_out_of_bounds');
  state.when(pledge('100.01')).thenThrows(ValidationError, 'pledge_out_of_bounds');
  state.when(pledge('25.5')).then([
    { type: 'ReservationPlaced', data: { poolId: POOL, reservationId: R1, buyerId: ANN, buyerName: 'Ann', lines: [], pledge: '25.50', amount: '25.50', depositFee: '0.00', relaisId: null, expiresAt: EXPIRES, placedAt: T1 } },
  ]);
});
reserve.run();

const payment = suite('reservations: sign, pay, cancel, expire');

payment('sign records the terms once; another buyer’s reservation is not found (the pool, to a buyer holding nothing in it); a paid or expired one is refused', () => {
  const sign: ReservationCommand = { type: 'SignReservation', data: { reservationId: R1, terms: { version: 'v', hash: '12'.repeat(32) }, source: ANN_ACCOUNT, memoHash: MEMO }, metadata: { ...meta(), now: T0 } };
  given(...open(), placed(2)).when(sign).then([signed()]);
  given(...open(), placed(2), signed()).when(sign).then([]);
  given(...open(), placed(2), placed(1, { id: R2, buyer: BOB })).when({ ...sign, metadata: meta(BOB) }).thenThrows(NotFoundError, 'reservation_not_found');
  given(...open(), placed(2)).when({ ...sign, metadata: meta(BOB) }).thenThrows(NotFoundError, 'pool_not_found');
  given(...open(), placed(2), signed(), paidEvent).when(sign).thenThrows(IllegalStateError, 'reservation_paid');
  given(...open(), placed(2)).when({ ...sign, metadata: meta(ANN, LATER) }).thenThrows(IllegalStateError, 'reservation_expired');
});

payment('the exact deposit pays; the same deposit again changes nothing; not signed is refused', () => {
  given(...open(), placed(2), signed()).when(pay(deposit())).then([paidEvent]);
  given(...open(), placed(2), signed(), paidEvent).when(pay(deposit())).then([]);
  given(...open(), placed(2)).when(pay(deposit())).thenThrows(IllegalStateError, 'reservation_not_signed');
});

payment('every forgery is a payment_mismatch naming the field', () => {
  const forgeries: Array<[string, Partial<ObservedDeposit>]> = [
    ['transaction', { successful: false }],
    ['transaction', { operationCount: 2 }],
    ['transaction', { isClaimableBalance: false }],
    ['memo', { memoHash: '00'.repeat(32) }],
    ['source', { from: `G${'Z'.repeat(55)}` }],
    ['asset', { assetCode: 'EURT' }],
    ['asset', { assetIssuer: `G${'X'.repeat(55)}` }],
    ['amount', { amount: '19.9999999' }],
    ['amount', { amount: '20.0000001' }],
    ['claimants', { claimants: [{ destination: ESCROW, predicate: { before: at } }] }],
    ['claimants', { claimants: [{ destination: ESCROW, predicate: 'other' }, { destination: ANN_ACCOUNT, predicate: { notBefore: at } }] }],
    ['claimants', { claimants: [{ destination: ESCROW, predicate: { before: at + 1 } }, { destination: ANN_ACCOUNT, predicate: { notBefore: at + 1 } }] }],
    ['claimants', { claimants: [...deposit().claimants, { destination: `G${'Y'.repeat(55)}`, predicate: 'other' }] }],
  ];
  for (const [field, forged] of forgeries) {
    const e = given(...open(), placed(2), signed()).when(pay(deposit(forged))).thenThrows(ValidationError, 'payment_mismatch');
    assert.ok(e.errors[field], `${field}: ${JSON.stringify(forged)}`);
  }
});

payment('a deposit after the expiry, after a cancel, or a second one on a paid reservation is owed back, never counted', () => {
  const late = (receivedAt: string, tx = TX): PoolEvent => ({
    type: 'ReservationLatePaymentReceived',
    data: { poolId: POOL, reservationId: R1, buyerId: ANN, txHash: tx, ledger: 7, balanceId: BALANCE, amount: '20.00', reclaimAfter: RECLAIM, receivedAt },
  });
  given(...open(), placed(2), signed())
    .when(pay(deposit({ closedAt: LATER }), LATER))
    .then([{ type: 'ReservationExpired', data: { poolId: POOL, reservationId: R1, buyerId: ANN, expiresAt: EXPIRES, expiredAt: LATER } }, late(LATER)]);
  const cancelled: PoolEvent = { type: 'ReservationCancelled', data: { poolId: POOL, reservationId: R1, buyerId: ANN, cancelledAt: T1 } };
  given(...open(), placed(2), signed(), cancelled).when(pay(deposit())).then([late(T1)]);
  given(...open(), placed(2), signed(), paidEvent).when(pay(deposit({ txHash: '99'.repeat(32) }))).then([late(T1, '99'.repeat(32))]);
});

payment('cancel frees the units; twice is a no-op; paid and expired are refused; the job expires only a stale reservation', () => {
  const cancel: ReservationCommand = { type: 'CancelReservation', data: { reservationId: R1 }, metadata: meta() };
  const after = given(...open(), placed(2)).when(cancel).then([{ type: 'ReservationCancelled', data: { poolId: POOL, reservationId: R1, buyerId: ANN, cancelledAt: T1 } }]);
  assert.equal(after.status === 'none' ? null : [...unitCounts(after.holdings, T1).values()], []);
  given(...open(), placed(2), { type: 'ReservationCancelled', data: { poolId: POOL, reservationId: R1, buyerId: ANN, cancelledAt: T1 } }).when(cancel).then([]);
  given(...open(), placed(2), signed(), paidEvent).when(cancel).thenThrows(IllegalStateError, 'reservation_paid');
  given(...open(), placed(2)).when({ ...cancel, metadata: meta(ANN, LATER) }).thenThrows(IllegalStateError, 'reservation_expired');
  const expire = (now: string): ReservationCommand => ({ type: 'ExpireReservation', data: { reservationId: R1 }, metadata: { now } });
  given(...open(), placed(2)).when(expire(T1)).then([]);
  given(...open(), placed(2)).when(expire(LATER)).then([{ type: 'ReservationExpired', data: { poolId: POOL, reservationId: R1, buyerId: ANN, expiresAt: EXPIRES, expiredAt: LATER } }]);
  given(...open(), placed(2), signed(), paidEvent).when(expire(LATER)).then([]);
});

payment('the fold counts held and paid units at a time', () => {
  const state = [...open(), placed(1), signed(), paidEvent, placed(1, { id: R2, buyer: BOB })].reduce((s, e) => evolvePool(s, e), initialPool());
  if (state.status === 'none') return assert.unreachable('the pool exists');
  assert.equal(unitCounts(state.holdings, T1).get('u'), { held: 1, paid: 1 });
  assert.equal(unitCounts(state.holdings, LATER).get('u'), { held: 0, paid: 1 }, 'a stale hold no longer counts');
});
payment.run();
