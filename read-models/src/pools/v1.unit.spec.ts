import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolDraftFields, PoolEvent } from '@cagnotte/event-schemas';
import { foldPool, type PoolDocument } from './fold';
import { GroupBuyOrder, GroupBuyV1, groupBuyOrderOf, groupBuyV1Of, reachedTier, unitsReservedOf } from './v1';
import type { ReservationView } from '../reservations/view';

const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const T0 = '2025-03-01T08:00:00.000Z';

const fields: PoolDraftFields = {
  title: 'Fromages du Jura',
  description: 'Comté 18 mois',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: {
    units: [
      { id: 'item_1', label: 'Comté 1 kg', price: '18.50', quantity: 20, maxPerBuyer: 5, tiers: [{ minQuantity: 4, price: '16.00' }, { minQuantity: 10, price: '15.00' }] },
      { id: 'item_2', label: 'Morbier', price: '9.00' },
    ],
    release: { after: 'CLOSE' },
  },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: '2025-04-01T00:00:00.000Z',
};
const createdEvent = (livemode?: boolean): PoolEvent => ({
  type: 'PoolCreated',
  data: { ...fields, poolId: POOL_ID, tenantId: TENANT_ID, type: 'GROUPS', organiserId: ORGANISER_ID, organiserName: 'Olga', createdAt: T0, ...(livemode === undefined ? {} : { livemode }) },
});
const docOf = (...events: PoolEvent[]): PoolDocument => events.reduce((d, e, i) => foldPool(d, e, BigInt(i)), null as ReturnType<typeof foldPool>)!.pool;

const v1 = suite('read-models/pools v1: the group-buy and order mappings');

v1('a draft maps field by field: gb_ id of the pool’s hex, lowercase status, items with their tiers, the organiser as acct_', () => {
  const gb = groupBuyV1Of(docOf(createdEvent(false)), new Map(), true);
  GroupBuyV1.parse(gb);
  assert.is(gb.id, 'gb_5a1d2c3b4e5f4a6b8c7d9e0f1a2b3c4d');
  assert.is(gb.object, 'group_buy');
  assert.is(gb.livemode, false, 'the recorded mode wins over the deployment’s');
  assert.is(gb.status, 'draft');
  assert.is(gb.created, T0);
  assert.is(gb.closesAt, '2025-04-01T00:00:00.000Z');
  assert.is(gb.releaseAfter, 'close');
  assert.is(gb.organiser, 'acct_c3e1b7a21f4d4c8e9b2a7d6e5f4a3b21');
  assert.equal(gb.items[0], {
    id: 'item_1',
    description: 'Comté 1 kg',
    unitAmount: '18.50',
    quantity: 20,
    maxPerBuyer: 5,
    minPerBuyer: null,
    tiers: [{ minUnits: 4, unitAmount: '16.00' }, { minUnits: 10, unitAmount: '15.00' }],
    unitsReserved: 0,
    currentTier: null,
  });
  assert.equal(gb.items[1]!.quantity, null);
  assert.is(gb.escrow, null);
  assert.is(gb.currentTier, null);
  assert.equal(gb.urls, { api: `/api/pools/${POOL_ID}`, orders: '/v1/group-buys/gb_5a1d2c3b4e5f4a6b8c7d9e0f1a2b3c4d/orders' });
});

v1('a pool created before livemode takes the deployment’s mode', () => {
  assert.is(groupBuyV1Of(docOf(createdEvent()), new Map(), true).livemode, true);
  assert.is(groupBuyV1Of(docOf(createdEvent()), new Map(), false).livemode, false);
  assert.is(groupBuyV1Of(docOf(createdEvent(true)), new Map(), false).livemode, true);
});

v1('the tier reached follows the units held or paid: the cheapest tier whose minimum is reached', () => {
  const doc = docOf(createdEvent(false));
  const at = (n: number) => groupBuyV1Of(doc, new Map([['item_1', n]]), false);
  assert.is(at(3).items[0]!.currentTier, null);
  assert.equal(at(4).items[0]!.currentTier, { minUnits: 4, unitAmount: '16.00' });
  assert.equal(at(4).currentTier, { itemId: 'item_1', minUnits: 4, unitAmount: '16.00' });
  assert.equal(at(12).items[0]!.currentTier, { minUnits: 10, unitAmount: '15.00' });
  assert.is(at(12).unitsReserved, 12);
  // A tier dearer than the base price is never "reached".
  assert.is(reachedTier({ id: 'x', label: 'x', price: '1.00', tiers: [{ minQuantity: 2, price: '2.00' }] }, 5), null);
});

v1('every pool status maps to its lowercase; after closing the tier is the one the price settled at, whatever is held now', () => {
  const published: PoolEvent = { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T0 } };
  const closed = {
    type: 'PoolClosed',
    data: {
      poolId: POOL_ID,
      outcome: 'SUCCEEDED',
      reason: 'ORGANISER',
      closedAt: '2025-03-10T00:00:00.000Z',
      paidUnits: 4,
      paidAmount: '69.00',
      finalPrices: [{ unitId: 'item_1', price: '16.00' }, { unitId: 'item_2', price: '9.00' }],
      release: { after: 'CLOSE', inspectionDays: 3, disputeResponseDays: 7 },
    },
  } as unknown as PoolEvent;
  const doc = docOf(createdEvent(false), published, closed);
  const gb = groupBuyV1Of(doc, new Map([['item_1', 1]]), false);
  assert.is(gb.status, 'locked');
  assert.equal(gb.items[0]!.currentTier, { minUnits: 4, unitAmount: '16.00' });
  assert.is(gb.items[1]!.currentTier, null);
  assert.equal(gb.closing, { outcome: 'succeeded', closedAt: '2025-03-10T00:00:00.000Z', paidUnits: 4, paidAmount: '69.00' });
  for (const s of ['DRAFT', 'OPEN', 'LOCKED', 'RELEASED', 'COMPLETED', 'FAILED', 'CANCELLED', 'SETTLED'] as const) {
    assert.is(groupBuyV1Of({ ...doc, status: s }, new Map(), false).status, s.toLowerCase());
  }
});

v1('orders: units held count live pending and paid orders only; an order maps with its prefixed ids', () => {
  const r = (status: ReservationView['status'], quantity: number) => ({ status, lines: [{ unitId: 'item_1', quantity, unitPrice: '18.50' }] });
  assert.equal([...unitsReservedOf([r('PENDING', 2), r('PAID', 3), r('EXPIRED', 5), r('CANCELLED', 7)])], [['item_1', 5]]);
  const view = {
    id: '11111111-2222-4333-8444-555555555555',
    poolId: POOL_ID,
    buyerId: '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a',
    buyerName: 'Ann',
    status: 'PAID',
    lines: [{ unitId: 'item_1', quantity: 2, unitPrice: '18.50' }],
    pledge: null,
    amount: '37.00',
    depositFee: '0.00',
    currency: 'EUR',
    relaisId: null,
    pickupPoint: null,
    placedAt: T0,
    expiresAt: '2025-03-01T08:15:00.000Z',
    terms: null,
    escrowAccount: null,
    reclaimAfter: null,
    payment: { txHash: 'ab'.repeat(32), ledger: 7, balanceId: '00', amount: '37.00', paidAt: T0, via: 'txHash' },
    latePayments: [],
    endedAt: null,
    acceptance: null,
    dispute: null,
    settlements: [],
    actions: [],
  } as ReservationView;
  const order = groupBuyOrderOf(view, false);
  GroupBuyOrder.parse(order);
  assert.is(order.id, 'ord_11111111222243338444555555555555');
  assert.is(order.groupBuy, 'gb_5a1d2c3b4e5f4a6b8c7d9e0f1a2b3c4d');
  assert.is(order.buyer, 'acct_9d8c7b6a5f4e4d3c8b2a1f0e9d8c7b6a');
  assert.is(order.status, 'paid');
  assert.equal(order.items, [{ itemId: 'item_1', quantity: 2, unitAmount: '18.50' }]);
  assert.equal(order.payment, { txHash: 'ab'.repeat(32), amount: '37.00' });
});

v1.run();
