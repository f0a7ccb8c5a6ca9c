import { fromMinor, toMinor } from '../reservations/amounts';

/**
 * Reconciliation of one pool's escrow: what its events say is held, settled and paid, against what the ledger shows.
 * Pure: the callers fold the facts (from the pool's stream, or the escrow read model) and read the ledger. Amounts are
 * compared exactly, in stroops. Used by `pnpm cli escrow reconcile` and GET /api/pools/{id}/escrow/reconciliation.
 */

export interface Deposit {
  reservationId: string;
  balanceId: string;
  amount: string;
}

export interface EscrowFacts {
  poolId: string;
  escrowAccount: string;
  /** Every PAID reservation ever (settled or not): its count and amount. */
  paid: { count: number; amount: string };
  /** PAID deposits still held (not settled): each must stand on the ledger, claimable by the escrow, exactly. */
  held: Deposit[];
  /** Late deposits not refunded yet. */
  owedBack: Deposit[];
  /** Deposits a recorded round claimed: they must be gone from the ledger. */
  settled: Array<Deposit & { path: 'RELEASE' | 'RECOVERY'; released: string; refunded: string; txHash: string }>;
  /** Each recorded round and the payments its events say it made, per destination. */
  rounds: Array<{ settlementId: string; round: number; path: 'RELEASE' | 'RECOVERY'; txHash: string; payments: Array<{ destination: string; amount: string }> }>;
  /** The events say the escrow account was merged back. */
  merged: boolean;
  /** Money paid straight into the escrow (EscrowStrayPaymentRecorded): owed back to its sender until returned. */
  strays: StrayFact[];
}

export interface StrayFact {
  operationId: string;
  txHash: string;
  from: string;
  amount: string;
  status: 'OWED' | 'RETURNED';
  /** The lock that paid it back. */
  returnedTxHash: string | null;
}

export interface LedgerTransactionFacts {
  successful: boolean;
  /** Payments of the stablecoin the transaction made, per destination. */
  payments: Array<{ destination: string; amount: string }>;
  /** Claimable balances it claimed. */
  claimed: string[];
}

export interface LedgerFacts {
  accountExists: boolean;
  /** The escrow account's own balance of the stablecoin (money paid straight into it: never a deposit). */
  balance: string;
  /** Claimable balances of the stablecoin the escrow may claim. */
  deposits: Array<{ balanceId: string; amount: string }>;
  /** The recorded rounds' transactions as the ledger has them (null: not found). */
  transactions: Record<string, LedgerTransactionFacts | null>;
  /** The platform account. */
  platform: string;
  /** Every payment of the stablecoin the escrow account ever made (its locks' included), per operation. */
  paidOut: Array<{ destination: string; amount: string; txHash: string }>;
}

export interface EscrowReconciliation {
  poolId: string;
  escrowAccount: string;
  paid: { count: number; amount: string };
  events: { held: string; owedBack: string; released: string; refunded: string; merged: boolean; straysOwed: string };
  ledger: { accountExists: boolean; balance: string; heldDeposits: string; held: string };
  /** Held deposits the ledger does not show (or with another amount). */
  missing: Deposit[];
  /** Late deposits owed back that still stand. */
  owedBack: Deposit[];
  /** Settled deposits the ledger still shows. */
  notClaimed: Deposit[];
  /** Claimable balances for the escrow that no event accounts for: listed, not counted. */
  unexpected: Array<{ balanceId: string; amount: string }>;
  /** What the platform received from the escrow on the ledger, and its fee lines (the events' payments to it): never more. */
  platform: { received: string; fees: string };
  /** Money paid straight into the escrow, with its sender: OWED back, or RETURNED. */
  strays: StrayFact[];
  rounds: Array<{ settlementId: string; round: number; path: string; txHash: string; ok: boolean; problems: string[] }>;
  problems: string[];
  ok: boolean;
}

const toStroops = toMinor;
const toAmount = fromMinor;
const sum = (list: Array<{ amount: string }>) => list.reduce((t, d) => t + toStroops(d.amount), 0n);

/** Payments per destination, summed: the shape both sides are compared in. */
const byDestination = (payments: Array<{ destination: string; amount: string }>): Map<string, bigint> => {
  const m = new Map<string, bigint>();
  for (const p of payments) m.set(p.destination, (m.get(p.destination) ?? 0n) + toStroops(p.amount));
  return m;
};

export const reconcileEscrow = (facts: EscrowFacts, ledger: LedgerFacts): EscrowReconciliation => {
  const onLedger = new Map(ledger.deposits.map((d) => [d.balanceId, toStroops(d.amount)]));
  const missing = facts.held.filter((d) => onLedger.get(d.balanceId) !== toStroops(d.amount));
  const heldDeposits = facts.held.filter((d) => !missing.includes(d)).reduce((t, d) => t + toStroops(d.amount), 0n);
  const owedBack = facts.owedBack.filter((d) => onLedger.has(d.balanceId));
  const notClaimed = facts.settled.filter((d) => onLedger.has(d.balanceId));
  const accounted = new Set([...facts.held, ...facts.owedBack, ...facts.settled].map((d) => d.balanceId));
  const unexpected = ledger.deposits.filter((d) => !accounted.has(d.balanceId)).map((d) => ({ balanceId: d.balanceId, amount: toAmount(toStroops(d.amount)) }));

  const rounds = facts.rounds.map((r) => {
    const problems: string[] = [];
    const tx = ledger.transactions[r.txHash];
    if (!tx) problems.push('the transaction is not on the ledger');
    else {
      if (!tx.successful) problems.push('the transaction failed on the ledger');
      const expected = byDestination(r.payments);
      const actual = byDestination(tx.payments);
      for (const dest of new Set([...expected.keys(), ...actual.keys()])) {
        const want = expected.get(dest) ?? 0n;
        const got = actual.get(dest) ?? 0n;
        if (want !== got) problems.push(`${dest}: the events say ${toAmount(want)}, the ledger ${toAmount(got)}`);
      }
      const claimed = new Set(tx.claimed);
      for (const d of facts.settled.filter((s) => s.txHash === r.txHash)) if (!claimed.has(d.balanceId)) problems.push(`deposit ${d.balanceId} was not claimed by it`);
    }
    return { settlementId: r.settlementId, round: r.round, path: r.path, txHash: r.txHash, ok: problems.length === 0, problems };
  });

  const problems: string[] = [];
  if (facts.merged && ledger.accountExists) problems.push('the events say the escrow was merged back, the account still exists');
  if (!facts.merged && !ledger.accountExists && facts.held.length > 0) problems.push('the escrow account is gone while the events say it holds deposits');
  if (missing.length > 0) problems.push(`${missing.length} held deposit(s) missing on the ledger`);
  if (notClaimed.length > 0) problems.push(`${notClaimed.length} settled deposit(s) still on the ledger`);
  const balance = ledger.accountExists ? toStroops(ledger.balance) : 0n;
  // The platform keeps its fees and nothing else: whatever the escrow paid it beyond its fee lines is someone's money.
  const received = ledger.paidOut.filter((p) => p.destination === ledger.platform).reduce((t, p) => t + toStroops(p.amount), 0n);
  const fees = facts.rounds.flatMap((r) => r.payments).filter((p) => p.destination === ledger.platform).reduce((t, p) => t + toStroops(p.amount), 0n);
  if (received > fees) problems.push(`the platform received ${toAmount(received)} from the escrow, its fee lines are ${toAmount(fees)}`);
  // The escrow's own balance is stray payments owed back, and nothing else (a lock pays them back as it empties it).
  const straysOwed = facts.strays.filter((s) => s.status === 'OWED').reduce((t, s) => t + toStroops(s.amount), 0n);
  if (balance > straysOwed) problems.push(`the escrow holds ${toAmount(balance)} of its own, the stray payments owed back add up to ${toAmount(straysOwed)}`);
  return {
    poolId: facts.poolId,
    escrowAccount: facts.escrowAccount,
    paid: facts.paid,
    events: {
      held: toAmount(sum(facts.held)),
      owedBack: toAmount(sum(facts.owedBack)),
      released: toAmount(facts.settled.reduce((t, d) => t + toStroops(d.released), 0n)),
      refunded: toAmount(facts.settled.reduce((t, d) => t + toStroops(d.refunded), 0n)),
      merged: facts.merged,
      straysOwed: toAmount(straysOwed),
    },
    // `held` is what the escrow may pay out: the deposits it may claim (its own balance is listed, never a deposit).
    ledger: { accountExists: ledger.accountExists, balance: toAmount(balance), heldDeposits: toAmount(heldDeposits), held: toAmount(heldDeposits) },
    missing,
    owedBack,
    notClaimed,
    unexpected,
    platform: { received: toAmount(received), fees: toAmount(fees) },
    strays: facts.strays,
    rounds,
    problems: [...problems, ...rounds.filter((r) => !r.ok).map((r) => `round ${r.round} of ${r.settlementId}: ${r.problems.join('; ')}`)],
    ok: problems.length === 0 && rounds.every((r) => r.ok),
  };
};
