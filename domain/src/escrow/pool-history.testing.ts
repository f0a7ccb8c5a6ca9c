import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { PoolEvent, PoolUnit } from '@cagnotte/event-schemas';
import { AppError } from '../errors';
import { formatAmount, parseAmount } from '../money';
import { evolvePool, initialPool, type ExistingPool, type Pool } from '../pools/pool';
import { decideReservation, type BuyerActor, type ReservationCommand } from '../reservations/decide';
import type { Reservation } from '../reservations/holdings';
import { ASSET, MEMO, TERMS, T_OPEN, groupsFields, poolCreated, published } from '../reservations/fixtures.testing';
import { decideEscrow, type EscrowCommand } from './decide';
import {
  ACCOUNTS,
  DAY,
  DEADLINE,
  ESCROW,
  ORGANISER_ID,
  POOL_ID,
  SELLER_ID,
  alice,
  asBuyer,
  at,
  balance,
  bob,
  carol,
  did,
  hash,
  organiser,
  rid,
  roundHashes,
  sid,
} from './fixtures.testing';
import { decideSettlement, dueSettlement, settlementWindows, type DueSettlement, type SettlementCommand } from './settlement';

// The pool histories of settlement.property.unit.spec.ts: a random plan (fast-check) played through the real deciders.
// Random GROUPS pools, from the first reservation to the merge: reservations paid, left pending, paid late or twice;
// the deadline (or a cancel, or an early close); receipts, disputes and their answers in any order and at any time;
// settlements prepared and recorded round by round (release or recovery, sometimes replacing one that never reached
// the ledger) whenever something is due, then, once every period is over, until the final one. Fake transaction
// hashes: this is the domain. A domain refusal (AppError) of a random command is a legitimate answer and is skipped;
// anything else thrown fails the property. Settling checks, round by round, that nothing held is settled.
const dave: BuyerActor = { userId: 'dddddddd-0000-4000-8000-00000000000d', displayName: 'Dave' };
const BUYERS = [alice, bob, carol, dave];
const SOURCES = ['A', 'B', 'C', 'D'].map((c) => `G${c.repeat(55)}`);
const RECLAIM = Math.floor(Date.parse(ESCROW.reclaimAfter) / 1000);

// The plan fast-check generates.
export type Fate = 'PAID' | 'PENDING' | 'LATE' | 'CANCELLED_THEN_PAID' | 'PAID_TWICE';
export interface Plan {
  units: Array<{ price: bigint; tiers: Array<{ minQuantity: number; percentOff: number }> }>;
  minimumUnits: number | null;
  releaseAfter: 'RECEIPT' | 'CLOSE' | null;
  inspectionDays: number;
  disputeResponseDays: number;
  feeHundredths: number;
  commissionHundredths: number | null;
  mandate: boolean;
  reservations: Array<{ buyer: number; lines: Array<{ unit: number; quantity: number }>; fate: Fate }>;
  ending: 'DEADLINE' | 'EARLY' | 'CANCEL';
  actions: Action[];
}
export type Action =
  | { kind: 'deliver' }
  | { kind: 'receipt'; r: number }
  | { kind: 'dispute'; r: number }
  | { kind: 'contest'; d: number }
  | { kind: 'refund'; d: number; perMille: number }
  | { kind: 'withdraw'; d: number }
  | { kind: 'wait'; hours: number }
  | { kind: 'latePay'; r: number }
  | { kind: 'settle'; perRound: number; recovery: boolean[]; supersede: boolean };

const percent = (h: number) => (h % 100 === 0 ? `${h / 100}` : `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`);

const actionArb: fc.Arbitrary<Action> = fc.oneof(
  { arbitrary: fc.constant({ kind: 'deliver' as const }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('receipt' as const), r: fc.nat(11) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('dispute' as const), r: fc.nat(11) }), weight: 5 },
  { arbitrary: fc.record({ kind: fc.constant('contest' as const), d: fc.nat(5) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('refund' as const), d: fc.nat(5), perMille: fc.integer({ min: 0, max: 1001 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('withdraw' as const), d: fc.nat(5) }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.integer({ min: 1, max: 72 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('latePay' as const), r: fc.nat(11) }), weight: 1 },
  {
    arbitrary: fc.record({ kind: fc.constant('settle' as const), perRound: fc.integer({ min: 1, max: 3 }), recovery: fc.array(fc.boolean(), { maxLength: 6 }), supersede: fc.boolean() }),
    weight: 3,
  },
);

export const planArb: fc.Arbitrary<Plan> = fc.record({
  units: fc.array(
    fc.record({
      price: fc.bigInt({ min: 1n, max: 500_000_000n }),
      tiers: fc.array(fc.record({ minQuantity: fc.integer({ min: 2, max: 8 }), percentOff: fc.integer({ min: 1, max: 99 }) }), { maxLength: 2 }),
    }),
    { minLength: 1, maxLength: 3 },
  ),
  minimumUnits: fc.option(fc.integer({ min: 1, max: 5 }), { nil: null }),
  releaseAfter: fc.constantFrom('RECEIPT' as const, 'CLOSE' as const, null, null),
  inspectionDays: fc.integer({ min: 1, max: 10 }),
  disputeResponseDays: fc.integer({ min: 1, max: 10 }),
  feeHundredths: fc.integer({ min: 0, max: 10_000 }),
  commissionHundredths: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
  mandate: fc.boolean(),
  reservations: fc.array(
    fc.record({
      buyer: fc.nat(3),
      lines: fc.array(fc.record({ unit: fc.nat(2), quantity: fc.integer({ min: 1, max: 4 }) }), { minLength: 1, maxLength: 2 }),
      fate: fc.constantFrom<Fate>('PAID', 'PAID', 'PAID', 'PENDING', 'LATE', 'CANCELLED_THEN_PAID', 'PAID_TWICE'),
    }),
    { maxLength: 8 },
  ),
  ending: fc.constantFrom('DEADLINE' as const, 'DEADLINE' as const, 'DEADLINE' as const, 'EARLY' as const, 'CANCEL' as const),
  actions: fc.array(actionArb, { maxLength: 14 }),
});

/** One run: a pool's stream, decided command by command. */
export class Run {
  readonly history: PoolEvent[] = [];
  state: Pool = initialPool();
  now = T_OPEN;
  private deposits = 0;
  private settlements = 0;
  readonly disputes: string[] = [];
  readonly reservationIds: string[] = [];

  apply(events: PoolEvent[]): PoolEvent[] {
    this.history.push(...events);
    for (const e of events) this.state = evolvePool(this.state, e);
    return events;
  }
  get pool(): ExistingPool {
    if (this.state.status === 'none') throw new Error('no pool');
    return this.state;
  }
  /** Decides and applies; a domain refusal (AppError) is a legitimate answer to a random command: null. */
  attempt(decide: () => PoolEvent[]): PoolEvent[] | null {
    try {
      return this.apply(decide());
    } catch (error) {
      if (error instanceof AppError) return null;
      throw error;
    }
  }
  reservation(command: ReservationCommand) {
    return this.attempt(() => decideReservation(command, this.state));
  }
  escrow(command: EscrowCommand) {
    return this.attempt(() => decideEscrow(command, this.state));
  }
  pay(id: string, buyer: number, closedAt: string, now: string) {
    const r = this.pool.holdings.byId.get(id);
    if (!r) return null;
    const n = ++this.deposits;
    return this.reservation({
      type: 'PayReservation',
      data: {
        reservationId: id,
        deposit: {
          txHash: hash(n),
          ledger: n,
          successful: true,
          closedAt,
          from: SOURCES[buyer]!,
          operationCount: 1,
          isClaimableBalance: true,
          assetCode: ASSET.code,
          assetIssuer: ASSET.issuer,
          amount: r.amount,
          memoHash: MEMO,
          balanceId: balance(n),
          claimants: [
            { destination: ESCROW.accountId, predicate: { before: RECLAIM } },
            { destination: SOURCES[buyer]!, predicate: { notBefore: RECLAIM } },
          ],
        },
        via: 'txHash',
        asset: ASSET,
      },
      metadata: { actor: BUYERS[buyer]!, now, ip: null },
    });
  }

  /** Prepares what is due now (sometimes twice, the second replacing the first) and records every round. */
  settle(perRound: number, recovery: boolean[], supersede: boolean) {
    let due: DueSettlement;
    try {
      due = dueSettlement(this.pool, ACCOUNTS);
    } catch (error) {
      if (error instanceof AppError) return;
      throw error;
    }
    for (const item of due.items) {
      const sum = item.payouts.reduce((s, p) => s + parseAmount(p.amount), 0n);
      assert.is(sum, parseAmount(item.amount), `the payouts of ${item.ref} add up to its amount`);
    }
    const prepare = (supersedes: string | null) => {
      const k = ++this.settlements;
      const rounds = [];
      // As the planner: at least one round (an empty final settlement still merges the escrow back).
      for (let i = 0; i === 0 || i * perRound < due.items.length; i++) rounds.push({ index: i, refs: due.items.slice(i * perRound, (i + 1) * perRound).map((x) => x.ref), ...roundHashes(k, i) });
      const command: SettlementCommand = {
        type: 'PrepareSettlement',
        data: { settlementId: sid(k), accounts: ACCOUNTS, ...due, escrowSequence: '4242', strayBalance: '0.00', hadTrustline: true, strayReturns: [], deadPreAuthSigners: [], rounds, supersedes, ...settlementWindows(this.now, ESCROW.reclaimAfter, 48) },
        metadata: { actor: organiser, now: this.now },
      };
      // What dueSettlement planned must be prepared: any refusal fails the property (with its code).
      this.apply(decideSettlement(command, this.state));
      return { k, rounds: rounds.length };
    };
    let s = prepare(null);
    if (supersede) s = prepare(sid(s.k));
    for (let round = 0; round < s.rounds; round++) {
      // What is held, restated from the rules: an open dispute holds its reservation's deposit; a pool releasing on
      // receipt holds every deposit not yet accepted nor decided by a dispute. (A late deposit is never held.)
      const pool = this.pool;
      const open = (r: Reservation) => r.dispute !== null && (r.dispute.status === 'OPEN' || r.dispute.status === 'CONTESTED');
      const waiting = (r: Reservation) => pool.status === 'LOCKED' && pool.closing?.release.after === 'RECEIPT' && r.acceptance === null && r.dispute === null;
      const held = new Set([...pool.holdings.byId.values()].filter((r) => r.payment && (open(r) || waiting(r))).map((r) => r.payment!.balanceId));
      const path = recovery[round] ? 'RECOVERY' : 'RELEASE';
      const h = roundHashes(s.k, round);
      this.now = at(this.now, 60);
      const record: SettlementCommand = { type: 'RecordSettledRound', data: { settlementId: sid(s.k), round, path, txHash: path === 'RELEASE' ? h.releaseHash : h.recoveryHash, ledger: 1000 + round }, metadata: { now: this.now } };
      const events = this.apply(decideSettlement(record, this.state));
      assert.ok(events.length > 0, `round ${round} of ${sid(s.k)} is recorded`);
      for (const e of events) if (e.type === 'ReservationSettled') assert.not.ok(held.has(e.data.balanceId), `${e.data.reservationId}'s deposit was settled while it was held`);
    }
  }
}

export const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

/** Plays a plan to its end: the run holds the pool's whole stream. */
export const play = (plan: Plan): Run => {
  const run = new Run();
  const units: PoolUnit[] = plan.units.map((u, i) => ({
    id: `u${i}`,
    label: `Unit ${i}`,
    price: formatAmount(u.price),
    tiers: u.tiers.map((t) => ({ minQuantity: t.minQuantity, price: formatAmount((u.price * BigInt(100 - t.percentOff)) / 100n) })),
  }));
  const commission = plan.commissionHundredths === null ? null : percent(plan.commissionHundredths);
  const fields = groupsFields({
    deadline: DEADLINE,
    sellerId: SELLER_ID,
    organiserCommissionPercent: commission,
    config: {
      units,
      relais: [{ id: 'r1', name: 'Épicerie' }],
      ...(plan.minimumUnits === null ? {} : { minimumUnits: plan.minimumUnits }),
      ...(plan.releaseAfter === null ? {} : { release: { after: plan.releaseAfter } }),
    },
  });
  run.apply([poolCreated(fields), ...published()]);
  if (plan.mandate) {
    run.apply([{ type: 'PoolCommissionMandateAccepted', data: { poolId: POOL_ID, userId: ORGANISER_ID, kind: 'COMMISSION', version: '1', hash: 'ab'.repeat(32), acceptedAt: T_OPEN, ip: null } }]);
  }

  // Reservations, 20 minutes apart (each lives 15): paid a minute after placing, or never, or too late, or twice.
  plan.reservations.forEach((p, i) => {
    const id = rid(i + 1);
    const placedAt = at(T_OPEN, i * 1200);
    const buyer = BUYERS[p.buyer]!;
    const lines = [...new Map(p.lines.map((l) => [`u${l.unit % units.length}`, l.quantity])).entries()].map(([unitId, quantity]) => ({ unitId, quantity }));
    const meta = (now: string) => ({ actor: buyer, now, ip: null });
    if (!run.reservation({ type: 'PlaceReservation', data: { reservationId: id, lines, pledge: null, relaisId: 'r1', ttlSeconds: 900 }, metadata: meta(placedAt) })) return;
    run.reservationIds.push(id);
    run.reservation({ type: 'SignReservation', data: { reservationId: id, terms: TERMS, source: SOURCES[p.buyer]!, memoHash: MEMO }, metadata: meta(at(placedAt, 30)) });
    if (p.fate === 'PAID' || p.fate === 'PAID_TWICE') run.pay(id, p.buyer, at(placedAt, 60), at(placedAt, 90));
    if (p.fate === 'PAID_TWICE') run.pay(id, p.buyer, at(placedAt, 120), at(placedAt, 150));
    if (p.fate === 'LATE') run.pay(id, p.buyer, at(placedAt, 900), at(placedAt, 960));
    if (p.fate === 'CANCELLED_THEN_PAID') {
      run.reservation({ type: 'CancelReservation', data: { reservationId: id }, metadata: meta(at(placedAt, 120)) });
      run.pay(id, p.buyer, at(placedAt, 180), at(placedAt, 240));
    }
  });

  // The end of the collection.
  const policy = { platformFeePercent: percent(plan.feeHundredths), inspectionDays: plan.inspectionDays, disputeResponseDays: plan.disputeResponseDays };
  const earlyAt = at(T_OPEN, DAY);
  if (plan.ending === 'CANCEL') run.escrow({ type: 'CancelPool', data: { reason: null }, metadata: { actor: organiser, now: earlyAt } });
  if (plan.ending === 'EARLY') run.escrow({ type: 'ClosePool', data: { reason: 'ORGANISER', policy }, metadata: { actor: organiser, now: earlyAt } });
  run.now = DEADLINE;
  run.escrow({ type: 'ClosePool', data: { reason: 'DEADLINE', policy }, metadata: { actor: null, now: DEADLINE } });
  assert.ok(['LOCKED', 'FAILED', 'CANCELLED'].includes(run.pool.status), `closed: ${run.pool.status}`);

  // Whatever happens next, in any order.
  const pick = <T>(xs: T[], i: number) => (xs.length === 0 ? undefined : xs[i % xs.length]);
  /** Mostly a PAID reservation (receipts and disputes apply to those), sometimes any (the others are refused). */
  const pickReservation = (i: number) => {
    const paid = run.reservationIds.filter((id) => run.pool.holdings.byId.get(id)!.status === 'PAID');
    return i % 4 === 3 || paid.length === 0 ? pick(run.reservationIds, i) : pick(paid, i >> 1);
  };
  const buyerOf = (id: string) => BUYERS.findIndex((b) => b.userId === run.pool.holdings.byId.get(id)!.buyerId);
  const jobs = () => {
    run.escrow({ type: 'EndInspection', data: {}, metadata: { actor: null, now: run.now } });
    run.escrow({ type: 'LapseDisputes', data: {}, metadata: { actor: null, now: run.now } });
  };
  for (const action of plan.actions) {
    run.now = at(run.now, 60);
    const meta = (actor: EscrowCommand['metadata']['actor']) => ({ actor, now: run.now });
    switch (action.kind) {
      case 'deliver':
        run.escrow({ type: 'MarkDelivered', data: { note: null }, metadata: meta(organiser) });
        break;
      case 'receipt': {
        const id = pickReservation(action.r);
        if (id) run.escrow({ type: 'ConfirmReceipt', data: { reservationId: id }, metadata: meta(asBuyer(BUYERS[buyerOf(id)]!)) });
        break;
      }
      case 'dispute': {
        const id = pickReservation(action.r);
        const disputeId = did(run.disputes.length + 1);
        if (!id) break;
        const opened = run.escrow({
          type: 'OpenDispute',
          data: { reservationId: id, disputeId, reason: 'NOT_AS_DESCRIBED', details: '', evidence: [] },
          metadata: meta(asBuyer(BUYERS[buyerOf(id)]!)),
        });
        if (opened) run.disputes.push(disputeId);
        break;
      }
      case 'contest': {
        const disputeId = pick(run.disputes, action.d);
        if (disputeId) run.escrow({ type: 'ContestDispute', data: { disputeId, statement: 'As described' }, metadata: meta(organiser) });
        break;
      }
      case 'refund': {
        const disputeId = pick(run.disputes, action.d);
        const r = disputeId && [...run.pool.holdings.byId.values()].find((x) => x.dispute?.disputeId === disputeId);
        if (!disputeId || !r) break;
        const amount = (parseAmount(r.dispute!.amount) * BigInt(action.perMille)) / 1000n;
        run.escrow({ type: 'RefundDispute', data: { disputeId, amount: formatAmount(amount) }, metadata: meta(organiser) });
        break;
      }
      case 'withdraw': {
        const disputeId = pick(run.disputes, action.d);
        const r = disputeId && [...run.pool.holdings.byId.values()].find((x) => x.dispute?.disputeId === disputeId);
        if (disputeId && r) run.escrow({ type: 'WithdrawDispute', data: { disputeId }, metadata: meta(asBuyer(BUYERS[buyerOf(r.id)]!)) });
        break;
      }
      case 'wait':
        run.now = at(run.now, action.hours * 3600);
        jobs();
        break;
      case 'latePay': {
        const id = pick(run.reservationIds, action.r);
        const r = id && run.pool.holdings.byId.get(id);
        // Only before the escrow is merged: a deposit after it is the buyer's to reclaim (nothing left to settle it).
        if (id && r && r.status !== 'PAID' && !run.pool.settlement.mergedAt) run.pay(id, buyerOf(id), run.now, run.now);
        break;
      }
      case 'settle':
        run.settle(action.perRound, action.recovery, action.supersede);
        break;
    }
  }

  // Every period over: delivered, inspected, every dispute answered or lapsed; then settle until the final one.
  if (run.pool.status === 'LOCKED') run.escrow({ type: 'MarkDelivered', data: { note: null }, metadata: { actor: organiser, now: run.now } });
  run.now = at(run.now, (plan.inspectionDays + 2 * plan.disputeResponseDays + 1) * DAY);
  jobs();
  for (let i = 0; i < 3 && !run.pool.settlement.mergedAt; i++) run.settle(2, [i === 1], false);
  return run;
};

