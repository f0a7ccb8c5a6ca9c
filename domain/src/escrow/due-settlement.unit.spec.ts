import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolEvent, SettlementItem } from '@cagnotte/event-schemas';
import { IllegalStateError } from '../errors';
import { parseAmount } from '../money';
import { fundingFields, poolCreated } from '../reservations/fixtures.testing';
import {
  ACCOUNTS,
  DAY,
  DEADLINE,
  DELIVERED,
  EARLY,
  ESCROW,
  OPENED_AT,
  POOL_ID,
  R1,
  R2,
  R3,
  R4,
  SOURCE,
  alice,
  at,
  balance,
  bob,
  carol,
  closedEvent,
  deliveredPool,
  disputeContestedEvent,
  disputeOpenedEvent,
  disputeResolvedEvent,
  escrowSpec,
  existing,
  expiredEvent,
  late,
  lateEvent,
  lockedPool,
  openPool,
  paid,
  poolWithDeadline,
  receiptEvent,
  reservations,
  u1,
} from './fixtures.testing';
import { dueSettlement, settlementWindows, type DueSettlement } from './settlement';

// dueSettlement (what may be settled now, split to the stroop) and settlementWindows.

const { fold } = escrowSpec();
const due = (history: PoolEvent[]): DueSettlement => dueSettlement(existing(fold(history)), ACCOUNTS);
const refusal = (history: PoolEvent[]): string => {
  try {
    due(history);
  } catch (error) {
    assert.instance(error, IllegalStateError);
    return (error as IllegalStateError).code;
  }
  return assert.unreachable('expected a refusal') as never;
};
/** Every item's payouts add up to its amount, exactly: checked on every item these specs look at. */
const exact = (items: SettlementItem[]) => {
  for (const item of items) {
    const sum = item.payouts.reduce((s, p) => s + parseAmount(p.amount), 0n);
    assert.is(sum, parseAmount(item.amount), `${item.ref}: the payouts add up to the deposit`);
  }
  return items;
};
const A = SOURCE[alice.userId]!;
const B = SOURCE[bob.userId]!;
const C = SOURCE[carol.userId]!;
const release = (id: string, n: number, amount: string, refundTo: string, payouts: SettlementItem['payouts']): SettlementItem => ({
  ref: id,
  reservationId: id,
  kind: 'DEPOSIT',
  balanceId: balance(n),
  amount,
  refundTo,
  payouts,
});
const refund = (id: string, n: number, amount: string, to: string, kind: SettlementItem['kind'] = 'DEPOSIT'): SettlementItem => ({
  ref: kind === 'DEPOSIT' ? id : `late:${balance(n)}`,
  reservationId: id,
  kind,
  balanceId: balance(n),
  amount,
  refundTo: to,
  payouts: [{ role: 'BUYER', destination: to, amount }],
});
// Alice paid 20.00 for what costs 16.00 at the final price: 4.00 back to her; the 2.5 % fee on 16.00 is 0.40.
const aliceReleased = release(R1, 1, '20.00', A, [
  { role: 'SELLER', destination: ACCOUNTS.seller, amount: '15.60' },
  { role: 'PLATFORM', destination: ACCOUNTS.platform, amount: '0.40' },
  { role: 'BUYER', destination: A, amount: '4.00' },
]);
const bobReleased = release(R2, 2, '16.00', B, [
  { role: 'SELLER', destination: ACCOUNTS.seller, amount: '15.60' },
  { role: 'PLATFORM', destination: ACCOUNTS.platform, amount: '0.40' },
]);

const releasing = suite('escrow: what a successful pool releases');

releasing('releasing on receipt: only accepted deposits (confirmed or after the inspection period); the rest is held, so not final', () => {
  assert.is(refusal(deliveredPool()), 'nothing_to_settle');
  const one = due([...deliveredPool(), receiptEvent(R1, alice)]);
  assert.equal(one, { kind: 'RELEASE', items: [aliceReleased], final: false });
  const both = due([...deliveredPool(), receiptEvent(R1, alice), { type: 'ReservationAutoAccepted', data: { poolId: POOL_ID, reservationId: R2, buyerId: bob.userId, inspectionEndedAt: at(DELIVERED, 7 * DAY), acceptedAt: at(DELIVERED, 7 * DAY) } }]);
  assert.equal(both, { kind: 'RELEASE', items: exact([aliceReleased, bobReleased]), final: true });
});

releasing('releasing at CLOSE: every PAID deposit at once, final', () => {
  const history = lockedPool({ release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } });
  assert.equal(due(history), { kind: 'RELEASE', items: exact([aliceReleased, bobReleased]), final: true });
});

releasing('a brokered pool with a commission: the organiser’s share of the net, rounded down like the fee', () => {
  const history = lockedPool({ release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 }, fees: { platformFeePercent: '2.5', organiserCommissionPercent: '5' } });
  const [alice_] = exact(due(history).items);
  assert.equal(alice_!.payouts, [
    { role: 'SELLER', destination: ACCOUNTS.seller, amount: '14.80' },
    { role: 'ORGANISER', destination: ACCOUNTS.organiser, amount: '0.80' },
    { role: 'PLATFORM', destination: ACCOUNTS.platform, amount: '0.40' },
    { role: 'BUYER', destination: A, amount: '4.00' },
  ]);
});

releasing('sub-cent remainders go to the seller: fee and commission are rounded down to the cent (docs/fees.md#rounding)', () => {
  const history = [
    ...openPool(fundingFields({ deadline: DEADLINE, targetAmount: '30.00' }), 'FUNDING'),
    ...paid({ id: R1, buyer: alice, lines: [], pledge: '33.3333333', amount: '33.3333333', n: 1 }),
    closedEvent({ paidUnits: 0, paidAmount: '33.3333333', finalPrices: [], fees: { platformFeePercent: '2.5', organiserCommissionPercent: '3.33' }, release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } }),
  ];
  // 2.5 % of 33.3333333 is 0.83333333325, 3.33 % is 1.10999999889: each loses its fraction of a cent, the seller gains it.
  assert.equal(exact(due(history).items)[0]!.payouts, [
    { role: 'SELLER', destination: ACCOUNTS.seller, amount: '31.4033333' },
    { role: 'ORGANISER', destination: ACCOUNTS.organiser, amount: '1.10' },
    { role: 'PLATFORM', destination: ACCOUNTS.platform, amount: '0.83' },
  ]);
});

releasing('a dispute holds its deposit until it ends; its refund goes back to the buyer’s deposit account with the tier refund', () => {
  const disputed = [...deliveredPool(), disputeOpenedEvent(), receiptEvent(R2, bob)];
  assert.equal(due(disputed), { kind: 'RELEASE', items: [bobReleased], final: false });
  assert.equal(due([...disputed, disputeContestedEvent(at(OPENED_AT, DAY))]).final, false);
  const refunded = due([...disputed, disputeResolvedEvent('REFUNDED', '6.00', at(OPENED_AT, DAY))]);
  // Net 16.00 − 6.00 = 10.00: fee 0.25, seller 9.75; Alice gets 4.00 + 6.00.
  assert.equal(exact(refunded.items)[0], release(R1, 1, '20.00', A, [
    { role: 'SELLER', destination: ACCOUNTS.seller, amount: '9.75' },
    { role: 'PLATFORM', destination: ACCOUNTS.platform, amount: '0.25' },
    { role: 'BUYER', destination: A, amount: '10.00' },
  ]));
  assert.is(refunded.final, true);
  const lapsed = due([...disputed, disputeResolvedEvent('LAPSED', '16.00', at(OPENED_AT, 5 * DAY))]);
  assert.equal(exact(lapsed.items)[0]!.payouts, [{ role: 'BUYER', destination: A, amount: '20.00' }]);
  const withdrawn = due([...disputed, disputeResolvedEvent('WITHDRAWN', '0.00', at(OPENED_AT, DAY))]);
  assert.equal(withdrawn.items[0], aliceReleased);
});

/** Alice's reservation as if the tenant charged a 0.50 escrow-deposit fee: placed and paid 20.50 for 20.00 of goods. */
const withDepositFee = (history: PoolEvent[]): PoolEvent[] =>
  history.map((e) => {
    if (e.type === 'ReservationPlaced' && e.data.reservationId === R1) return { ...e, data: { ...e.data, amount: '20.50', depositFee: '0.50' } };
    if (e.type === 'ReservationPaid' && e.data.reservationId === R1) return { ...e, data: { ...e.data, amount: '20.50' } };
    return e;
  });

releasing('a deposit that included an escrow-deposit fee: the platform gets the fee whole beside its payment fee, the goods split as without it', () => {
  const history = withDepositFee(lockedPool({ release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } }));
  const [alice_, bob_] = exact(due(history).items);
  assert.equal(alice_, release(R1, 1, '20.50', A, [
    { role: 'SELLER', destination: ACCOUNTS.seller, amount: '15.60' },
    { role: 'PLATFORM', destination: ACCOUNTS.platform, amount: '0.90' },
    { role: 'BUYER', destination: A, amount: '4.00' },
  ]));
  assert.equal(bob_, bobReleased);
});

releasing('a deposit fee is the buyer’s again when the pool fails: the whole deposit goes back', () => {
  const history = withDepositFee([...poolWithDeadline(), ...reservations(), expiredEvent(R3, carol, DEADLINE), closedEvent({ outcome: 'FAILED' })]);
  assert.equal(exact(due(history).items)[0], refund(R1, 1, '20.50', A));
});

releasing('late deposits are always refunded in full, even while every deposit is held', () => {
  const withLate = [...lockedPool().slice(0, -1), ...late({ id: R4, buyer: carol, lines: u1(1, '8.00'), n: 4 }), lateEvent(R1, alice, 9, '20.00'), closedEvent(), { type: 'PoolDelivered', data: { poolId: POOL_ID, note: null, inspectionEndsAt: at(DELIVERED, 7 * DAY), deliveredAt: DELIVERED } } as PoolEvent];
  assert.equal(due(withLate), { kind: 'RELEASE', items: exact([refund(R1, 9, '20.00', A, 'LATE_DEPOSIT'), refund(R4, 4, '8.00', C, 'LATE_DEPOSIT')]), final: false });
});

const refunding = suite('escrow: what a failed or cancelled pool refunds');

refunding('FAILED: every PAID deposit back in full to where it came from, late deposits too; final', () => {
  const history = [...poolWithDeadline(), ...reservations(), ...late({ id: R4, buyer: carol, lines: u1(1, '8.00'), n: 4 }), expiredEvent(R3, carol, DEADLINE), closedEvent({ outcome: 'FAILED' })];
  assert.equal(due(history), { kind: 'REFUND', items: exact([refund(R1, 1, '20.00', A), refund(R2, 2, '16.00', B), refund(R4, 4, '8.00', C, 'LATE_DEPOSIT')]), final: true });
});

refunding('CANCELLED: the same; a failed pool nobody paid into settles nothing but the merge (the platform gets its reserve back)', () => {
  const cancelled: PoolEvent = { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: EARLY } };
  assert.equal(due([...poolWithDeadline(), ...reservations(), expiredEvent(R3, carol, EARLY), cancelled]), { kind: 'REFUND', items: [refund(R1, 1, '20.00', A), refund(R2, 2, '16.00', B)], final: true });
  assert.equal(due([...poolWithDeadline(), closedEvent({ outcome: 'FAILED', paidUnits: 0, paidAmount: '0.00' })]), { kind: 'REFUND', items: [], final: true });
});

refunding('an OPEN pool that owes nothing back is not settled (pool_not_closed); a DRAFT cancelled has no escrow (escrow_not_open)', () => {
  assert.is(refusal([...poolWithDeadline(), ...reservations()]), 'pool_not_closed');
  assert.is(refusal([poolCreated(fundingFields()), { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: EARLY } }]), 'escrow_not_open');
});

refunding('an OPEN pool refunds its deposits owed back at once: only those, never final (its PAID deposits stay in escrow, it takes more)', () => {
  const withLate = [...poolWithDeadline(), ...reservations(), ...late({ id: R4, buyer: carol, lines: u1(1, '8.00'), n: 4 })];
  assert.equal(due(withLate), { kind: 'REFUND', items: exact([refund(R4, 4, '8.00', C, 'LATE_DEPOSIT')]), final: false });
  const refunded = [...withLate, { type: 'ReservationSettled', data: { poolId: POOL_ID, reservationId: R4, buyerId: carol.userId, settlementId: '50000000-0000-4000-8000-000000000001', kind: 'LATE_DEPOSIT', balanceId: balance(4), path: 'RELEASE', released: '0.00', refunded: '8.00', txHash: 'ee'.repeat(32), settledAt: DEADLINE } } as PoolEvent];
  assert.is(refusal(refunded), 'pool_not_closed', 'refunded once: nothing more is due');
});

const windows = suite('escrow: settlement windows');
const RECLAIM = ESCROW.reclaimAfter; // 2026-06-01T00:00:00Z

windows('the release runs for the given hours, the recovery from the next second until a minute before reclaimAfter', () => {
  assert.equal(settlementWindows('2026-04-01T10:00:00.500Z', RECLAIM, 48), {
    releaseUntil: '2026-04-03T10:00:00.000Z',
    recoveryFrom: '2026-04-03T10:00:01.000Z',
    recoveryUntil: '2026-05-31T23:59:00.000Z',
  });
});

windows('close to reclaimAfter the release is cut to leave the recovery a full hour', () => {
  assert.equal(settlementWindows('2026-05-31T20:00:00.000Z', RECLAIM, 48), {
    releaseUntil: '2026-05-31T22:58:59.000Z',
    recoveryFrom: '2026-05-31T22:59:00.000Z',
    recoveryUntil: '2026-05-31T23:59:00.000Z',
  });
  assert.equal(settlementWindows('2026-05-31T21:58:59.000Z', RECLAIM, 48).releaseUntil, '2026-05-31T22:58:59.000Z', 'an hour of release exactly');
});

windows('less than an hour of release left: 400 too_late_to_settle (each buyer reclaims their own)', () => {
  for (const now of ['2026-05-31T21:59:00.000Z', '2026-05-31T23:30:00.000Z', '2026-06-02T00:00:00.000Z']) {
    try {
      settlementWindows(now, RECLAIM, 48);
      assert.unreachable(now);
    } catch (error) {
      assert.instance(error, IllegalStateError, now);
      assert.is((error as IllegalStateError).code, 'too_late_to_settle');
    }
  }
});

releasing.run();
refunding.run();
windows.run();
