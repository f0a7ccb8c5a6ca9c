import { randomUUID } from 'node:crypto';
import { IllegalStateError, NotFoundError, formatAmount, parseAmount, settlementWindows, type DealPayoutLine, type ExistingDeal, type PreparedDealSettlement } from '@cagnotte/domain';
import { ledgerCall, planSettlement, type SettlementRound } from '@cagnotte/infra';
import { requireTrustlines } from '../escrow/plan';
import { ledgerAccountOf, type DealDeps } from './runtime';

// A deal's escrow is the pools' escrow engine (docs/escrow.md) with the seller in the organiser's seat: the same
// setup (seller + platform, 2 of 2), the same deposit (a claimable balance), the same one-round final settlement
// (lock, release, keyless recovery), planned by infra/src/ledger/settlement.ts. No ledger code of its own.

type Transaction = SettlementRound['lock'];
export const hexOf = (tx: Transaction): string => Buffer.from(tx.hash()).toString('hex');
const unix = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const DAY_MS = 86_400_000;

/** The escrow key's derivation input: a namespace of its own, so a deal's escrow can never be a pool's. */
export const escrowKeyOf = (dealId: string) => `deal:${dealId}`;

/** When the buyer may reclaim alone: the deal's hold (DEAL_HOLD_DAYS) plus the reclaim margin, from the escrow's opening; whole seconds. */
export const reclaimAfterOf = (openedAt: Date, holdDays: number, reclaimAfterDays: number): string =>
  new Date(Math.ceil((openedAt.getTime() + (holdDays + reclaimAfterDays) * DAY_MS) / 1000) * 1000).toISOString();

/** The plan a prepared settlement rebuilds to: one final round, its one item the buyer's deposit. */
export const dealPlan = (deps: Pick<DealDeps, 'ledger'>, s: Omit<PreparedDealSettlement, 'preparedAt' | 'lockHash' | 'releaseHash' | 'recoveryHash' | 'settlementId' | 'kind'>): SettlementRound => {
  const rounds = planSettlement({
    networkPassphrase: deps.ledger.settings.networkPassphrase,
    asset: deps.ledger.asset,
    escrowAccount: s.escrowAccount,
    escrowSequence: BigInt(s.escrowSequence),
    platform: deps.ledger.settings.platformAccount,
    strayBalance: 0n,
    strayReturns: [],
    hasTrustline: s.hadTrustline,
    deadPreAuthSigners: s.deadPreAuthSigners,
    items: [{ ref: 'deposit', balanceId: s.balanceId, amount: parseAmount(s.amount), refundTo: s.refundTo, payouts: s.payouts.map((p) => ({ destination: p.destination, amount: parseAmount(p.amount) })) }],
    final: true,
    releaseUntil: unix(s.releaseUntil),
    recoveryFrom: unix(s.recoveryFrom),
    recoveryUntil: unix(s.recoveryUntil),
  });
  return rounds[0]!;
};

/** The recorded plan, rebuilt; a hash that differs from the recorded one is our bug (the plan is deterministic). */
export const rebuiltDealPlan = (deps: Pick<DealDeps, 'ledger'>, s: PreparedDealSettlement): SettlementRound => {
  const round = dealPlan(deps, s);
  if (hexOf(round.lock) !== s.lockHash || hexOf(round.release) !== s.releaseHash || hexOf(round.recovery) !== s.recoveryHash) {
    throw new Error(`deal settlement ${s.settlementId} does not rebuild to its recorded hashes`);
  }
  return round;
};

/** Where the release pays each split line: each account's linked ledger account (the split's amounts fixed at creation). */
const releasePayouts = async (deps: DealDeps, deal: ExistingDeal): Promise<DealPayoutLine[]> =>
  Promise.all(deal.split.map(async (l, i) => ({ role: l.role, accountId: l.accountId, destination: await ledgerAccountOf(deps, l.accountId, `split.${i}.account`), amount: l.amount })));

/**
 * A new settlement of the deal's deposit, planned on the escrow as the ledger shows it now: the RELEASE pays the
 * split, the REFUND everything back to the depositor. Money paid straight into the escrow (never a deposit) is not
 * planned for: 409 `escrow_has_strays` (its sender reclaims nothing; see docs/v1/deals.md, known limits).
 */
export const planDealSettlement = async (deps: DealDeps, deal: ExistingDeal, kind: 'RELEASE' | 'REFUND', now: Date): Promise<{ data: Omit<PreparedDealSettlement, 'preparedAt'>; round: SettlementRound }> => {
  if (!deal.escrow || !deal.funding) throw new IllegalStateError('deal_not_funded', 'The deal is not funded yet');
  const state = await ledgerCall(() => deps.escrow.escrowState(deal.escrow!.accountId));
  if (!state.exists) throw new NotFoundError('escrow');
  if (state.strayBalance > 0n) throw new IllegalStateError('escrow_has_strays', `${formatAmount(state.strayBalance)} was paid straight into the escrow account: it must be returned before the deposit can settle`);
  const payouts = kind === 'RELEASE' ? await releasePayouts(deps, deal) : [{ role: 'buyer' as const, accountId: deal.buyerId, destination: deal.funding.from, amount: deal.funding.amount }];
  const windows = settlementWindows(now.toISOString(), deal.escrow.reclaimAfter, deps.releaseWindowHours);
  const inputs = {
    escrowAccount: deal.escrow.accountId,
    escrowSequence: state.sequence.toString(),
    hadTrustline: state.hasTrustline,
    deadPreAuthSigners: state.signers.filter((x) => x.type === 'preauth_tx').map((x) => x.key),
    balanceId: deal.funding.balanceId,
    amount: deal.funding.amount,
    refundTo: deal.funding.from,
    payouts,
    ...windows,
  };
  const round = dealPlan(deps, inputs);
  await requireTrustlines(deps.escrow, [round]);
  return { data: { settlementId: randomUUID(), kind, ...inputs, lockHash: hexOf(round.lock), releaseHash: hexOf(round.release), recoveryHash: hexOf(round.recovery) }, round };
};

/** The settlement the escrow is locked on (its lock is a success on the ledger), or null while it is armed. */
export const lockedSettlement = async (deps: DealDeps, deal: ExistingDeal): Promise<PreparedDealSettlement | null> => {
  for (const s of [...deal.settlements].reverse()) {
    const lock = await ledgerCall(() => deps.escrow.transactionOutcome(s.lockHash));
    if (lock?.successful) return s;
  }
  return null;
};

/** What the ledger says of the deal's settlements: the release (else the recovery) of the one whose lock landed, or null. */
export const settledOnLedger = async (deps: DealDeps, deal: ExistingDeal): Promise<{ settlementId: string; path: 'RELEASE' | 'RECOVERY'; txHash: string; ledger: number; at: string } | null> => {
  if (deal.settled) return null;
  const s = await lockedSettlement(deps, deal);
  if (!s) return null;
  const release = await ledgerCall(() => deps.escrow.transactionOutcome(s.releaseHash));
  const recovery = release?.successful ? null : await ledgerCall(() => deps.escrow.transactionOutcome(s.recoveryHash));
  const landed = release?.successful ? { path: 'RELEASE' as const, tx: release } : recovery?.successful ? { path: 'RECOVERY' as const, tx: recovery } : null;
  return landed ? { settlementId: s.settlementId, path: landed.path, txHash: landed.tx.hash, ledger: landed.tx.ledger, at: landed.tx.closedAt } : null;
};

export const amountOf = (stroops: bigint) => formatAmount(stroops);
