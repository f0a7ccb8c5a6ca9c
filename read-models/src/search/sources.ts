import { isMerchantEvent, isPoolEvent, type ParsedEvent, type ReservationEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDocument } from '../pools/fold';
import { foldMerchant, type MerchantDocument } from '../catalogue/fold';
import { merchantListing, poolListing, type ListingDraft } from './listings';

/*
 * The search read model keeps its own copy of each source (rm_search_sources), folded from the source's events
 * with the pools and catalogue read models' folds, so it rebuilds alone. The stored JSON is the document itself
 * (the same keys as before the documents were their own types), the revision its own column.
 */

export const SEARCH_TABLES = { sources: 'rm_search_sources', listings: 'rm_search_listings' } as const;

/**
 * A pool source also keeps who holds units in it, folded from its reservation events: reservation id → buyer id of
 * every reservation recorded PENDING or PAID (the search projection has no clock: a stale PENDING counts until its
 * ReservationExpired is recorded by the expiry job). It makes the pool's popularity.
 */
export type PoolHolders = Record<string, string>;
export type SearchSource = { kind: 'pool'; doc: PoolDocument; holders?: PoolHolders } | { kind: 'merchant'; doc: MerchantDocument };

export interface SearchSourceRow {
  id: string;
  tenant_id: string;
  kind: 'pool' | 'merchant';
  state: PoolDocument | MerchantDocument;
  /** Pools: PoolHolders (migration 017); `{}` for merchants and rows written before it. */
  holders?: PoolHolders | null;
  revision: string;
}

/** The pool events that change a listing (a commission mandate does not: it is not folded, so versions stay put). */
const POOL_EVENTS = [
  'PoolCreated',
  'PoolDraftUpdated',
  'PoolPublished',
  'PoolVisibilityChanged',
  'PoolListed',
  'PoolCountryChanged',
  'PoolArchived',
  'PoolUnarchived',
  // The status a card shows follows the pool's end (closed, cancelled, settled).
  'PoolClosed',
  'PoolCancelled',
  'PoolSettled',
];
/** The reservation events that start or end a hold (signing and late payments change no holder). */
const RESERVATION_EVENTS: Array<ReservationEvent['type']> = ['ReservationPlaced', 'ReservationPaid', 'ReservationExpired', 'ReservationCancelled'];
const MERCHANT_EVENTS = ['MerchantOnboarded', 'MerchantProfileUpdated', 'MerchantActivated', 'MerchantSuspended'];
const HANDLED: ReadonlySet<string> = new Set([...POOL_EVENTS, ...RESERVATION_EVENTS, ...MERCHANT_EVENTS]);

/** Whether the search read model folds this event. */
export const isSearchSourceEvent = (e: { type: string }): boolean => HANDLED.has(e.type);

/** The source an event belongs to: `merchant:<id>` or `pool:<id>`. */
export const searchSourceId = (e: ParsedEvent): string =>
  isMerchantEvent(e) ? `merchant:${e.data.merchantId}` : `pool:${(e.data as { poolId: string }).poolId}`;

export const searchSourceOfRow = (r: SearchSourceRow): { source: SearchSource; revision: bigint } => ({
  source: (r.kind === 'pool' ? { kind: 'pool', doc: r.state, holders: r.holders ?? {} } : { kind: r.kind, doc: r.state }) as SearchSource,
  revision: BigInt(r.revision),
});

const isHoldEvent = (e: { type: string }): e is ReservationEvent => (RESERVATION_EVENTS as string[]).includes(e.type);

/** Holders after a reservation event: placed and paid hold; expired and cancelled no longer do. */
const nextHolders = (holders: PoolHolders, e: ReservationEvent): PoolHolders => {
  const { reservationId, buyerId } = e.data;
  if (e.type === 'ReservationPlaced' || e.type === 'ReservationPaid') return { ...holders, [reservationId]: buyerId };
  if (e.type === 'ReservationExpired' || e.type === 'ReservationCancelled') {
    const { [reservationId]: _gone, ...rest } = holders;
    return rest;
  }
  return holders;
};

/** The pool's buyers holding units (each once), its organiser aside. */
export const holdingBuyers = (holders: PoolHolders | undefined, organiserId: string): number =>
  new Set(Object.values(holders ?? {}).filter((b) => b !== organiserId)).size;

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
    const holders = known?.source.kind === 'pool' ? (known.source.holders ?? {}) : {};
    const after = foldPool(before, event, revision);
    if (!after) return null;
    if (after === before) return known;
    return { source: { kind: 'pool', doc: after.pool, holders: isHoldEvent(event) ? nextHolders(holders, event) : holders }, revision: after.revision };
  }
  return known;
};

export const searchSourceRowOf = (id: string, s: { source: SearchSource; revision: bigint }) => ({
  id,
  tenant_id: s.source.doc.tenantId,
  kind: s.source.kind,
  state: JSON.stringify(s.source.doc),
  holders: JSON.stringify(s.source.kind === 'pool' ? (s.source.holders ?? {}) : {}),
  revision: s.revision.toString(),
});

/**
 * A merchant's popularity: the distinct buyers holding units (PENDING or PAID recorded) in the pools it sells in
 * (pools whose seller is the merchant's owner), the owner aside.
 */
export const merchantPopularity = (poolHolders: Array<PoolHolders | undefined>, ownerUserId: string | null): number => {
  const buyers = new Set<string>();
  for (const holders of poolHolders) for (const b of Object.values(holders ?? {})) if (b !== ownerUserId) buyers.add(b);
  return buyers.size;
};

/** The listing of a source, or null when it is not findable (then the index drops it). A merchant's popularity is given. */
export const listingOfSource = (s: { source: SearchSource; revision: bigint }, merchantPopularityCount = 0): ListingDraft | null =>
  s.source.kind === 'pool'
    ? poolListing(s.source.doc, s.revision, holdingBuyers(s.source.holders, s.source.doc.organiserId))
    : merchantListing(s.source.doc, s.revision, merchantPopularityCount);
