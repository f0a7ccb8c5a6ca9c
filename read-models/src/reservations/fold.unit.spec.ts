import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { foldPointUnavailable, foldReservation, reservationRowValues, type ReservationDoc } from './fold';
import { factsOfRow, type ReservationRow } from './tables';
import { pickupPointOf, reservationView } from './view';

const Fold = suite('reservations fold');

const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const BUYER = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const RES = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const G = (c: string) => `G${c.repeat(55)}`;
const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 9, minute)).toISOString();

const placed = (id = RES): PoolEvent => ({
  type: 'ReservationPlaced',
  data: {
    poolId: POOL,
    reservationId: id,
    buyerId: BUYER,
    buyerName: 'Bea',
    lines: [{ unitId: 'u1', quantity: 3, unitPrice: '12.50' }],
    pledge: null,
    amount: '37.50',
    relaisId: 'r-a',
    expiresAt: at(30),
    placedAt: at(0),
  },
});
const signed: PoolEvent = {
  type: 'ReservationSigned',
  data: {
    poolId: POOL,
    reservationId: RES,
    buyerId: BUYER,
    terms: { version: '2026-01', hash: 'a'.repeat(64) },
    source: G('B'),
    escrowAccount: G('E'),
    memoHash: 'b'.repeat(64),
    reclaimAfter: '2026-03-01T00:00:00.000Z',
    ip: '10.0.0.1',
    signedAt: at(1),
  },
};
const deposit = { txHash: 'c'.repeat(64), ledger: 42, balanceId: `00000000${'d'.repeat(64)}`, amount: '37.50' };
const paid: PoolEvent = { type: 'ReservationPaid', data: { poolId: POOL, reservationId: RES, buyerId: BUYER, ...deposit, via: 'txHash', paidAt: at(2) } };
const expired: PoolEvent = { type: 'ReservationExpired', data: { poolId: POOL, reservationId: RES, buyerId: BUYER, expiresAt: at(30), expiredAt: at(31) } };
const cancelled: PoolEvent = { type: 'ReservationCancelled', data: { poolId: POOL, reservationId: RES, buyerId: BUYER, cancelledAt: at(5) } };
const late: PoolEvent = {
  type: 'ReservationLatePaymentReceived',
  data: { poolId: POOL, reservationId: RES, buyerId: BUYER, ...deposit, reclaimAfter: '2026-03-01T00:00:00.000Z', receivedAt: at(40) },
};
const published: PoolEvent = { type: 'PoolPublished', data: { poolId: POOL, publishedAt: at(0) } };

/** Folds events at revisions 1, 2, … (revision 0 is the pool's creation). */
const fold = (events: PoolEvent[], from: ReservationDoc | null = null, startRevision = 1): ReservationDoc | null =>
  events.reduce<ReservationDoc | null>((doc, e, i) => foldReservation(doc, e, BigInt(startRevision + i), TENANT), from);

Fold('given nothing, when a reservation is placed, then it is PENDING with its lines, amount and expiry', () => {
  const doc = fold([placed()])!;
  assert.is(doc.tenantId, TENANT);
  assert.is(doc.revision, 1n);
  assert.equal(doc.facts, {
    id: RES,
    poolId: POOL,
    buyerId: BUYER,
    buyerName: 'Bea',
    status: 'PENDING',
    lines: [{ unitId: 'u1', quantity: 3, unitPrice: '12.50' }],
    pledge: null,
    amount: '37.50',
    depositFee: '0.00',
    relaisId: 'r-a',
    placedAt: at(0),
    expiresAt: at(30),
    signed: null,
    payment: null,
    latePayments: [],
    endedAt: null,
    acceptance: null,
    dispute: null,
    settlements: [],
  });
});

Fold('given a placed reservation, when it is signed then paid, then it is PAID with its terms and payment proof', () => {
  const doc = fold([placed(), signed, paid])!;
  assert.is(doc.facts.status, 'PAID');
  assert.equal(doc.facts.signed, { terms: { version: '2026-01', hash: 'a'.repeat(64) }, escrowAccount: G('E'), reclaimAfter: '2026-03-01T00:00:00.000Z', source: G('B') });
  assert.equal(doc.facts.payment, { ...deposit, paidAt: at(2), via: 'txHash' });
  assert.is(doc.revision, 3n);
});

Fold('given a placed reservation, when it expires or is cancelled, then it ends with that time', () => {
  assert.equal([fold([placed(), expired])!.facts.status, fold([placed(), expired])!.facts.endedAt], ['EXPIRED', at(31)]);
  assert.equal([fold([placed(), cancelled])!.facts.status, fold([placed(), cancelled])!.facts.endedAt], ['CANCELLED', at(5)]);
});

Fold('given an expired reservation, when a late payment is received, then it is recorded as owed back, status unchanged', () => {
  const doc = fold([placed(), signed, expired, late])!;
  assert.is(doc.facts.status, 'EXPIRED');
  assert.equal(doc.facts.latePayments, [{ ...deposit, receivedAt: at(40) }]);
});

Fold('given no placement, when a later reservation event comes, then there is no document', () => {
  assert.is(fold([signed, paid]), null);
});

Fold('given any document, when other pool events come, then nothing changes', () => {
  const doc = fold([placed()]);
  assert.is(foldReservation(doc, published, 9n, TENANT), doc);
  assert.is(foldReservation(null, published, 9n, TENANT), null);
});

Fold('given a folded history, when each event is replayed (twice), then nothing changes', () => {
  const history = [placed(), signed, paid, late];
  const once = fold(history)!;
  let doc: ReservationDoc | null = once;
  for (let i = 0; i < history.length; i++) doc = foldReservation(doc, history[i]!, BigInt(1 + i), TENANT);
  assert.is(doc, once);
  const twice = history.flatMap((e, i) => [[e, i + 1], [e, i + 1]] as Array<[PoolEvent, number]>);
  const again = twice.reduce<ReservationDoc | null>((d, [e, r]) => foldReservation(d, e, BigInt(r), TENANT), null);
  assert.equal(again, once);
});

Fold('given a document, when written as a row and read back, then the same facts come out (the view is the same)', () => {
  const doc = fold([placed(), signed, paid])!;
  const v = reservationRowValues(doc);
  const row: ReservationRow = {
    ...v,
    status: doc.facts.status,
    lines: JSON.parse(v.lines),
    signed: JSON.parse(v.signed!),
    payment: JSON.parse(v.payment!),
    late_payments: JSON.parse(v.late_payments),
    pickup_point_unavailable: v.pickup_point_unavailable === null ? null : JSON.parse(v.pickup_point_unavailable),
    escrow: v.escrow === null ? null : JSON.parse(v.escrow),
    placed_at: new Date(v.placed_at),
    expires_at: new Date(v.expires_at),
    ended_at: null,
  };
  assert.equal(factsOfRow(row), doc.facts);
  const now = new Date(at(10));
  assert.equal(reservationView(factsOfRow(row), now), reservationView(doc.facts, now));
});

Fold.run();

const Points = suite('reservations fold: pick-up points');

const pointUnavailable = (pointId = 'r-a', reason: 'retired' | 'temporarily_closed' = 'retired'): Extract<PoolEvent, { type: 'PickupPointUnavailable' }> => ({
  type: 'PickupPointUnavailable',
  data: { poolId: POOL, pointId, reason, detail: null, reservationIds: [RES], detectedAt: at(3) },
});
const rechosen: PoolEvent = { type: 'ReservationPickupPointChanged', data: { poolId: POOL, reservationId: RES, buyerId: BUYER, from: 'r-a', to: 'r-b', changedAt: at(4) } };

Points('given a reservation at a point that became unavailable, then it records why and its view asks to choose again', () => {
  const doc = fold([placed(), signed, paid])!;
  const marked = foldPointUnavailable(doc, pointUnavailable(), 4n);
  assert.equal(marked.facts.pickupPointUnavailable, { reason: 'retired' });
  assert.is(marked.revision, 4n);
  assert.equal(reservationView(marked.facts, new Date(at(5))).pickupPoint, { id: 'r-a', status: 'unavailable', reason: 'retired', action: 'choose_again' });
  assert.is(foldPointUnavailable(marked, pointUnavailable(), 4n), marked, 'replayed: unchanged');
  assert.is(foldPointUnavailable(doc, pointUnavailable('r-b'), 4n), doc, 'another point: unchanged');
  assert.is(foldPointUnavailable(doc, { ...pointUnavailable(), data: { ...pointUnavailable().data, poolId: RES } }, 4n), doc, 'another pool: unchanged');
});

Points('when the buyer chooses again, then the new point is ok and the row reads back the same', () => {
  const marked = foldPointUnavailable(fold([placed(), signed, paid])!, pointUnavailable(), 4n);
  const moved = foldReservation(marked, rechosen, 5n, TENANT)!;
  assert.is(moved.facts.relaisId, 'r-b');
  assert.not.ok('pickupPointUnavailable' in moved.facts);
  assert.equal(reservationView(moved.facts, new Date(at(6))).pickupPoint, { id: 'r-b', status: 'ok', reason: null, action: null });
  for (const d of [marked, moved]) {
    const v = reservationRowValues(d);
    const row = {
      ...v,
      lines: JSON.parse(v.lines),
      signed: v.signed === null ? null : JSON.parse(v.signed),
      payment: v.payment === null ? null : JSON.parse(v.payment),
      late_payments: JSON.parse(v.late_payments),
      escrow: v.escrow === null ? null : JSON.parse(v.escrow),
      pickup_point_unavailable: v.pickup_point_unavailable === null ? null : JSON.parse(v.pickup_point_unavailable),
      placed_at: new Date(v.placed_at),
      expires_at: new Date(v.expires_at),
    } as unknown as ReservationRow;
    assert.equal(factsOfRow(row), d.facts);
  }
});

Points('a reservation that no longer holds shows its point unavailable without asking; a pool past shipping does not ask either', () => {
  const stale = foldPointUnavailable(fold([placed()])!, pointUnavailable(), 4n);
  assert.equal(pickupPointOf(stale.facts, new Date(at(31))), { id: 'r-a', status: 'unavailable', reason: 'retired', action: null }, 'expired on read');
  assert.equal(pickupPointOf(stale.facts, new Date(at(5)), { status: 'CANCELLED' }), { id: 'r-a', status: 'unavailable', reason: 'retired', action: null });
  assert.equal(pickupPointOf(stale.facts, new Date(at(5)), { status: 'OPEN' })!.action, 'choose_again');
  assert.is(pickupPointOf({ ...stale.facts, relaisId: null }, new Date(at(5))), null, 'no point chosen');
});

Points.run();
