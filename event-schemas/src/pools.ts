import { z } from 'zod';
import { event } from './define';
import { CountryCode, DecimalAmount, Id, IsoDate, Percent, StellarAccountId } from './common';

export const PoolType = z.enum(['GROUPS', 'FUNDING']);
export type PoolType = z.infer<typeof PoolType>;
/** The whole lifecycle; see docs/pool-lifecycle.md for the transitions. */
export const PoolStatus = z.enum(['DRAFT', 'OPEN', 'LOCKED', 'RELEASED', 'COMPLETED', 'FAILED', 'CANCELLED']);
export type PoolStatus = z.infer<typeof PoolStatus>;
export const MarketplaceVisibility = z.enum(['PRIVATE', 'LISTED', 'FEATURED']);
export type MarketplaceVisibility = z.infer<typeof MarketplaceVisibility>;

export const PoolUnit = z
  .object({
    id: z.string().min(1).max(64),
    label: z.string().min(1).max(200),
    price: DecimalAmount,
    quantity: z.number().int().min(1).max(1_000_000).nullable().optional(),
  })
  .strict();
export type PoolUnit = z.infer<typeof PoolUnit>;

export const RelaisPoint = z
  .object({
    id: z.string().min(1).max(64),
    name: z.string().min(1).max(200),
    address: z.string().max(300).optional(),
    postalCode: z.string().max(16).optional(),
    city: z.string().max(120).optional(),
    country: CountryCode.optional(),
    lat: z.number().min(-90).max(90).optional(),
    lng: z.number().min(-180).max(180).optional(),
    openingHours: z.string().max(500).optional(),
  })
  .strict();
export type RelaisPoint = z.infer<typeof RelaisPoint>;

/**
 * Free-form pool configuration. Known keys are validated; unknown keys are kept for partners.
 * `sellerPhone`, `notes`, `links` and `escrow` are private to the owner; `escrow` secrets are never served.
 */
export const PoolConfig = z.looseObject({
  units: z.array(PoolUnit).max(200).optional(),
  relais: z.array(RelaisPoint).max(500).optional(),
  sellerPhone: z.string().max(40).optional(),
  notes: z.string().max(5000).optional(),
  links: z.array(z.string().url().max(2000)).max(50).optional(),
  escrow: z.record(z.string(), z.unknown()).optional(),
});
export type PoolConfig = z.infer<typeof PoolConfig>;

/** Fields that can change while DRAFT (all of them) — the money spine among them. */
export const PoolDraftFields = z
  .object({
    title: z.string().min(1).max(200),
    description: z.string().max(10_000),
    country: CountryCode,
    currency: z.literal('EUR'),
    marketplaceVisibility: MarketplaceVisibility,
    config: PoolConfig,
    sellerId: Id.nullable(),
    payoutAccount: StellarAccountId.nullable(),
    organiserCommissionPercent: Percent.nullable(),
    targetAmount: DecimalAmount.nullable(),
    deadline: IsoDate.nullable(),
  })
  .strict();
export type PoolDraftFields = z.infer<typeof PoolDraftFields>;

export const PoolCreated = event(
  'PoolCreated',
  1,
  PoolDraftFields.extend({
    poolId: Id,
    tenantId: Id,
    type: PoolType,
    organiserId: Id,
    organiserName: z.string().max(200),
    createdAt: IsoDate,
  }).strict(),
);

export const PoolDraftUpdated = event(
  'PoolDraftUpdated',
  1,
  z.object({ poolId: Id, changes: PoolDraftFields.partial(), updatedAt: IsoDate }).strict(),
);

export const PoolPublished = event('PoolPublished', 1, z.object({ poolId: Id, publishedAt: IsoDate }).strict());

export const ListingRefund = z.object({ amount: DecimalAmount, source: z.string().min(1).max(64) }).strict();
export type ListingRefund = z.infer<typeof ListingRefund>;

export const PoolVisibilityChanged = event(
  'PoolVisibilityChanged',
  1,
  z
    .object({
      poolId: Id,
      from: MarketplaceVisibility,
      to: MarketplaceVisibility,
      refund: ListingRefund.nullable(),
      changedAt: IsoDate,
    })
    .strict(),
);

export const PoolCountryChanged = event(
  'PoolCountryChanged',
  1,
  z.object({ poolId: Id, from: CountryCode, to: CountryCode, changedAt: IsoDate }).strict(),
);

export const PoolArchived = event('PoolArchived', 1, z.object({ poolId: Id, archivedAt: IsoDate }).strict());
export const PoolUnarchived = event('PoolUnarchived', 1, z.object({ poolId: Id, unarchivedAt: IsoDate }).strict());

export const MandateKind = z.enum(['FEE', 'COMMISSION', 'RELAIS']);
export type MandateKind = z.infer<typeof MandateKind>;

/** Recorded on the pool's stream when its organiser accepts the COMMISSION mandate for a brokered paid pool. */
export const PoolCommissionMandateAccepted = event(
  'PoolCommissionMandateAccepted',
  1,
  z
    .object({
      poolId: Id,
      userId: Id,
      kind: z.literal('COMMISSION'),
      version: z.string().min(1),
      hash: z.string().regex(/^[0-9a-f]{64}$/),
      acceptedAt: IsoDate,
      ip: z.string().max(64).nullable(),
    })
    .strict(),
);

export const poolEvents = [
  PoolCreated,
  PoolDraftUpdated,
  PoolPublished,
  PoolVisibilityChanged,
  PoolCountryChanged,
  PoolArchived,
  PoolUnarchived,
  PoolCommissionMandateAccepted,
] as const;
