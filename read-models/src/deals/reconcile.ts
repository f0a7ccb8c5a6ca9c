import type { EscrowFacts } from '../escrow/reconcile';
import type { DealDoc } from './fold';

/**
 * A deal's escrow as its events say, in the shape the pools' reconciliation takes (reconcileEscrow, one rule for
 * both): its one deposit held until settled, then claimed by the settlement's one round, which paid what the events
 * say and merged the escrow back. Null before the escrow opened. Deals take no stray payments back (docs/v1/deals.md).
 */
export const dealEscrowFacts = (doc: DealDoc): EscrowFacts | null => {
  if (!doc.escrow) return null;
  const deposit = doc.funding ? { reservationId: doc.dealId, balanceId: doc.funding.balanceId, amount: doc.funding.amount } : null;
  const settled = doc.settled;
  const refunded = settled !== null && doc.status === 'refunded';
  return {
    poolId: doc.dealId,
    escrowAccount: doc.escrow.accountId,
    paid: { count: deposit ? 1 : 0, amount: deposit?.amount ?? '0' },
    held: deposit && !settled ? [deposit] : [],
    owedBack: [],
    settled:
      deposit && settled
        ? [{ ...deposit, path: settled.path, released: refunded ? '0' : deposit.amount, refunded: refunded ? deposit.amount : '0', txHash: settled.txHash }]
        : [],
    rounds: settled ? [{ settlementId: settled.settlementId, round: 0, path: settled.path, txHash: settled.txHash, payments: settled.payouts.map((p) => ({ destination: p.destination, amount: p.amount })) }] : [],
    merged: settled !== null,
    strays: [],
  };
};
