import type { PoolRelaisState, Reservation } from '@cagnotte/domain';
import type { ReservationFacts } from '@cagnotte/read-models';

/**
 * A reservation of the pool's fold as the read model's views render it (the same view either side serves). Render it
 * with the pool (`reservationView(factsOf(pool.id, r, pool.relais), now, pool)`: the domain's pool has the status and closing the escrow's
 * actions read), as the query side does with the pool's document.
 */
export const factsOf = (poolId: string, r: Reservation, relais?: Pick<PoolRelaisState, 'unavailable'>): ReservationFacts => ({
  id: r.id,
  poolId,
  buyerId: r.buyerId,
  buyerName: r.buyerName,
  status: r.status,
  lines: r.lines,
  pledge: r.pledge,
  amount: r.amount,
  depositFee: r.depositFee,
  relaisId: r.relaisId,
  // Its point is unavailable while the pool says so (the reservations read model folds the same rule).
  ...(r.relaisId !== null && relais?.unavailable.has(r.relaisId) ? { pickupPointUnavailable: { reason: relais.unavailable.get(r.relaisId)!.reason } } : {}),
  placedAt: r.placedAt,
  expiresAt: r.expiresAt,
  signed: r.signed ? { terms: r.signed.terms, escrowAccount: r.signed.escrowAccount, reclaimAfter: r.signed.reclaimAfter } : null,
  payment: r.payment,
  latePayments: r.latePayments,
  endedAt: r.endedAt,
  acceptance: r.acceptance ? { by: r.acceptance.by, at: r.acceptance.at } : null,
  dispute: r.dispute
    ? {
        disputeId: r.dispute.disputeId,
        status: r.dispute.status,
        reason: r.dispute.reason,
        details: r.dispute.details,
        evidence: r.dispute.evidence,
        amount: r.dispute.amount,
        respondBy: r.dispute.respondBy,
        lapsesAt: r.dispute.lapsesAt,
        refund: r.dispute.refund,
        openedAt: r.dispute.openedAt,
        resolvedAt: r.dispute.resolvedAt,
      }
    : null,
  // The map keeps the order the settlements came in, as the read model's list does.
  settlements: [...r.settled.values()].map((s) => ({ ...s })),
});
