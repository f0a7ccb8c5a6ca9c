import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError } from '../errors';
import type { ExistingPool, Pool } from '../pools/pool';
import {
  ALICE_ACCOUNT,
  BALANCE,
  BALANCE2,
  ESCROW,
  EXPIRES,
  LATER,
  NOW,
  POOL_ID,
  R1,
  TERMS,
  TX,
  TX2,
  alice,
  at,
  bob,
  cancel,
  deposit,
  expire,
  openPool,
  pay,
  placedEvent,
  R2,
  reservationSpec,
  sign,
  signedEvent,
} from './fixtures.testing';
import { unitCounts } from './holdings';

// decideReservation after placing: sign, pay (every forgery), cancel, expire; and the fold's counts.

const { given, fold } = reservationSpec();
const placed = placedEvent({});
/** Bob's own reservation in the pool: he knows the pool, not Alice's reservation. */
const bobs = placedEvent({ id: 'b1000000-0000-4000-8000-0000000000b1', buyer: bob });
const B = ALICE_ACCOUNT;
const E = ESCROW.accountId;
const RECLAIM = Math.floor(Date.parse(ESCROW.reclaimAfter) / 1000);

const expiredEvent = (expiredAt: string): PoolEvent => ({ type: 'ReservationExpired', data: { poolId: POOL_ID, reservationId: R1, buyerId: alice.userId, expiresAt: EXPIRES, expiredAt } });
const cancelled = (cancelledAt = at(NOW, 120)): PoolEvent => ({ type: 'ReservationCancelled', data: { poolId: POOL_ID, reservationId: R1, buyerId: alice.userId, cancelledAt } });
const paid = (paidAt = at(NOW, 90), txHash = TX): PoolEvent => ({
  type: 'ReservationPaid',
  data: { poolId: POOL_ID, reservationId: R1, buyerId: alice.userId, txHash, ledger: 42, balanceId: BALANCE, amount: '20.00', via: 'txHash', paidAt },
});
const late = (receivedAt: string, txHash = TX, balanceId = BALANCE): PoolEvent => ({
  type: 'ReservationLatePaymentReceived',
  data: { poolId: POOL_ID, reservationId: R1, buyerId: alice.userId, txHash, ledger: 42, balanceId, amount: '20.00', reclaimAfter: ESCROW.reclaimAfter, receivedAt },
});

const signing = suite('reservation: sign');

signing('the buyer accepts the terms: the deposit is bound to the escrow, the memo and reclaimAfter', () => {
  given(...openPool(), placed).when(sign()).then([signedEvent()]);
});

signing('someone else’s reservation, or an unknown one, is not found; to a caller holding nothing in the pool, the pool is not', () => {
  given(...openPool(), placed, bobs).when(sign({ buyer: bob })).thenThrows(NotFoundError, 'reservation_not_found');
  given(...openPool(), placed).when(sign({ buyer: bob })).thenThrows(NotFoundError, 'pool_not_found');
  given(...openPool()).when(sign()).thenThrows(NotFoundError, 'pool_not_found');
});

signing('the same terms from the same account again: nothing new; other terms: recorded again', () => {
  given(...openPool(), placed, signedEvent()).when(sign({ now: at(NOW, 30) })).then([]);
  const v2 = { version: '2026-02', hash: '12'.repeat(32) };
  const again = given(...openPool(), placed, signedEvent()).when(sign({ now: at(NOW, 30), terms: v2 }));
  const [event] = [signedEvent(R1, alice, at(NOW, 30))];
  again.then([{ ...event!, data: { ...event!.data, terms: v2 } } as PoolEvent]);
  assert.not.equal(v2, TERMS);
});

signing('expired (stale or recorded), cancelled and paid reservations are not signed', () => {
  given(...openPool(), placed).when(sign({ now: EXPIRES })).thenThrows(IllegalStateError, 'reservation_expired');
  given(...openPool(), placed, expiredEvent(LATER)).when(sign()).thenThrows(IllegalStateError, 'reservation_expired');
  given(...openPool(), placed, cancelled()).when(sign()).thenThrows(IllegalStateError, 'reservation_cancelled');
  given(...openPool(), placed, signedEvent(), paid()).when(sign()).thenThrows(IllegalStateError, 'reservation_paid');
});

const paying = suite('reservation: pay');
const signedPool = () => [...openPool(), placed, signedEvent()];

paying('the exact deposit, landed while the reservation holds: PAID; the same transaction again: nothing', () => {
  given(...signedPool()).when(pay()).then([paid()]);
  given(...signedPool(), paid()).when(pay(deposit(), { now: LATER })).then([]);
});

paying('landed before expiry but reported after it: still PAID (the ledger’s close time decides)', () => {
  given(...signedPool()).when(pay(deposit({ closedAt: at(EXPIRES, -1) }), { now: LATER })).then([paid(LATER)]);
});

paying('not signed: 400 reservation_not_signed; someone else’s: 404', () => {
  given(...openPool(), placed).when(pay()).thenThrows(IllegalStateError, 'reservation_not_signed');
  given(...signedPool(), bobs).when(pay(deposit(), { buyer: bob })).thenThrows(NotFoundError, 'reservation_not_found');
  given(...signedPool()).when(pay(deposit(), { buyer: bob })).thenThrows(NotFoundError, 'pool_not_found');
});

paying('every forgery is 400 payment_mismatch and names what is wrong', () => {
  const forgeries: Array<[string, Parameters<typeof deposit>[0], string]> = [
    ['failed transaction', { successful: false }, 'transaction'],
    ['two operations', { operationCount: 2 }, 'transaction'],
    ['a plain payment', { isClaimableBalance: false }, 'transaction'],
    ['no balance id', { balanceId: null }, 'transaction'],
    ['another memo', { memoHash: '99'.repeat(32) }, 'memo'],
    ['no memo', { memoHash: null }, 'memo'],
    ['another source', { from: `G${'Z'.repeat(55)}` }, 'source'],
    ['another asset code', { assetCode: 'USDC' }, 'asset'],
    ['another issuer', { assetIssuer: `G${'X'.repeat(55)}` }, 'asset'],
    ['native', { assetCode: null, assetIssuer: null }, 'asset'],
    ['a stroop short', { amount: '19.9999999' }, 'amount'],
    ['a stroop more', { amount: '20.0000001' }, 'amount'],
    ['an extra claimant', { claimants: [...deposit().claimants, { destination: `G${'Z'.repeat(55)}`, predicate: { notBefore: RECLAIM } }] }, 'claimants'],
    ['unconditional escrow', { claimants: [{ destination: E, predicate: 'other' }, { destination: B, predicate: { notBefore: RECLAIM } }] }, 'claimants'],
    ['unconditional buyer', { claimants: [{ destination: E, predicate: { before: RECLAIM } }, { destination: B, predicate: 'other' }] }, 'claimants'],
    ['buyer reclaims sooner', { claimants: [{ destination: E, predicate: { before: RECLAIM } }, { destination: B, predicate: { notBefore: RECLAIM - 1 } }] }, 'claimants'],
    ['escrow claims later', { claimants: [{ destination: E, predicate: { before: RECLAIM + 1 } }, { destination: B, predicate: { notBefore: RECLAIM } }] }, 'claimants'],
    ['escrow missing', { claimants: [{ destination: B, predicate: { notBefore: RECLAIM } }] }, 'claimants'],
    ['another escrow', { claimants: [{ destination: `G${'Y'.repeat(55)}`, predicate: { before: RECLAIM } }, { destination: B, predicate: { notBefore: RECLAIM } }] }, 'claimants'],
  ];
  for (const [name, overrides, field] of forgeries) {
    const e = given(...signedPool()).when(pay(deposit(overrides))).thenThrows(ValidationError, 'payment_mismatch');
    assert.equal(Object.keys(e.errors), [field], name);
  }
});

paying('after expiry: the reservation expires and the deposit is recorded as owed back, never counted', () => {
  const state = given(...signedPool())
    .when(pay(deposit({ closedAt: EXPIRES }), { now: LATER }))
    .then([expiredEvent(LATER), late(LATER)]);
  assert.equal(unitCounts((state as ExistingPool).holdings, LATER).get('u1'), undefined);
  given(...signedPool(), expiredEvent(LATER)).when(pay(deposit({ closedAt: LATER }), { now: LATER })).then([late(LATER)]);
  given(...signedPool(), expiredEvent(LATER), late(LATER)).when(pay(deposit(), { now: LATER })).then([]);
});

paying('after cancel: owed back; a second, different deposit on a PAID reservation: owed back', () => {
  given(...signedPool(), cancelled()).when(pay(deposit(), { now: LATER })).then([late(LATER)]);
  given(...signedPool(), paid())
    .when(pay(deposit({ txHash: TX2, balanceId: BALANCE2 }), { now: LATER }))
    .then([late(LATER, TX2, BALANCE2)]);
});

const inTime = suite('reservation: the ledger’s time decides whether a deposit came in time');
/** Landed a second before the reservation expired: in time, whenever it is reported. */
const landedInTime = () => deposit({ closedAt: at(EXPIRES, -1) });
/** Bob takes 4 of u1's 5 units after Alice's reservation expired: her 2 no longer fit. */
const bobTakesTheUnits = placedEvent({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 4, unitPrice: '8.00' }], amount: '32.00', placedAt: at(EXPIRES, 60), expiresAt: at(LATER, 900) });
const cancelledPool: PoolEvent = { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: at(EXPIRES, 30) } };

inTime('the expiry job asks the ledger first: a deposit it shows before expiresAt is the payment, not an expiry', () => {
  const state = given(...signedPool()).when(expire(R1, LATER, [landedInTime()])).then([paid(LATER)]);
  assert.equal(unitCounts((state as ExistingPool).holdings, LATER).get('u1'), { held: 0, paid: 2 });
  given(...signedPool()).when(expire(R1, LATER, [])).then([expiredEvent(LATER)]);
  // One that landed at expiresAt or after (only a hand-built one can: maxTime) is recorded too, as owed back.
  given(...signedPool()).when(expire(R1, LATER, [deposit({ closedAt: EXPIRES })])).then([expiredEvent(LATER), late(LATER)]);
  // What the ledger shows is checked as /pay checks it: a forgery or another reservation's deposit pays nothing.
  given(...signedPool()).when(expire(R1, LATER, [deposit({ ...landedInTime(), amount: '19.9999999' })])).then([expiredEvent(LATER)]);
  given(...signedPool()).when(expire(R1, LATER, [deposit({ ...landedInTime(), memoHash: '99'.repeat(32) })])).then([expiredEvent(LATER)]);
  given(...signedPool()).when(expire(R1, LATER, [deposit({ ...landedInTime(), amount: '1.0000000' }), landedInTime()])).then([paid(LATER)]);
  given(...openPool(), placed).when(expire(R1, LATER, [])).then([expiredEvent(LATER)]);
  given(...signedPool()).when(expire(R1, at(EXPIRES, -1), [landedInTime()])).then([]);
});

inTime('reported after the expiry was recorded: a deposit the ledger shows before expiresAt is PAID while its units are free', () => {
  const state = given(...signedPool(), expiredEvent(EXPIRES)).when(pay(landedInTime(), { now: LATER })).then([paid(LATER)]);
  assert.equal(unitCounts((state as ExistingPool).holdings, LATER).get('u1'), { held: 0, paid: 2 });
  // A deposit the ledger shows at or after expiresAt (it cannot land then: maxTime) stays late.
  given(...signedPool(), expiredEvent(EXPIRES)).when(pay(deposit({ closedAt: EXPIRES }), { now: LATER })).then([late(LATER)]);
});

inTime('its units went to another buyer in between: owed back at once, never counted, nothing oversold', () => {
  const state = given(...signedPool(), expiredEvent(EXPIRES), bobTakesTheUnits).when(pay(landedInTime(), { now: LATER })).then([late(LATER)]);
  assert.equal(unitCounts((state as ExistingPool).holdings, LATER).get('u1'), { held: 4, paid: 0 });
  // Not yet recorded as expired (a stale PENDING holds nothing): expired and owed back.
  given(...signedPool(), bobTakesTheUnits).when(pay(landedInTime(), { now: LATER })).then([expiredEvent(LATER), late(LATER)]);
  given(...signedPool(), bobTakesTheUnits).when(expire(R1, LATER, [landedInTime()])).then([expiredEvent(LATER), late(LATER)]);
});

inTime('a cancelled reservation or a pool that stopped taking reservations honours nothing: owed back', () => {
  given(...signedPool(), cancelled(at(NOW, 30))).when(pay(landedInTime(), { now: LATER })).then([late(LATER)]);
  given(...signedPool(), cancelledPool, expiredEvent(at(EXPIRES, 30))).when(pay(landedInTime(), { now: LATER })).then([late(LATER)]);
});

const ending = suite('reservation: cancel and expire');

ending('the buyer cancels a PENDING reservation; again: nothing', () => {
  given(...openPool(), placed).when(cancel()).then([cancelled()]);
  given(...openPool(), placed, cancelled()).when(cancel()).then([]);
});

ending('paid or expired reservations are not cancelled; someone else’s is not found', () => {
  given(...signedPool(), paid()).when(cancel()).thenThrows(IllegalStateError, 'reservation_paid');
  given(...openPool(), placed).when(cancel({ now: EXPIRES })).thenThrows(IllegalStateError, 'reservation_expired');
  given(...openPool(), placed, expiredEvent(LATER)).when(cancel()).thenThrows(IllegalStateError, 'reservation_expired');
  given(...openPool(), placed, bobs).when(cancel({ buyer: bob })).thenThrows(NotFoundError, 'reservation_not_found');
  given(...openPool(), placed).when(cancel({ buyer: bob })).thenThrows(NotFoundError, 'pool_not_found');
});

ending('the job expires only stale PENDING reservations', () => {
  given(...openPool(), placed).when(expire(R1, EXPIRES)).then([expiredEvent(EXPIRES)]);
  given(...openPool(), placed).when(expire(R1, at(EXPIRES, -1))).then([]);
  given(...openPool(), placed, expiredEvent(LATER)).when(expire()).then([]);
  given(...openPool(), placed, cancelled()).when(expire()).then([]);
  given(...signedPool(), paid()).when(expire()).then([]);
  given(...openPool()).when(expire()).then([]);
});

const folding = suite('reservation: fold');

folding('held and paid counts after each event', () => {
  const counts = (p: Pool, now = NOW) => unitCounts((p as ExistingPool).holdings, now).get('u1') ?? { held: 0, paid: 0 };
  const history = [...openPool(), placed];
  assert.equal(counts(fold(history)), { held: 2, paid: 0 });
  assert.equal(counts(fold(history), EXPIRES), { held: 0, paid: 0 }, 'stale PENDING holds nothing, even unrecorded');
  assert.equal(counts(fold([...history, signedEvent()])), { held: 2, paid: 0 });
  assert.equal(counts(fold([...history, signedEvent(), paid()])), { held: 0, paid: 2 });
  assert.equal(counts(fold([...history, signedEvent(), paid()]), LATER), { held: 0, paid: 2 }, 'paid units never expire');
  assert.equal(counts(fold([...history, cancelled()])), { held: 0, paid: 0 });
  assert.equal(counts(fold([...history, expiredEvent(LATER)])), { held: 0, paid: 0 });
  const withLate = fold([...history, expiredEvent(LATER), late(LATER)]) as ExistingPool;
  assert.equal(counts(withLate), { held: 0, paid: 0 });
  assert.is(withLate.holdings.byId.get(R1)!.latePayments.length, 1);
  assert.is(withLate.holdings.pending.size, 0);
});

signing.run();
paying.run();
inTime.run();
ending.run();
folding.run();
