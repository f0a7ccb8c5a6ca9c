import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolConfig, PoolEvent } from '@cagnotte/event-schemas';
import { ForbiddenError, IllegalStateError, NotFoundError } from '../errors';
import { fundingFields, poolCreated } from '../reservations/fixtures.testing';
import { assertStorable } from '../testing/decider';
import { decideEscrow, type EscrowCommand } from './decide';
import {
  ALICE_R1,
  BOB_R2,
  CAROL_R3,
  DEADLINE,
  EARLY,
  ORGANISER_ID,
  POLICY,
  POOL_ID,
  R1,
  R2,
  R3,
  SELLER_ID,
  alice,
  asBuyer,
  at,
  bob,
  cancelPool,
  carol,
  closePool,
  closedEvent,
  escrowSpec,
  existing,
  expiredEvent,
  groupsFields,
  lockedPool,
  openPool,
  otherOrganiser,
  paid,
  pending,
  poolWithDeadline,
  reservations,
} from './fixtures.testing';

// decideEscrow: ClosePool (the deadline job, or the organiser early) and CancelPool; the fold's statuses.

const { given, fold } = escrowSpec();
const withConfig = (config: Partial<PoolConfig>, fields: Parameters<typeof groupsFields>[0] = {}) => {
  const base = groupsFields();
  return openPool(groupsFields({ deadline: DEADLINE, ...fields, config: { ...base.config, ...config } }));
};
const fundingPool = (overrides: Parameters<typeof fundingFields>[0] = {}) => openPool(fundingFields({ deadline: DEADLINE, ...overrides }), 'FUNDING');
const pledge = (id: string, buyer: typeof alice, amount: string, n: number) => paid({ id, buyer, lines: [], pledge: amount, amount, n });
const mandate: PoolEvent = {
  type: 'PoolCommissionMandateAccepted',
  data: { poolId: POOL_ID, userId: ORGANISER_ID, kind: 'COMMISSION', version: '2026-01', hash: 'ab'.repeat(32), acceptedAt: '2026-03-01T09:00:00.000Z', ip: null },
};
/** The PoolClosed decided on `history` (for assertions on a few of its fields), checked against its schema. */
const closing = (history: PoolEvent[], command: EscrowCommand) => {
  const events = decideEscrow(command, fold(history));
  assertStorable(events);
  const closed = events.find((e) => e.type === 'PoolClosed');
  if (closed?.type !== 'PoolClosed') return assert.unreachable('no PoolClosed') as never;
  return closed.data;
};

const deadline = suite('escrow: the deadline closes the pool');

deadline('at the deadline: PENDING reservations expire, the pool closes on its PAID units at the tier they reached', () => {
  const state = given(...poolWithDeadline(), ...reservations())
    .when(closePool('DEADLINE', DEADLINE))
    .then([expiredEvent(R3, carol, DEADLINE), closedEvent()]);
  const pool = existing(state);
  assert.is(pool.status, 'LOCKED');
  assert.is(pool.holdings.byId.get(R3)!.status, 'EXPIRED');
  assert.is(pool.closing!.finalPrices.get('u1'), 80_000_000n);
  assert.is(pool.closing!.release.after, 'RECEIPT');
});

deadline('before the deadline, without one, or once the pool is no longer OPEN: nothing (the job may run more than once)', () => {
  given(...poolWithDeadline(), ...reservations()).when(closePool('DEADLINE', at(DEADLINE, -1))).then([]);
  given(...openPool(), ...reservations()).when(closePool('DEADLINE', DEADLINE)).then([]);
  given(...lockedPool()).when(closePool('DEADLINE', at(DEADLINE, 60))).then([]);
  given(...poolWithDeadline(), { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: EARLY } }).when(closePool('DEADLINE', DEADLINE)).then([]);
  given(poolCreated(groupsFields({ deadline: DEADLINE }))).when(closePool('DEADLINE', DEADLINE)).then([]);
});

deadline('held PENDING units lapse: the final price is the tier reached by PAID units only', () => {
  // Bob was charged 8.00 because Alice's hold made 4; Alice never paid: u1 stays at 10.00 (Bob keeps his 8.00: dueOf caps it).
  const events = given(...poolWithDeadline(), ...pending(ALICE_R1), ...paid(BOB_R2)).when(closePool('DEADLINE', DEADLINE)).then([
    expiredEvent(R1, alice, DEADLINE),
    closedEvent({ paidUnits: 2, paidAmount: '16.00', finalPrices: [{ unitId: 'u1', price: '10.00' }, { unitId: 'u2', price: '2.50' }, { unitId: 'u0', price: '0.00' }] }),
  ]);
  assert.is(existing(events).closing!.paidUnits, 2);
});

deadline('GROUPS below config.minimumUnits PAID units (held ones do not count) FAIL; at it they succeed', () => {
  const below = given(...withConfig({ minimumUnits: 5 }), ...reservations()).when(closePool('DEADLINE', DEADLINE));
  const failed = below.then([expiredEvent(R3, carol, DEADLINE), closedEvent({ outcome: 'FAILED' })]);
  assert.is(existing(failed).status, 'FAILED');
  const atMinimum = given(...withConfig({ minimumUnits: 4 }), ...reservations()).when(closePool('DEADLINE', DEADLINE)).then([expiredEvent(R3, carol, DEADLINE), closedEvent()]);
  assert.is(existing(atMinimum).status, 'LOCKED');
});

deadline('without a minimum, one PAID unit is enough; none (only holds) FAILS', () => {
  const none = given(...poolWithDeadline(), ...pending(CAROL_R3)).when(closePool('DEADLINE', DEADLINE));
  none.then([expiredEvent(R3, carol, DEADLINE), closedEvent({ outcome: 'FAILED', paidUnits: 0, paidAmount: '0.00', finalPrices: [{ unitId: 'u1', price: '10.00' }, { unitId: 'u2', price: '2.50' }, { unitId: 'u0', price: '0.00' }] })]);
  const one = [...poolWithDeadline(), ...paid({ id: R1, buyer: alice, lines: [{ unitId: 'u1', quantity: 1, unitPrice: '10.00' }], n: 1 })];
  assert.is(closing(one, closePool('DEADLINE', DEADLINE)).outcome, 'SUCCEEDED');
});

deadline('FUNDING: succeeds once its target is PAID, fails below it; releases at closing; no final prices', () => {
  const full = [...pledge(R1, alice, '150.00', 1), ...pledge(R2, bob, '100.00', 2)];
  const data = closing([...fundingPool(), ...full], closePool('DEADLINE', DEADLINE));
  assert.equal({ outcome: data.outcome, paidUnits: data.paidUnits, paidAmount: data.paidAmount, finalPrices: data.finalPrices, after: data.release.after }, {
    outcome: 'SUCCEEDED',
    paidUnits: 0,
    paidAmount: '250.00',
    finalPrices: [],
    after: 'CLOSE',
  });
  assert.is(closing([...fundingPool(), ...pledge(R1, alice, '249.99', 1)], closePool('DEADLINE', DEADLINE)).outcome, 'FAILED');
  assert.is(closing([...fundingPool()], closePool('DEADLINE', DEADLINE)).outcome, 'FAILED');
});

deadline('release terms: GROUPS on RECEIPT, FUNDING at CLOSE, config.release overrides; inspection days from config else policy', () => {
  const terms = (events: PoolEvent[], policy = POLICY) => closing(events, closePool('DEADLINE', DEADLINE, null, policy)).release;
  assert.equal(terms([...poolWithDeadline(), ...paid(ALICE_R1)]), { after: 'RECEIPT', inspectionDays: 7, disputeResponseDays: 5 });
  assert.equal(terms([...poolWithDeadline(), ...paid(ALICE_R1)], { platformFeePercent: '1', inspectionDays: 14, disputeResponseDays: 3 }), { after: 'RECEIPT', inspectionDays: 14, disputeResponseDays: 3 });
  assert.equal(terms([...withConfig({ release: { after: 'RECEIPT', inspectionDays: 21 } }), ...paid(ALICE_R1)]), { after: 'RECEIPT', inspectionDays: 21, disputeResponseDays: 5 });
  assert.equal(terms([...withConfig({ release: { after: 'CLOSE' } }), ...paid(ALICE_R1)]), { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 });
  assert.equal(terms([...fundingPool(), ...pledge(R1, alice, '250.00', 1)]), { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 });
});

deadline('fees: the policy’s platform fee; a commission only for a brokered pool with the COMMISSION mandate and a rate above 0', () => {
  const fees = (fields: Parameters<typeof groupsFields>[0], withMandate: boolean) =>
    closing([...withConfig({}, fields), ...(withMandate ? [mandate] : []), ...paid(ALICE_R1)], closePool('DEADLINE', DEADLINE)).fees;
  const brokered = { sellerId: SELLER_ID, organiserCommissionPercent: '5' };
  // PoolClosed v2 also freezes the payment rule (here the bare percentage: the policy has no schedule) and the VAT rates (none given).
  const frozen = { platformFee: { percent: '2.5', fixed: '0', min: '0', cap: null }, vat: null };
  assert.equal(fees(brokered, true), { platformFeePercent: '2.5', organiserCommissionPercent: '5', ...frozen });
  assert.equal(fees(brokered, false), { platformFeePercent: '2.5', organiserCommissionPercent: null, ...frozen }, 'no mandate');
  assert.equal(fees({ ...brokered, organiserCommissionPercent: '0' }, true), { platformFeePercent: '2.5', organiserCommissionPercent: null, ...frozen }, 'a zero rate');
  assert.equal(fees({ ...brokered, organiserCommissionPercent: null }, true), { platformFeePercent: '2.5', organiserCommissionPercent: null, ...frozen }, 'no rate');
  assert.equal(fees({ sellerId: ORGANISER_ID, organiserCommissionPercent: '5' }, true), { platformFeePercent: '2.5', organiserCommissionPercent: null, ...frozen }, 'the organiser sells');
  assert.equal(fees({ sellerId: null, organiserCommissionPercent: '5' }, true), { platformFeePercent: '2.5', organiserCommissionPercent: null, ...frozen }, 'no seller');
});

const early = suite('escrow: the organiser closes early');

early('once the minimum is PAID: closes at once with reason ORGANISER, before the deadline', () => {
  const state = given(...withConfig({ minimumUnits: 4 }), ...reservations())
    .when(closePool('ORGANISER', EARLY))
    .then([expiredEvent(R3, carol, EARLY), closedEvent({ reason: 'ORGANISER', closedAt: EARLY })]);
  assert.is(existing(state).status, 'LOCKED');
});

early('below the minimum: 400 minimum_not_reached (holds do not count; FUNDING counts its target)', () => {
  given(...withConfig({ minimumUnits: 5 }), ...reservations()).when(closePool('ORGANISER', EARLY)).thenThrows(IllegalStateError, 'minimum_not_reached');
  given(...poolWithDeadline(), ...pending(CAROL_R3)).when(closePool('ORGANISER', EARLY)).thenThrows(IllegalStateError, 'minimum_not_reached');
  given(...fundingPool(), ...pledge(R1, alice, '249.99', 1)).when(closePool('ORGANISER', EARLY)).thenThrows(IllegalStateError, 'minimum_not_reached');
  given(...fundingPool(), ...pledge(R1, alice, '250.00', 1)).when(closePool('ORGANISER', EARLY)).then([
    closedEvent({ reason: 'ORGANISER', closedAt: EARLY, paidUnits: 0, paidAmount: '250.00', finalPrices: [], release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 5 } }),
  ]);
});

early('past the deadline the organiser may close a pool that failed: FAILED', () => {
  const state = given(...withConfig({ minimumUnits: 5 }), ...reservations())
    .when(closePool('ORGANISER', at(DEADLINE, 60)))
    .then([expiredEvent(R3, carol, at(DEADLINE, 60)), closedEvent({ outcome: 'FAILED', reason: 'ORGANISER', closedAt: at(DEADLINE, 60) })]);
  assert.is(existing(state).status, 'FAILED');
});

early('a pool that is not OPEN: 400 pool_not_open', () => {
  given(...lockedPool()).when(closePool('ORGANISER', at(DEADLINE, 60))).thenThrows(IllegalStateError, 'pool_not_open');
  given(poolCreated(groupsFields({ deadline: DEADLINE }))).when(closePool('ORGANISER', EARLY)).thenThrows(IllegalStateError, 'pool_not_open');
});

early('another organiser: 404 pool_not_found; the system: 404; an unknown pool: 404', () => {
  given(...poolWithDeadline(), ...reservations()).when(closePool('ORGANISER', EARLY, otherOrganiser)).thenThrows(NotFoundError, 'pool_not_found');
  given(...poolWithDeadline(), ...reservations()).when(closePool('ORGANISER', EARLY, null)).thenThrows(NotFoundError, 'pool_not_found');
  given().when(closePool('DEADLINE', DEADLINE)).thenThrows(NotFoundError, 'pool_not_found');
});

early('a non-organiser (a buyer, or the organiser without the organise capability): 403 organise_capability_required, pool or no pool', () => {
  given(...poolWithDeadline(), ...reservations()).when(closePool('ORGANISER', EARLY, asBuyer(alice))).thenThrows(ForbiddenError, 'organise_capability_required');
  given().when(closePool('ORGANISER', EARLY, asBuyer(alice))).thenThrows(ForbiddenError, 'organise_capability_required');
  given(...poolWithDeadline(), ...reservations()).when(closePool('ORGANISER', EARLY, { userId: ORGANISER_ID, role: 'user' })).thenThrows(ForbiddenError, 'organise_capability_required');
});

const cancelling = suite('escrow: cancel');
const cancelled = (at_: string): PoolEvent => ({ type: 'PoolCancelled', data: { poolId: POOL_ID, reason: 'Supplier gone', cancelledAt: at_ } });

cancelling('a DRAFT or OPEN pool: PENDING reservations expire, CANCELLED', () => {
  const draft = given(poolCreated()).when(cancelPool()).then([cancelled(EARLY)]);
  assert.is(existing(draft).status, 'CANCELLED');
  const open = given(...poolWithDeadline(), ...reservations()).when(cancelPool()).then([expiredEvent(R3, carol, EARLY), cancelled(EARLY)]);
  assert.is(existing(open).cancelledAt, EARLY);
  assert.is(existing(open).holdings.byId.get(R2)!.status, 'PAID', 'a paid reservation stays PAID: it is refunded by the settlement');
});

cancelling('LOCKED, FAILED or CANCELLED pools are not cancelled: 400 pool_not_cancellable', () => {
  given(...lockedPool()).when(cancelPool(at(DEADLINE, 60))).thenThrows(IllegalStateError, 'pool_not_cancellable');
  given(...lockedPool({ outcome: 'FAILED' })).when(cancelPool(at(DEADLINE, 60))).thenThrows(IllegalStateError, 'pool_not_cancellable');
  given(...poolWithDeadline(), cancelled(EARLY)).when(cancelPool()).thenThrows(IllegalStateError, 'pool_not_cancellable');
});

cancelling('another organiser: 404; the system: 404; a buyer or the organiser without the organise capability: 403, pool or no pool', () => {
  given(...poolWithDeadline(), ...reservations()).when(cancelPool(EARLY, asBuyer(bob))).thenThrows(ForbiddenError, 'organise_capability_required');
  given().when(cancelPool(EARLY, asBuyer(bob))).thenThrows(ForbiddenError, 'organise_capability_required');
  given().when(cancelPool(EARLY, otherOrganiser)).thenThrows(NotFoundError, 'pool_not_found');
  given(...poolWithDeadline()).when(cancelPool(EARLY, otherOrganiser)).thenThrows(NotFoundError, 'pool_not_found');
  given(...poolWithDeadline()).when(cancelPool(EARLY, null)).thenThrows(NotFoundError, 'pool_not_found');
  given(...poolWithDeadline()).when(cancelPool(EARLY, { userId: ORGANISER_ID, role: 'user' })).thenThrows(ForbiddenError, 'organise_capability_required');
});

deadline.run();
early.run();
cancelling.run();
