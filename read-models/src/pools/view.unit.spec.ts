import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PoolConfig, PoolUnit, type PoolDraftFields, type PoolEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDoc, type PoolDocument } from './fold';
import { GroupBuy, OwnerPoolConfig, UnitView, groupBuyOf, ownerConfigView, publicConfigView } from './view';

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

view('whatever config a pool is created with, its owner reads back whole, and everyone else all of it but the owner-only keys', () => {
  // A key added to PoolConfig or PoolUnit without a place in the views fails here.
  assert.equal(Object.keys(OwnerPoolConfig.shape).sort(), Object.keys(PoolConfig.shape).sort(), 'config keys');
  assert.equal(Object.keys(UnitView.shape).sort(), Object.keys(PoolUnit.shape).sort(), 'unit keys');
  const config: PoolConfig = {
    units: [{ id: 'u1', label: 'Panier', price: '12.50', quantity: 40, minPerBuyer: 2, maxPerBuyer: 6, tiers: [{ minQuantity: 10, price: '11.00' }] }],
    relais: [{ id: 'r1', name: 'Épicerie', city: 'Lyon' }],
    sellerPhone: '+33600000000',
    notes: 'owner only',
    links: ['https://example.test/farm'],
    escrow: { accountId: `G${'A'.repeat(55)}` },
    minimumUnits: 12,
    parcelWeightG: 750,
    pledge: { min: '5.00', max: '100.00' },
    release: { after: 'RECEIPT', inspectionDays: 5 },
  };
  const doc = foldPool(null, { ...created, data: { ...created.data, config } } as PoolEvent, 0n)!;
  assert.equal(ownerConfigView(doc.pool.fields.config), config);
  assert.equal(groupBuyOf(doc.pool, 0n, { userId: ORGANISER_ID }).config, config);
  const { sellerPhone: _p, notes: _n, links: _l, escrow: _e, ...shown } = config;
  assert.equal(publicConfigView(doc.pool.fields.config), shown);
  assert.equal(groupBuyOf(doc.pool, 0n, { userId: VIEWER_ID }).config, shown);
  assert.equal(groupBuyOf(doc.pool, 0n, { userId: null }).config, shown);
});

const T2 = '2025-03-10T18:00:00.000Z';
const T3 = '2025-03-12T10:00:00.000Z';
const T4 = '2025-03-20T10:00:00.000Z';
const closed: PoolEvent = {
  type: 'PoolClosed',
  data: {
    poolId: POOL_ID,
    outcome: 'SUCCEEDED',
    reason: 'DEADLINE',
    paidUnits: 4,
    paidAmount: '50.00',
    finalPrices: [{ unitId: 'u1', price: '12.50' }],
    fees: { platformFeePercent: '2.5', organiserCommissionPercent: null },
    release: { after: 'RECEIPT', inspectionDays: 7, disputeResponseDays: 5 },
    closedAt: T2,
  },
};
const delivered: PoolEvent = { type: 'PoolDelivered', data: { poolId: POOL_ID, note: null, inspectionEndsAt: T4, deliveredAt: T3 } };
const settled: PoolEvent = { type: 'PoolSettled', data: { poolId: POOL_ID, settlementId: VIEWER_ID, released: '50.00', refunded: '0.00', settledAt: T4 } };
const foldAll = (events: PoolEvent[]) => events.reduce<PoolDoc | null>((d, e, i) => foldPool(d, e, BigInt(i)), null)!;

view('given release terms in config, when anyone reads the pool, then config.release is public (buyers pay on it), picked key by key', () => {
  const withRelease: PoolEvent = { ...created, data: { ...created.data, config: { ...fields.config, release: { after: 'RECEIPT', inspectionDays: 10 } } } } as PoolEvent;
  const doc = foldAll([withRelease, published]);
  assert.equal(groupBuyOf(doc.pool, 1n, { userId: null }).config.release, { after: 'RECEIPT', inspectionDays: 10 });
  const tampered = { ...doc.pool, fields: { ...doc.pool.fields, config: { release: { after: 'RECEIPT', secret: 'x' } } } } as unknown as PoolDocument;
  assert.equal(groupBuyOf(tampered, 1n, { userId: null }).config.release, { after: 'RECEIPT' });
  assert.is(groupBuyOf(foldAll([created]).pool, 0n, { userId: null }).config.release, undefined);
});

view('given a pool closed, delivered and settled, then every viewer sees its closing, release terms, delivery and settledAt', () => {
  const open = groupBuyOf(foldAll([created, published]).pool, 1n, { userId: null });
  assert.equal([open.closing, open.cancelledAt, open.settledAt], [null, null, null]);
  const doc = foldAll([created, published, closed, delivered, settled]);
  const v = GroupBuy.parse(groupBuyOf(doc.pool, 4n, { userId: VIEWER_ID }));
  assert.is(v.status, 'SETTLED');
  assert.equal(v.closing, {
    outcome: 'SUCCEEDED',
    reason: 'DEADLINE',
    closedAt: T2,
    paidUnits: 4,
    paidAmount: '50.00',
    finalPrices: [{ unitId: 'u1', price: '12.50' }],
    release: { after: 'RECEIPT', inspectionDays: 7, disputeResponseDays: 5 },
    deliveredAt: T3,
    inspectionEndsAt: T4,
  });
  assert.is(v.settledAt, T4);
  assert.not.ok('fees' in v.closing!, 'the fees frozen at closing are the escrow view\'s (organiser only)');
});

view('given a cancelled pool, then it reads CANCELLED with cancelledAt and no closing', () => {
  const cancelled: PoolEvent = { type: 'PoolCancelled', data: { poolId: POOL_ID, reason: null, cancelledAt: T2 } };
  const v = groupBuyOf(foldAll([created, published, cancelled]).pool, 2n, { userId: ORGANISER_ID });
  assert.equal([v.status, v.cancelledAt, v.closing], ['CANCELLED', T2, null]);
});

view.run();
