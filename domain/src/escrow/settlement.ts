import type { PayoutRole, PoolEvent, SettlementItem, StrayReturn } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { jsonEqual } from '../equal';
import { formatAmount, parseAmount, type Minor } from '../money';
import type { ExistingPool, Pool } from '../pools/pool';
import { requireOrganiserOf } from '../pools/organiser';
import { goodsPaid, type Reservation } from '../reservations/holdings';
import { dueOf, splitDeposit } from './split';
import type { PreparedSettlement } from './state';
import { strayReturnsFor } from './strays';

/** Where each role is paid: resolved by the route (the seller's payout account, the organiser's linked account, the platform). */
export interface SettlementAccounts {
  seller: string;
  organiser: string;
  platform: string;
}

export interface DueSettlement {
  kind: 'RELEASE' | 'REFUND';
  items: SettlementItem[];
  /** Nothing is left in escrow after these items: the escrow is merged back at the end. */
  final: boolean;
}

const isOpenDispute = (r: Reservation) => r.dispute !== null && (r.dispute.status === 'OPEN' || r.dispute.status === 'CONTESTED');

/**
 * Whether a PAID reservation's deposit may be released now: the pool releases at closing, or the buyer accepted
 * (receipt confirmed, or the inspection period passed), or its dispute ended. An open dispute holds it.
 */
export const releasable = (pool: ExistingPool, r: Reservation): boolean => {
  if (isOpenDispute(r)) return false;
  if (pool.closing?.release.after === 'CLOSE') return true;
  return r.acceptance !== null || r.dispute !== null;
};

const money = (m: Minor) => formatAmount(m);

/** The release of one PAID deposit of a successful pool, split (domain/src/escrow/split.ts), lines of zero dropped. */
const releaseItem = (pool: ExistingPool, r: Reservation, accounts: SettlementAccounts): SettlementItem => {
  const payment = r.payment!;
  const deposit = parseAmount(payment.amount);
  const goods = goodsPaid(r);
  const closing = pool.closing!;
  const due = dueOf(r.lines, goods, closing.finalPrices);
  const disputed = r.dispute && (r.dispute.status === 'REFUNDED' || r.dispute.status === 'LAPSED') ? parseAmount(r.dispute.refund ?? '0') : 0n;
  const split = splitDeposit({
    deposit,
    depositFee: deposit - goods,
    due,
    disputeRefund: disputed > due ? due : disputed,
    platformFeePercent: closing.fees.platformFeePercent,
    platformFee: closing.fees.platformFee,
    organiserCommissionPercent: closing.fees.organiserCommissionPercent,
    vat: closing.fees.vat,
  });
  const lines: Array<{ role: PayoutRole; destination: string; amount: Minor }> = [
    { role: 'SELLER', destination: accounts.seller, amount: split.seller },
    { role: 'ORGANISER', destination: accounts.organiser, amount: split.commission + split.commissionVat },
    { role: 'PLATFORM', destination: accounts.platform, amount: split.platformFee + split.platformFeeVat + split.depositFee },
    { role: 'BUYER', destination: r.signed!.source, amount: split.buyerRefund },
  ];
  return {
    ref: r.id,
    reservationId: r.id,
    kind: 'DEPOSIT',
    balanceId: payment.balanceId,
    amount: money(deposit),
    refundTo: r.signed!.source,
    payouts: lines.filter((l) => l.amount > 0n).map((l) => ({ ...l, amount: money(l.amount) })),
  };
};

const refundItem = (r: Reservation, balanceId: string, amount: string, kind: SettlementItem['kind']): SettlementItem => ({
  ref: kind === 'DEPOSIT' ? r.id : `late:${balanceId}`,
  reservationId: r.id,
  kind,
  balanceId,
  amount: money(parseAmount(amount)),
  refundTo: r.signed!.source,
  payouts: [{ role: 'BUYER', destination: r.signed!.source, amount: money(parseAmount(amount)) }],
});

/**
 * What can be settled now, in the order of the reservations: a successful (LOCKED) pool releases every PAID deposit
 * that is releasable; a FAILED or CANCELLED pool refunds every PAID deposit; late deposits are always refunded, and
 * are the only thing an OPEN pool settles (a refund, never final: its PAID deposits stay in escrow), so a deposit owed
 * back is refunded as soon as the organiser cosigns, not at closing or `reclaimAfter`. `final` when nothing would be
 * left in escrow. Throws when the pool is neither closed nor owes a late deposit back, or nothing is due.
 */
export const dueSettlement = (pool: ExistingPool, accounts: SettlementAccounts): DueSettlement => {
  if (!pool.escrow) throw new IllegalStateError('escrow_not_open', 'This pool has no escrow account');
  // Before the status: a settled LOCKED pool is SETTLED, which is no status a settlement starts from.
  if (pool.settlement.mergedAt) throw new IllegalStateError('escrow_settled', 'The escrow is settled and merged');
  const refunding = pool.status === 'FAILED' || pool.status === 'CANCELLED';
  const open = pool.status === 'OPEN';
  if (!refunding && !open && pool.status !== 'LOCKED') throw new IllegalStateError('pool_not_closed', `Nothing is settled while the pool is ${pool.status}`);
  const items: SettlementItem[] = [];
  let held = false;
  for (const r of pool.holdings.byId.values()) {
    if (r.status === 'PAID' && r.payment && !r.settled.has(r.payment.balanceId)) {
      if (open) held = true;
      else if (refunding) items.push(refundItem(r, r.payment.balanceId, r.payment.amount, 'DEPOSIT'));
      else if (releasable(pool, r)) items.push(releaseItem(pool, r, accounts));
      else held = true;
    }
    for (const late of r.latePayments) if (!r.settled.has(late.balanceId)) items.push(refundItem(r, late.balanceId, late.amount, 'LATE_DEPOSIT'));
  }
  if (open && items.length === 0) throw new IllegalStateError('pool_not_closed', 'An OPEN pool settles only the deposits it owes back, and it owes none');
  if (items.length === 0 && held) throw new IllegalStateError('nothing_to_settle', 'Every deposit still in escrow waits for receipt, its inspection period or a dispute');
  // Nothing held and nothing due (a pool that failed or was cancelled before anyone paid): the settlement only merges
  // the escrow back, so the platform gets its reserve back and nothing stays open on the ledger. An OPEN pool takes
  // deposits still: its escrow is never merged.
  return { kind: refunding || open ? 'REFUND' : 'RELEASE', items, final: !open && !held };
};

/** When the transactions of a settlement may run (unix seconds), recorded with it. */
export interface SettlementWindows {
  releaseUntil: string;
  recoveryFrom: string;
  recoveryUntil: string;
}

const HOUR = 3_600_000;
/**
 * The release runs until `now + releaseWindowHours`, the recovery from just after it until a minute before
 * `reclaimAfter` (after which the escrow can no longer claim a deposit: each buyer reclaims their own). A settlement
 * that could not leave the release an hour and the recovery an hour is refused: the deposits go back to their buyers
 * at reclaimAfter.
 */
export const settlementWindows = (now: string, reclaimAfter: string, releaseWindowHours: number): SettlementWindows => {
  const start = Date.parse(now);
  const end = Math.floor(Date.parse(reclaimAfter) / 1000) * 1000 - 60_000;
  // The recovery runs from a second after the release's window: it keeps at least an hour of its own.
  const releaseUntil = Math.min(start + releaseWindowHours * HOUR, end - HOUR - 1000);
  if (releaseUntil < start + HOUR) throw new IllegalStateError('too_late_to_settle', `Too close to reclaimAfter (${reclaimAfter}): each buyer reclaims their own deposit from then on`);
  const second = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString();
  return { releaseUntil: second(releaseUntil), recoveryFrom: second(releaseUntil + 1000), recoveryUntil: second(end) };
};

export interface PreparedInput extends SettlementWindows {
  settlementId: string;
  accounts: SettlementAccounts;
  /** What the route planned from `dueSettlement`: the decider checks it against the state it decides on. */
  kind: DueSettlement['kind'];
  items: SettlementItem[];
  final: boolean;
  escrowSequence: string;
  strayBalance: string;
  hadTrustline: boolean;
  /** What the first lock pays back (strayReturnsFor): every stray payment owed, exactly the escrow's own balance. */
  strayReturns: StrayReturn[];
  deadPreAuthSigners: string[];
  rounds: Array<{ index: number; refs: string[]; lockHash: string; releaseHash: string; recoveryHash: string }>;
  /** An earlier settlement that never reached the ledger, which this one replaces. */
  supersedes: string | null;
}

export type SettlementCommand =
  | { type: 'PrepareSettlement'; data: PreparedInput; metadata: { actor: { userId: string; role?: string } | null; now: string } }
  | {
      type: 'RecordSettledRound';
      data: { settlementId: string; round: number; path: 'RELEASE' | 'RECOVERY'; txHash: string; ledger: number };
      metadata: { now: string };
    };

/** The settlement being carried out: prepared, some round not yet on the ledger. */
export const currentSettlement = (pool: ExistingPool): PreparedSettlement | null =>
  pool.settlement.currentId ? (pool.settlement.byId.get(pool.settlement.currentId) ?? null) : null;

const decidePrepare = (pool: ExistingPool, command: Extract<SettlementCommand, { type: 'PrepareSettlement' }>): PoolEvent[] => {
  const { now } = command.metadata;
  const input = command.data;
  // A settlement whose next lock is on the ledger is being carried out; one whose next lock never landed (unsigned, its
  // window over, or its rounds dead after a recovery) may be replaced: the route checks the ledger and says which.
  const current = currentSettlement(pool);
  if (current && input.supersedes !== current.settlementId) {
    throw new ConflictError('settlement_in_progress', `Settlement ${current.settlementId} is being carried out: submit its transactions (or wait for its recovery)`);
  }
  const due = dueSettlement(pool, input.accounts);
  // Decided on the state as it is now: what the route planned must still be exactly what is due.
  if (due.kind !== input.kind || due.final !== input.final || !jsonEqual(due.items, input.items)) {
    throw new ConflictError('settlement_changed', 'What is due changed while the settlement was being prepared: prepare it again');
  }
  // Every stray payment owed goes back to its sender, and nothing of the escrow's own balance goes anywhere else.
  if (!jsonEqual(input.strayReturns, strayReturnsFor(pool, { strayBalance: parseAmount(input.strayBalance), hasTrustline: input.hadTrustline }))) {
    throw new ConflictError('settlement_changed', 'A stray payment was recorded while the settlement was being prepared: prepare it again');
  }
  if (Date.parse(input.releaseUntil) <= Date.parse(now)) throw new IllegalStateError('settlement_expired', 'The release window is already over');
  // Every item in exactly one round, and nothing else: the books settle exactly what the ledger will claim.
  const planned = input.rounds.flatMap((r) => r.refs);
  if (planned.length !== input.items.length || new Set(planned).size !== planned.length || !input.items.every((i) => planned.includes(i.ref))) {
    throw new ValidationError({ rounds: ['every item must be in exactly one round'] }, 'The rounds do not cover the items', 'rounds_mismatch');
  }
  const { accounts: _accounts, ...recorded } = input;
  return [{ type: 'EscrowSettlementPrepared', data: { poolId: pool.id, ...recorded, escrowAccount: pool.escrow!.accountId, preparedAt: now } }];
};

const roleTotals = (items: SettlementItem[], path: 'RELEASE' | 'RECOVERY') => {
  const totals = new Map<string, { role: PayoutRole; destination: string; amount: Minor }>();
  for (const item of items) {
    const lines = path === 'RELEASE' ? item.payouts : [{ role: 'BUYER' as const, destination: item.refundTo, amount: item.amount }];
    for (const l of lines) {
      const key = `${l.role}:${l.destination}`;
      const t = totals.get(key) ?? { role: l.role, destination: l.destination, amount: 0n };
      t.amount += parseAmount(l.amount);
      totals.set(key, t);
    }
  }
  return [...totals.values()];
};

const decideRecord = (pool: ExistingPool, command: Extract<SettlementCommand, { type: 'RecordSettledRound' }>): PoolEvent[] => {
  const { settlementId, round, path, txHash, ledger } = command.data;
  const { now } = command.metadata;
  const s = pool.settlement.byId.get(settlementId);
  if (!s) throw new NotFoundError('settlement');
  const planned = s.rounds[round];
  if (!planned) throw new NotFoundError('settlement_round');
  const done = s.settledRounds.get(round);
  if (done) {
    if (done.txHash === txHash) return [];
    throw new ConflictError('round_already_settled', `Round ${round} was settled by ${done.txHash}`);
  }
  if (txHash !== (path === 'RELEASE' ? planned.releaseHash : planned.recoveryHash)) throw new ConflictError('not_this_round', 'This transaction is not the round’s release or recovery');
  for (let k = 0; k < round; k++) if (!s.settledRounds.has(k)) throw new IllegalStateError('round_out_of_order', `Round ${k} is not settled yet`);
  const refs = new Set(planned.refs);
  const items = s.items.filter((i) => refs.has(i.ref));
  // Two settlements may name a deposit (one replaced the other): the ledger lets only one claim it, the books too.
  const twice = items.find((i) => pool.holdings.byId.get(i.reservationId)?.settled.has(i.balanceId));
  if (twice) throw new ConflictError('deposit_already_settled', `Deposit ${twice.balanceId} is already settled`);
  const merged = s.final && round === s.rounds.length - 1;
  const events: PoolEvent[] = [{ type: 'EscrowRoundSettled', data: { poolId: pool.id, settlementId, round, path, txHash, ledger, merged, settledAt: now } }];
  // Round 0's release or recovery ran, so its lock did: the lock paid every stray of the plan back to its sender.
  if (round === 0) {
    for (const r of s.strayReturns ?? []) {
      if (pool.settlement.strays.get(r.operationId)?.returned) continue;
      events.push({ type: 'EscrowStrayPaymentReturned', data: { poolId: pool.id, operationId: r.operationId, to: r.destination, amount: r.amount, settlementId, txHash: planned.lockHash, returnedAt: now } });
    }
  }
  for (const t of roleTotals(items, path)) {
    events.push({ type: 'EscrowPayoutSettled', data: { poolId: pool.id, settlementId, round, role: t.role, destination: t.destination, amount: money(t.amount), txHash, settledAt: now } });
  }
  let released = pool.settlement.released;
  let refunded = pool.settlement.refunded;
  for (const item of items) {
    const r = pool.holdings.byId.get(item.reservationId)!;
    const back = path === 'RECOVERY' ? parseAmount(item.amount) : item.payouts.filter((p) => p.role === 'BUYER').reduce((sum, p) => sum + parseAmount(p.amount), 0n);
    const out = parseAmount(item.amount) - back;
    released += out;
    refunded += back;
    events.push({
      type: 'ReservationSettled',
      data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, settlementId, kind: item.kind, balanceId: item.balanceId, path, released: money(out), refunded: money(back), txHash, settledAt: now },
    });
  }
  if (merged) events.push({ type: 'PoolSettled', data: { poolId: pool.id, settlementId, released: money(released), refunded: money(refunded), settledAt: now } });
  return events;
};

export const decideSettlement = (command: SettlementCommand, state: Pool): PoolEvent[] => {
  // Preparing is the organiser's (requireOrganiserOf: the role before the pool is looked at); recording a round is the ledger's.
  if (command.type === 'PrepareSettlement') requireOrganiserOf(state, command.metadata.actor);
  if (state.status === 'none') throw new NotFoundError('pool');
  switch (command.type) {
    case 'PrepareSettlement':
      return decidePrepare(state, command);
    case 'RecordSettledRound':
      return decideRecord(state, command);
    default:
      return assertNever(command);
  }
};


