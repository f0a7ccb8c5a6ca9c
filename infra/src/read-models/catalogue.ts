import { z } from 'zod';
import type { ExistingMerchant, ExistingPool } from '@cagnotte/domain';
import { GroupBuy, PublicPoolConfig, publicConfigView, unitView } from '@cagnotte/read-models';

export const MerchantCard = z
  .object({
    id: z.string().uuid(),
    slug: z.string(),
    name: z.string(),
    description: z.string(),
    storefrontLinks: z.record(z.string(), z.string()),
    address: z.object({ line1: z.string().optional(), postalCode: z.string().optional(), city: z.string().optional(), country: z.string().optional() }),
    location: z.object({ lat: z.number(), lng: z.number() }).nullable(),
    categories: z.array(z.string()),
  })
  .describe('MerchantCard');
export type MerchantCard = z.infer<typeof MerchantCard>;

/** The public card of a listed pool: the GroupBuy fields anyone may see, plus units and member names only. */
export const GroupBuyCard = GroupBuy.pick({
  id: true,
  type: true,
  status: true,
  title: true,
  description: true,
  country: true,
  currency: true,
  marketplaceVisibility: true,
  organiserName: true,
  targetAmount: true,
  deadline: true,
  pickupPoints: true,
  publishedAt: true,
  createdAt: true,
})
  .extend({
    config: PublicPoolConfig.describe('Units and relais only: seller phone, notes, links and escrow are never on a card'),
    units: z.array(z.object({ id: z.string(), label: z.string(), price: z.string(), quantity: z.number().nullable().optional() })),
    members: z.array(z.object({ displayName: z.string() })).describe('Member names only'),
  })
  .describe('GroupBuyCard');
export type GroupBuyCard = z.infer<typeof GroupBuyCard>;

/** A row of `rm_merchants`, as the merchants projection writes it. */
export interface MerchantRow {
  id: string;
  tenant_id: string;
  owner_user_id: string | null;
  slug: string;
  name: string;
  status: string;
  profile: ExistingMerchant['profile'];
  created_at: Date | string;
  updated_at: Date | string;
  revision: string;
}

export const merchantFromRow = (r: MerchantRow): ExistingMerchant => ({
  status: r.status as ExistingMerchant['status'],
  id: r.id,
  tenantId: r.tenant_id,
  slug: r.slug,
  ownerUserId: r.owner_user_id,
  profile: r.profile,
  onboardedAt: new Date(r.created_at).toISOString(),
  updatedAt: new Date(r.updated_at).toISOString(),
});

/** Escapes LIKE's wildcards so that user text matches literally. */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const toMerchantCard = (m: ExistingMerchant): MerchantCard => ({
  id: m.id,
  slug: m.slug,
  name: m.profile.name,
  description: m.profile.description,
  storefrontLinks: m.profile.storefrontLinks,
  address: m.profile.address,
  location: m.profile.location,
  categories: m.profile.categories,
});

const pickupPointOf = (r: Record<string, unknown>) => {
  const s = (v: unknown) => (typeof v === 'string' ? v : null);
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : null);
  return {
    id: String(r.id),
    name: String(r.name),
    address: s(r.address),
    postalCode: s(r.postalCode),
    city: s(r.city),
    country: s(r.country),
    lat: n(r.lat),
    lng: n(r.lng),
    openingHours: s(r.openingHours),
  };
};

/** A public card, from an allowlist: never the owner-only config, the payout account or member ids. */
export const toGroupBuyCard = (p: ExistingPool, memberNames: string[]): GroupBuyCard => {
  const f = p.fields;
  const config = publicConfigView(f.config);
  return {
    id: p.id,
    type: p.type,
    status: p.status as GroupBuyCard['status'],
    title: f.title,
    description: f.description,
    country: f.country,
    currency: f.currency,
    marketplaceVisibility: f.marketplaceVisibility,
    organiserName: p.organiserName,
    targetAmount: f.targetAmount,
    deadline: f.deadline,
    config,
    units: config.units ?? [],
    pickupPoints: (p.type === 'GROUPS' ? (config.relais ?? []) : []).map(pickupPointOf),
    members: memberNames.map((displayName) => ({ displayName })),
    publishedAt: p.publishedAt,
    createdAt: p.createdAt,
  };
};

/**
 * A card as the search index stored it, picked again through the same allowlist: an index written before
 * config was closed may hold more than a card may show.
 */
export const groupBuyCardFromStored = (card: Record<string, unknown>): GroupBuyCard => {
  const config = publicConfigView(card.config);
  const nullableString = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    id: String(card.id),
    type: card.type as GroupBuyCard['type'],
    status: card.status as GroupBuyCard['status'],
    title: String(card.title),
    description: String(card.description ?? ''),
    country: String(card.country),
    currency: String(card.currency),
    marketplaceVisibility: card.marketplaceVisibility as GroupBuyCard['marketplaceVisibility'],
    organiserName: String(card.organiserName ?? ''),
    targetAmount: nullableString(card.targetAmount),
    deadline: nullableString(card.deadline),
    config,
    units: (Array.isArray(card.units) ? (card.units as Record<string, unknown>[]) : []).map(unitView),
    pickupPoints: (Array.isArray(card.pickupPoints) ? (card.pickupPoints as Record<string, unknown>[]) : []).map(pickupPointOf),
    members: (Array.isArray(card.members) ? (card.members as Record<string, unknown>[]) : []).map((m) => ({ displayName: String(m?.displayName ?? '') })),
    publishedAt: nullableString(card.publishedAt),
    createdAt: String(card.createdAt),
  };
};

/** Listed in the tenant's catalogue: GROUPS pools that are LISTED or FEATURED, published and not archived. */
export const isListedGroupBuy = (p: ExistingPool): boolean =>
  p.type === 'GROUPS' && p.status !== 'DRAFT' && p.archivedAt === null && (p.fields.marketplaceVisibility === 'LISTED' || p.fields.marketplaceVisibility === 'FEATURED');

/** Findable by search: listed group-buys, and LISTED or FEATURED FUNDING pools that are published and not archived. */
export const isSearchablePool = (p: ExistingPool): boolean =>
  p.status !== 'DRAFT' && p.archivedAt === null && (p.fields.marketplaceVisibility === 'LISTED' || p.fields.marketplaceVisibility === 'FEATURED');
