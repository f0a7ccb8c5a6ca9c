import { isMerchantEvent, isPoolEvent, type ParsedEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDocument } from '../pools/fold';
import { foldMerchant, type MerchantDocument } from '../catalogue/fold';
import { merchantListing, poolListing, type ListingDraft } from './listings';

/*
 * The search read model keeps its own copy of each source (rm_search_sources), folded from the source's events
 * with the pools and catalogue read models' folds, so it rebuilds alone. The stored JSON is the document itself
 * (the same keys as before the documents were their own types), the revision its own column.
 */

export const SEARCH_TABLES = { sources: 'rm_search_sources', listings: 'rm_search_listings' } as const;

export type SearchSource = { kind: 'pool'; doc: PoolDocument } | { kind: 'merchant'; doc: MerchantDocument };

export interface SearchSourceRow {
  id: string;
  tenant_id: string;
  kind: 'pool' | 'merchant';
  state: PoolDocument | MerchantDocument;
  revision: string;
}

/** The pool events that change a listing (a commission mandate does not: it is not folded, so versions stay put). */
const POOL_EVENTS = ['PoolCreated', 'PoolDraftUpdated', 'PoolPublished', 'PoolVisibilityChanged', 'PoolListed', 'PoolCountryChanged', 'PoolArchived', 'PoolUnarchived'];
const MERCHANT_EVENTS = ['MerchantOnboarded', 'MerchantProfileUpdated', 'MerchantActivated', 'MerchantSuspended'];
const HANDLED: ReadonlySet<string> = new Set([...POOL_EVENTS, ...MERCHANT_EVENTS]);

/** Whether the search read model folds this event. */
export const isSearchSourceEvent = (e: { type: string }): boolean => HANDLED.has(e.type);

/** The source an event belongs to: `merchant:<id>` or `pool:<id>`. */
export const searchSourceId = (e: ParsedEvent): string =>
  isMerchantEvent(e) ? `merchant:${e.data.merchantId}` : `pool:${(e.data as { poolId: string }).poolId}`;

export const searchSourceOfRow = (r: SearchSourceRow): { source: SearchSource; revision: bigint } => ({
  source: { kind: r.kind, doc: r.state } as SearchSource,
  revision: BigInt(r.revision),
});

/** Pure and replay-safe (the folds skip revisions already folded); null before the source's first event. */
export const foldSearchSource = (
  known: { source: SearchSource; revision: bigint } | null,
  event: ParsedEvent,
  revision: bigint,
): { source: SearchSource; revision: bigint } | null => {
  if (isMerchantEvent(event)) {
    const before = known?.source.kind === 'merchant' ? { merchant: known.source.doc, revision: known.revision } : null;
    const after = foldMerchant(before, event, revision);
    return after ? { source: { kind: 'merchant', doc: after.merchant }, revision: after.revision } : null;
  }
  if (isPoolEvent(event)) {
    const before = known?.source.kind === 'pool' ? { pool: known.source.doc, revision: known.revision } : null;
    const after = foldPool(before, event, revision);
    return after ? { source: { kind: 'pool', doc: after.pool }, revision: after.revision } : null;
  }
  return known;
};

export const searchSourceRowOf = (id: string, s: { source: SearchSource; revision: bigint }) => ({
  id,
  tenant_id: s.source.doc.tenantId,
  kind: s.source.kind,
  state: JSON.stringify(s.source.doc),
  revision: s.revision.toString(),
});

/** The listing of a source, or null when it is not findable (then the index drops it). */
export const listingOfSource = (s: { source: SearchSource; revision: bigint }): ListingDraft | null =>
  s.source.kind === 'pool' ? poolListing(s.source.doc, s.revision) : merchantListing(s.source.doc, s.revision);
