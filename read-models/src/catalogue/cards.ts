import { z } from 'zod';
import { GroupBuy, PickupPoint, PublicPoolConfig, UnitView, publicConfigView, unitView } from '../pools/view';
import type { PoolDocument } from '../pools/fold';
import type { MerchantDocument } from './fold';

/*
 * The catalogue's cards, once: the catalogue routes render read-model documents with them, the search projection
 * stores them in its listings, and the search route picks stored cards again through the same allowlist.
 */

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
  publishedAt: true,
  createdAt: true,
})
  .extend({
    config: PublicPoolConfig.describe('The public config only (units with their tiers, relais, minimum, pledge bounds, release terms): seller phone, notes, links and escrow are never on a card'),
    // A card lists where to collect; whether a point still takes parcels is on the pool itself (GET /api/pools/{id}).
    pickupPoints: z.array(PickupPoint.omit({ available: true, unavailableReason: true })),
    units: z.array(UnitView).describe('`config.units` again'),
    members: z.array(z.object({ displayName: z.string() })).describe('Member names only'),
  })
  .describe('GroupBuyCard');
export type GroupBuyCard = z.infer<typeof GroupBuyCard>;

/** Escapes LIKE's wildcards so that user text matches literally. */
export const escapeLike = (s: string): string => s.replace(/[\\%_]/g, (c) => `\\${c}`);

export const toMerchantCard = (m: MerchantDocument): MerchantCard => ({
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
export const toGroupBuyCard = (p: PoolDocument, memberNames: string[]): GroupBuyCard => {
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
