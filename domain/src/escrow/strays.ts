import type { PoolEvent, StrayReturn } from '@cagnotte/event-schemas';
import { ConflictError, IllegalStateError, NotFoundError } from '../errors';
import { formatAmount, parseAmount, type Minor } from '../money';
import type { ExistingPool, Pool } from '../pools/pool';
import { owedStrays } from './state';

/*
 * Stray payments: money paid straight into a pool's escrow account (a payment of the stablecoin), never a deposit
 * (deposits are claimable balances). It is its sender's: recorded from the ledger, owed back, and paid back by the
 * first lock of the next settlement (docs/escrow.md), never swept to the platform.
 */

/** A payment of the stablecoin into or out of the escrow account, as the ledger lists it (EscrowLedger.escrowPayments). */
export interface LedgerPayment {
  operationId: string;
  txHash: string;
  from: string;
  to: string;
  /** Decimal string. */
  amount: string;
  /** When the ledger applied it. */
  at: string;
}

/** The payments into the escrow from anyone else: every one is a stray (deposits are claimable balances, the reserve is XLM). */
export const straysAmong = (payments: LedgerPayment[], escrowAccount: string): LedgerPayment[] =>
  payments.filter((p) => p.to === escrowAccount && p.from !== escrowAccount && parseAmount(p.amount) > 0n);

export type StrayCommand = { type: 'RecordStrayPayments'; data: { payments: LedgerPayment[] }; metadata: { now: string } };

/** Records each stray payment not recorded yet, once per ledger operation: the same operation seen again records nothing. */
export const decideStrays = (command: StrayCommand, state: Pool): PoolEvent[] => {
  if (state.status === 'none') throw new NotFoundError('pool');
  const escrow = state.escrow;
  if (!escrow) return [];
  const seen = new Set(state.settlement.strays.keys());
  const events: PoolEvent[] = [];
  for (const p of straysAmong(command.data.payments, escrow.accountId)) {
    if (seen.has(p.operationId)) continue;
    seen.add(p.operationId);
    events.push({
      type: 'EscrowStrayPaymentRecorded',
      data: {
        poolId: state.id,
        escrowAccount: escrow.accountId,
        operationId: p.operationId,
        txHash: p.txHash,
        from: p.from,
        amount: formatAmount(parseAmount(p.amount)),
        receivedAt: new Date(p.at).toISOString(),
        recordedAt: command.metadata.now,
      },
    });
  }
  return events;
};

/**
 * What a new settlement's first lock pays back: every stray owed, to its sender. They must be exactly the escrow's
 * own balance, which the lock empties before it closes the trustline (anything else would burn the lock, or leave
 * someone's money to whoever the balance went to). Without a trustline the escrow holds nothing of its own (an earlier
 * lock closed it): nothing to pay back from it.
 */
/** What one lock can pay back next to its other operations (dead signers, trustline, the three setOptions): within 100. */
export const MAX_STRAY_RETURNS = 70;

export const strayReturnsFor = (pool: ExistingPool, escrow: { strayBalance: Minor; hasTrustline: boolean }): StrayReturn[] => {
  if (!escrow.hasTrustline) return [];
  const owed = owedStrays(pool.settlement);
  if (owed.length > MAX_STRAY_RETURNS) {
    throw new IllegalStateError('too_many_stray_payments', `${owed.length} payments were made straight to the escrow; one settlement pays back at most ${MAX_STRAY_RETURNS}`);
  }
  const total = owed.reduce((sum, s) => sum + parseAmount(s.amount), 0n);
  if (total !== escrow.strayBalance) {
    throw new ConflictError(
      'stray_payments_unrecorded',
      `The escrow holds ${formatAmount(escrow.strayBalance)} of its own; the payments recorded as owed back add up to ${formatAmount(total)}. Prepare the settlement again`,
    );
  }
  return owed.map((s) => ({ operationId: s.operationId, destination: s.from, amount: s.amount }));
};
