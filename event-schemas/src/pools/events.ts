import { z } from 'zod';
import { event, type EventOf, type Upcaster } from '../define';
import { CountryCode, DecimalAmount, Id, IsoDate, Percent, StellarAccountId } from '../common';

export const PoolType = z.enum(['GROUPS', 'FUNDING']);
export type PoolType = z.infer<typeof PoolType>;
/** The whole lifecycle; see docs/pool-lifecycle.md for the transitions. */
export const PoolStatus = z.enum(['DRAFT', 'OPEN', 'LOCKED', 'RELEASED', 'COMPLETED', 'FAILED', 'CANCELLED', 'SETTLED']);
export type PoolStatus = z.infer<typeof PoolStatus>;
export const MarketplaceVisibility = z.enum(['PRIVATE', 'LISTED', 'FEATURED']);
export type MarketplaceVisibility = z.infer<typeof MarketplaceVisibility>;

export const PoolUnit = z
  .object({
    id: z.string().min(1).max(64),
    label: z.string().min(1).max(200),
    price: DecimalAmount,
    /** The stock: at no time do held and paid units exceed it. Null or absent: no limit. */
    quantity: z.number().int().min(1).max(1_000_000).nullable().optional(),
    /** Per buyer, across their holding reservations of this unit. */
    minPerBuyer: z.number().int().min(1).max(1_000_000).optional(),
    maxPerBuyer: z.number().int().min(1).max(1_000_000).optional(),
    /** The group-buy discount: from `minQuantity` units held or paid in all (this reservation's included), the unit costs `price`. */
    tiers: z
      .array(z.object({ minQuantity: z.number().int().min(2).max(1_000_000), price: DecimalAmount }).strict())
      .max(10)
      .optional(),
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
 * Public escrow data of a pool: the escrow account on the ledger, nothing else. Secret keys are never
 * part of a pool (the escrow is non-custodial: signers hold their own keys).
 */
export const PoolEscrow = z
  .object({ accountId: StellarAccountId.describe('The escrow account (public key, G…)') })
  .strict()
  .describe('PoolEscrow');
export type PoolEscrow = z.infer<typeof PoolEscrow>;

/**
 * Pool configuration: a closed set of keys, each validated; an unknown key is refused.
 * `units` and `relais` are public; `sellerPhone`, `notes`, `links` and `escrow` are shown to the owner only.
 */
export const PoolConfig = z
  .object({
    units: z.array(PoolUnit).max(200).optional(),
    relais: z.array(RelaisPoint).max(500).optional(),
    /**
     * GROUPS: the weight of one buyer's parcel, in grams. Every directory point of `relais` must take it
     * (`maxWeightG`); a shipment's weight defaults to it times its parcels.
     */
    parcelWeightG: z.number().int().min(1).max(1_000_000).optional(),
    sellerPhone: z.string().max(40).optional(),
    notes: z.string().max(5000).optional(),
    links: z.array(z.string().url().max(2000)).max(50).optional(),
    escrow: PoolEscrow.optional(),
    /** GROUPS: the units held in all below which the pool fails at its deadline. */
    minimumUnits: z.number().int().min(1).max(1_000_000_000).optional(),
    /** FUNDING: the bounds of a free pledge. */
    pledge: z.object({ min: DecimalAmount.optional(), max: DecimalAmount.optional() }).strict().optional(),
    /**
     * The release terms: what releases a successful pool's funds. `RECEIPT` (the default for GROUPS): each buyer
     * confirms receipt, or the inspection period (`inspectionDays` from delivery, else the tenant's default) passes.
     * `CLOSE` (the default for FUNDING): at closing.
     */
    release: z
      .object({ after: z.enum(['CLOSE', 'RECEIPT']), inspectionDays: z.number().int().min(1).max(60).optional() })
      .strict()
      .optional(),
  })
  .strict()
  .describe('PoolConfig');
export type PoolConfig = z.infer<typeof PoolConfig>;

/** The keys `PoolConfig` holds: what the version-1 upcasters keep of an old free-form config. */
const POOL_CONFIG_KEYS = ['units', 'relais', 'sellerPhone', 'notes', 'links'] as const;

/**
 * Version 1 of PoolCreated and PoolDraftUpdated kept unknown config keys and a free-form `escrow` record
 * (secrets included). Reading them, only the known keys survive, and of `escrow` only a valid account id.
 */
export const upcastPoolConfigV1 = (config: unknown): unknown => {
  if (config === null || typeof config !== 'object' || Array.isArray(config)) return config;
  const old = config as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const k of POOL_CONFIG_KEYS) if (old[k] !== undefined) out[k] = old[k];
  const escrow = old.escrow as Record<string, unknown> | undefined;
  const accountId = escrow && typeof escrow === 'object' ? StellarAccountId.safeParse(escrow.accountId) : null;
  if (accountId?.success) out.escrow = { accountId: accountId.data };
  return out;
};

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

/**
 * Version 4: `livemode`, the mode of the API key (or, with a session, of the deployment) that created the pool: a
 * /v1 read or write in the other mode finds nothing. Absent on pools created before it (version 3 data is valid
 * version 4): the readers take the deployment's mode for them. Version 3: `config.release` (version 2 data is valid
 * version 3). Version 2: `config` is closed (see `upcastPoolConfigV1` for version 1).
 */
export const PoolCreated = event(
  'PoolCreated',
  4,
  PoolDraftFields.extend({
    poolId: Id,
    tenantId: Id,
    type: PoolType,
    organiserId: Id,
    organiserName: z.string().max(200),
    createdAt: IsoDate,
    livemode: z.boolean().optional(),
  }).strict(),
);

/** Version 3: `config.release`. Version 2: `changes.config` is closed (see `upcastPoolConfigV1` for version 1). */
export const PoolDraftUpdated = event(
  'PoolDraftUpdated',
  3,
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

/** The pool's own lifecycle events (a pool stream also holds its reservations, escrow and listing: see ./stream). */
export type PoolLifecycleEvent = EventOf<(typeof poolEvents)[number]>;

const withConfig = (data: unknown, at: (d: Record<string, unknown>) => Record<string, unknown> | undefined): unknown => {
  if (data === null || typeof data !== 'object') return data;
  const copy = structuredClone(data) as Record<string, unknown>;
  const holder = at(copy);
  if (holder && 'config' in holder) holder.config = upcastPoolConfigV1(holder.config);
  return copy;
};

/** Versions 3 and 4 only add an optional key: version 2 and 3 data read as is. */
const unchanged = (data: unknown): unknown => data;

export const poolUpcasters: Upcaster[] = [
  { type: 'PoolCreated', fromVersion: 1, up: (data) => withConfig(data, (d) => d) },
  { type: 'PoolCreated', fromVersion: 2, up: unchanged },
  { type: 'PoolCreated', fromVersion: 3, up: unchanged },
  { type: 'PoolDraftUpdated', fromVersion: 2, up: unchanged },
  {
    type: 'PoolDraftUpdated',
    fromVersion: 1,
    up: (data) => withConfig(data, (d) => (d.changes && typeof d.changes === 'object' ? (d.changes as Record<string, unknown>) : undefined)),
  },
];
