import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ForbiddenError, IllegalStateError, NotFoundError } from '../errors';
import {
  ACCOUNTS,
  DAY,
  DEADLINE,
  DELIVERED,
  INSPECTION_ENDS,
  ORGANISER_ID,
  R1,
  R2,
  R3,
  R4,
  alice,
  asBuyer,
  at,
  autoAcceptedEvent,
  bob,
  carol,
  confirmReceipt,
  deliveredEvent,
  deliveredPool,
  disputeOpenedEvent,
  disputeResolvedEvent,
  endInspection,
  escrowSpec,
  existing,
  late,
  lockedPool,
  markDelivered,
  otherOrganiser,
  paid,
  receiptEvent,
  aliceSettled,
  u1,
} from './fixtures.testing';
import { dueSettlement } from './settlement';

// decideEscrow: MarkDelivered, ConfirmReceipt, EndInspection (the release-on-receipt phase of a LOCKED pool).

const { given } = escrowSpec();

const delivering = suite('escrow: delivered');

delivering('the organiser marks a RECEIPT pool delivered: each buyer’s inspection period runs for the closing’s inspection days', () => {
  const state = given(...lockedPool()).when(markDelivered()).then([deliveredEvent(DELIVERED, at(DELIVERED, 7 * DAY))]);
  assert.is(existing(state).closing!.inspectionEndsAt, INSPECTION_ENDS);
  given(...lockedPool({ release: { after: 'RECEIPT', inspectionDays: 2, disputeResponseDays: 5 } }))
    .when(markDelivered())
    .then([deliveredEvent(DELIVERED, at(DELIVERED, 2 * DAY))]);
});

delivering('once: delivered again changes nothing (the inspection period does not restart)', () => {
  given(...deliveredPool()).when(markDelivered(at(DELIVERED, 3 * DAY))).then([]);
});

delivering('a pool that releases at CLOSE has no delivery step: 400 release_at_close; an OPEN or FAILED pool: 400 pool_not_locked', () => {
  given(...lockedPool({ release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } })).when(markDelivered()).thenThrows(IllegalStateError, 'release_at_close');
  given(...lockedPool().slice(0, -2)).when(markDelivered()).thenThrows(IllegalStateError, 'pool_not_locked');
  given(...lockedPool({ outcome: 'FAILED' })).when(markDelivered()).thenThrows(IllegalStateError, 'pool_not_locked');
});

delivering('another organiser or the system: 404; a buyer or the organiser without the capability: 403, pool or no pool', () => {
  given(...lockedPool()).when(markDelivered(DELIVERED, asBuyer(alice))).thenThrows(ForbiddenError, 'organise_capability_required');
  given().when(markDelivered(DELIVERED, asBuyer(alice))).thenThrows(ForbiddenError, 'organise_capability_required');
  given(...lockedPool()).when(markDelivered(DELIVERED, otherOrganiser)).thenThrows(NotFoundError, 'pool_not_found');
  given(...lockedPool()).when(markDelivered(DELIVERED, null)).thenThrows(NotFoundError, 'pool_not_found');
  given(...lockedPool()).when(markDelivered(DELIVERED, { userId: ORGANISER_ID, role: 'user' })).thenThrows(ForbiddenError, 'organise_capability_required');
});

const receipts = suite('escrow: receipt');

receipts('a buyer confirms receipt of their PAID reservation (delivered or not yet): it becomes releasable', () => {
  const state = given(...deliveredPool()).when(confirmReceipt(R1, alice)).then([receiptEvent(R1, alice)]);
  assert.equal(existing(state).holdings.byId.get(R1)!.acceptance, { by: 'BUYER', at: at(DELIVERED, DAY) });
  assert.equal(dueSettlement(existing(state), ACCOUNTS).items.map((i) => i.ref), [R1]);
  given(...lockedPool()).when(confirmReceipt(R2, bob, at(DEADLINE, 60))).then([receiptEvent(R2, bob, at(DEADLINE, 60))]);
});

receipts('confirmed again: nothing (idempotent, the first confirmation stands)', () => {
  given(...deliveredPool(), receiptEvent(R1, alice)).when(confirmReceipt(R1, alice, at(DELIVERED, 2 * DAY))).then([]);
  given(...deliveredPool(), autoAcceptedEvent(R1, alice)).when(confirmReceipt(R1, alice, at(INSPECTION_ENDS, 60))).then([]);
});

receipts('only their own reservation: someone else’s or an unknown one is 404 reservation_not_found; to a caller holding nothing in the pool, 404 pool_not_found as for no pool', () => {
  given(...deliveredPool()).when(confirmReceipt(R1, bob)).thenThrows(NotFoundError, 'reservation_not_found');
  given(...deliveredPool()).when(confirmReceipt(R4, alice)).thenThrows(NotFoundError, 'reservation_not_found');
  const dave = { userId: 'd0000000-0000-4000-8000-00000000000d', displayName: 'Dave' };
  given(...deliveredPool()).when(confirmReceipt(R1, dave)).thenThrows(NotFoundError, 'pool_not_found');
  given().when(confirmReceipt(R1, dave)).thenThrows(NotFoundError, 'pool_not_found');
});

receipts('only a PAID reservation still in escrow: expired 400 reservation_not_paid, settled 400 reservation_settled', () => {
  given(...deliveredPool()).when(confirmReceipt(R3, carol)).thenThrows(IllegalStateError, 'reservation_not_paid');
  given(...aliceSettled()).when(confirmReceipt(R1, alice, at(INSPECTION_ENDS, DAY))).thenThrows(IllegalStateError, 'reservation_settled');
});

receipts('not while a dispute is open (withdraw it first), nor after a dispute decided it', () => {
  given(...deliveredPool(), disputeOpenedEvent()).when(confirmReceipt(R1, alice)).thenThrows(IllegalStateError, 'dispute_open');
  given(...deliveredPool(), disputeOpenedEvent(), disputeResolvedEvent('WITHDRAWN', '0.00', at(DELIVERED, 2 * DAY)))
    .when(confirmReceipt(R1, alice, at(DELIVERED, 3 * DAY)))
    .thenThrows(IllegalStateError, 'dispute_resolved');
});

receipts('not on a pool that releases at CLOSE (400 release_at_close) or that is not LOCKED (400 pool_not_locked)', () => {
  given(...lockedPool({ release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } })).when(confirmReceipt(R1, alice)).thenThrows(IllegalStateError, 'release_at_close');
  given(...lockedPool({ outcome: 'FAILED' })).when(confirmReceipt(R1, alice)).thenThrows(IllegalStateError, 'pool_not_locked');
  given(...lockedPool().slice(0, -2)).when(confirmReceipt(R1, alice)).thenThrows(IllegalStateError, 'pool_not_locked');
});

const inspection = suite('escrow: the inspection period ends');

inspection('before its end, or before delivery: nothing', () => {
  given(...deliveredPool()).when(endInspection(at(INSPECTION_ENDS, -1))).then([]);
  given(...lockedPool()).when(endInspection(at(DEADLINE, 90 * DAY))).then([]);
});

inspection('at its end: every PAID reservation not yet accepted, disputed or settled is accepted on its own', () => {
  const history = [...deliveredPool(), ...paid({ id: R4, buyer: carol, lines: u1(1, '8.00'), n: 4 })];
  const state = given(...history).when(endInspection(INSPECTION_ENDS)).then([autoAcceptedEvent(R1, alice), autoAcceptedEvent(R2, bob), autoAcceptedEvent(R4, carol)]);
  assert.equal(existing(state).holdings.byId.get(R2)!.acceptance, { by: 'AUTO', at: INSPECTION_ENDS });
  assert.is(dueSettlement(existing(state), ACCOUNTS).final, true);
});

inspection('skips what was confirmed, disputed (open or ended) or expired; the job runs again: nothing', () => {
  const later = at(INSPECTION_ENDS, 3600);
  given(...deliveredPool(), receiptEvent(R1, alice)).when(endInspection(later)).then([autoAcceptedEvent(R2, bob, later)]);
  given(...deliveredPool(), disputeOpenedEvent()).when(endInspection(later)).then([autoAcceptedEvent(R2, bob, later)]);
  given(...deliveredPool(), disputeOpenedEvent(), disputeResolvedEvent('WITHDRAWN', '0.00', at(DELIVERED, 2 * DAY))).when(endInspection(later)).then([autoAcceptedEvent(R2, bob, later)]);
  given(...deliveredPool(), autoAcceptedEvent(R1, alice), autoAcceptedEvent(R2, bob)).when(endInspection(later)).then([]);
});

inspection('skips late deposits (refunded, never accepted) and a reservation accepted and settled already', () => {
  const withLate = [...lockedPool(), ...late({ id: R4, buyer: carol, lines: u1(1, '8.00'), n: 4 }), deliveredEvent()];
  given(...withLate).when(endInspection(INSPECTION_ENDS)).then([autoAcceptedEvent(R1, alice), autoAcceptedEvent(R2, bob)]);
  given(...aliceSettled()).when(endInspection(at(INSPECTION_ENDS, DAY))).then([autoAcceptedEvent(R2, bob, at(INSPECTION_ENDS, DAY))]);
});

delivering.run();
receipts.run();
inspection.run();
