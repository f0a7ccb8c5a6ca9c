import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { foldReservation, reservationRowValues, type ReservationDoc } from './fold';
import { factsOfRow, type ReservationRow } from './tables';
import { ReservationSchema, reservationView } from './view';
import type { ReservationPoolFacts } from './escrow-facts';

const Escrow = suite('reservations fold: acceptance, dispute, settlements; the escrow actions');

const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const BUYER = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const RES = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const DISPUTE = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const SETTLEMENT = '2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e';
const G = (c: string) => `G${c.repeat(55)}`;
const at = (day: number, hour = 9) => new Date(Date.UTC(2026, 0, day, hour)).toISOString();
const base = { poolId: POOL, reservationId: RES, buyerId: BUYER };
const deposit = { txHash: 'c'.repeat(64), ledger: 42, balanceId: `00000000${'d'.repeat(64)}`, amount: '37.50' };
const lateDeposit = { ...deposit, txHash: 'e'.repeat(64), balanceId: `00000000${'f'.repeat(64)}`, amount: '5.00' };

const paidHistory: PoolEvent[] = [
  { type: 'ReservationPlaced', data: { ...base, buyerName: 'Bea', lines: [{ unitId: 'u1', quantity: 3, unitPrice: '12.50' }], pledge: null, amount: '37.50', relaisId: null, expiresAt: at(1, 10), placedAt: at(1) } },
  {
    type: 'ReservationSigned',
    data: { ...base, terms: { version: 'v1', hash: 'a'.repeat(64) }, source: G('B'), escrowAccount: G('E'), memoHash: 'b'.repeat(64), reclaimAfter: at(60), ip: null, signedAt: at(1) },
  },
  { type: 'ReservationPaid', data: { ...base, ...deposit, via: 'txHash', paidAt: at(1) } },
  { type: 'ReservationLatePaymentReceived', data: { ...base, ...lateDeposit, reclaimAfter: at(60), receivedAt: at(2) } },
];
const opened: PoolEvent = {
  type: 'DisputeOpened',
  data: { ...base, disputeId: DISPUTE, reason: 'DAMAGED', details: 'Broken jar', evidence: ['https://img.example/1.jpg'], amount: '37.50', respondBy: at(15), openedAt: at(10) },
};
const contested: PoolEvent = { type: 'DisputeContested', data: { ...base, disputeId: DISPUTE, statement: 'Packed with care', lapsesAt: at(18), contestedAt: at(13) } };
const refunded: PoolEvent = { type: 'DisputeResolved', data: { ...base, disputeId: DISPUTE, outcome: 'REFUNDED', refund: '10.00', resolvedAt: at(14) } };
const settled = (kind: 'DEPOSIT' | 'LATE_DEPOSIT', d: typeof deposit, released: string, refunded: string): PoolEvent => ({
  type: 'ReservationSettled',
  data: { ...base, settlementId: SETTLEMENT, kind, balanceId: d.balanceId, path: 'RELEASE', released, refunded, txHash: '9'.repeat(64), settledAt: at(20) },
});

const fold = (events: PoolEvent[]): ReservationDoc => events.reduce<ReservationDoc | null>((doc, e, i) => foldReservation(doc, e, BigInt(1 + i), TENANT), null)!;
const receiptPool = (inspectionEndsAt: string | null = null): ReservationPoolFacts => ({ status: 'LOCKED', closing: { release: { after: 'RECEIPT' }, inspectionEndsAt } });
const escrowActions = (doc: ReservationDoc, pool: ReservationPoolFacts | undefined, now = at(11)) =>
  reservationView(doc.facts, new Date(now), pool).actions.filter((a) => a !== 'reclaim');

Escrow('given a paid reservation, when the buyer confirms receipt (or the inspection period passes), then it is accepted by BUYER (or AUTO)', () => {
  const confirmed = fold([...paidHistory, { type: 'ReservationReceiptConfirmed', data: { ...base, confirmedAt: at(9) } }]);
  assert.equal(confirmed.facts.acceptance, { by: 'BUYER', at: at(9) });
  const auto = fold([...paidHistory, { type: 'ReservationAutoAccepted', data: { ...base, inspectionEndedAt: at(9), acceptedAt: at(9, 10) } }]);
  assert.equal(auto.facts.acceptance, { by: 'AUTO', at: at(9, 10) });
});

Escrow('given a paid reservation, when a dispute is opened, contested and refunded, then the dispute keeps its texts and follows each step', () => {
  const open = fold([...paidHistory, opened]).facts.dispute;
  assert.equal(open, {
    disputeId: DISPUTE,
    status: 'OPEN',
    reason: 'DAMAGED',
    details: 'Broken jar',
    evidence: ['https://img.example/1.jpg'],
    amount: '37.50',
    respondBy: at(15),
    lapsesAt: null,
    refund: null,
    openedAt: at(10),
    resolvedAt: null,
  });
  const ended = fold([...paidHistory, opened, contested, refunded]).facts.dispute!;
  assert.equal([ended.status, ended.lapsesAt, ended.refund, ended.resolvedAt], ['REFUNDED', at(18), '10.00', at(14)]);
});

Escrow('given a contest or an end without a dispute, then nothing changes', () => {
  assert.is(fold([...paidHistory, contested, refunded]).facts.dispute, null);
});

Escrow('given settled balances, then each is one settlement line, in order; the reclaim is gone once nothing is left to reclaim', () => {
  const doc = fold([...paidHistory, settled('DEPOSIT', deposit, '27.50', '10.00'), settled('LATE_DEPOSIT', lateDeposit, '0.00', '5.00')]);
  assert.equal(
    doc.facts.settlements.map((s) => [s.kind, s.balanceId, s.released, s.refunded, s.path]),
    [
      ['DEPOSIT', deposit.balanceId, '27.50', '10.00', 'RELEASE'],
      ['LATE_DEPOSIT', lateDeposit.balanceId, '0.00', '5.00', 'RELEASE'],
    ],
  );
  const afterReclaim = at(61);
  assert.ok(reservationView(fold(paidHistory).facts, new Date(afterReclaim)).actions.includes('reclaim'));
  assert.not.ok(reservationView(doc.facts, new Date(afterReclaim)).actions.includes('reclaim'));
});

Escrow('given the whole escrow history, when each event is replayed (twice), then nothing changes', () => {
  const history = [...paidHistory, opened, contested, refunded, settled('DEPOSIT', deposit, '27.50', '10.00')];
  const once = fold(history);
  const twice = history.flatMap((e, i) => [[e, i + 1], [e, i + 1]] as Array<[PoolEvent, number]>);
  const again = twice.reduce<ReservationDoc | null>((d, [e, r]) => foldReservation(d, e, BigInt(r), TENANT), null);
  assert.equal(again, once);
  let doc: ReservationDoc | null = once;
  history.forEach((e, i) => (doc = foldReservation(doc, e, BigInt(1 + i), TENANT)));
  assert.is(doc, once);
});

Escrow('given a document with escrow facts, when written as a row and read back, then the same facts and view come out; without them the column is null', () => {
  const doc = fold([...paidHistory, opened, settled('LATE_DEPOSIT', lateDeposit, '0.00', '5.00')]);
  const v = reservationRowValues(doc);
  assert.is(reservationRowValues(fold(paidHistory)).escrow, null);
  const row: ReservationRow = {
    ...v,
    status: doc.facts.status,
    lines: JSON.parse(v.lines),
    signed: JSON.parse(v.signed!),
    payment: JSON.parse(v.payment!),
    late_payments: JSON.parse(v.late_payments),
    pickup_point_unavailable: v.pickup_point_unavailable === null ? null : JSON.parse(v.pickup_point_unavailable),
    escrow: JSON.parse(v.escrow!),
    placed_at: new Date(v.placed_at),
    expires_at: new Date(v.expires_at),
    ended_at: null,
  };
  assert.equal(factsOfRow(row), doc.facts);
  assert.equal(factsOfRow({ ...row, escrow: undefined }).settlements, [], 'a row from before migration 020 has none');
  const now = new Date(at(11));
  assert.equal(reservationView(factsOfRow(row), now, receiptPool()), reservationView(doc.facts, now, receiptPool()));
  ReservationSchema.parse(reservationView(doc.facts, now, receiptPool()));
});

Escrow('given a LOCKED pool released on RECEIPT, then a paid reservation may confirm receipt, and dispute until the inspection period ends', () => {
  const doc = fold(paidHistory);
  assert.equal(escrowActions(doc, receiptPool()), ['confirm_receipt', 'dispute']);
  assert.equal(escrowActions(doc, receiptPool(at(12))), ['confirm_receipt', 'dispute']);
  assert.equal(escrowActions(doc, receiptPool(at(11))), ['confirm_receipt'], 'the inspection period is over: the domain still takes a receipt');
  assert.equal(escrowActions(doc, undefined), [], 'without the pool, no escrow action');
});

Escrow('given the pool is not in its receipt phase, then neither receipt nor dispute', () => {
  const doc = fold(paidHistory);
  assert.equal(escrowActions(doc, { status: 'OPEN', closing: null }), []);
  assert.equal(escrowActions(doc, { status: 'LOCKED', closing: { release: { after: 'CLOSE' }, inspectionEndsAt: null } }), []);
  assert.equal(escrowActions(doc, { ...receiptPool(), status: 'SETTLED' }), []);
  assert.equal(escrowActions(doc, { ...receiptPool(), status: 'FAILED' }), []);
});

Escrow('given an accepted, disputed or settled reservation, then only an open dispute can be withdrawn', () => {
  const pool = receiptPool();
  assert.equal(escrowActions(fold([...paidHistory, { type: 'ReservationReceiptConfirmed', data: { ...base, confirmedAt: at(9) } }]), pool), []);
  assert.equal(escrowActions(fold([...paidHistory, opened]), pool), ['withdraw_dispute']);
  assert.equal(escrowActions(fold([...paidHistory, opened, contested]), pool), ['withdraw_dispute']);
  assert.equal(escrowActions(fold([...paidHistory, opened, contested, refunded]), pool), []);
  assert.equal(escrowActions(fold([...paidHistory, settled('DEPOSIT', deposit, '37.50', '0.00')]), pool), []);
  assert.equal(escrowActions(fold(paidHistory.slice(0, 2)), pool, at(1, 9)), ['pay', 'cancel'], 'not paid: the checkout actions only');
});

Escrow.run();
