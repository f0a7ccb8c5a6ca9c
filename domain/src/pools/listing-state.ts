import type { EventData, PoolListingEvent } from '@cagnotte/event-schemas';
import { assertNever } from '../errors';

export type PreparedListing = Omit<EventData<'PoolListingPrepared'>, 'poolId'> & { status: 'AWAITING_PAYMENT' | 'PAID'; txHash: string | null };

/** The paid listing's part of the pool: prepared fee payments, and the listing in force. */
export interface Listing {
  prepared: PreparedListing[];
  listedAt: string | null;
  listingId: string | null;
  /** The ledger account the fee in force came from: where a delist refund goes back. */
  source: string | null;
  /** A delist refund decided and not yet paid back on the ledger. */
  owed: { listingId: string; amount: string; destination: string } | null;
  /** Listings whose fee was refunded on the ledger. */
  refunded: string[];
}

export const initialListing = (): Listing => ({ prepared: [], listedAt: null, listingId: null, source: null, owed: null, refunded: [] });

export const evolveListing = (l: Listing, event: PoolListingEvent): Listing => {
  switch (event.type) {
    case 'PoolListingPrepared': {
      const { poolId: _p, ...prepared } = event.data;
      return { ...l, prepared: [...l.prepared, { ...prepared, status: 'AWAITING_PAYMENT', txHash: null }] };
    }
    case 'PoolListed': {
      const d = event.data;
      const paid = l.prepared.find((p) => p.listingId === d.listingId);
      return {
        ...l,
        prepared: l.prepared.map((p) => (p.listingId === d.listingId ? { ...p, status: 'PAID' as const, txHash: d.txHash } : p)),
        listedAt: d.listedAt,
        listingId: d.listingId,
        source: paid?.source ?? null,
      };
    }
    case 'PoolListingFeeRefunded':
      return { ...l, owed: l.owed?.listingId === event.data.listingId ? null : l.owed, refunded: [...l.refunded, event.data.listingId] };
    default:
      return assertNever(event);
  }
};
