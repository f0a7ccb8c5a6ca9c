import { suite } from 'uvu';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { decideListing, type ListingCommand } from './listing';
import { decidePool, evolvePool, initialPool, type Pool, type PoolActor } from './pool';

const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const LISTING_ID = '7b0c1f2e-0000-4000-8000-00000000000a';
const T0 = '2026-03-01T09:00:00.000Z';
const T1 = '2026-03-02T10:00:00.000Z';
const T2 = '2026-03-02T11:00:00.000Z';
const key = (c: string) => `G${c.repeat(55)}`;
const SOURCE = key('A');
const PLATFORM = key('B');
const ISSUER = key('C');
const MEMO = 'ab'.repeat(32);
const FEE_TX = 'cd'.repeat(32);
const REFUND_TX = 'ef'.repeat(32);

const organiser: PoolActor = { userId: ORGANISER_ID, role: 'organiser', accountType: 'CONSUMER', displayName: 'Alice' };
const meta = { actor: organiser, now: T1 };

const openPool: PoolEvent[] = [
  {
    type: 'PoolCreated',
    data: {
      poolId: POOL_ID,
      tenantId: TENANT_ID,
      type: 'GROUPS',
      organiserId: ORGANISER_ID,
      organiserName: 'Alice',
        title: 'Paniers',
        description: '',
        country: 'FR',
        currency: 'EUR',
        marketplaceVisibility: 'PRIVATE',
        config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }] },
        sellerId: null,
        payoutAccount: null,
        organiserCommissionPercent: null,
        targetAmount: null,
        deadline: null,
      createdAt: T0,
    },
  } as PoolEvent,
  { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T0 } },
];

const terms = (amount: string) => ({ listingId: LISTING_ID, tier: 'LISTED' as const, amount, source: SOURCE, destination: PLATFORM, assetCode: 'EURC', assetIssuer: ISSUER, memoHash: MEMO });
const prepared: PoolEvent = { type: 'PoolListingPrepared', data: { poolId: POOL_ID, ...terms('5.00'), preparedAt: T1 } };
const payment = (over: Record<string, unknown> = {}) => ({
  txHash: FEE_TX,
  ledger: 9,
  successful: true,
  from: SOURCE,
  to: PLATFORM,
  assetCode: 'EURC',
  assetIssuer: ISSUER,
  amount: '5.00',
  memoHash: MEMO,
  paymentCount: 1,
  ...over,
});
const listed: PoolEvent = { type: 'PoolListed', data: { poolId: POOL_ID, listingId: LISTING_ID, tier: 'LISTED', from: 'PRIVATE', amount: '5.00', txHash: FEE_TX, ledger: 9, listedAt: T1 } };
const delisted: PoolEvent = { type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'LISTED', to: 'PRIVATE', refund: { amount: '5.00', source: FEE_TX }, changedAt: T2 } };
const refund: ListingCommand = { type: 'RecordListingRefund', data: { listingId: LISTING_ID, amount: '5.00', destination: SOURCE, txHash: REFUND_TX }, metadata: { now: T2 } };

const { given } = deciderSpec<Pool, ListingCommand, PoolEvent>({
  initial: initialPool,
  evolve: (s, e) => evolvePool(s, e as PoolEvent),
  decide: decideListing,
});

const listing = suite('pool: the paid listing');

listing('a free tier lists at once; a paid one is prepared, and a repeat answers the open listing', () => {
  given(...openPool)
    .when({ type: 'PrepareListing', data: terms('0'), metadata: meta })
    .then([{ type: 'PoolListed', data: { poolId: POOL_ID, listingId: LISTING_ID, tier: 'LISTED', from: 'PRIVATE', amount: '0.00', txHash: null, ledger: null, listedAt: T1 } }]);
  given(...openPool).when({ type: 'PrepareListing', data: terms('5'), metadata: meta }).then([prepared]);
  given(...openPool, prepared).when({ type: 'PrepareListing', data: { ...terms('5'), listingId: '7b0c1f2e-0000-4000-8000-00000000000b' }, metadata: meta }).then([]);
});

listing('a DRAFT cannot be listed, nor a pool without a linked account, nor a pool already at that tier', () => {
  given(openPool[0]!).when({ type: 'PrepareListing', data: terms('5'), metadata: meta }).thenThrows(IllegalStateError, 'pool_not_open');
  given(...openPool).when({ type: 'PrepareListing', data: { ...terms('5'), source: null }, metadata: meta }).thenThrows(ValidationError, 'ledger_account_required');
  given(...openPool, prepared, listed).when({ type: 'PrepareListing', data: terms('5'), metadata: meta }).thenThrows(IllegalStateError, 'already_listed');
});

listing('settling: the exact payment lists; any forgery is a payment_mismatch; a repeat is idempotent', () => {
  given(...openPool, prepared).when({ type: 'SettleListing', data: { listingId: LISTING_ID, payment: payment() }, metadata: meta }).then([listed]);
  for (const forged of [{ amount: '4.9999999' }, { memoHash: 'ee'.repeat(32) }, { assetIssuer: key('D') }, { from: key('E') }, { successful: false }]) {
    given(...openPool, prepared).when({ type: 'SettleListing', data: { listingId: LISTING_ID, payment: payment(forged) }, metadata: meta }).thenThrows(ValidationError, 'payment_mismatch');
  }
  given(...openPool, prepared, listed).when({ type: 'SettleListing', data: { listingId: LISTING_ID, payment: payment() }, metadata: meta }).then([]);
  given(...openPool, prepared).when({ type: 'SettleListing', data: { listingId: '7b0c1f2e-0000-4000-8000-0000000000ff', payment: payment() }, metadata: meta }).thenThrows(NotFoundError, 'listing_not_found');
});

listing('a refund is recorded once, and only when a delist made it due', () => {
  const recorded: PoolEvent = { type: 'PoolListingFeeRefunded', data: { poolId: POOL_ID, listingId: LISTING_ID, amount: '5.00', destination: SOURCE, txHash: REFUND_TX, refundedAt: T2 } };
  given(...openPool, prepared, listed, delisted).when(refund).then([recorded]);
  given(...openPool, prepared, listed, delisted, recorded).when(refund).then([]);
  given(...openPool, prepared, listed).when(refund).thenThrows(IllegalStateError, 'listing_refund_not_due');
});

listing('the delist that refunds goes through decidePool with the tenant window', () => {
  const state = [...openPool, prepared, listed].reduce(evolvePool, initialPool());
  const events = decidePool({ type: 'UpdatePool', data: { patch: { marketplaceVisibility: 'PRIVATE' }, delistRefundWindowHours: 1 }, metadata: { actor: organiser, now: T2, ip: null } }, state);
  if (events[0]?.type !== 'PoolVisibilityChanged' || !events[0].data.refund) throw new Error('expected a refund within the hour');
});

listing.run();
