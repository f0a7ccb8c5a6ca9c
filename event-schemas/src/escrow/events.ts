import { z } from 'zod';
import { event, type EventOf } from '../define';
import { DecimalAmount, Id, IsoDate, Percent, StellarAccountId } from '../common';
import { FeeRule } from '../fees/events';
import type { Upcaster } from '../define';

// Closing, receipt, disputes and settlement: all on the pool's stream (`pool-<id>`), so the pool's aggregate decides
// them on the same revision as every reservation (docs/escrow.md has the state tables).

const TxHash = z.string().regex(/^[0-9a-f]{64}$/);
const BalanceId = z.string().regex(/^[0-9a-f]{72}$/);
/** A bigint as a decimal string (a ledger sequence number does not fit a JSON number). */
const BigIntString = z.string().regex(/^\d{1,20}$/);

/** What releases a successful pool's funds: its closing, or each buyer's receipt (confirmed, or the inspection period passed). */
export const ReleaseAfter = z.enum(['CLOSE', 'RECEIPT']);
export type ReleaseAfter = z.infer<typeof ReleaseAfter>;

/** The pool's release terms as they stood when it closed (from `config.release` and the tenant's defaults). */
export const ReleaseTerms = z
  .object({
    after: ReleaseAfter,
    /** Days a buyer has, from delivery, to confirm receipt or dispute before the reservation is accepted on its own. */
    inspectionDays: z.number().int().min(1).max(60),
    /** Days the organiser has to answer a dispute (refund or contest); a contested dispute lapses as long after the contest. */
    disputeResponseDays: z.number().int().min(1).max(60),
  })
  .strict();
export type ReleaseTerms = z.infer<typeof ReleaseTerms>;

/** The fee rates a settlement applies, frozen at closing (PoolClosed v1). */
export const SettlementFeesV1 = z
  .object({
    platformFeePercent: Percent,
    /** Of a brokered pool (seller ≠ organiser) only; null otherwise. */
    organiserCommissionPercent: Percent.nullable(),
  })
  .strict();
/** VAT withheld on a fee at settlement: the category and rate its invoice carries (docs/fees.md#vat). */
export const FrozenVat = z.object({ category: z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O']), rate: Percent }).strict();

/**
 * PoolClosed v2: adds the tenant's payment fee rule (percent, fixed, min, cap) and the VAT rates on the fee and the
 * commission, as they stood at closing. Both are optional in the schema: absent reads as v1 did (the rule
 * `{percent: platformFeePercent, fixed 0, min 0, cap null}`, no VAT withheld); the upcaster of v1 writes them so.
 */
export const SettlementFees = SettlementFeesV1.extend({
  platformFee: FeeRule.optional(),
  vat: z.object({ platformFee: FrozenVat, commission: FrozenVat.nullable() }).strict().nullable().optional(),
}).strict();
export type SettlementFees = z.infer<typeof SettlementFees>;

/** Version 1 of PoolClosed (published; read through the upcaster below). */
/**
 * The pool closed: at its deadline (the delayed job) or early by its organiser once the minimum was reached. GROUPS
 * below `minimumUnits` paid units and FUNDING below `targetAmount` paid fail; the others succeed. Reservations still
 * PENDING were expired just before (their own events). Final unit prices are the tiers reached by PAID units.
 */
export const PoolClosedV1 = event(
  'PoolClosed',
  1,
  z
    .object({
      poolId: Id,
      outcome: z.enum(['SUCCEEDED', 'FAILED']),
      reason: z.enum(['DEADLINE', 'ORGANISER']),
      paidUnits: z.number().int().min(0),
      paidAmount: DecimalAmount,
      finalPrices: z.array(z.object({ unitId: z.string().min(1).max(64), price: DecimalAmount }).strict()).max(200),
      fees: SettlementFeesV1,
      release: ReleaseTerms,
      closedAt: IsoDate,
    })
    .strict(),
);

/**
 * The pool closed: at its deadline (the delayed job) or early by its organiser once the minimum was reached. GROUPS
 * below `minimumUnits` paid units and FUNDING below `targetAmount` paid fail; the others succeed. Reservations still
 * PENDING were expired just before (their own events). Final unit prices are the tiers reached by PAID units.
 */
export const PoolClosed = event(
  'PoolClosed',
  2,
  z
    .object({
      poolId: Id,
      outcome: z.enum(['SUCCEEDED', 'FAILED']),
      reason: z.enum(['DEADLINE', 'ORGANISER']),
      paidUnits: z.number().int().min(0),
      paidAmount: DecimalAmount,
      finalPrices: z.array(z.object({ unitId: z.string().min(1).max(64), price: DecimalAmount }).strict()).max(200),
      fees: SettlementFees,
      release: ReleaseTerms,
      closedAt: IsoDate,
    })
    .strict(),
);

/** The organiser withdrew the pool (DRAFT or OPEN): no more reservations; every paid buyer is owed their deposit back. */
export const PoolCancelled = event('PoolCancelled', 1, z.object({ poolId: Id, reason: z.string().max(500).nullable(), cancelledAt: IsoDate }).strict());

/** The organiser handed the goods over (or made them ready for pick-up): each buyer's inspection period starts. */
export const PoolDelivered = event(
  'PoolDelivered',
  1,
  z.object({ poolId: Id, note: z.string().max(1000).nullable(), inspectionEndsAt: IsoDate, deliveredAt: IsoDate }).strict(),
);

export const ReservationReceiptConfirmed = event(
  'ReservationReceiptConfirmed',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, confirmedAt: IsoDate }).strict(),
);

/** The inspection period passed without a receipt or a dispute: the reservation is accepted (Escrow.com's auto-accept). */
export const ReservationAutoAccepted = event(
  'ReservationAutoAccepted',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, inspectionEndedAt: IsoDate, acceptedAt: IsoDate }).strict(),
);

export const DisputeReason = z.enum(['NOT_RECEIVED', 'NOT_AS_DESCRIBED', 'DAMAGED', 'OTHER']);
export type DisputeReason = z.infer<typeof DisputeReason>;

/** A buyer disputes a paid reservation within its inspection period: its release is held until the dispute ends. */
export const DisputeOpened = event(
  'DisputeOpened',
  1,
  z
    .object({
      poolId: Id,
      reservationId: Id,
      disputeId: Id,
      buyerId: Id,
      reason: DisputeReason,
      details: z.string().max(2000),
      evidence: z.array(z.string().url().max(2000)).max(10),
      /** What the dispute holds: the reservation's due amount (its deposit less any tier difference). */
      amount: DecimalAmount,
      /** The organiser answers by then, or the dispute lapses to the buyer. */
      respondBy: IsoDate,
      openedAt: IsoDate,
    })
    .strict(),
);

/** The organiser contests: the buyer may withdraw until `lapsesAt`; after it the dispute lapses to the buyer. */
export const DisputeContested = event(
  'DisputeContested',
  1,
  z.object({ poolId: Id, reservationId: Id, disputeId: Id, statement: z.string().min(1).max(2000), lapsesAt: IsoDate, contestedAt: IsoDate }).strict(),
);

/**
 * The dispute ended. REFUNDED: the organiser refunds `refund` (all or part of the held amount). WITHDRAWN: the buyer
 * withdrew it (refund 0). LAPSED: nobody settled it in time; the rule returns the held amount to the buyer.
 */
export const DisputeResolved = event(
  'DisputeResolved',
  1,
  z
    .object({
      poolId: Id,
      reservationId: Id,
      disputeId: Id,
      outcome: z.enum(['REFUNDED', 'WITHDRAWN', 'LAPSED']),
      refund: DecimalAmount,
      resolvedAt: IsoDate,
    })
    .strict(),
);

export const PayoutRole = z.enum(['SELLER', 'ORGANISER', 'PLATFORM', 'BUYER']);
export type PayoutRole = z.infer<typeof PayoutRole>;

/** One claimable balance a settlement claims and pays out in full: a PAID reservation's deposit, or a late one. */
export const SettlementItem = z
  .object({
    ref: z.string().min(1).max(120),
    reservationId: Id,
    kind: z.enum(['DEPOSIT', 'LATE_DEPOSIT']),
    balanceId: BalanceId,
    amount: DecimalAmount,
    /** The depositor: where the recovery sends it back. */
    refundTo: StellarAccountId,
    /** Where the release sends it; the lines sum exactly to `amount`. */
    payouts: z.array(z.object({ role: PayoutRole, destination: StellarAccountId, amount: DecimalAmount }).strict()).max(4),
  })
  .strict();
export type SettlementItem = z.infer<typeof SettlementItem>;

/** What EscrowSettlementPrepared v1 recorded (published; read through `settlementUpcasters`). */
const SettlementPreparedV1Data = z
  .object({
    poolId: Id,
    settlementId: Id,
    kind: z.enum(['RELEASE', 'REFUND']),
    escrowAccount: StellarAccountId,
    escrowSequence: BigIntString,
    /** The escrow's own stablecoin balance when the plan was made (money paid straight into it, never a deposit). */
    strayBalance: DecimalAmount,
    hadTrustline: z.boolean(),
    /** Pre-authorised signers left on the escrow by an earlier round whose twin ran (dead: their sequence is used); the first lock removes them. */
    deadPreAuthSigners: z.array(z.string().regex(/^T[A-Z2-7]{55}$/)).max(20),
    /** The escrow is merged back into the platform at the end (nothing is left to settle after it). */
    final: z.boolean(),
    releaseUntil: IsoDate,
    recoveryFrom: IsoDate,
    recoveryUntil: IsoDate,
    items: z.array(SettlementItem).max(2000),
    rounds: z
      .array(z.object({ index: z.number().int().min(0), refs: z.array(z.string()).max(100), lockHash: TxHash, releaseHash: TxHash, recoveryHash: TxHash }).strict())
      .min(1)
      .max(200),
    /** A settlement prepared earlier that never reached the ledger, replaced by this one. */
    supersedes: Id.nullable(),
    preparedAt: IsoDate,
  })
  .strict();

/** Version 1 of EscrowSettlementPrepared (published): its first lock swept `strayBalance` to the platform. */
export const EscrowSettlementPreparedV1 = event('EscrowSettlementPrepared', 1, SettlementPreparedV1Data);

/** A Horizon operation id (a TOID: ledger, transaction and operation order), as a decimal string. */
const OperationId = z.string().regex(/^\d{1,20}$/);

/** A stray payment as a settlement's first lock pays it back to its sender. */
export const StrayReturn = z.object({ operationId: OperationId, destination: StellarAccountId, amount: DecimalAmount }).strict();
export type StrayReturn = z.infer<typeof StrayReturn>;

/**
 * The organiser asked to settle what is due: the rounds of lock, release and recovery transactions (docs/escrow.md)
 * were built from these inputs. Recorded before anything is signed, so the service rebuilds the very same
 * transactions (their hashes are here) and accepts nothing else.
 *
 * v2: `strayReturns`, the stray payments (EscrowStrayPaymentRecorded, owed back) the first lock pays back to their
 * senders; they sum exactly to `strayBalance`. Null on a v1 settlement: its first lock swept `strayBalance` to the
 * platform (what the plan rebuilds to).
 */
export const EscrowSettlementPrepared = event(
  'EscrowSettlementPrepared',
  2,
  SettlementPreparedV1Data.extend({ strayReturns: z.array(StrayReturn).max(70).nullable() }).strict(),
);

/** A round applied on the ledger, verified: its release (organiser cosigned) or its recovery (after its time bound). */
export const EscrowRoundSettled = event(
  'EscrowRoundSettled',
  1,
  z
    .object({
      poolId: Id,
      settlementId: Id,
      round: z.number().int().min(0),
      path: z.enum(['RELEASE', 'RECOVERY']),
      txHash: TxHash,
      ledger: z.number().int().min(0),
      /** The escrow account was merged into the platform by this transaction. */
      merged: z.boolean(),
      settledAt: IsoDate,
    })
    .strict(),
);

/** One recipient of a settled round and what it received, on the ledger (one event per recipient). */
export const EscrowPayoutSettled = event(
  'EscrowPayoutSettled',
  1,
  z
    .object({
      poolId: Id,
      settlementId: Id,
      round: z.number().int().min(0),
      role: PayoutRole,
      destination: StellarAccountId,
      amount: DecimalAmount,
      txHash: TxHash,
      settledAt: IsoDate,
    })
    .strict(),
);

/** What a settled round did with one reservation's deposit (or late deposit): released and refunded parts. */
export const ReservationSettled = event(
  'ReservationSettled',
  1,
  z
    .object({
      poolId: Id,
      reservationId: Id,
      buyerId: Id,
      settlementId: Id,
      kind: z.enum(['DEPOSIT', 'LATE_DEPOSIT']),
      balanceId: BalanceId,
      path: z.enum(['RELEASE', 'RECOVERY']),
      /** Paid out to the seller, the organiser and the platform. */
      released: DecimalAmount,
      /** Paid back to the buyer. */
      refunded: DecimalAmount,
      txHash: TxHash,
      settledAt: IsoDate,
    })
    .strict(),
);

/** Nothing is left in escrow: the account was merged back. A successful pool is SETTLED; a failed or cancelled one keeps its status. */
export const PoolSettled = event(
  'PoolSettled',
  1,
  z.object({ poolId: Id, settlementId: Id, released: DecimalAmount, refunded: DecimalAmount, settledAt: IsoDate }).strict(),
);

/**
 * Money paid straight into the escrow account (a payment of the stablecoin, not a reservation's deposit, which is a
 * claimable balance), read from the ledger: its sender's, owed back until a settlement pays it back. One event per
 * ledger operation (`operationId`), however often it is detected.
 */
export const EscrowStrayPaymentRecorded = event(
  'EscrowStrayPaymentRecorded',
  1,
  z
    .object({
      poolId: Id,
      escrowAccount: StellarAccountId,
      /** The payment operation on the ledger (Horizon's operation id) and its transaction. */
      operationId: OperationId,
      txHash: TxHash,
      /** Who paid it: where it goes back. */
      from: StellarAccountId,
      amount: DecimalAmount,
      /** When the ledger applied it. */
      receivedAt: IsoDate,
      recordedAt: IsoDate,
    })
    .strict(),
);

/** A stray payment went back to its sender: paid by the first lock (`txHash`) of a settlement whose round is on the ledger. */
export const EscrowStrayPaymentReturned = event(
  'EscrowStrayPaymentReturned',
  1,
  z
    .object({
      poolId: Id,
      operationId: OperationId,
      to: StellarAccountId,
      amount: DecimalAmount,
      settlementId: Id,
      txHash: TxHash,
      returnedAt: IsoDate,
    })
    .strict(),
);

export const closingEvents = [PoolClosed, PoolCancelled, PoolDelivered] as const;

/** PoolClosed v1 → v2: the payment rule was the bare percentage, and no VAT was withheld. */
export const closingUpcasters: Upcaster[] = [
  {
    type: 'PoolClosed',
    fromVersion: 1,
    up: (data) => {
      const d = data as { fees?: { platformFeePercent?: string } };
      if (!d?.fees || typeof d.fees.platformFeePercent !== 'string') return data;
      return { ...d, fees: { ...d.fees, platformFee: { percent: d.fees.platformFeePercent, fixed: '0', min: '0', cap: null }, vat: null } };
    },
  },
];
export const receiptEvents = [ReservationReceiptConfirmed, ReservationAutoAccepted] as const;
export const disputeEvents = [DisputeOpened, DisputeContested, DisputeResolved] as const;
export const settlementEvents = [EscrowSettlementPrepared, EscrowRoundSettled, EscrowPayoutSettled, ReservationSettled, PoolSettled] as const;
export const strayPaymentEvents = [EscrowStrayPaymentRecorded, EscrowStrayPaymentReturned] as const;

/** EscrowSettlementPrepared v1 → v2: its first lock swept the escrow's own balance to the platform (no stray returns). */
export const settlementUpcasters: Upcaster[] = [
  { type: 'EscrowSettlementPrepared', fromVersion: 1, up: (data) => (data && typeof data === 'object' && !('strayReturns' in data) ? { ...data, strayReturns: null } : data) },
];

export type PoolClosingEvent = EventOf<(typeof closingEvents)[number]>;
export type ReceiptEvent = EventOf<(typeof receiptEvents)[number]>;
export type DisputeEvent = EventOf<(typeof disputeEvents)[number]>;
export type SettlementEvent = EventOf<(typeof settlementEvents)[number]>;
export type StrayPaymentEvent = EventOf<(typeof strayPaymentEvents)[number]>;
/** Every event of the escrow feature (closing, receipt, disputes, settlement). */
export type EscrowFeatureEvent = PoolClosingEvent | ReceiptEvent | DisputeEvent | SettlementEvent | StrayPaymentEvent;
export const escrowFeatureEvents = [...closingEvents, ...receiptEvents, ...disputeEvents, ...settlementEvents, ...strayPaymentEvents] as const;
