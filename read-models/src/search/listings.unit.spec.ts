import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { MerchantEvent, PoolDraftFields, PoolEvent } from '@cagnotte/event-schemas';
import { GroupBuyCard, MerchantCard } from '../catalogue/cards';
import { foldMerchant } from '../catalogue/fold';
import { foldSearchSource, listingOfSource } from './sources';

const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const MERCHANT_ID = '7e6d5c4b-3a29-4180-9f7e-6d5c4b3a2918';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const T0 = '2025-03-01T08:00:00.000Z';
const T1 = '2025-03-02T09:30:00.000Z';

const fields: PoolDraftFields = {
  title: 'Paniers de légumes bio',
  description: 'Commande groupée',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'LISTED',
  config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], relais: [{ id: 'r1', name: 'Épicerie', postalCode: '75011', lat: 48.86, lng: 2.38 }], notes: 'owner only', sellerPhone: '+33600000000' },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
};
const poolEvents: PoolEvent[] = [
  { type: 'PoolCreated', data: { ...fields, poolId: POOL_ID, tenantId: TENANT_ID, type: 'GROUPS', organiserId: ORGANISER_ID, organiserName: 'Alice', createdAt: T0 } },
  { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T1 } },
];
const onboarded: MerchantEvent = {
  type: 'MerchantOnboarded',
  data: {
    merchantId: MERCHANT_ID,
    tenantId: TENANT_ID,
    slug: 'boulangerie',
    ownerUserId: null,
    name: 'Boulangerie du coin',
    description: 'Pain au levain',
    storefrontLinks: {},
    address: { city: 'Lyon', postalCode: '69001' },
    location: { lat: 45.76, lng: 4.83 },
    categories: ['pain'],
    onboardedAt: T0,
  },
};
const activated: MerchantEvent = { type: 'MerchantActivated', data: { merchantId: MERCHANT_ID, activatedAt: T1 } };

const meta = { schemaVersion: 1, metadata: { tenantId: TENANT_ID, occurredAt: T0 } } as never;
const fold = <E extends object>(events: E[]) =>
  events.reduce<ReturnType<typeof foldSearchSource>>((known, e, i) => foldSearchSource(known, { ...e, ...(meta as object) } as never, BigInt(i)), null);

const test = suite('read-models/search: listings from the read models’ own documents');

test('foldMerchant: replay-safe, nothing before onboarding, status and profile folded', () => {
  assert.is(foldMerchant(null, activated, 0n), null);
  const doc = foldMerchant(foldMerchant(null, onboarded, 0n), activated, 1n)!;
  assert.is(doc.merchant.status, 'ACTIVE');
  assert.is(doc.merchant.updatedAt, T1);
  assert.is(foldMerchant(doc, onboarded, 1n), doc, 'an event already folded changes nothing');
});

test('an ACTIVE merchant is listed with a valid card; an onboarding one is not', () => {
  assert.is(listingOfSource(fold([onboarded])!), null);
  const listing = listingOfSource(fold([onboarded, activated])!)!;
  assert.is(listing.id, `merchant:${MERCHANT_ID}`);
  assert.is(listing.version, 1);
  assert.equal(listing.location, { lat: 45.76, lng: 4.83 });
  MerchantCard.parse(listing.card);
});

test('a published LISTED pool is listed with a redacted card; a draft is not (isSearchable)', () => {
  assert.is(listingOfSource(fold(poolEvents.slice(0, 1))!), null);
  const listing = listingOfSource(fold(poolEvents)!)!;
  assert.is(listing.id, `pool:${POOL_ID}`);
  assert.is(listing.postalCode, '75011');
  assert.is(listing.createdAt, T1);
  const card = GroupBuyCard.parse(listing.card);
  assert.equal(card.members, [{ displayName: 'Alice' }]);
  assert.not.ok('notes' in card.config || 'sellerPhone' in card.config, 'owner-only config never on a card');
});

const BUYER_A = '1b2c3d4e-5f6a-4b7c-8d9e-0f1a2b3c4d5e';
const BUYER_B = '2c3d4e5f-6a7b-4c8d-9e0f-1a2b3c4d5e6f';
const reservationOf = (reservationId: string, buyerId: string): PoolEvent => ({
  type: 'ReservationPlaced',
  data: {
    poolId: POOL_ID,
    reservationId,
    buyerId,
    buyerName: 'Buyer',
    lines: [{ unitId: 'u1', quantity: 1, unitPrice: '12.50' }],
    pledge: null,
    amount: '12.50',
    relaisId: 'r1',
    expiresAt: T1,
    placedAt: T1,
  },
});
const R1 = 'a1a1a1a1-0000-4000-8000-000000000001';
const R2 = 'a1a1a1a1-0000-4000-8000-000000000002';
const R3 = 'a1a1a1a1-0000-4000-8000-000000000003';

test('popularity counts the organiser and each buyer holding units once; an ended reservation no longer counts; replays change nothing', () => {
  const placedA = reservationOf(R1, BUYER_A);
  const placedA2 = reservationOf(R2, BUYER_A);
  const placedB = reservationOf(R3, BUYER_B);
  const paidA: PoolEvent = {
    type: 'ReservationPaid',
    data: { poolId: POOL_ID, reservationId: R1, buyerId: BUYER_A, txHash: 'c'.repeat(64), ledger: 1, balanceId: `00000000${'c'.repeat(64)}`, amount: '12.50', via: 'txHash', paidAt: T1 },
  };
  const cancelledB: PoolEvent = { type: 'ReservationCancelled', data: { poolId: POOL_ID, reservationId: R3, buyerId: BUYER_B, cancelledAt: T1 } };
  assert.is(listingOfSource(fold(poolEvents)!)!.popularity, 1, 'the organiser alone');
  const held = fold([...poolEvents, placedA, placedA2, placedB, paidA])!;
  assert.is(listingOfSource(held)!.popularity, 3, 'organiser + two buyers (one with two reservations)');
  assert.is(listingOfSource(held)!.version, 5, 'a reservation event moves the listing version forward');
  const ended = fold([...poolEvents, placedA, placedA2, placedB, paidA, cancelledB])!;
  assert.is(listingOfSource(ended)!.popularity, 2, 'the cancelled buyer no longer counts');
  assert.is(foldSearchSource(ended, { ...placedB, ...(meta as object) } as never, 4n), ended, 'a replayed event changes nothing');
});

test.run();
