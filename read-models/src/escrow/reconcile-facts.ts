import { fromMinor, toMinor } from '../reservations/amounts';
import type { ReservationFacts } from '../reservations/view';
import type { EscrowDocument } from './document';
import type { EscrowFacts } from './reconcile';

const stroops = toMinor;
const amount = fromMinor;

/**
 * What the read models say of a pool's escrow (its escrow document and its reservations' rows, both folds of the
 * pool's stream), in the shape the reconciliation compares with the ledger. Null for a pool without an escrow.
 */
export const escrowFactsOfReads = (doc: EscrowDocument, reservations: ReservationFacts[]): EscrowFacts | null => {
  if (!doc.poolId || !doc.account) return null;
  const facts: EscrowFacts = {
    poolId: doc.poolId,
    escrowAccount: doc.account.accountId,
    paid: { count: 0, amount: '0.00' },
    held: [],
    owedBack: [],
    settled: [],
    rounds: [],
    merged: doc.mergedAt !== null,
    strays: (doc.strays ?? []).map((x) => ({ operationId: x.operationId, txHash: x.txHash, from: x.from, amount: x.amount, status: x.status, returnedTxHash: x.returned?.txHash ?? null })),
  };
  let paid = 0n;
  for (const r of reservations) {
    const deposits = [...(r.status === 'PAID' && r.payment ? [{ ...r.payment, late: false }] : []), ...r.latePayments.map((l) => ({ ...l, late: true }))];
    if (r.status === 'PAID' && r.payment) {
      paid += stroops(r.payment.amount);
      facts.paid.count += 1;
    }
    for (const d of deposits) {
      const deposit = { reservationId: r.id, balanceId: d.balanceId, amount: amount(stroops(d.amount)) };
      const done = r.settlements.find((s) => s.balanceId === d.balanceId);
      if (done) facts.settled.push({ ...deposit, path: done.path, released: done.released, refunded: done.refunded, txHash: done.txHash });
      else (d.late ? facts.owedBack : facts.held).push(deposit);
    }
  }
  facts.paid.amount = amount(paid);
  for (const s of doc.settlements) {
    for (const r of s.rounds) {
      if (!r.settled) continue;
      facts.rounds.push({
        settlementId: s.settlementId,
        round: r.index,
        path: r.settled.path,
        txHash: r.settled.txHash,
        payments: (r.payouts ?? []).map((p) => ({ destination: p.destination, amount: p.amount })),
      });
    }
  }
  return facts;
};
