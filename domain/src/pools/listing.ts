import type { ListingTier, PoolEvent } from '@cagnotte/event-schemas';
import { ForbiddenError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { formatAmount, parseAmount } from '../money';
import { paymentMismatch, type ObservedPayment } from '../personas/organiser-grant';
import type { ExistingPool, Pool, PoolActor } from './pool';

export interface ListingTerms {
  listingId: string;
  tier: ListingTier;
  /** The tenant's fee for the tier ("0": listed at once, nothing to pay). */
  amount: string;
  source: string | null;
  destination: string;
  assetCode: string;
  assetIssuer: string;
  memoHash: string;
}

interface Meta {
  actor: PoolActor;
  now: string;
}

export type ListingCommand =
  | { type: 'PrepareListing'; data: ListingTerms; metadata: Meta }
  | { type: 'SettleListing'; data: { listingId: string; payment: ObservedPayment }; metadata: Meta }
  | { type: 'RecordListingRefund'; data: { listingId: string; amount: string; destination: string; txHash: string }; metadata: { now: string } };

const RANK: Record<string, number> = { PRIVATE: 0, LISTED: 1, FEATURED: 2 };

const ownedOpenPool = (state: Pool, actor: PoolActor): ExistingPool => {
  if (state.status === 'none' || state.organiserId !== actor.userId) throw new NotFoundError('pool');
  if (actor.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Organise capability required');
  if (state.status !== 'OPEN' || state.archivedAt) throw new IllegalStateError('pool_not_open', 'Only a published, open pool can be listed');
  return state;
};

/** The listing awaiting payment that these terms answer (a repeated prepare answers it again). */
export const openListingFor = (pool: ExistingPool, tier: ListingTier, amount: string) =>
  pool.listing.prepared.find((p) => p.status === 'AWAITING_PAYMENT' && p.tier === tier && parseAmount(p.amount) === parseAmount(amount)) ?? null;

/**
 * Listing is paid: the organiser pays the tenant's fee for the tier from their linked account to the platform, the
 * payment bound to the listing by its memo. A free tier lists at once. A higher tier is an upgrade (its own fee).
 */
export const decideListing = (command: ListingCommand, state: Pool): PoolEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'PrepareListing': {
      const pool = ownedOpenPool(state, command.metadata.actor);
      const t = command.data;
      if (RANK[pool.fields.marketplaceVisibility]! >= RANK[t.tier]!) {
        throw new IllegalStateError('already_listed', `The pool is already ${pool.fields.marketplaceVisibility}`);
      }
      const amount = formatAmount(parseAmount(t.amount));
      if (parseAmount(amount) === 0n) {
        return [{ type: 'PoolListed', data: { poolId: pool.id, listingId: t.listingId, tier: t.tier, from: pool.fields.marketplaceVisibility, amount, txHash: null, ledger: null, listedAt: now } }];
      }
      if (openListingFor(pool, t.tier, amount)) return [];
      if (!t.source) {
        throw new ValidationError({ ledgerAccount: ['link a ledger account first: the listing fee is paid from it'] }, 'A linked ledger account is required', 'ledger_account_required');
      }
      const { listingId, tier, source, destination, assetCode, assetIssuer, memoHash } = t;
      return [{ type: 'PoolListingPrepared', data: { poolId: pool.id, listingId, tier, amount, source, destination, assetCode, assetIssuer, memoHash, preparedAt: now } }];
    }
    case 'SettleListing': {
      const pool = ownedOpenPool(state, command.metadata.actor);
      const { listingId, payment } = command.data;
      const listing = pool.listing.prepared.find((p) => p.listingId === listingId);
      if (!listing) throw new NotFoundError('listing');
      if (listing.status === 'PAID') {
        if (listing.txHash === payment.txHash) return [];
        throw new IllegalStateError('listing_already_paid', 'This listing was already paid by another payment');
      }
      const mismatch = paymentMismatch({ ...listing, ledgerAccount: listing.source }, payment);
      if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not pay this listing: ${mismatch.message}`, 'payment_mismatch');
      if (RANK[pool.fields.marketplaceVisibility]! >= RANK[listing.tier]!) throw new IllegalStateError('already_listed', `The pool is already ${pool.fields.marketplaceVisibility}`);
      return [
        {
          type: 'PoolListed',
          data: { poolId: pool.id, listingId, tier: listing.tier, from: pool.fields.marketplaceVisibility, amount: listing.amount, txHash: payment.txHash, ledger: payment.ledger, listedAt: now },
        },
      ];
    }
    case 'RecordListingRefund': {
      if (state.status === 'none') throw new NotFoundError('pool');
      const d = command.data;
      if (state.listing.refunded.includes(d.listingId)) return [];
      if (state.listing.owed?.listingId !== d.listingId) throw new IllegalStateError('listing_refund_not_due', 'No delist made this listing’s refund due');
      return [{ type: 'PoolListingFeeRefunded', data: { poolId: state.id, ...d, refundedAt: now } }];
    }
    default:
      return assertNever(command);
  }
};
