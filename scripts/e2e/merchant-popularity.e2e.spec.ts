import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, groupsPool, startApi, type TestApi } from './harness';

/** A merchant's popularity in search counts the buyers holding units in the pools it sells in. */
const test = suite<{ api: TestApi }>('search: merchant popularity from reservations');
test.before(async (ctx) => {
  ctx.api = await startApi();
});
test.after(async (ctx) => ctx.api.stop());

test('a buyer reserving in a merchant’s pool raises its popularity; cancelling lowers it again', async (ctx) => {
  const tenant = (await ctx.api.tenant()).slug;
  const owner = await ctx.api.user(tenant, { role: 'organiser', email: `owner-${randomUUID().slice(0, 6)}@example.test` });
  const slug = `cave-${randomUUID().slice(0, 6)}`;
  await ctx.api.merchant(tenant, { slug, name: 'Cave Popularité', ownerEmail: owner.email, city: 'Lyon' });
  const created = await ctx.api.call('POST', '/api/merchant/pools', { token: owner.token, tenant, body: groupsPool({ sellerMerchantSlug: slug, title: 'Vins du Beaujolais' }) });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await ctx.api.call('POST', `/api/pools/${poolId}/publish`, { token: owner.token, tenant })).status, 200);
  const popularity = async () => {
    await ctx.api.runner.catchUp(await ctx.api.services.store.headPosition());
    const res = await ctx.api.call('GET', '/api/tenant/search?q=cave%20popularite&type=merchants', { tenant });
    return res.body.data.merchants.find((m: { item: { name: string } }) => m.item.name === 'Cave Popularité')?.parts.structured.popularity as number | undefined;
  };
  assert.is(await popularity(), 0);
  const buyers = [await ctx.api.user(tenant), await ctx.api.user(tenant)];
  const ids: string[] = [];
  for (const b of buyers) {
    const r = await ctx.api.call('POST', `/api/pools/${poolId}/reservations`, { token: b.token, tenant, body: { lines: [{ unitId: 'panier-m', quantity: 1 }], relaisId: 'r1' } });
    assert.is(r.status, 201, r.text);
    ids.push(r.body.data.id);
  }
  await eventually(async () => (await popularity()) === 2, 'two buyers hold units in the merchant’s pool');
  await ctx.api.call('POST', `/api/pools/${poolId}/reservations/${ids[0]}/cancel`, { token: buyers[0]!.token, tenant });
  await eventually(async () => (await popularity()) === 1, 'a cancelled reservation no longer counts');
});

test.run();
