import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parseAmount, tierPrice } from '@cagnotte/domain';
import type { PoolUnit } from '@cagnotte/event-schemas';
import { fromPrefixedId, toPrefixedId } from '@cagnotte/infra';
import { reachedTier, v1IdOf } from '@cagnotte/read-models';
import { GroupBuyCreateInput, poolInputOf } from './v1-routes';

/*
 * The read side renders /v1 ids and the tier reached without importing infra or the domain (its floors): these specs
 * hold its copies to the one rule each (infra's prefixed ids, the domain's tier price), so they cannot drift apart.
 */
const test = suite('/v1 group-buys: the read side agrees with infra and the domain');

test('v1IdOf and toPrefixedId give the same id for every prefix, and fromPrefixedId reads it back', () => {
  for (let i = 0; i < 50; i++) {
    const uuid = randomUUID();
    for (const prefix of ['gb', 'acct', 'ord'] as const) {
      assert.is(v1IdOf(prefix, uuid), toPrefixedId(prefix, uuid));
      assert.is(fromPrefixedId(prefix, v1IdOf(prefix, uuid)), uuid);
    }
  }
});

test('the tier reached prices a unit as the domain’s tierPrice does, for any count and tiers (unordered, dearer than the base, equal)', () => {
  const units: PoolUnit[] = [
    { id: 'a', label: 'a', price: '18.50', tiers: [{ minQuantity: 4, price: '16.00' }] },
    { id: 'b', label: 'b', price: '10.00', tiers: [{ minQuantity: 10, price: '7.00' }, { minQuantity: 3, price: '9.00' }, { minQuantity: 5, price: '8.50' }] },
    { id: 'c', label: 'c', price: '5.00', tiers: [{ minQuantity: 2, price: '6.00' }, { minQuantity: 4, price: '5.00' }] },
    { id: 'd', label: 'd', price: '1.0000001', tiers: [{ minQuantity: 2, price: '1.0000000' }] },
    { id: 'e', label: 'e', price: '3.00' },
  ];
  for (const unit of units) {
    for (let n = 0; n <= 12; n++) {
      const shown = reachedTier(unit, n)?.unitAmount ?? unit.price;
      assert.is(parseAmount(shown), parseAmount(tierPrice(unit, n)), `${unit.id} × ${n}: ${shown} vs ${tierPrice(unit, n)}`);
    }
  }
});

test('a /v1 create maps onto the /api pool input: items to units (item_1…), tiers, closesAt to deadline, the release terms', () => {
  const input = GroupBuyCreateInput.parse({
    title: 'Comté',
    items: [{ description: 'Comté 1 kg', unitAmount: '18.50', quantity: 20, maxPerBuyer: 5, tiers: [{ minUnits: 4, unitAmount: '16.00' }] }, { description: 'Morbier', unitAmount: '9.00' }],
    closesAt: '2030-01-01T00:00:00.000Z',
    releaseAfter: 'receipt',
    inspectionDays: 5,
    minimumUnits: 3,
  });
  const pool = poolInputOf(input);
  assert.equal(pool.config.units, [
    { id: 'item_1', label: 'Comté 1 kg', price: '18.50', quantity: 20, maxPerBuyer: 5, tiers: [{ minQuantity: 4, price: '16.00' }] },
    { id: 'item_2', label: 'Morbier', price: '9.00' },
  ]);
  assert.equal([pool.type, pool.deadline, pool.config.release, pool.config.minimumUnits, pool.marketplaceVisibility, pool.currency], ['GROUPS', '2030-01-01T00:00:00.000Z', { after: 'RECEIPT', inspectionDays: 5 }, 3, 'PRIVATE', 'EUR']);
  assert.is(GroupBuyCreateInput.safeParse({ ...input, items: [{ description: 'x', unitAmount: '1.00', price: '1.00' }] }).success, false, 'closed: /api names are refused');
  assert.is(GroupBuyCreateInput.safeParse({ title: 't', items: [], closesAt: '2030-01-01T00:00:00.000Z' }).success, false, 'at least one item');
});

test.run();
