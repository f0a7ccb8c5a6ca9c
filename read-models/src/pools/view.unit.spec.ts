import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolDraftFields, PoolEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDoc, type PoolDocument } from './fold';
import { GroupBuy, groupBuyOf } from './view';

const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const VIEWER_ID = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const T0 = '2025-03-01T08:00:00.000Z';
const T1 = '2025-03-02T09:30:00.000Z';

const fields: PoolDraftFields = {
  title: 'Paniers de légumes bio',
  description: 'Commande groupée',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], relais: [{ id: 'r1', name: 'Épicerie' }], notes: 'owner only' },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
};
const created: PoolEvent = {
  type: 'PoolCreated',
  data: { ...fields, poolId: POOL_ID, tenantId: TENANT_ID, type: 'GROUPS', organiserId: ORGANISER_ID, organiserName: 'Alice', createdAt: T0 },
};
const published: PoolEvent = { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T1 } };

const view = suite('read-models/pools view: groupBuyOf');

view('the document folded from PoolCreated renders a valid GroupBuy: the organiser as member, the relais as pick-up points', () => {
  const doc = foldPool(null, created, 0n)!;
  const owner = groupBuyOf(doc.pool, 0n, { userId: ORGANISER_ID });
  GroupBuy.parse(owner);
  assert.is(owner.status, 'DRAFT');
  assert.is(owner.revision, 0);
  assert.equal(owner.members, [{ userId: ORGANISER_ID, displayName: 'Alice', role: 'organiser', joinedAt: T0 }]);
  assert.equal(owner.pickupPoints.map((p) => p.id), ['r1']);
  assert.is(owner.config.notes, 'owner only');
  const reader = groupBuyOf(doc.pool, 0n, { userId: VIEWER_ID });
  assert.equal(reader.members, [{ displayName: 'Alice', role: 'organiser', joinedAt: T0 }]);
  assert.is(reader.config.notes, undefined);
  assert.equal(groupBuyOf(doc.pool, 0n, { userId: null }).members, []);
});

view('a document stored before PoolDocument was its own type (the aggregate state, listingFee included) folds on and renders the same view', () => {
  const fresh = foldPool(null, created, 0n)!;
  const stored: PoolDoc = { pool: { ...structuredClone(fresh.pool), listingFee: null } as PoolDocument, revision: 0n };
  const next = foldPool(stored, published, 1n)!;
  const expected = foldPool(fresh, published, 1n)!;
  assert.is(next.pool.status, 'OPEN');
  assert.equal(groupBuyOf(next.pool, 1n, { userId: ORGANISER_ID }), groupBuyOf(expected.pool, 1n, { userId: ORGANISER_ID }));
  assert.not.ok('listingFee' in groupBuyOf(next.pool, 1n, { userId: ORGANISER_ID }), 'never served');
});

view.run();
