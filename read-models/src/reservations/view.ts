import { z } from 'zod';
import { UnavailableReason } from '@cagnotte/event-schemas';
import {
  ReservationAcceptance,
  ReservationDispute,
  ReservationSettlement,
  escrowActionsOf,
  isSettledBalance,
  type ReservationEscrowFacts,
  type ReservationPoolFacts,
} from './escrow-facts';

/*
 * A reservation as it is served, once: the query side renders rows of the reservations read model with it, the
 * command side renders the reservation its pool's events fold to. The reclaim transaction is never part of it: it
 * is handed to the buyer alone, by the sign and pay answers and GET …/reclaim.
 */

export const ReservationStatus = z.enum(['PENDING', 'PAID', 'EXPIRED', 'CANCELLED']);
export type ReservationStatus = z.infer<typeof ReservationStatus>;

/** What a buyer can do with the reservation now. */
export const ReservationAction = z.enum(['sign', 'pay', 'cancel', 'reclaim', 'confirm_receipt', 'dispute', 'withdraw_dispute']);
export type ReservationAction = z.infer<typeof ReservationAction>;

const Deposit = z.object({
  txHash: z.string().describe('The ledger transaction that created the deposit: the payment proof'),
  ledger: z.number().int(),
  balanceId: z.string().describe('The claimable balance holding the money'),
  amount: z.string(),
});

const LatePayment = Deposit.extend({ receivedAt: z.string() });

/** What became of a deposit owed back: the settlement that refunded it, or due now. */
const LateRefund = z
  .object({
    status: z
      .enum(['DUE', 'REFUNDED'])
      .describe(
        'DUE: owed back now; the organiser’s next settlement refunds it, and one can be prepared at once, even while the pool is open (docs/escrow.md); failing that, the buyer reclaims it alone from `reclaimAfter`. REFUNDED: a settlement paid it back',
      ),
    txHash: z.string().nullable().describe('The settlement transaction that paid it back'),
    refundedAt: z.string().nullable(),
  })
  .describe('LateRefund');

/** The reservation's pick-up point as the buyer must act on it (docs/relais.md). */
export const ReservationPickupPoint = z
  .object({
    id: z.string(),
    status: z.enum(['ok', 'unavailable']).describe('`unavailable`: the point can no longer take the pool’s parcels'),
    reason: UnavailableReason.nullable().describe('Why it is unavailable; null when ok'),
    action: z
      .enum(['choose_again'])
      .nullable()
      .describe('`choose_again`: the reservation holds and its point is unavailable: POST …/reservations/{reservationId}/pickup-point with another available point of the pool'),
  })
  .describe('ReservationPickupPoint');

export const ReservationSchema = z
  .object({
    id: z.string().uuid(),
    poolId: z.string().uuid(),
    buyerId: z.string().uuid(),
    buyerName: z.string(),
    status: ReservationStatus.describe('PENDING holds the units until `expiresAt`; a stale PENDING reads as EXPIRED'),
    lines: z.array(z.object({ unitId: z.string(), quantity: z.number().int(), unitPrice: z.string() })),
    pledge: z.string().nullable(),
    amount: z.string().describe('What the buyer pays into escrow, decimal string: the goods (lines or pledge) plus `depositFee`'),
    depositFee: z
      .string()
      .describe('The tenant’s escrow-deposit fee included in `amount` ("0.00" when none): the platform’s when the deposit is released, the buyer’s again when it is refunded'),
    currency: z.literal('EUR'),
    relaisId: z.string().nullable(),
    pickupPoint: ReservationPickupPoint.nullable().describe('The chosen pick-up point and whether it still takes the parcel; null when the pool has none'),
    placedAt: z.string(),
    expiresAt: z.string(),
    terms: z.object({ version: z.string(), hash: z.string() }).nullable().describe('The terms accepted at signing'),
    escrowAccount: z.string().nullable(),
    reclaimAfter: z.string().nullable().describe('From this time the buyer alone can reclaim an unreleased deposit'),
    payment: Deposit.extend({ paidAt: z.string(), via: z.enum(['txHash', 'signedXdr']) }).nullable(),
    latePayments: z
      .array(LatePayment.extend({ refund: LateRefund }))
      .describe('Deposits that came when the reservation no longer held (too late, cancelled, a second one, or its units taken by others since it expired): owed back'),
    endedAt: z.string().nullable(),
    acceptance: ReservationAcceptance.nullable().describe('Receipt confirmed by the buyer, or accepted when the inspection period passed: the deposit may be released'),
    dispute: ReservationDispute.nullable(),
    settlements: z.array(ReservationSettlement).describe('What each settled round did with the reservation\'s deposit and late deposits, in order'),
    actions: z
      .array(ReservationAction)
      .describe(
        '`confirm_receipt`, `dispute` and `withdraw_dispute` follow the pool (a successful pool released on receipt, a deposit still in escrow, a dispute only before the inspection period ends)',
      ),
  })
  .describe('Reservation');
export type ReservationView = z.infer<typeof ReservationSchema>;

/** The facts a reservation view is rendered from: the domain's folded reservation and the read model's row alike. */
export interface ReservationFacts extends ReservationEscrowFacts {
  id: string;
  poolId: string;
  buyerId: string;
  buyerName: string;
  status: ReservationStatus;
  lines: Array<{ unitId: string; quantity: number; unitPrice: string }>;
  pledge: string | null;
  amount: string;
  depositFee: string;
  relaisId: string | null;
  /** Why its point can no longer take the pool's parcels (PickupPointUnavailable); absent or null: it can. */
  pickupPointUnavailable?: { reason: UnavailableReason } | null;
  placedAt: string;
  expiresAt: string;
  /** `source`: the buyer's account the deposit comes from (where a reclaim is signed); never shown in the view. */
  signed: { terms: { version: string; hash: string }; escrowAccount: string; reclaimAfter: string; source?: string } | null;
  payment: ReservationView['payment'];
  latePayments: Array<z.infer<typeof LatePayment>>;
  endedAt: string | null;
}

/**
 * Lazy expiry on read (contract rule 5): a PENDING reservation past its expiry is shown EXPIRED, whether or not
 * its ReservationExpired has been recorded yet.
 */
export const effectiveStatus = (r: Pick<ReservationFacts, 'status' | 'expiresAt'>, now: Date): ReservationStatus =>
  r.status === 'PENDING' && Date.parse(r.expiresAt) <= now.getTime() ? 'EXPIRED' : r.status;

/**
 * The buyer's actions at `now`. The escrow's (receipt, dispute) depend on the pool: they are computed only when its
 * facts are given. A deposit a settlement claimed is no longer there to reclaim.
 */
export const actionsOf = (r: ReservationFacts, now: Date, pool?: ReservationPoolFacts): ReservationAction[] => {
  const status = effectiveStatus(r, now);
  const reclaimable = (at: string | null) => at !== null && Date.parse(at) <= now.getTime();
  const paidInEscrow = status === 'PAID' && !(r.payment && isSettledBalance(r, r.payment.balanceId));
  const owedBack = r.latePayments.some((l) => !isSettledBalance(r, l.balanceId)) || (paidInEscrow && reclaimable(r.signed?.reclaimAfter ?? null));
  const actions: ReservationAction[] = [];
  if (status === 'PENDING') actions.push(r.signed ? 'pay' : 'sign', 'cancel');
  if (owedBack && reclaimable(r.signed?.reclaimAfter ?? null)) actions.push('reclaim');
  if (pool) actions.push(...escrowActionsOf(r, pool, now));
  return actions;
};

const disputeView = (d: ReservationDispute): ReservationDispute => ({
  disputeId: d.disputeId,
  status: d.status,
  reason: d.reason,
  details: d.details,
  evidence: [...d.evidence],
  amount: d.amount,
  respondBy: d.respondBy,
  lapsesAt: d.lapsesAt,
  refund: d.refund,
  openedAt: d.openedAt,
  resolvedAt: d.resolvedAt,
});

/** Pools whose buyers may still move their parcel to another point (ChangePickupPoint). */
const RECHOICE_POOL_STATUSES: ReadonlySet<string> = new Set(['OPEN', 'LOCKED']);

/**
 * The reservation's point: unavailable once the pool recorded it so; the buyer is asked to choose again while the
 * reservation holds (and, when the pool is known, while it still takes a change).
 */
export const pickupPointOf = (r: ReservationFacts, now: Date, pool?: ReservationPoolFacts): z.infer<typeof ReservationPickupPoint> | null => {
  if (r.relaisId === null) return null;
  const unavailable = r.pickupPointUnavailable ?? null;
  if (!unavailable) return { id: r.relaisId, status: 'ok', reason: null, action: null };
  const status = effectiveStatus(r, now);
  const live = (status === 'PENDING' || status === 'PAID') && (!pool || RECHOICE_POOL_STATUSES.has(pool.status));
  return { id: r.relaisId, status: 'unavailable', reason: unavailable.reason, action: live ? 'choose_again' : null };
};

/** The reservation as it is served at `now`; `pool` (its status and closing) adds the escrow's actions. */
export const reservationView = (r: ReservationFacts, now: Date, pool?: ReservationPoolFacts): ReservationView => ({
  id: r.id,
  poolId: r.poolId,
  buyerId: r.buyerId,
  buyerName: r.buyerName,
  status: effectiveStatus(r, now),
  lines: r.lines.map((l) => ({ unitId: l.unitId, quantity: l.quantity, unitPrice: l.unitPrice })),
  pledge: r.pledge,
  amount: r.amount,
  depositFee: r.depositFee,
  currency: 'EUR',
  relaisId: r.relaisId,
  pickupPoint: pickupPointOf(r, now, pool),
  placedAt: r.placedAt,
  expiresAt: r.expiresAt,
  terms: r.signed?.terms ?? null,
  escrowAccount: r.signed?.escrowAccount ?? null,
  reclaimAfter: r.signed?.reclaimAfter ?? null,
  payment: r.payment,
  latePayments: r.latePayments.map((l) => {
    const refund = r.settlements.find((x) => x.balanceId === l.balanceId);
    return { ...l, refund: refund ? { status: 'REFUNDED' as const, txHash: refund.txHash, refundedAt: refund.settledAt } : { status: 'DUE' as const, txHash: null, refundedAt: null } };
  }),
  endedAt: r.endedAt,
  acceptance: r.acceptance ? { by: r.acceptance.by, at: r.acceptance.at } : null,
  dispute: r.dispute ? disputeView(r.dispute) : null,
  settlements: r.settlements.map((s) => ({
    balanceId: s.balanceId,
    kind: s.kind,
    settlementId: s.settlementId,
    path: s.path,
    released: s.released,
    refunded: s.refunded,
    txHash: s.txHash,
    settledAt: s.settledAt,
  })),
  actions: actionsOf(r, now, pool),
});
