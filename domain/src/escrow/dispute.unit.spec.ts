import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import {
  ALICE_R1,
  BOB_R2,
  D2,
  DAY,
  DEADLINE,
  DELIVERED,
  INSPECTION_ENDS,
  OPENED_AT,
  ORGANISER_ID,
  R1,
  R2,
  R3,
  alice,
  aliceSettled,
  asBuyer,
  at,
  autoAcceptedEvent,
  bob,
  carol,
  closedEvent,
  contestDispute,
  deliveredEvent,
  deliveredPool,
  disputeContestedEvent,
  disputeOpenedEvent,
  disputeResolvedEvent,
  escrowSpec,
  existing,
  expiredEvent,
  lapseDisputes,
  lockedPool,
  openDispute,
  organiser,
  otherOrganiser,
  paid,
  pending,
  poolWithDeadline,
  receiptEvent,
  refundDispute,
  withdrawDispute,
} from './fixtures.testing';

// decideEscrow: OpenDispute, ContestDispute, RefundDispute, WithdrawDispute, LapseDisputes.

const { given } = escrowSpec();
const opened = disputeOpenedEvent;
const RESPOND_BY = at(OPENED_AT, 5 * DAY);
const CONTESTED_AT = at(OPENED_AT, DAY);
const LAPSES_AT = at(CONTESTED_AT, 5 * DAY);
const disputed = () => [...deliveredPool(), opened()];
const contested = () => [...disputed(), disputeContestedEvent(CONTESTED_AT)];

const opening = suite('escrow: open a dispute');

opening('a buyer disputes their PAID reservation: it holds its due amount at the final prices; the organiser answers within the response days', () => {
  // Alice paid 20.00 for 2 × u1 at 10.00; 4 were paid in all, so u1 is 8.00: the dispute holds 16.00, not her deposit.
  const state = given(...deliveredPool()).when(openDispute()).then([opened()]);
  const d = existing(state).holdings.byId.get(R1)!.dispute!;
  assert.equal({ status: d.status, amount: d.amount, respondBy: d.respondBy }, { status: 'OPEN', amount: '16.00', respondBy: RESPOND_BY });
});

opening('a buyer charged a tier that later lapsed keeps their price: the dispute holds their deposit, not the higher final price', () => {
  const history = [
    ...poolWithDeadline(),
    ...pending(ALICE_R1),
    ...paid(BOB_R2),
    expiredEvent(R1, alice, DEADLINE),
    closedEvent({ paidUnits: 2, paidAmount: '16.00', finalPrices: [{ unitId: 'u1', price: '10.00' }, { unitId: 'u2', price: '2.50' }, { unitId: 'u0', price: '0.00' }] }),
    deliveredEvent(),
  ];
  given(...history).when(openDispute({ id: R2, buyer: bob })).then([opened({ id: R2, buyer: bob, amount: '16.00' })]);
});

opening('within the inspection period: before delivery too (NOT_RECEIVED), until a second before its end', () => {
  given(...lockedPool()).when(openDispute({ now: at(DEADLINE, DAY) })).then([opened({ openedAt: at(DEADLINE, DAY) })]);
  given(...deliveredPool()).when(openDispute({ now: at(INSPECTION_ENDS, -1) })).then([opened({ openedAt: at(INSPECTION_ENDS, -1) })]);
  given(...deliveredPool()).when(openDispute({ now: INSPECTION_ENDS })).thenThrows(IllegalStateError, 'inspection_period_over');
});

opening('one dispute per reservation, even once it ended; not once the reservation was accepted', () => {
  given(...disputed()).when(openDispute({ disputeId: D2, now: at(OPENED_AT, 60) })).thenThrows(IllegalStateError, 'dispute_exists');
  given(...disputed(), disputeResolvedEvent('WITHDRAWN', '0.00', at(OPENED_AT, 60)))
    .when(openDispute({ disputeId: D2, now: at(OPENED_AT, 120) }))
    .thenThrows(IllegalStateError, 'dispute_exists');
  given(...deliveredPool(), receiptEvent(R1, alice)).when(openDispute()).thenThrows(IllegalStateError, 'reservation_accepted');
  given(...deliveredPool(), autoAcceptedEvent(R1, alice, at(DELIVERED, 60))).when(openDispute()).thenThrows(IllegalStateError, 'reservation_accepted');
});

opening('only their own PAID reservation still in escrow, of a LOCKED pool releasing on receipt', () => {
  given(...deliveredPool()).when(openDispute({ buyer: bob })).thenThrows(NotFoundError, 'reservation_not_found');
  given(...deliveredPool()).when(openDispute({ id: R3, buyer: carol })).thenThrows(IllegalStateError, 'reservation_not_paid');
  given(...aliceSettled()).when(openDispute()).thenThrows(IllegalStateError, 'reservation_settled');
  given(...lockedPool({ release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } })).when(openDispute()).thenThrows(IllegalStateError, 'release_at_close');
  given(...lockedPool({ outcome: 'FAILED' })).when(openDispute()).thenThrows(IllegalStateError, 'pool_not_locked');
});

const answering = suite('escrow: the organiser answers a dispute');

answering('contest: the buyer may withdraw until lapsesAt (the response days after the contest)', () => {
  const state = given(...disputed()).when(contestDispute(CONTESTED_AT)).then([disputeContestedEvent(CONTESTED_AT)]);
  const d = existing(state).holdings.byId.get(R1)!.dispute!;
  assert.equal({ status: d.status, lapsesAt: d.lapsesAt }, { status: 'CONTESTED', lapsesAt: LAPSES_AT });
});

answering('contest only an OPEN dispute; an unknown dispute is 404 dispute_not_found', () => {
  given(...contested()).when(contestDispute(at(CONTESTED_AT, 60))).thenThrows(IllegalStateError, 'dispute_not_open');
  given(...disputed(), disputeResolvedEvent('REFUNDED', '16.00', CONTESTED_AT)).when(contestDispute(at(CONTESTED_AT, 60))).thenThrows(IllegalStateError, 'dispute_not_open');
  given(...disputed()).when(contestDispute(CONTESTED_AT, organiser, D2)).thenThrows(NotFoundError, 'dispute_not_found');
});

answering('refund all or part of the held amount, open or contested: REFUNDED', () => {
  given(...disputed()).when(refundDispute('16.00', CONTESTED_AT)).then([disputeResolvedEvent('REFUNDED', '16.00', CONTESTED_AT)]);
  given(...disputed()).when(refundDispute('5.5', CONTESTED_AT)).then([disputeResolvedEvent('REFUNDED', '5.50', CONTESTED_AT)]);
  const state = given(...contested()).when(refundDispute('0.0000001', at(CONTESTED_AT, 60))).then([disputeResolvedEvent('REFUNDED', '0.0000001', at(CONTESTED_AT, 60))]);
  assert.equal(existing(state).holdings.byId.get(R1)!.dispute!.refund, '0.0000001');
});

answering('a refund of nothing or above the held amount: 400 refund_out_of_bounds on amount', () => {
  for (const amount of ['0', '0.00', '16.0000001', '20.00']) {
    const e = given(...disputed()).when(refundDispute(amount, CONTESTED_AT)).thenThrows(ValidationError, 'refund_out_of_bounds');
    assert.equal(Object.keys(e.errors), ['amount'], amount);
  }
  given(...disputed(), disputeResolvedEvent('WITHDRAWN', '0.00', CONTESTED_AT)).when(refundDispute('1.00', at(CONTESTED_AT, 60))).thenThrows(IllegalStateError, 'dispute_not_open');
});

answering('organiser-only: another organiser gets 404 pool_not_found; the buyer, or the organiser without the capability, 403, pool or no pool', () => {
  for (const command of [contestDispute, (now: string, actor: typeof organiser) => refundDispute('1.00', now, actor)]) {
    given().when(command(CONTESTED_AT, asBuyer(alice))).thenThrows(ForbiddenError, 'organise_capability_required');
    given(...disputed()).when(command(CONTESTED_AT, otherOrganiser)).thenThrows(NotFoundError, 'pool_not_found');
    given(...disputed()).when(command(CONTESTED_AT, asBuyer(alice))).thenThrows(ForbiddenError, 'organise_capability_required');
    given(...disputed()).when(command(CONTESTED_AT, { userId: ORGANISER_ID, role: 'user' })).thenThrows(ForbiddenError, 'organise_capability_required');
  }
});

answering('the organiser answers by respondBy, and a contested dispute holds until lapsesAt: after that it has lapsed to the buyer (400 dispute_lapsed), job or no job', () => {
  given(...disputed()).when(contestDispute(at(RESPOND_BY, -1))).then([disputeContestedEvent(at(RESPOND_BY, -1))]);
  given(...disputed()).when(contestDispute(RESPOND_BY)).thenThrows(IllegalStateError, 'dispute_lapsed');
  given(...disputed()).when(refundDispute('1.00', RESPOND_BY)).thenThrows(IllegalStateError, 'dispute_lapsed');
  // Contested: the organiser may still refund after respondBy, until lapsesAt.
  given(...contested()).when(refundDispute('1.00', RESPOND_BY)).then([disputeResolvedEvent('REFUNDED', '1.00', RESPOND_BY)]);
  given(...contested()).when(refundDispute('1.00', LAPSES_AT)).thenThrows(IllegalStateError, 'dispute_lapsed');
  given(...contested()).when(lapseDisputes(LAPSES_AT)).then([disputeResolvedEvent('LAPSED', '16.00', LAPSES_AT)]);
});

const withdrawing = suite('escrow: the buyer withdraws');

withdrawing('the buyer withdraws their dispute, open or contested: WITHDRAWN, nothing refunded', () => {
  given(...disputed()).when(withdrawDispute(CONTESTED_AT)).then([disputeResolvedEvent('WITHDRAWN', '0.00', CONTESTED_AT)]);
  given(...contested()).when(withdrawDispute(at(CONTESTED_AT, 60))).then([disputeResolvedEvent('WITHDRAWN', '0.00', at(CONTESTED_AT, 60))]);
});

withdrawing('until the dispute lapses: lapsesAt once contested, respondBy while open (after it, the held amount is theirs)', () => {
  given(...contested()).when(withdrawDispute(at(LAPSES_AT, -1))).then([disputeResolvedEvent('WITHDRAWN', '0.00', at(LAPSES_AT, -1))]);
  given(...contested()).when(withdrawDispute(LAPSES_AT)).thenThrows(IllegalStateError, 'dispute_lapsed');
  given(...disputed()).when(withdrawDispute(RESPOND_BY)).thenThrows(IllegalStateError, 'dispute_lapsed');
});

withdrawing('only its buyer: another buyer in the pool (the organiser too) 404 dispute_not_found, anyone holding nothing in it 404 pool_not_found; an ended dispute 400 dispute_not_open', () => {
  given(...disputed()).when(withdrawDispute(CONTESTED_AT, asBuyer(bob))).thenThrows(NotFoundError, 'dispute_not_found');
  given(...disputed()).when(withdrawDispute(CONTESTED_AT, organiser)).thenThrows(NotFoundError, 'dispute_not_found');
  given(...disputed()).when(withdrawDispute(CONTESTED_AT, asBuyer({ userId: 'd0000000-0000-4000-8000-00000000000d', displayName: 'Dave' }))).thenThrows(NotFoundError, 'pool_not_found');
  given(...disputed()).when(withdrawDispute(CONTESTED_AT, null)).thenThrows(NotFoundError, 'pool_not_found');
  given(...disputed(), disputeResolvedEvent('REFUNDED', '3.00', CONTESTED_AT)).when(withdrawDispute(at(CONTESTED_AT, 60))).thenThrows(IllegalStateError, 'dispute_not_open');
});

const lapsing = suite('escrow: disputes lapse');

lapsing('an OPEN dispute unanswered by respondBy lapses to the buyer: the whole held amount back', () => {
  given(...disputed()).when(lapseDisputes(at(RESPOND_BY, -1))).then([]);
  const state = given(...disputed()).when(lapseDisputes(RESPOND_BY)).then([disputeResolvedEvent('LAPSED', '16.00', RESPOND_BY)]);
  assert.equal(existing(state).holdings.byId.get(R1)!.dispute!.status, 'LAPSED');
});

lapsing('a CONTESTED dispute lapses at lapsesAt, not at respondBy', () => {
  given(...contested()).when(lapseDisputes(RESPOND_BY)).then([]);
  given(...contested()).when(lapseDisputes(at(LAPSES_AT, -1))).then([]);
  given(...contested()).when(lapseDisputes(LAPSES_AT)).then([disputeResolvedEvent('LAPSED', '16.00', LAPSES_AT)]);
});

lapsing('every due dispute at once; ended ones are left as they are; the job runs again: nothing', () => {
  const two = [...disputed(), opened({ id: R2, buyer: bob, disputeId: D2, openedAt: at(OPENED_AT, 60) })];
  const later = at(RESPOND_BY, DAY);
  given(...two).when(lapseDisputes(later)).then([disputeResolvedEvent('LAPSED', '16.00', later), disputeResolvedEvent('LAPSED', '16.00', later, { id: R2, disputeId: D2 })]);
  given(...two, disputeResolvedEvent('WITHDRAWN', '0.00', at(OPENED_AT, 120))).when(lapseDisputes(later)).then([disputeResolvedEvent('LAPSED', '16.00', later, { id: R2, disputeId: D2 })]);
  given(...disputed(), disputeResolvedEvent('LAPSED', '16.00', RESPOND_BY)).when(lapseDisputes(later)).then([]);
});

opening.run();
answering.run();
withdrawing.run();
lapsing.run();
