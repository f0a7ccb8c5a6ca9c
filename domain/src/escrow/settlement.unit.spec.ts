import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PayoutRole, PoolEvent } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import type { ExistingPool, Pool } from '../pools/pool';
import {
  ACCOUNTS,
  DAY,
  DEADLINE,
  ESCROW,
  ORGANISER_ID,
  POOL_ID,
  PREPARED_AT,
  R1,
  R2,
  R3,
  SOURCE,
  alice,
  asBuyer,
  at,
  balance,
  bob,
  carol,
  closedEvent,
  deliveredPool,
  existing,
  expiredEvent,
  lateEvent,
  otherOrganiser,
  poolWithDeadline,
  prepareSettlement,
  receiptEvent,
  recordRound,
  reservations,
  roundHashes,
  settlementSpec,
  sid,
  thenSettle,
} from './fixtures.testing';
import { currentSettlement, dueSettlement, type SettlementCommand } from './settlement';

// decideSettlement: PrepareSettlement (what is due, as the route planned it) and RecordSettledRound (what the ledger did).

const { given, fold } = settlementSpec();
const A = SOURCE[alice.userId]!;
const B = SOURCE[bob.userId]!;
const onlyAlice = () => [...deliveredPool(), receiptEvent(R1, alice)];
const bothAccepted = () => [...onlyAlice(), receiptEvent(R2, bob, at(PREPARED_AT, -60))];
const failed = () => [...poolWithDeadline(), ...reservations(), expiredEvent(R3, carol, DEADLINE), closedEvent({ outcome: 'FAILED' })];
const prepare = (history: PoolEvent[], o: Parameters<typeof prepareSettlement>[1] = {}) => prepareSettlement(fold(history), o);
const step = (c: SettlementCommand) => () => c;
/** The code dueSettlement refuses with. */
const refusal = (pool: ExistingPool): string => {
  try {
    dueSettlement(pool, ACCOUNTS);
  } catch (error) {
    assert.instance(error, IllegalStateError);
    return (error as IllegalStateError).code;
  }
  return assert.unreachable('expected a refusal') as never;
};

/** What PrepareSettlement records: the route's plan as it is, without the accounts, on the pool's escrow. */
const preparedEvent = (command: SettlementCommand): PoolEvent => {
  if (command.type !== 'PrepareSettlement') throw new Error('not a prepare');
  const { accounts: _accounts, ...data } = command.data;
  return { type: 'EscrowSettlementPrepared', data: { poolId: POOL_ID, ...data, escrowAccount: ESCROW.accountId, preparedAt: command.metadata.now } };
};

const preparing = suite('escrow: prepare a settlement');

preparing('the organiser prepares exactly what is due: recorded with its rounds before anything is signed', () => {
  const command = prepare(bothAccepted(), { perRound: 1 });
  const state = given(...bothAccepted()).when(command).then([preparedEvent(command)]);
  assert.is(currentSettlement(existing(state))?.settlementId, sid(1));
});

preparing('another organiser or the system: 404; a buyer or the organiser without the capability: 403, pool or no pool', () => {
  given(...bothAccepted()).when(prepare(bothAccepted(), { actor: asBuyer(alice) })).thenThrows(ForbiddenError, 'organise_capability_required');
  given().when(prepare(bothAccepted(), { actor: asBuyer(alice) })).thenThrows(ForbiddenError, 'organise_capability_required');
  given(...bothAccepted()).when(prepare(bothAccepted(), { actor: otherOrganiser })).thenThrows(NotFoundError, 'pool_not_found');
  given(...bothAccepted()).when(prepare(bothAccepted(), { actor: null })).thenThrows(NotFoundError, 'pool_not_found');
  given(...bothAccepted()).when(prepare(bothAccepted(), { actor: { userId: ORGANISER_ID, role: 'user' } })).thenThrows(ForbiddenError, 'organise_capability_required');
});

preparing('what the route planned differs from what is due now: 409 settlement_changed', () => {
  const planned = prepare(onlyAlice());
  // Bob accepted in between: his deposit is due too, and nothing is held any more.
  given(...bothAccepted()).when(planned).thenThrows(ConflictError, 'settlement_changed');
  const tamper = (f: (d: Extract<SettlementCommand, { type: 'PrepareSettlement' }>['data']) => void) => {
    const c = structuredClone(prepare(bothAccepted()));
    if (c.type === 'PrepareSettlement') f(c.data);
    return c;
  };
  given(...bothAccepted()).when(tamper((d) => (d.items[0]!.payouts[0]!.amount = '15.61'))).thenThrows(ConflictError, 'settlement_changed');
  given(...bothAccepted()).when(tamper((d) => (d.items[0]!.payouts[2]!.destination = B))).thenThrows(ConflictError, 'settlement_changed');
  given(...bothAccepted()).when(tamper((d) => d.items.pop())).thenThrows(ConflictError, 'settlement_changed');
  given(...bothAccepted()).when(tamper((d) => (d.final = false))).thenThrows(ConflictError, 'settlement_changed');
  given(...bothAccepted()).when(tamper((d) => (d.kind = 'REFUND'))).thenThrows(ConflictError, 'settlement_changed');
});

preparing('a release window already over: 400 settlement_expired; nothing due: 400 nothing_to_settle', () => {
  given(...bothAccepted()).when(prepare(bothAccepted(), { releaseUntil: PREPARED_AT })).thenThrows(IllegalStateError, 'settlement_expired');
  const nothing = prepare(onlyAlice());
  given(...deliveredPool()).when(nothing).thenThrows(IllegalStateError, 'nothing_to_settle');
});

preparing('one at a time: refused while another is carried out, unless the route found it will never land (never locked, or its rest dead after a recovery) and replaces it', () => {
  const first = prepare(bothAccepted(), { perRound: 1 });
  const inProgress = thenSettle(bothAccepted(), step(first));
  given(...inProgress).when(prepare(bothAccepted(), { n: 2 })).thenThrows(ConflictError, 'settlement_in_progress');
  given(...inProgress).when(prepare(bothAccepted(), { n: 2, supersedes: sid(9) })).thenThrows(ConflictError, 'settlement_in_progress');
  const replacing = prepare(bothAccepted(), { n: 2, supersedes: sid(1) });
  const state = given(...inProgress).when(replacing).then([preparedEvent(replacing)]);
  assert.is(currentSettlement(existing(state))?.settlementId, sid(2));
  const halfway = thenSettle(inProgress, step(recordRound({ path: 'RECOVERY' })));
  given(...halfway).when(prepare(halfway, { n: 2 })).thenThrows(ConflictError, 'settlement_in_progress');
  // After round 0's recovery the lock of round 1 can never land: the route says so by naming it; what is due is the rest.
  const rest = prepare(halfway, { n: 2, supersedes: sid(1) });
  given(...halfway).when(rest).then([preparedEvent(rest)]);
  given(...halfway).when(prepare(inProgress, { n: 2, supersedes: sid(1) })).thenThrows(ConflictError, 'settlement_changed');
});

preparing('once every round of a settlement is on the ledger, the next one may be prepared', () => {
  const first = thenSettle(onlyAlice(), (p) => prepareSettlement(p), step(recordRound()));
  const later = [...first, receiptEvent(R2, bob, at(PREPARED_AT, DAY))];
  const next = prepare(later, { n: 2, now: at(PREPARED_AT, 2 * DAY) });
  given(...later).when(next).then([preparedEvent(next)]);
});

preparing('rounds that leave an item out, name one twice, or name something else: 400 rounds_mismatch', () => {
  const ok = prepare(bothAccepted(), { perRound: 1 });
  if (ok.type !== 'PrepareSettlement') throw new Error('not a prepare');
  const [r0, r1] = ok.data.rounds;
  const variants = [[r0!], [r0!, { ...r1!, refs: [...r1!.refs, r0!.refs[0]!] }], [r0!, { ...r1!, refs: ['someone-else'] }]];
  for (const rounds of variants) given(...bothAccepted()).when({ ...ok, data: { ...ok.data, rounds } }).thenThrows(ValidationError, 'rounds_mismatch');
});

preparing.run();

const recording = suite('escrow: record a settled round');

const roundSettled = (round: number, o: { n?: number; path?: 'RELEASE' | 'RECOVERY'; merged?: boolean } = {}): PoolEvent => {
  const h = roundHashes(o.n ?? 1, round);
  const path = o.path ?? 'RELEASE';
  return {
    type: 'EscrowRoundSettled',
    data: { poolId: POOL_ID, settlementId: sid(o.n ?? 1), round, path, txHash: path === 'RELEASE' ? h.releaseHash : h.recoveryHash, ledger: 100 + round, merged: o.merged ?? false, settledAt: at(PREPARED_AT, 3600 * (round + 1)) },
  };
};
const payout = (round: number, role: PayoutRole, destination: string, amount: string, o: { n?: number; path?: 'RELEASE' | 'RECOVERY' } = {}): PoolEvent => {
  const h = roundHashes(o.n ?? 1, round);
  return {
    type: 'EscrowPayoutSettled',
    data: { poolId: POOL_ID, settlementId: sid(o.n ?? 1), round, role, destination, amount, txHash: (o.path ?? 'RELEASE') === 'RELEASE' ? h.releaseHash : h.recoveryHash, settledAt: at(PREPARED_AT, 3600 * (round + 1)) },
  };
};
const reservationSettled = (round: number, id: string, buyerId: string, n: number, released: string, refunded: string, o: { n?: number; path?: 'RELEASE' | 'RECOVERY'; kind?: 'DEPOSIT' | 'LATE_DEPOSIT' } = {}): PoolEvent => {
  const h = roundHashes(o.n ?? 1, round);
  const path = o.path ?? 'RELEASE';
  return {
    type: 'ReservationSettled',
    data: {
      poolId: POOL_ID,
      reservationId: id,
      buyerId,
      settlementId: sid(o.n ?? 1),
      kind: o.kind ?? 'DEPOSIT',
      balanceId: balance(n),
      path,
      released,
      refunded,
      txHash: path === 'RELEASE' ? h.releaseHash : h.recoveryHash,
      settledAt: at(PREPARED_AT, 3600 * (round + 1)),
    },
  };
};
const poolSettled = (round: number, released: string, refunded: string, n = 1): PoolEvent => ({
  type: 'PoolSettled',
  data: { poolId: POOL_ID, settlementId: sid(n), released, refunded, settledAt: at(PREPARED_AT, 3600 * (round + 1)) },
});
/** Both accepted, prepared in two rounds (Alice's deposit in round 0, Bob's in round 1). */
const twoRounds = () => thenSettle(bothAccepted(), (p: Pool) => prepareSettlement(p, { perRound: 1 }));

recording('a released round: one payout event per recipient, one per reservation; not merged before the last round', () => {
  const state = given(...twoRounds()).when(recordRound()).then([
    roundSettled(0),
    payout(0, 'SELLER', ACCOUNTS.seller, '15.60'),
    payout(0, 'PLATFORM', ACCOUNTS.platform, '0.40'),
    payout(0, 'BUYER', A, '4.00'),
    reservationSettled(0, R1, alice.userId, 1, '16.00', '4.00'),
  ]);
  const pool = existing(state);
  assert.is(pool.holdings.byId.get(R1)!.settled.get(balance(1))?.released, '16.00');
  assert.is(pool.status, 'LOCKED');
  assert.is(currentSettlement(pool)?.settlementId, sid(1), 'still being carried out');
});

recording('the last round of a final settlement merges the escrow: PoolSettled with the whole pool’s totals; the pool is SETTLED', () => {
  const state = given(...thenSettle(twoRounds(), step(recordRound()))).when(recordRound({ round: 1 })).then([
    roundSettled(1, { merged: true }),
    payout(1, 'SELLER', ACCOUNTS.seller, '15.60'),
    payout(1, 'PLATFORM', ACCOUNTS.platform, '0.40'),
    reservationSettled(1, R2, bob.userId, 2, '16.00', '0.00'),
    poolSettled(1, '32.00', '4.00'),
  ]);
  const pool = existing(state);
  assert.equal({ status: pool.status, current: currentSettlement(pool), mergedAt: pool.settlement.mergedAt }, { status: 'SETTLED', current: null, mergedAt: at(PREPARED_AT, 7200) });
  assert.is(refusal(pool), 'escrow_settled');
});

recording('in one round, the payouts of several reservations to one recipient add up to one event', () => {
  given(...thenSettle(bothAccepted(), (p) => prepareSettlement(p))).when(recordRound()).then([
    roundSettled(0, { merged: true }),
    payout(0, 'SELLER', ACCOUNTS.seller, '31.20'),
    payout(0, 'PLATFORM', ACCOUNTS.platform, '0.80'),
    payout(0, 'BUYER', A, '4.00'),
    reservationSettled(0, R1, alice.userId, 1, '16.00', '4.00'),
    reservationSettled(0, R2, bob.userId, 2, '16.00', '0.00'),
    poolSettled(0, '32.00', '4.00'),
  ]);
});

recording('a settlement that is not final never merges: the pool stays LOCKED and the next one is prepared later', () => {
  const first = thenSettle(onlyAlice(), (p) => prepareSettlement(p));
  const state = given(...first).when(recordRound()).then([
    roundSettled(0),
    payout(0, 'SELLER', ACCOUNTS.seller, '15.60'),
    payout(0, 'PLATFORM', ACCOUNTS.platform, '0.40'),
    payout(0, 'BUYER', A, '4.00'),
    reservationSettled(0, R1, alice.userId, 1, '16.00', '4.00'),
  ]);
  assert.is(currentSettlement(existing(state)), null);
  // Bob accepts later: the second settlement is final, and PoolSettled counts both.
  const second = [...thenSettle(first, step(recordRound())), receiptEvent(R2, bob, at(PREPARED_AT, DAY))];
  const prepared = thenSettle(second, (p) => prepareSettlement(p, { n: 2, now: at(PREPARED_AT, 2 * DAY) }));
  const last = given(...prepared).when(recordRound({ n: 2 })).then([
    roundSettled(0, { n: 2, merged: true }),
    payout(0, 'SELLER', ACCOUNTS.seller, '15.60', { n: 2 }),
    payout(0, 'PLATFORM', ACCOUNTS.platform, '0.40', { n: 2 }),
    reservationSettled(0, R2, bob.userId, 2, '16.00', '0.00', { n: 2 }),
    poolSettled(0, '32.00', '4.00', 2),
  ]);
  assert.is(existing(last).status, 'SETTLED');
});

recording('the recovery path refunds every item of the round in full to where it came from', () => {
  given(...thenSettle(bothAccepted(), (p) => prepareSettlement(p))).when(recordRound({ path: 'RECOVERY' })).then([
    roundSettled(0, { path: 'RECOVERY', merged: true }),
    payout(0, 'BUYER', A, '20.00', { path: 'RECOVERY' }),
    payout(0, 'BUYER', B, '16.00', { path: 'RECOVERY' }),
    reservationSettled(0, R1, alice.userId, 1, '0.00', '20.00', { path: 'RECOVERY' }),
    reservationSettled(0, R2, bob.userId, 2, '0.00', '16.00', { path: 'RECOVERY' }),
    poolSettled(0, '0.00', '36.00'),
  ]);
});

recording('a failed pool: refunds (late deposits with them) to each buyer; it stays FAILED once merged', () => {
  const history = [...failed().slice(0, -1), lateEvent(R1, alice, 9, '20.00', at(DEADLINE, -60)), closedEvent({ outcome: 'FAILED' })];
  const state = given(...thenSettle(history, (p) => prepareSettlement(p))).when(recordRound()).then([
    roundSettled(0, { merged: true }),
    payout(0, 'BUYER', A, '40.00'),
    payout(0, 'BUYER', B, '16.00'),
    reservationSettled(0, R1, alice.userId, 1, '0.00', '20.00'),
    reservationSettled(0, R1, alice.userId, 9, '0.00', '20.00', { kind: 'LATE_DEPOSIT' }),
    reservationSettled(0, R2, bob.userId, 2, '0.00', '16.00'),
    poolSettled(0, '0.00', '56.00'),
  ]);
  assert.is(existing(state).status, 'FAILED');
  assert.is(refusal(existing(state)), 'escrow_settled');
});

recording('the same transaction again: nothing; another one for a settled round: 409 round_already_settled', () => {
  const once = thenSettle(twoRounds(), step(recordRound()));
  given(...once).when(recordRound({ now: at(PREPARED_AT, DAY) })).then([]);
  given(...once).when(recordRound({ path: 'RECOVERY' })).thenThrows(ConflictError, 'round_already_settled');
});

recording('a transaction that is not the round’s release or recovery: 409 not_this_round', () => {
  given(...twoRounds()).when(recordRound({ txHash: roundHashes(1, 1).releaseHash })).thenThrows(ConflictError, 'not_this_round');
  given(...twoRounds()).when(recordRound({ txHash: roundHashes(1, 0).lockHash })).thenThrows(ConflictError, 'not_this_round');
  given(...twoRounds()).when(recordRound({ path: 'RECOVERY', txHash: roundHashes(1, 0).releaseHash })).thenThrows(ConflictError, 'not_this_round');
});

recording('rounds in order: round 1 before round 0 is 400 round_out_of_order; unknown settlements and rounds are 404', () => {
  given(...twoRounds()).when(recordRound({ round: 1 })).thenThrows(IllegalStateError, 'round_out_of_order');
  given(...twoRounds()).when(recordRound({ n: 7 })).thenThrows(NotFoundError, 'settlement_not_found');
  given(...twoRounds()).when(recordRound({ round: 2 })).thenThrows(NotFoundError, 'settlement_round_not_found');
});


recording('a deposit another settlement already settled is never settled twice in the books: 409 deposit_already_settled', () => {
  // Settlement 1 (Alice) replaced by 2 (Alice and Bob) before it reached the ledger; then 1's round is reported after all.
  const first = thenSettle(onlyAlice(), (p) => prepareSettlement(p));
  const second = thenSettle([...first, receiptEvent(R2, bob, at(PREPARED_AT, -60))], (p) => prepareSettlement(p, { n: 2, supersedes: sid(1) }));
  const afterTwo = thenSettle(second, step(recordRound({ n: 2 })));
  given(...afterTwo).when(recordRound({ n: 1 })).thenThrows(ConflictError, 'deposit_already_settled');
});

recording.run();
