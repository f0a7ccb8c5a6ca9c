import { isOpenDispute, isSettledBalance } from './escrow-facts';
import type { ReservationFacts } from './view';

/*
 * What the organiser has to do with a pool's escrow (an open pool: refund the deposits owed back), from the pools
 * read model's document and the pool's reservations.
 * The eligibility mirrors the domain's (domain/src/escrow/settlement.ts: releasable, dueSettlement), which the read
 * side may not import.
 */

export type PoolEscrowAction = 'deliver' | 'respond_dispute' | 'settle';

/** Of the pool: the pools read model's document has this shape. */
export interface PoolEscrowFacts {
  status: string;
  closing?: { release: { after: 'CLOSE' | 'RECEIPT' }; deliveredAt: string | null } | null;
  escrow?: { accountId: string } | null;
  settledAt?: string | null;
}

type Held = Pick<ReservationFacts, 'status' | 'payment' | 'latePayments' | 'acceptance' | 'dispute' | 'settlements'>;

/** A PAID deposit of a successful pool may be released: at closing, or once accepted, or once its dispute ended. */
const releasable = (pool: PoolEscrowFacts, r: Held): boolean => {
  if (isOpenDispute(r.dispute)) return false;
  if (pool.closing?.release.after === 'CLOSE') return true;
  return r.acceptance !== null || r.dispute !== null;
};

/**
 * Whether a settlement has something to claim now: a successful (LOCKED) pool's releasable PAID deposits, every PAID
 * deposit of a FAILED or CANCELLED pool, and late deposits always (an OPEN pool settles only those: refunded at once);
 * never once the escrow is merged back.
 */
export const settlementDue = (pool: PoolEscrowFacts, reservations: Held[]): boolean => {
  if (!pool.escrow || pool.settledAt) return false;
  const refunding = pool.status === 'FAILED' || pool.status === 'CANCELLED';
  const open = pool.status === 'OPEN';
  if (!refunding && !open && pool.status !== 'LOCKED') return false;
  return reservations.some(
    (r) =>
      (!open && r.status === 'PAID' && r.payment !== null && !isSettledBalance(r, r.payment.balanceId) && (refunding || releasable(pool, r))) ||
      r.latePayments.some((l) => !isSettledBalance(r, l.balanceId)),
  );
};

/**
 * `deliver`: a successful pool released on RECEIPT, not delivered yet (the inspection periods start at delivery).
 * `respond_dispute`: a dispute waits for the organiser (OPEN; a contested one waits for the buyer).
 * `settle`: prepare a settlement, or carry out the one prepared (settlementDue).
 */
export const poolEscrowActions = (pool: PoolEscrowFacts, reservations: Held[]): PoolEscrowAction[] => {
  const actions: PoolEscrowAction[] = [];
  if (pool.status === 'LOCKED' && pool.closing?.release.after === 'RECEIPT' && !pool.closing.deliveredAt) actions.push('deliver');
  if (reservations.some((r) => r.dispute?.status === 'OPEN')) actions.push('respond_dispute');
  if (settlementDue(pool, reservations)) actions.push('settle');
  return actions;
};
