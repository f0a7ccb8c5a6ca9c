import { z } from 'zod';
import { event } from '../define';
import { DecimalAmount, Id, IsoDate, StellarAccountId } from '../common';

// Deals: escrow between named parties outside a pool (docs/v1/deals.md). Every event lives on the deal's own stream,
// `deal-<dealId>`; the escrow underneath is the pools' (docs/escrow.md), with the seller as its cosigner. Every event
// carries the deal's `livemode`, so each public event it gives is of the deal's mode (read-models/src/webhooks/principal.ts).

const TxHash = z.string().regex(/^[0-9a-f]{64}$/);
const BalanceId = z.string().regex(/^[0-9a-f]{72}$/);
const BigIntString = z.string().regex(/^\d{1,20}$/);
const PreAuthSigner = z.string().regex(/^T[A-Z2-7]{55}$/);

/** Who a line of the split pays: the seller, the broker, or any other account of the tenant. */
export const DealSplitRole = z.enum(['seller', 'broker', 'payee']);
export type DealSplitRole = z.infer<typeof DealSplitRole>;

/** When the escrow may be released (docs/v1/deals.md, "Release rules"). */
export const DealReleaseRule = z.union([z.literal('on_delivery'), z.literal('on_acceptance'), z.object({ at: IsoDate }).strict()]);
export type DealReleaseRule = z.infer<typeof DealReleaseRule>;

export const DealItem = z.object({ description: z.string().min(1).max(500), quantity: z.number().int().min(1).max(1_000_000), unitAmount: DecimalAmount }).strict();
export type DealItem = z.infer<typeof DealItem>;

/** `amount`: the line's exact share of the deal's amount (domain/src/deals/split.ts: the remainder rule), fixed at creation. */
export const DealSplitLine = z.object({ accountId: Id, role: DealSplitRole, bps: z.number().int().min(1).max(10_000), amount: DecimalAmount }).strict();
export type DealSplitLine = z.infer<typeof DealSplitLine>;

export const DealCreated = event(
  'DealCreated',
  1,
  z
    .object({
      dealId: Id,
      tenantId: Id,
      livemode: z.boolean(),
      /** Who created it: the owner of the API key (or the signed-in user). */
      createdBy: Id,
      buyerId: Id,
      sellerId: Id,
      brokerId: Id.nullable(),
      description: z.string().max(1000).nullable(),
      metadata: z.record(z.string().max(40), z.string().max(500)),
      items: z.array(DealItem).min(1).max(100),
      /** Σ quantity × unitAmount: what the buyer deposits. */
      amount: DecimalAmount,
      currency: z.literal('EUR'),
      /** Basis points summing to exactly 10,000. */
      split: z.array(DealSplitLine).min(1).max(20),
      releaseRule: DealReleaseRule,
      inspectionDays: z.number().int().min(0).max(60),
      disputeResponseDays: z.number().int().min(1).max(60),
      createdAt: IsoDate,
    })
    .strict(),
);

/** The escrow account is open on the ledger: the seller's linked account and the platform cosign it (2 of 2). */
export const DealEscrowOpened = event(
  'DealEscrowOpened',
  1,
  z
    .object({
      dealId: Id, livemode: z.boolean(),
      accountId: StellarAccountId,
      /** The seller's linked ledger account: the cosigner the escrow engine calls the organiser. */
      cosigner: StellarAccountId,
      platformSigner: StellarAccountId,
      threshold: z.number().int(),
      reclaimAfter: IsoDate,
      setupTxHash: TxHash.nullable(),
      openedAt: IsoDate,
    })
    .strict(),
);

/** The buyer's deposit, verified on the ledger (depositMismatch): a claimable balance the escrow may claim until reclaimAfter. */
export const DealFunded = event(
  'DealFunded',
  1,
  z
    .object({
      dealId: Id, livemode: z.boolean(),
      from: StellarAccountId,
      amount: DecimalAmount,
      txHash: TxHash,
      ledger: z.number().int(),
      balanceId: BalanceId,
      via: z.enum(['txHash', 'signedXdr']),
      /** When the ledger closed the deposit. */
      fundedAt: IsoDate,
    })
    .strict(),
);

export const DealDelivered = event(
  'DealDelivered',
  1,
  z.object({ dealId: Id, livemode: z.boolean(), note: z.string().max(1000).nullable(), inspectionEndsAt: IsoDate, deliveredAt: IsoDate }).strict(),
);

export const DealAccepted = event('DealAccepted', 1, z.object({ dealId: Id, livemode: z.boolean(), by: z.enum(['BUYER', 'AUTO']), acceptedAt: IsoDate }).strict());

export const DealDisputed = event(
  'DealDisputed',
  1,
  z.object({ dealId: Id, livemode: z.boolean(), disputeId: Id, reason: z.string().min(1).max(2000), respondBy: IsoDate, disputedAt: IsoDate }).strict(),
);

/** A dispute ended without a refund decided on the ledger: the buyer withdrew it (they accept the goods). */
export const DealDisputeWithdrawn = event('DealDisputeWithdrawn', 1, z.object({ dealId: Id, livemode: z.boolean(), disputeId: Id, withdrawnAt: IsoDate }).strict());

export const DealPayout = z.object({ role: z.enum(['seller', 'broker', 'payee', 'buyer', 'platform']), accountId: Id.nullable(), destination: StellarAccountId, amount: DecimalAmount }).strict();
export type DealPayout = z.infer<typeof DealPayout>;

/**
 * A release or refund of the escrow was planned: the lock, release and recovery (infra/src/ledger/settlement.ts,
 * one round, final) are rebuilt from these inputs, and only transactions with these hashes are accepted.
 */
export const DealSettlementPrepared = event(
  'DealSettlementPrepared',
  1,
  z
    .object({
      dealId: Id, livemode: z.boolean(),
      settlementId: Id,
      kind: z.enum(['RELEASE', 'REFUND']),
      escrowAccount: StellarAccountId,
      escrowSequence: BigIntString,
      hadTrustline: z.boolean(),
      deadPreAuthSigners: z.array(PreAuthSigner).max(20),
      balanceId: BalanceId,
      amount: DecimalAmount,
      /** Where the keyless recovery sends the deposit back: the account it came from. */
      refundTo: StellarAccountId,
      /** What the release pays; sums exactly to `amount`. */
      payouts: z.array(DealPayout).min(1).max(21),
      releaseUntil: IsoDate,
      recoveryFrom: IsoDate,
      recoveryUntil: IsoDate,
      lockHash: TxHash,
      releaseHash: TxHash,
      recoveryHash: TxHash,
      preparedAt: IsoDate,
    })
    .strict(),
);

/** The release of a RELEASE settlement is on the ledger: the split was paid and the escrow merged back. */
export const DealReleased = event(
  'DealReleased',
  1,
  z.object({ dealId: Id, livemode: z.boolean(), settlementId: Id, txHash: TxHash, ledger: z.number().int(), payouts: z.array(DealPayout).min(1).max(21), releasedAt: IsoDate }).strict(),
);

/** Everything went back to the buyer: a REFUND settlement's release, or any settlement's keyless recovery. */
export const DealRefunded = event(
  'DealRefunded',
  1,
  z
    .object({
      dealId: Id, livemode: z.boolean(),
      settlementId: Id,
      path: z.enum(['RELEASE', 'RECOVERY']),
      txHash: TxHash,
      ledger: z.number().int(),
      destination: StellarAccountId,
      amount: DecimalAmount,
      refundedAt: IsoDate,
    })
    .strict(),
);

export const DealCancelled = event('DealCancelled', 1, z.object({ dealId: Id, livemode: z.boolean(), reason: z.string().max(500).nullable(), cancelledAt: IsoDate }).strict());

export const dealEvents = [
  DealCreated,
  DealEscrowOpened,
  DealFunded,
  DealDelivered,
  DealAccepted,
  DealDisputed,
  DealDisputeWithdrawn,
  DealSettlementPrepared,
  DealReleased,
  DealRefunded,
  DealCancelled,
] as const;

export const DEAL_EVENT_TYPES: ReadonlySet<string> = new Set(dealEvents.map((d) => d.type));
