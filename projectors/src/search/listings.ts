import type { Embedder, ListingDoc } from '@cagnotte/infra';
import type { ListingDraft } from '@cagnotte/read-models';

/** Listings are built by the search read model (read-models/src/search/listings.ts); here they get their embeddings. */
export const embedListings = async (embedder: Embedder, drafts: ListingDraft[]): Promise<ListingDoc[]> => {
  if (drafts.length === 0) return [];
  const vectors = await embedder.embed(drafts.map((d) => `${d.title} ${d.title} ${d.text}`));
  return drafts.map((d, i) => ({ ...d, embedding: vectors[i]! }));
};
