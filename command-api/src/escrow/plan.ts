import { IllegalStateError, ValidationError, parseAmount, formatAmount, jsonEqual, strayReturnsFor, type DueSettlement, type ExistingPool, type PreparedSettlement, type SettlementAccounts, type SettlementWindows } from '@cagnotte/domain';
import type { SettlementItem, StrayReturn } from '@cagnotte/event-schemas';
import { ledgerCall, planSettlement, type EscrowLedger, type EventStore, type LedgerGateway, type SettlementRound } from '@cagnotte/infra';
import { loadAccount } from '../shared/context';

// From a settlement as the pool's stream records it to the very transactions on the ledger, and back: the plan is
// rebuilt from the recorded inputs whenever it is needed (it is deterministic), and its hashes must be the recorded ones.

/** What a settlement's plan is built from: its recorded event, or what a new one is about to record. */
export type PlanInputs = Pick<
  PreparedSettlement,
  'escrowAccount' | 'escrowSequence' | 'strayBalance' | 'strayReturns' | 'hadTrustline' | 'deadPreAuthSigners' | 'items' | 'final' | 'releaseUntil' | 'recoveryFrom' | 'recoveryUntil'
>;

const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);

/** The escrow as the ledger shows it when a plan is made (EscrowLedger.escrowState, or a spec's in-memory ledger). */
export interface EscrowLedgerState {
  sequence: bigint;
  strayBalance: bigint;
  hasTrustline: boolean;
  signers: Array<{ key: string; type: string }>;
}

/**
 * The inputs of a new plan: what is due, on the escrow as the ledger shows it now, within these windows; its first
 * lock pays every stray payment owed back to its sender (the pool's stray payments must be recorded first).
 */
export const planInputsFor = (pool: ExistingPool, due: DueSettlement, state: EscrowLedgerState, windows: SettlementWindows): PlanInputs & { strayReturns: StrayReturn[] } => ({
  escrowAccount: pool.escrow!.accountId,
  escrowSequence: state.sequence.toString(),
  strayBalance: formatAmount(state.strayBalance),
  strayReturns: strayReturnsFor(pool, state),
  hadTrustline: state.hasTrustline,
  // On the 2-of-2 layout every pre-authorised signer left is a dead one (its round's twin ran).
  deadPreAuthSigners: state.signers.filter((x) => x.type === 'preauth_tx').map((x) => x.key),
  items: due.items,
  final: due.final,
  ...windows,
});

/** Where the first lock pays the escrow's own balance: back to each stray's sender; a v1 settlement (null) swept it to the platform. */
const strayPayouts = (ledger: LedgerGateway, inputs: PlanInputs) => {
  const balance = parseAmount(inputs.strayBalance);
  if (inputs.strayReturns !== null) return inputs.strayReturns.map((r) => ({ destination: r.destination, amount: parseAmount(r.amount) }));
  return balance > 0n ? [{ destination: ledger.settings.platformAccount, amount: balance }] : [];
};

export const planOf = (ledger: LedgerGateway, inputs: PlanInputs): SettlementRound[] =>
  planSettlement({
    networkPassphrase: ledger.settings.networkPassphrase,
    asset: ledger.asset,
    escrowAccount: inputs.escrowAccount,
    escrowSequence: BigInt(inputs.escrowSequence),
    platform: ledger.settings.platformAccount,
    strayBalance: parseAmount(inputs.strayBalance),
    strayReturns: strayPayouts(ledger, inputs),
    hasTrustline: inputs.hadTrustline,
    deadPreAuthSigners: inputs.deadPreAuthSigners,
    items: inputs.items.map((i: SettlementItem) => ({
      ref: i.ref,
      balanceId: i.balanceId,
      amount: parseAmount(i.amount),
      refundTo: i.refundTo,
      payouts: i.payouts.map((p) => ({ destination: p.destination, amount: parseAmount(p.amount) })),
    })),
    final: inputs.final,
    releaseUntil: unix(inputs.releaseUntil),
    recoveryFrom: unix(inputs.recoveryFrom),
    recoveryUntil: unix(inputs.recoveryUntil),
  });

/** The recorded plan, rebuilt; a hash that differs from the recorded one is our bug (the plan must be deterministic). */
export const rebuiltPlan = (ledger: LedgerGateway, s: PreparedSettlement): SettlementRound[] => {
  const rounds = planOf(ledger, s);
  rounds.forEach((r, k) => {
    const recorded = s.rounds[k];
    const hex = (t: { hash(): Uint8Array }) => Buffer.from(t.hash()).toString('hex');
    if (!recorded || hex(r.lock) !== recorded.lockHash || hex(r.release) !== recorded.releaseHash || hex(r.recovery) !== recorded.recoveryHash) {
      throw new Error(`settlement ${s.settlementId}: round ${k} does not rebuild to its recorded hashes`);
    }
  });
  return rounds;
};

/**
 * Where each role is paid: the pool's payout account, else the seller's linked ledger account (a brokered pool), else
 * the organiser's (who sells their own pool); the organiser's commission to the account that cosigns the escrow; the
 * platform's fee to the platform account.
 */
export const settlementAccounts = async (store: EventStore, ledger: LedgerGateway, pool: ExistingPool): Promise<SettlementAccounts> => {
  if (!pool.escrow) throw new IllegalStateError('escrow_not_open', 'This pool has no escrow account: nothing to settle');
  const organiser = pool.escrow.organiserSigner;
  let seller = pool.fields.payoutAccount;
  if (!seller && pool.fields.sellerId && pool.fields.sellerId !== pool.organiserId) {
    const account = await loadAccount(store, pool.fields.sellerId);
    seller = account.status === 'none' ? null : account.ledgerAccount;
    if (!seller) {
      throw new ValidationError({ payoutAccount: ['the seller has no linked ledger account and the pool names no payout account'] }, 'Nowhere to pay the seller', 'payout_account_required');
    }
  }
  return { seller: seller ?? organiser, organiser, platform: ledger.settings.platformAccount };
};

/** A payment to an account without a trustline would fail once applied and burn the round: refused before anything is signed. */
export const requireTrustlines = async (escrow: EscrowLedger, rounds: SettlementRound[]) => {
  const destinations = [...new Set(rounds.flatMap((r) => [...r.payouts, ...r.refunds].map((p) => p.destination)))];
  const missing = await ledgerCall(() => escrow.missingTrustlines(destinations));
  if (missing.length > 0) {
    throw new ValidationError(
      { payouts: missing.map((a) => `${a} does not exist on the ledger or does not trust the stablecoin`) },
      'A recipient cannot receive the stablecoin yet',
      'payout_account_not_ready',
    );
  }
};

/** Whether what is due now (null: nothing) is no longer what the settlement's rounds not yet settled would pay. */
export const dueChangedSince = (s: PreparedSettlement, due: DueSettlement | null): boolean => {
  const settled = (ref: string) => s.rounds.some((r) => s.settledRounds.has(r.index) && r.refs.includes(ref));
  return !due || !(due.final === s.final && jsonEqual(due.items, s.items.filter((i) => !settled(i.ref))));
};

/**
 * Whether the current settlement may be replaced by a new one. While the escrow's sequence has not reached its next
 * round's lock: when it cannot land any more (a round of it was recovered, its window is over, or money was paid
 * straight into the escrow since it was planned: its first lock could not empty the balance, and fails once applied)
 * or what is due changed. Once the sequence reached it: only when that lock is not a success on the ledger (`nextLock`, null when
 * absent), for then nothing of it can ever land: another transaction took the sequence (an older plan the organiser
 * had cosigned, submitted after this one replaced it) or the lock failed once applied, and a new plan starts from
 * the escrow's sequence now. `now` in milliseconds.
 */
export const replaceablePlan = (
  s: PreparedSettlement,
  escrow: { exists: boolean; sequence: bigint; strayBalance: bigint },
  nextLock: { successful: boolean } | null,
  dueChanged: boolean,
  now: number,
): boolean => {
  if (!escrow.exists) return false;
  if (escrow.sequence >= nextLockSequence(s)) return !nextLock?.successful;
  const recovered = [...s.settledRounds.values()].some((r) => r.path === 'RECOVERY');
  // Only the first lock touches the escrow's own balance (it closes the trustline: none can arrive after it).
  const strayArrived = s.settledRounds.size === 0 && escrow.strayBalance !== parseAmount(s.strayBalance);
  return recovered || strayArrived || dueChanged || Date.parse(s.releaseUntil) <= now;
};

/** The next round of a settlement not yet on the ledger (a current settlement always has one). */
export const nextRound = (s: PreparedSettlement) => s.rounds.find((r) => !s.settledRounds.has(r.index));

/** The sequence number its next round's lock takes on the escrow: s+2k+1 for round k of a plan made at s. */
export const nextLockSequence = (s: PreparedSettlement): bigint => BigInt(s.escrowSequence) + 2n * BigInt(nextRound(s)?.index ?? s.rounds.length) + 1n;

/**
 * The settlements the escrow may be locked on now: those not settled whose next lock takes the escrow's current
 * sequence (it is the lock's when that lock was the escrow's last transaction, and then the escrow is locked on it if
 * the lock succeeded). An older plan, cosigned before it was replaced and submitted since, is one of them.
 */
export const lockCandidates = (settlements: PreparedSettlement[], escrow: { exists: boolean; sequence: bigint }): PreparedSettlement[] =>
  escrow.exists ? settlements.filter((s) => nextRound(s) !== undefined && nextLockSequence(s) === escrow.sequence) : [];

export const amountOf = (stroops: bigint) => formatAmount(stroops);
