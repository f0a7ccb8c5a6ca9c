import { z } from 'zod';

/*
 * What the escrow did with one reservation: its acceptance (receipt confirmed, or the inspection period passed), its
 * dispute and the settlements that claimed its deposits. The rules that decide the buyer's actions mirror the domain's
 * (domain/src/escrow/decide.ts), which the read side may not import.
 */

export const ReservationAcceptance = z
  .object({ by: z.enum(['BUYER', 'AUTO']).describe('BUYER: receipt confirmed; AUTO: the inspection period passed'), at: z.string() })
  .describe('ReservationAcceptance');

export const DisputeStatus = z.enum(['OPEN', 'CONTESTED', 'REFUNDED', 'WITHDRAWN', 'LAPSED']);
export type DisputeStatus = z.infer<typeof DisputeStatus>;

export const ReservationDispute = z
  .object({
    disputeId: z.string().uuid(),
    status: DisputeStatus.describe('OPEN: the organiser answers by `respondBy`; CONTESTED: the buyer may withdraw until `lapsesAt`; REFUNDED, WITHDRAWN, LAPSED: ended'),
    reason: z.string(),
    details: z.string(),
    evidence: z.array(z.string()),
    amount: z.string().describe('What the dispute holds: the reservation\'s due amount at the final prices'),
    respondBy: z.string(),
    lapsesAt: z.string().nullable().describe('Set once contested'),
    refund: z.string().nullable().describe('What goes back to the buyer once ended (0 when withdrawn; the held amount when lapsed)'),
    openedAt: z.string(),
    resolvedAt: z.string().nullable(),
  })
  .describe('ReservationDispute');
export type ReservationDispute = z.infer<typeof ReservationDispute>;

export const ReservationSettlement = z
  .object({
    balanceId: z.string(),
    kind: z.enum(['DEPOSIT', 'LATE_DEPOSIT']),
    settlementId: z.string().uuid(),
    path: z.enum(['RELEASE', 'RECOVERY']).describe('RELEASE: the organiser-cosigned payouts; RECOVERY: every deposit of the round back to its buyer'),
    released: z.string().describe('Paid out to the seller, the organiser and the platform'),
    refunded: z.string().describe('Paid back to the buyer'),
    txHash: z.string(),
    settledAt: z.string(),
  })
  .describe('ReservationSettlement');
export type ReservationSettlement = z.infer<typeof ReservationSettlement>;

/** The escrow's facts of one reservation (rm_reservations.escrow; a row without them has none). */
export interface ReservationEscrowFacts {
  acceptance: z.infer<typeof ReservationAcceptance> | null;
  dispute: ReservationDispute | null;
  settlements: ReservationSettlement[];
}

export const noEscrowFacts = (): ReservationEscrowFacts => ({ acceptance: null, dispute: null, settlements: [] });

/**
 * What the buyer's escrow actions depend on, of the pool: its status and closing. The pools read model's document
 * and the domain's pool both have this shape, so the query and the command side render the same actions.
 */
export interface ReservationPoolFacts {
  status: string;
  closing?: { release: { after: 'CLOSE' | 'RECEIPT' }; inspectionEndsAt: string | null } | null;
}

export type EscrowAction = 'confirm_receipt' | 'dispute' | 'withdraw_dispute';

export const isOpenDispute = (d: ReservationDispute | null): boolean => d !== null && (d.status === 'OPEN' || d.status === 'CONTESTED');

/** Whether a settlement already claimed this balance (a deposit or a late deposit). */
export const isSettledBalance = (r: Pick<ReservationEscrowFacts, 'settlements'>, balanceId: string): boolean => r.settlements.some((s) => s.balanceId === balanceId);

/**
 * The buyer's escrow actions, as the domain decides them: receipts and disputes apply to a successful (LOCKED) pool
 * released on RECEIPT, to a paid reservation whose deposit is still in escrow. A receipt is accepted as long as the
 * reservation is neither accepted nor disputed (also once the inspection period is over, before the job accepts it);
 * a dispute opens only before the inspection period ends; a withdrawal needs an open dispute.
 */
export const escrowActionsOf = (
  r: ReservationEscrowFacts & { status: string; payment: { balanceId: string } | null },
  pool: ReservationPoolFacts,
  now: Date,
): EscrowAction[] => {
  const actions: EscrowAction[] = [];
  const receiptPhase = pool.status === 'LOCKED' && pool.closing?.release.after === 'RECEIPT';
  const held = r.status === 'PAID' && r.payment !== null && !isSettledBalance(r, r.payment.balanceId);
  if (receiptPhase && held && r.acceptance === null && r.dispute === null) {
    actions.push('confirm_receipt');
    const ends = pool.closing?.inspectionEndsAt ?? null;
    if (ends === null || Date.parse(ends) > now.getTime()) actions.push('dispute');
  }
  if (isOpenDispute(r.dispute)) actions.push('withdraw_dispute');
  return actions;
};
