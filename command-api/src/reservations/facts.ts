import type { Reservation } from '@cagnotte/domain';
import type { ReservationFacts } from '@cagnotte/read-models';

/** A reservation of the pool's fold as the read model's views render it (the same view either side serves). */
export const factsOf = (poolId: string, r: Reservation): ReservationFacts => ({
  id: r.id,
  poolId,
  buyerId: r.buyerId,
  buyerName: r.buyerName,
  status: r.status,
  lines: r.lines,
  pledge: r.pledge,
  amount: r.amount,
  relaisId: r.relaisId,
  placedAt: r.placedAt,
  expiresAt: r.expiresAt,
  signed: r.signed ? { terms: r.signed.terms, escrowAccount: r.signed.escrowAccount, reclaimAfter: r.signed.reclaimAfter } : null,
  payment: r.payment,
  latePayments: r.latePayments,
  endedAt: r.endedAt,
});
