import type { PoolDocument } from '../pools/fold';
import { isSearchable, type VisibilityFacts } from '../pools/visibility';
import { toGroupBuyCard, toMerchantCard } from '../catalogue/cards';
import type { MerchantDocument } from '../catalogue/fold';

/**
 * What a listing of the search index is built from, before its embedding: the search adapters' ListingDoc
 * (infra/src/search/port.ts) without `embedding`, stated here so the read model needs no adapter type.
 */
export interface ListingDraft {
  /** `${kind}:${refId}` */
  id: string;
  tenantId: string;
  kind: 'merchant' | 'pool';
  refId: string;
  title: string;
  text: string;
  featured: boolean;
  popularity: number;
  createdAt: string;
  location: { lat: number; lng: number } | null;
  postalCode: string | null;
  /** The card served to clients (MerchantCard or GroupBuyCard), already redacted. */
  card: Record<string, unknown>;
  version: number;
}

/** What the visibility rules read of a pool document. */
export const visibilityFactsOfPool = (p: PoolDocument): VisibilityFacts => ({
  type: p.type,
  status: p.status,
  marketplaceVisibility: p.fields.marketplaceVisibility,
  archived: p.archivedAt !== null,
});

/**
 * An ACTIVE merchant is findable; any other status is not. Its popularity is the buyers holding units in the pools it
 * sells in (see merchantPopularity), as the search projection counts them.
 */
export const merchantListing = (m: MerchantDocument, version: bigint, popularity = 0): ListingDraft | null =>
  m.status !== 'ACTIVE'
    ? null
    : {
        id: `merchant:${m.id}`,
        tenantId: m.tenantId,
        kind: 'merchant',
        refId: m.id,
        title: m.profile.name,
        text: [m.profile.description, m.profile.categories.join(' '), m.profile.address.city, m.profile.address.postalCode].filter(Boolean).join(' '),
        featured: false,
        popularity,
        createdAt: m.onboardedAt,
        location: m.profile.location,
        postalCode: m.profile.address.postalCode ?? null,
        card: toMerchantCard(m),
        version: Number(version),
      };

/**
 * A pool the visibility rule `isSearchable` admits is findable. Popularity counts its members: the organiser and
 * the `buyers` holding units (a PENDING or PAID reservation, counted by the caller); FEATURED is its own signal.
 * Location: its first pick-up point with coordinates.
 */
export const poolListing = (p: PoolDocument, version: bigint, buyers = 0): ListingDraft | null => {
  if (!isSearchable(visibilityFactsOfPool(p))) return null;
  const relais = p.type === 'GROUPS' ? (p.fields.config.relais ?? []) : [];
  const located = relais.find((r) => r.lat !== undefined && r.lng !== undefined);
  const memberNames = [p.organiserName];
  return {
    id: `pool:${p.id}`,
    tenantId: p.tenantId,
    kind: 'pool',
    refId: p.id,
    title: p.fields.title,
    text: [
      p.fields.description,
      (p.fields.config.units ?? []).map((u) => u.label).join(' '),
      relais.map((r) => [r.name, r.city, r.postalCode].filter(Boolean).join(' ')).join(' '),
      p.organiserName,
    ]
      .filter(Boolean)
      .join(' '),
    featured: p.fields.marketplaceVisibility === 'FEATURED',
    popularity: memberNames.length + buyers,
    createdAt: p.publishedAt ?? p.createdAt,
    location: located ? { lat: located.lat!, lng: located.lng! } : null,
    postalCode: relais.find((r) => r.postalCode)?.postalCode ?? null,
    card: toGroupBuyCard(p, memberNames),
    version: Number(version),
  };
};
