import { z } from 'zod';
import { event, type EventOf, type Upcaster } from '../define';
import { DecimalAmount, Id, IsoDate, StellarAccountId } from '../common';
import { MarketplaceVisibility } from '../pools/events';

// Everything here is recorded on the pool's stream (`pool-<id>`): the pool's aggregate decides capacity, so a
// reservation, its payment and its end are decided on the same revision as every other hold on the pool.

const TxHash = z.string().regex(/^[0-9a-f]{64}$/);
const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
/** A claimable balance id as Horizon and the SDK write it: `00000000` + the hash, hex. */
const BalanceId = z.string().regex(/^[0-9a-f]{72}$/);

export const ReservationLine = z
  .object({ unitId: z.string().min(1).max(64), quantity: z.number().int().min(1).max(1_000_000), unitPrice: DecimalAmount })
  .strict();
export type ReservationLine = z.infer<typeof ReservationLine>;

/** Version 1 of ReservationPlaced (published; read through `reservationUpcasters`): no escrow-deposit fee. */
export const ReservationPlacedV1 = event(
  'ReservationPlaced',
  1,
  z
    .object({
      poolId: Id,
      reservationId: Id,
      buyerId: Id,
      buyerName: z.string().max(200),
      lines: z.array(ReservationLine).max(200),
      pledge: DecimalAmount.nullable(),
      /** What the buyer pays into escrow: Σ quantity × unitPrice, or the pledge. */
      amount: DecimalAmount,
      relaisId: z.string().min(1).max(64).nullable(),
      expiresAt: IsoDate,
      placedAt: IsoDate,
    })
    .strict(),
);

/**
 * A buyer holds units (GROUPS) or pledges an amount (FUNDING) until `expiresAt`, at a pick-up point. v2: the
 * escrow-deposit fee of the tenant's schedule (docs/fees.md) is part of what the buyer pays into escrow.
 */
export const ReservationPlaced = event(
  'ReservationPlaced',
  2,
  z
    .object({
      poolId: Id,
      reservationId: Id,
      buyerId: Id,
      buyerName: z.string().max(200),
      lines: z.array(ReservationLine).max(200),
      pledge: DecimalAmount.nullable(),
      /** What the buyer pays into escrow: the goods (Σ quantity × unitPrice, or the pledge) + `depositFee`. */
      amount: DecimalAmount,
      /**
       * The escrow-deposit fee (feeOf the tenant's escrowDeposit rule on the goods): the platform's at release, the
       * buyer's back on a refund. Always written since v2; absent reads as 0 (as the v1 upcaster writes it).
       */
      depositFee: DecimalAmount.optional(),
      relaisId: z.string().min(1).max(64).nullable(),
      expiresAt: IsoDate,
      placedAt: IsoDate,
    })
    .strict(),
);

/** ReservationPlaced v1 → v2: no deposit fee was charged. */
export const reservationUpcasters: Upcaster[] = [
  { type: 'ReservationPlaced', fromVersion: 1, up: (data) => (data && typeof data === 'object' && !('depositFee' in data) ? { ...data, depositFee: '0.00' } : data) },
];

/** The buyer accepted the pool's terms (server-authoritative text) and was handed the deposit to sign. */
export const ReservationSigned = event(
  'ReservationSigned',
  1,
  z
    .object({
      poolId: Id,
      reservationId: Id,
      buyerId: Id,
      terms: z.object({ version: z.string().min(1).max(40), hash: Sha256 }).strict(),
      /** The buyer's linked ledger account the deposit must come from. */
      source: StellarAccountId,
      escrowAccount: StellarAccountId,
      /** MEMO_HASH binding the deposit to this reservation. */
      memoHash: Sha256,
      /** From this time the buyer alone can reclaim the deposit; before it only the escrow can claim it. */
      reclaimAfter: IsoDate,
      ip: z.string().max(64).nullable(),
      signedAt: IsoDate,
    })
    .strict(),
);

const Deposit = {
  txHash: TxHash,
  ledger: z.number().int().min(0),
  balanceId: BalanceId,
  amount: DecimalAmount,
};

/** The deposit was found on the ledger, verified, while the reservation held: the units are paid for. */
export const ReservationPaid = event(
  'ReservationPaid',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, ...Deposit, via: z.enum(['txHash', 'signedXdr']), paidAt: IsoDate }).strict(),
);

/** A PENDING reservation passed its expiry unpaid: its units are free again. */
export const ReservationExpired = event(
  'ReservationExpired',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, expiresAt: IsoDate, expiredAt: IsoDate }).strict(),
);

export const ReservationCancelled = event(
  'ReservationCancelled',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, cancelledAt: IsoDate }).strict(),
);

/**
 * A verified deposit for a reservation that no longer held (expired or cancelled): never counted, never claimed by
 * the escrow, owed back to the buyer (their reclaim works from `reclaimAfter`; the escrow issue's refund is sooner).
 */
export const ReservationLatePaymentReceived = event(
  'ReservationLatePaymentReceived',
  1,
  z.object({ poolId: Id, reservationId: Id, buyerId: Id, ...Deposit, reclaimAfter: IsoDate, receivedAt: IsoDate }).strict(),
);

/** Publishing opened the pool's escrow account on the ledger (docs/escrow.md). */
export const PoolEscrowOpened = event(
  'PoolEscrowOpened',
  1,
  z
    .object({
      poolId: Id,
      accountId: StellarAccountId,
      organiserSigner: StellarAccountId,
      platformSigner: StellarAccountId,
      threshold: z.number().int().min(1).max(255),
      reclaimAfter: IsoDate,
      /** Null when the account already stood there with this layout (a retry after a crash). */
      setupTxHash: TxHash.nullable(),
      openedAt: IsoDate,
    })
    .strict(),
);

export const ListingTier = z.enum(['LISTED', 'FEATURED']);
export type ListingTier = z.infer<typeof ListingTier>;

/** The organiser asked to list the pool: the fee payment to sign, bound to this listing by its memo. */
export const PoolListingPrepared = event(
  'PoolListingPrepared',
  1,
  z
    .object({
      poolId: Id,
      listingId: Id,
      tier: ListingTier,
      amount: DecimalAmount,
      source: StellarAccountId,
      destination: StellarAccountId,
      assetCode: z.string().min(1).max(12),
      assetIssuer: StellarAccountId,
      memoHash: Sha256,
      preparedAt: IsoDate,
    })
    .strict(),
);

/** The listing fee was verified on the ledger (or the tenant's fee is zero): the pool is LISTED or FEATURED. */
export const PoolListed = event(
  'PoolListed',
  1,
  z
    .object({
      poolId: Id,
      listingId: Id,
      tier: ListingTier,
      from: MarketplaceVisibility,
      amount: DecimalAmount,
      txHash: TxHash.nullable(),
      ledger: z.number().int().min(0).nullable(),
      listedAt: IsoDate,
    })
    .strict(),
);

/** The delist refund was paid back on the ledger, from the platform to the account the fee came from. */
export const PoolListingFeeRefunded = event(
  'PoolListingFeeRefunded',
  1,
  z.object({ poolId: Id, listingId: Id, amount: DecimalAmount, destination: StellarAccountId, txHash: TxHash, refundedAt: IsoDate }).strict(),
);

export const reservationEvents = [
  ReservationPlaced,
  ReservationSigned,
  ReservationPaid,
  ReservationExpired,
  ReservationCancelled,
  ReservationLatePaymentReceived,
] as const;
export const escrowEvents = [PoolEscrowOpened] as const;
export const listingEvents = [PoolListingPrepared, PoolListed, PoolListingFeeRefunded] as const;

export type ReservationEvent = EventOf<(typeof reservationEvents)[number]>;
export type PoolEscrowEvent = EventOf<(typeof escrowEvents)[number]>;
export type PoolListingEvent = EventOf<(typeof listingEvents)[number]>;
