import type { DisputeReason, FeeRule, PoolEvent, SettlementFees } from '@cagnotte/event-schemas';
import { percentRule } from '../fees/schedule';
import { IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { requireOrganiserOf } from '../pools/organiser';
import { requireBuyerIn } from '../reservations/buyer';
import { formatAmount, parseAmount } from '../money';
import type { ExistingPool, Pool } from '../pools/pool';
import { goodsPaid, tierPrice, type Reservation } from '../reservations/holdings';
import { dueOf, finalPricesOf } from './split';
import { isOpenDispute as isOpen, lapseTime, plusDays, reached, requireNotLapsed as notLapsed, requireWithinInspection, respondByOf } from './dispute-rules';

/** Who acts: a signed-in user (their role matters for the organiser's commands), or the system (a job) when null. */
export interface EscrowMeta {
  actor: { userId: string; role?: string } | null;
  now: string;
}

/** The tenant's escrow settings as they apply at closing (its settings, else the service's defaults). */
export interface ClosingPolicy {
  platformFeePercent: string;
  /** The tenant's fee schedule in force: its payment rule is frozen with the closing (absent: the bare percentage). */
  feeSchedule?: { payment: FeeRule } | undefined;
  /** VAT rates to withhold on the fee and the commission (docs/fees.md#vat), resolved by the caller; absent: none. */
  feeVat?: SettlementFees['vat'];
  inspectionDays: number;
  disputeResponseDays: number;
}

export type EscrowCommand =
  | { type: 'ClosePool'; data: { reason: 'DEADLINE' | 'ORGANISER'; policy: ClosingPolicy }; metadata: EscrowMeta }
  | { type: 'CancelPool'; data: { reason: string | null }; metadata: EscrowMeta }
  | { type: 'MarkDelivered'; data: { note: string | null }; metadata: EscrowMeta }
  | { type: 'ConfirmReceipt'; data: { reservationId: string }; metadata: EscrowMeta }
  | { type: 'EndInspection'; data: Record<string, never>; metadata: EscrowMeta }
  | { type: 'OpenDispute'; data: { reservationId: string; disputeId: string; reason: DisputeReason; details: string; evidence: string[] }; metadata: EscrowMeta }
  | { type: 'ContestDispute'; data: { disputeId: string; statement: string }; metadata: EscrowMeta }
  | { type: 'RefundDispute'; data: { disputeId: string; amount: string }; metadata: EscrowMeta }
  | { type: 'WithdrawDispute'; data: { disputeId: string }; metadata: EscrowMeta }
  | { type: 'LapseDisputes'; data: Record<string, never>; metadata: EscrowMeta };


/** Who gives a command: the pool's organiser (requireOrganiserOf), a buyer on a reservation of theirs (requireBuyerIn), or a job. */
const giverOf = (command: EscrowCommand): 'organiser' | 'buyer' | 'system' => {
  switch (command.type) {
    case 'ClosePool':
      return command.data.reason === 'ORGANISER' ? 'organiser' : 'system';
    case 'CancelPool':
    case 'MarkDelivered':
    case 'ContestDispute':
    case 'RefundDispute':
      return 'organiser';
    case 'ConfirmReceipt':
    case 'OpenDispute':
    case 'WithdrawDispute':
      return 'buyer';
    case 'EndInspection':
    case 'LapseDisputes':
      return 'system';
    default:
      return assertNever(command);
  }
};

/** The caller's own reservation; anyone else's does not exist for them. */
const ownReservation = (pool: ExistingPool, reservationId: string, meta: EscrowMeta): Reservation => {
  const r = pool.holdings.byId.get(reservationId);
  if (!r || !meta.actor || r.buyerId !== meta.actor.userId) throw new NotFoundError('reservation');
  return r;
};

export const isSettled = (r: Reservation) => r.payment !== null && r.settled.has(r.payment.balanceId);

/**
 * Units and amount of the PAID reservations: what decides a pool's outcome (held PENDING units lapse at closing). The
 * amount is the goods paid: escrow-deposit fees count toward no target.
 */
export const paidTotals = (pool: ExistingPool) => {
  const units = new Map<string, number>();
  let amount = 0n;
  let count = 0;
  for (const r of pool.holdings.byId.values()) {
    if (r.status !== 'PAID' || !r.payment) continue;
    amount += goodsPaid(r);
    for (const l of r.lines) {
      units.set(l.unitId, (units.get(l.unitId) ?? 0) + l.quantity);
      count += l.quantity;
    }
  }
  return { units, count, amount };
};

/** GROUPS succeed from `minimumUnits` paid units (1 without a minimum); FUNDING from its target paid. */
export const closingOutcome = (pool: ExistingPool): 'SUCCEEDED' | 'FAILED' => {
  const paid = paidTotals(pool);
  if (pool.type === 'FUNDING') return paid.amount > 0n && paid.amount >= parseAmount(pool.fields.targetAmount ?? '0') ? 'SUCCEEDED' : 'FAILED';
  return paid.count >= (pool.fields.config.minimumUnits ?? 1) ? 'SUCCEEDED' : 'FAILED';
};

/** Every PENDING reservation ends when the pool stops taking them: its units no longer count, a late deposit is owed back. */
const expireAllPending = (pool: ExistingPool, now: string): PoolEvent[] =>
  [...pool.holdings.pending].map((id) => {
    const r = pool.holdings.byId.get(id)!;
    return { type: 'ReservationExpired', data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, expiresAt: r.expiresAt, expiredAt: now } };
  });

const decideClose = (pool: ExistingPool, command: Extract<EscrowCommand, { type: 'ClosePool' }>): PoolEvent[] => {
  const { reason, policy } = command.data;
  const { now } = command.metadata;
  if (pool.status !== 'OPEN') {
    // The deadline job runs at least once: a pool already closed (or cancelled) is left as it is.
    if (reason === 'DEADLINE') return [];
    throw new IllegalStateError('pool_not_open', `Only an OPEN pool closes (this one is ${pool.status})`);
  }
  const deadlinePassed = reached(pool.fields.deadline, now);
  if (reason === 'DEADLINE' && !deadlinePassed) return [];
  const outcome = closingOutcome(pool);
  if (reason === 'ORGANISER' && !deadlinePassed && outcome === 'FAILED') {
    const what = pool.type === 'FUNDING' ? `its target (${pool.fields.targetAmount}) paid` : `${pool.fields.config.minimumUnits ?? 1} paid unit(s)`;
    throw new IllegalStateError('minimum_not_reached', `A pool closes early only once it reached ${what}; cancel it instead`);
  }
  const paid = paidTotals(pool);
  const brokered = pool.fields.sellerId !== null && pool.fields.sellerId !== pool.organiserId;
  const commission = brokered && pool.commissionMandate ? pool.fields.organiserCommissionPercent : null;
  const release = pool.fields.config.release;
  return [
    ...expireAllPending(pool, now),
    {
      type: 'PoolClosed',
      data: {
        poolId: pool.id,
        outcome,
        reason,
        paidUnits: paid.count,
        paidAmount: formatAmount(paid.amount),
        finalPrices: pool.type === 'GROUPS' ? finalPricesOf(pool.fields.config.units ?? [], paid.units, tierPrice) : [],
        fees: {
          platformFeePercent: policy.platformFeePercent,
          organiserCommissionPercent: commission && parseAmount(commission) > 0n ? commission : null,
          platformFee: policy.feeSchedule?.payment ?? percentRule(policy.platformFeePercent),
          vat: policy.feeVat ?? null,
        },
        release: {
          after: release?.after ?? (pool.type === 'GROUPS' ? 'RECEIPT' : 'CLOSE'),
          inspectionDays: release?.inspectionDays ?? policy.inspectionDays,
          disputeResponseDays: policy.disputeResponseDays,
        },
        closedAt: now,
      },
    },
  ];
};

/** Whether the pool is LOCKED and its release waits for receipt: where receipts, delivery and disputes apply. */
export const inReceiptPhase = (pool: ExistingPool): boolean => pool.status === 'LOCKED' && pool.closing !== null && pool.closing.release.after === 'RECEIPT';

/** A LOCKED pool whose release waits for receipt: where receipts, delivery and disputes apply. */
export const requireReceiptPhase = (pool: ExistingPool) => {
  if (pool.status !== 'LOCKED' || !pool.closing) throw new IllegalStateError('pool_not_locked', 'This applies to a pool that closed successfully and is not settled yet');
  if (pool.closing.release.after !== 'RECEIPT') throw new IllegalStateError('release_at_close', 'This pool releases its funds at closing: there is no receipt or inspection period');
  return pool.closing;
};

/** Whether a reservation is paid and its deposit still in escrow. */
export const isHeld = (r: Reservation): boolean => r.status === 'PAID' && r.payment !== null && !isSettled(r);

/** A paid reservation whose deposit is still in escrow. */
const requireHeld = (r: Reservation) => {
  if (r.status !== 'PAID' || !r.payment) throw new IllegalStateError('reservation_not_paid', 'Only a paid reservation has funds in escrow');
  if (isSettled(r)) throw new IllegalStateError('reservation_settled', 'This reservation is already settled');
};

/** What a dispute over `r` holds: its due amount at the final prices. */
const heldAmount = (pool: ExistingPool, r: Reservation): string =>
  formatAmount(dueOf(r.lines, goodsPaid(r), pool.closing?.finalPrices ?? new Map()));

const findDispute = (pool: ExistingPool, disputeId: string): Reservation => {
  for (const r of pool.holdings.byId.values()) if (r.dispute?.disputeId === disputeId) return r;
  throw new NotFoundError('dispute');
};

/** A decimal amount, or null when it is not one (the route validates it too; the decider does not rely on it). */
const amountOrNull = (text: string): bigint | null => {
  try {
    return parseAmount(text);
  } catch {
    return null;
  }
};

const isOpenDispute = (r: Reservation) => isOpen(r.dispute);

/** The pool's delivery (the inspection period starts `now`): once, on a pool in its receipt phase not delivered yet; else nothing. */
export const deliveryOf = (pool: ExistingPool, note: string | null, now: string): PoolEvent[] => {
  if (!inReceiptPhase(pool) || pool.closing!.deliveredAt) return [];
  return [{ type: 'PoolDelivered', data: { poolId: pool.id, note, inspectionEndsAt: plusDays(now, pool.closing!.release.inspectionDays), deliveredAt: now } }];
};

/**
 * Whether a receipt may still be confirmed on `r` without a word from anyone: the pool in its receipt phase, the
 * reservation held, neither accepted nor disputed (ConfirmReceipt refuses the disputed ones out loud).
 */
export const receiptConfirmable = (pool: ExistingPool, r: Reservation): boolean => inReceiptPhase(pool) && isHeld(r) && !r.acceptance && !r.dispute;

export const receiptConfirmedEvent = (pool: ExistingPool, r: Reservation, now: string): PoolEvent => ({
  type: 'ReservationReceiptConfirmed',
  data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, confirmedAt: now },
});

const requireNotLapsed = (r: Reservation, now: string) => notLapsed(r.dispute!, now);

const decideDispute = (pool: ExistingPool, command: Extract<EscrowCommand, { type: `${string}Dispute` | 'LapseDisputes' }>): PoolEvent[] => {
  const meta = command.metadata;
  const { now } = meta;
  switch (command.type) {
    case 'OpenDispute': {
      const d = command.data;
      const r = ownReservation(pool, d.reservationId, meta);
      const closing = requireReceiptPhase(pool);
      requireHeld(r);
      if (r.dispute) throw new IllegalStateError('dispute_exists', 'This reservation already has a dispute');
      if (r.acceptance) throw new IllegalStateError('reservation_accepted', 'This reservation was accepted: its release is no longer held');
      requireWithinInspection(closing.inspectionEndsAt, now);
      return [
        {
          type: 'DisputeOpened',
          data: {
            poolId: pool.id,
            reservationId: r.id,
            disputeId: d.disputeId,
            buyerId: r.buyerId,
            reason: d.reason,
            details: d.details,
            evidence: d.evidence,
            amount: heldAmount(pool, r),
            respondBy: respondByOf(now, closing.release.disputeResponseDays),
            openedAt: now,
          },
        },
      ];
    }
    case 'ContestDispute': {
      const r = findDispute(pool, command.data.disputeId);
      if (r.dispute!.status !== 'OPEN') throw new IllegalStateError('dispute_not_open', `The dispute is ${r.dispute!.status}`);
      requireNotLapsed(r, now);
      const days = pool.closing!.release.disputeResponseDays;
      return [{ type: 'DisputeContested', data: { poolId: pool.id, reservationId: r.id, disputeId: r.dispute!.disputeId, statement: command.data.statement, lapsesAt: plusDays(now, days), contestedAt: now } }];
    }
    case 'RefundDispute': {
      const r = findDispute(pool, command.data.disputeId);
      if (!isOpenDispute(r)) throw new IllegalStateError('dispute_not_open', `The dispute is ${r.dispute!.status}`);
      requireNotLapsed(r, now);
      const amount = amountOrNull(command.data.amount);
      if (amount === null || amount <= 0n || amount > parseAmount(r.dispute!.amount)) {
        throw new ValidationError({ amount: [`between 0.0000001 and the held ${r.dispute!.amount}`] }, 'The refund exceeds what the dispute holds', 'refund_out_of_bounds');
      }
      return [{ type: 'DisputeResolved', data: { poolId: pool.id, reservationId: r.id, disputeId: r.dispute!.disputeId, outcome: 'REFUNDED', refund: formatAmount(amount), resolvedAt: now } }];
    }
    case 'WithdrawDispute': {
      const r = findDispute(pool, command.data.disputeId);
      if (!meta.actor || r.buyerId !== meta.actor.userId) throw new NotFoundError('dispute');
      if (!isOpenDispute(r)) throw new IllegalStateError('dispute_not_open', `The dispute is ${r.dispute!.status}`);
      requireNotLapsed(r, now);
      return [{ type: 'DisputeResolved', data: { poolId: pool.id, reservationId: r.id, disputeId: r.dispute!.disputeId, outcome: 'WITHDRAWN', refund: '0.00', resolvedAt: now } }];
    }
    case 'LapseDisputes': {
      // The rule: a dispute nobody settled in time returns what it holds to the buyer (the platform never decides).
      const events: PoolEvent[] = [];
      for (const r of pool.holdings.byId.values()) {
        const d = r.dispute;
        if (!d || !isOpenDispute(r)) continue;
        if (!reached(lapseTime(d), now)) continue;
        events.push({ type: 'DisputeResolved', data: { poolId: pool.id, reservationId: r.id, disputeId: d.disputeId, outcome: 'LAPSED', refund: d.amount, resolvedAt: now } });
      }
      return events;
    }
    default:
      return assertNever(command);
  }
};

export const decideEscrow = (command: EscrowCommand, state: Pool): PoolEvent[] => {
  // Who may give the command is decided before the pool is looked at: one answer for another's pool, one held nothing in, and none.
  const giver = giverOf(command);
  if (giver === 'organiser') requireOrganiserOf(state, command.metadata.actor);
  if (giver === 'buyer') requireBuyerIn(state, command.metadata.actor?.userId ?? null);
  if (state.status === 'none') throw new NotFoundError('pool');
  const pool = state;
  const meta = command.metadata;
  const { now } = meta;
  switch (command.type) {
    case 'ClosePool':
      return decideClose(pool, command);
    case 'CancelPool': {
      if (pool.status !== 'DRAFT' && pool.status !== 'OPEN') throw new IllegalStateError('pool_not_cancellable', `A ${pool.status} pool cannot be cancelled`);
      return [...expireAllPending(pool, now), { type: 'PoolCancelled', data: { poolId: pool.id, reason: command.data.reason, cancelledAt: now } }];
    }
    case 'MarkDelivered':
      requireReceiptPhase(pool);
      return deliveryOf(pool, command.data.note, now);
    case 'ConfirmReceipt': {
      const r = ownReservation(pool, command.data.reservationId, meta);
      requireReceiptPhase(pool);
      requireHeld(r);
      if (r.acceptance) return [];
      if (isOpenDispute(r)) throw new IllegalStateError('dispute_open', 'Withdraw your dispute to accept the reservation');
      if (r.dispute) throw new IllegalStateError('dispute_resolved', 'The dispute already decided this reservation');
      return [receiptConfirmedEvent(pool, r, now)];
    }
    case 'EndInspection': {
      if (pool.status !== 'LOCKED' || !pool.closing?.inspectionEndsAt || !reached(pool.closing.inspectionEndsAt, now)) return [];
      const endedAt = pool.closing.inspectionEndsAt;
      const events: PoolEvent[] = [];
      for (const r of pool.holdings.byId.values()) {
        if (r.status !== 'PAID' || isSettled(r) || r.acceptance || r.dispute) continue;
        events.push({ type: 'ReservationAutoAccepted', data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, inspectionEndedAt: endedAt, acceptedAt: now } });
      }
      return events;
    }
    case 'OpenDispute':
    case 'ContestDispute':
    case 'RefundDispute':
    case 'WithdrawDispute':
    case 'LapseDisputes':
      return decideDispute(pool, command);
    default:
      return assertNever(command);
  }
};
