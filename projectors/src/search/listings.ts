import type { ExistingMerchant, ExistingPool } from '@cagnotte/domain';
import { isSearchablePool, toGroupBuyCard, toMerchantCard, type Embedder, type ListingDoc } from '@cagnotte/infra';

/** What a listing is built from, before its embedding. */
export type ListingDraft = Omit<ListingDoc, 'embedding'>;

/** An ACTIVE merchant is findable; any other status is not. */
export const merchantListing = (m: ExistingMerchant, version: bigint): ListingDraft | null =>
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
        popularity: 0,
        createdAt: m.onboardedAt,
        location: m.profile.location,
        postalCode: m.profile.address.postalCode ?? null,
        card: toMerchantCard(m),
        version: Number(version),
      };

/**
 * A published, LISTED or FEATURED, not archived pool is findable. Popularity counts its members (the
 * organiser until reservations land); FEATURED is its own signal. Location: its first pick-up point with coordinates.
 */
export const poolListing = (p: ExistingPool, version: bigint): ListingDraft | null => {
  if (!isSearchablePool(p)) return null;
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
    popularity: memberNames.length,
    createdAt: p.publishedAt ?? p.createdAt,
    location: located ? { lat: located.lat!, lng: located.lng! } : null,
    postalCode: relais.find((r) => r.postalCode)?.postalCode ?? null,
    card: toGroupBuyCard(p, memberNames),
    version: Number(version),
  };
};

export const embedListings = async (embedder: Embedder, drafts: ListingDraft[]): Promise<ListingDoc[]> => {
  if (drafts.length === 0) return [];
  const vectors = await embedder.embed(drafts.map((d) => `${d.title} ${d.title} ${d.text}`));
  return drafts.map((d, i) => ({ ...d, embedding: vectors[i]! }));
};
