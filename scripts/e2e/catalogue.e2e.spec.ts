import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ESCROW_ACCOUNT_ID, fundingPool, groupsPool, startApi, type TestApi, type TestUser } from './harness';

interface Ctx {
  api: TestApi;
  tenant: string;
  other: string;
  gated: string;
  organiser: TestUser;
  pools: Record<string, string>;
}

const test = suite<Ctx>('catalogue: merchants, group-buys, search, pilot requests');

const LYON = { lat: 45.764, lng: 4.8357 };
const PARIS = { lat: 48.8566, lng: 2.3522 };

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  ctx.other = (await ctx.api.tenant({ whiteLabel: true })).slug;
  ctx.gated = (await ctx.api.tenant({ whiteLabel: false })).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Anne' });
  const owner = await ctx.api.user(ctx.tenant, { role: 'organiser', email: `owner-${randomUUID().slice(0, 6)}@example.test` });
  await ctx.api.merchant(ctx.tenant, { slug: 'fromagerie-leclerc', name: 'Fromagerie Leclerc', ownerEmail: owner.email, categories: ['fromage'], city: 'Lyon', postalCode: '69001', location: LYON, website: 'https://fromagerie.example.test' });
  await ctx.api.merchant(ctx.tenant, { slug: 'boulangerie-du-marche', name: 'Boulangerie du Marché', city: 'Paris', postalCode: '75004', location: PARIS });
  await ctx.api.merchant(ctx.tenant, { slug: 'pending-shop', name: 'Épicerie Pending', active: false });
  await ctx.api.merchant(ctx.other, { slug: 'fromagerie-leclerc', name: 'Fromagerie Autre Tenant' });
  // Listing is its own (paid) operation: pools are created PRIVATE, published, then listed (free on this tenant).
  const create = async ({ marketplaceVisibility: tier, ...body }: Record<string, unknown>, publish = true, archive = false) => {
    const r = await ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body });
    assert.is(r.status, 201, r.text);
    const id = r.body.data.id as string;
    if (publish) assert.is((await ctx.api.call('POST', `/api/pools/${id}/publish`, { token: ctx.organiser.token, tenant: ctx.tenant })).status, 200);
    if (publish && (tier === 'LISTED' || tier === 'FEATURED')) await ctx.api.list(ctx.organiser, id, tier);
    if (archive) await ctx.api.call('POST', `/api/pools/${id}/archive`, { token: ctx.organiser.token, tenant: ctx.tenant });
    return id;
  };
  ctx.pools = {
    listed: await create(groupsPool({ title: 'Miel de lavande en commande groupée', marketplaceVisibility: 'LISTED' })),
    featured: await create(groupsPool({ title: 'Paniers de légumes bio du Rhône', marketplaceVisibility: 'FEATURED' })),
    private: await create(groupsPool({ title: 'Miel privé', marketplaceVisibility: 'PRIVATE' })),
    // A draft cannot be listed (nor created LISTED): it is never shown.
    draft: await create(groupsPool({ title: 'Miel brouillon' }), false),
    archived: await create(groupsPool({ title: 'Miel archivé', marketplaceVisibility: 'LISTED' }), true, true),
    funding: await create(fundingPool({ title: 'Four à pain collectif', marketplaceVisibility: 'LISTED' })),
  };
  await ctx.api.runner.catchUp(await ctx.api.services.store.headPosition());
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

const get = (ctx: Ctx, path: string, tenant = ctx.tenant) => ctx.api.call('GET', path, { tenant });

test('GET /api/tenant/merchants: ACTIVE merchants of the tenant only, with storefrontLinks, paginated and filtered', async (ctx) => {
  const res = await get(ctx, '/api/tenant/merchants');
  assert.is(res.status, 200, res.text);
  const names = res.body.data.items.map((m: { name: string }) => m.name);
  assert.equal(names, ['Boulangerie du Marché', 'Fromagerie Leclerc']);
  const fromagerie = res.body.data.items[1];
  assert.equal(fromagerie.storefrontLinks, { website: 'https://fromagerie.example.test' });
  assert.is(fromagerie.slug, 'fromagerie-leclerc');
  assert.equal(res.body.data.pagination, { page: 1, limit: 20, total: 2, totalPages: 1, hasNext: false });
  assert.equal((await get(ctx, '/api/tenant/merchants?q=MARCHE')).body.data.items.map((m: { slug: string }) => m.slug), ['boulangerie-du-marche'], 'accent- and case-insensitive');
  assert.is((await get(ctx, '/api/tenant/merchants?limit=1&page=2')).body.data.items[0].slug, 'fromagerie-leclerc');
  assert.equal((await get(ctx, '/api/tenant/merchants', ctx.other)).body.data.items.map((m: { name: string }) => m.name), ['Fromagerie Autre Tenant']);
  assert.is((await get(ctx, '/api/tenant/merchants?limit=0')).status, 400);
  assert.is((await get(ctx, '/api/tenant/merchants', 'no-such-tenant')).status, 404);
});

test('GET /api/tenant/group-buys: listed GROUPS pools only, FEATURED first, redacted cards', async (ctx) => {
  const res = await get(ctx, '/api/tenant/group-buys');
  assert.is(res.status, 200, res.text);
  const ids = res.body.data.items.map((p: { id: string }) => p.id);
  assert.equal(ids, [ctx.pools.featured, ctx.pools.listed], 'FEATURED first; PRIVATE, DRAFT, archived and FUNDING never');
  const card = res.body.data.items[1];
  assert.equal(card.units.map((u: { id: string }) => u.id), ['panier-m']);
  assert.equal(card.pickupPoints.map((p: { id: string }) => p.id), ['r1', 'r2']);
  assert.equal(card.members, [{ displayName: 'Org Anne' }]);
  for (const k of ['sellerPhone', 'notes', 'links', 'escrow']) assert.is(card.config[k], undefined, `config.${k} redacted`);
  assert.is(card.payoutAccount, undefined);
  assert.not.ok(res.text.includes(ESCROW_ACCOUNT_ID), 'the escrow account is owner-only config');
  assert.is((await get(ctx, '/api/tenant/group-buys?q=lavande')).body.data.items[0].id, ctx.pools.listed);
  assert.equal((await get(ctx, '/api/tenant/group-buys', ctx.other)).body.data.items, []);
});

test('GET /api/tenant/search: hits carry their score parts; hidden pools and other tenants never appear', async (ctx) => {
  const res = await get(ctx, '/api/tenant/search?q=miel');
  assert.is(res.status, 200, res.text);
  const d = res.body.data;
  assert.is(d.popular, false);
  assert.equal(d.fusion, { method: 'rrf', k: 60, arms: ['trigram', 'vector', 'structured'] });
  assert.equal(d.pools.map((h: { id: string }) => h.id), [ctx.pools.listed]);
  const h = d.pools[0];
  assert.ok(h.parts.trigram.similarity > 0.5);
  assert.is(h.parts.trigram.rank, 1);
  assert.ok(h.parts.vector.similarity > 0);
  assert.type(h.parts.structured.score, 'number');
  assert.is(h.item.title, 'Miel de lavande en commande groupée');
  assert.is(h.item.config.escrow, undefined);
  const fromage = await get(ctx, '/api/tenant/search?q=fromagrie%20leclerk&type=merchants');
  assert.is(fromage.body.data.merchants[0]?.item.slug, 'fromagerie-leclerc', 'typos still find it');
  assert.equal(fromage.body.data.pools, []);
  assert.equal((await get(ctx, '/api/tenant/search?q=fromagerie', ctx.other)).body.data.merchants.map((m: { item: { name: string } }) => m.item.name), ['Fromagerie Autre Tenant']);
  assert.equal((await get(ctx, '/api/tenant/search?q=epicerie%20pending')).body.data.merchants, [], 'inactive merchants are not findable');
  assert.is((await get(ctx, '/api/tenant/search?q=four%20a%20pain&type=pools')).body.data.pools[0]?.id, ctx.pools.funding, 'LISTED FUNDING pools are findable');
});

test('search: q shorter than 2 characters gives the popular shelf, featured first', async (ctx) => {
  for (const q of ['', 'a']) {
    const res = await get(ctx, `/api/tenant/search?q=${q}&type=pools`);
    assert.is(res.status, 200);
    assert.is(res.body.data.popular, true);
    assert.is(res.body.data.pools[0].id, ctx.pools.featured);
    assert.is(res.body.data.pools[0].parts.trigram, null);
  }
  assert.is((await get(ctx, '/api/tenant/search')).body.data.popular, true);
});

test('search geo: lat/lng or postal_code with radius keeps hits within it and gives their distance', async (ctx) => {
  const near = await get(ctx, `/api/tenant/search?q=fromagerie&type=merchants&lat=${LYON.lat}&lng=${LYON.lng}&radius=10`);
  assert.is(near.status, 200, near.text);
  assert.is(near.body.data.merchants.length, 1);
  assert.ok(near.body.data.merchants[0].distanceKm < 1);
  const all = await get(ctx, `/api/tenant/search?type=merchants&lat=${PARIS.lat}&lng=${PARIS.lng}&radius=500`);
  const lyon = all.body.data.merchants.find((m: { item: { slug: string } }) => m.item.slug === 'fromagerie-leclerc');
  assert.ok(lyon.distanceKm > 380 && lyon.distanceKm < 400, `Paris–Lyon great-circle ≈ 392 km, got ${lyon.distanceKm}`);
  const byPostal = await get(ctx, '/api/tenant/search?type=merchants&postal_code=75004&radius=5');
  assert.is(byPostal.body.data.query.centerSource, 'postal_code');
  assert.equal(byPostal.body.data.merchants.map((m: { item: { slug: string } }) => m.item.slug), ['boulangerie-du-marche']);
});

test('search bounds: 400 with per-field errors outside them', async (ctx) => {
  const cases: Array<[string, string]> = [
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=abc', 'limit'],
    ['type=shops', 'type'],
    ['radius=0&lat=1&lng=1', 'radius'],
    ['radius=501&lat=1&lng=1', 'radius'],
    ['radius=10', 'radius'],
    ['lat=45', 'lng'],
    ['lat=91&lng=0', 'lat'],
    ['lng=181&lat=0', 'lng'],
    ['postal_code=%3Cscript%3E', 'postal_code'],
    ['postal_code=99999&radius=10', 'postal_code'],
  ];
  for (const [qs, field] of cases) {
    const res = await get(ctx, `/api/tenant/search?${qs}`);
    assert.is(res.status, 400, `${qs}: ${res.text}`);
    assert.ok(res.body.errors?.[field], `${qs} names ${field}: ${res.text}`);
  }
  const max = await get(ctx, '/api/tenant/search?q=miel&limit=50&type=all');
  assert.is(max.status, 200);
  assert.is(max.body.data.query.limit, 50);
  assert.is((await get(ctx, '/api/tenant/search?q=miel')).body.data.query.limit, 8, 'default 8');
});

test('page and limit take decimal digits only: hex, exponent, sign, spaces and fractions are a 400 naming the field', async (ctx) => {
  const bad = ['0x10', '1e3', '1e1', '+1', '-1', '%201', '1%20', '%091', '1.0', '1.', '.5', '0b1', '0o7', 'Infinity', 'NaN', '1_0', '%EF%BC%91', '', '0'];
  for (const path of ['/api/tenant/merchants', '/api/tenant/group-buys']) {
    for (const field of ['page', 'limit']) {
      for (const v of bad) {
        const res = await get(ctx, `${path}?${field}=${v}`);
        assert.is(res.status, 400, `${path}?${field}=${v}: ${res.status} ${res.text}`);
        assert.ok(res.body.errors?.[field], `${path}?${field}=${v} names ${field}: ${res.text}`);
      }
    }
    // Control: the plain decimal spelling of the same values is accepted.
    const ok = await get(ctx, `${path}?page=16&limit=10`);
    assert.is(ok.status, 200, ok.text);
    assert.equal([ok.body.data.pagination.page, ok.body.data.pagination.limit], [16, 10]);
    const padded = await get(ctx, `${path}?page=01&limit=001`);
    assert.equal([padded.body.data.pagination.page, padded.body.data.pagination.limit], [1, 1]);
  }
  for (const v of ['0x10', '1e1', '+1', '%201', '1.0']) {
    const res = await get(ctx, `/api/tenant/search?q=miel&limit=${v}`);
    assert.is(res.status, 400, `search limit=${v}: ${res.text}`);
    assert.ok(res.body.errors?.limit);
  }
  assert.is((await get(ctx, '/api/tenant/search?q=miel&limit=16')).body.data.query.limit, 16);
});

test('POST /api/tenant/pilot-requests: 404 when the white-label toggle is off; 201 with a uuid; first touch kept per visitor', async (ctx) => {
  const lead = (over: Record<string, unknown> = {}) => ({
    contactName: 'Claire',
    email: 'claire@shop.example.test',
    company: 'Shop',
    volume: '100-1000',
    message: 'We would like a pilot',
    consent: true,
    ...over,
  });
  assert.is((await ctx.api.call('POST', '/api/tenant/pilot-requests', { tenant: ctx.gated, body: lead() })).status, 404);
  const visitorId = `visitor-${randomUUID()}`;
  const first = await ctx.api.call('POST', '/api/tenant/pilot-requests?utm_source=newsletter&utm_campaign=spring', { tenant: ctx.tenant, body: lead({ visitorId }) });
  assert.is(first.status, 201, first.text);
  assert.match(first.body.data.id, /^[0-9a-f-]{36}$/);
  assert.type(first.body.data.message, 'string');
  const second = await ctx.api.call('POST', '/api/tenant/pilot-requests', { tenant: ctx.tenant, body: lead({ visitorId, utm_source: 'adwords' }) });
  assert.is(second.status, 201);
  await ctx.api.runner.catchUp(await ctx.api.services.store.headPosition());
  const rows = await ctx.api.services.knex('rm_leads').whereIn('id', [first.body.data.id, second.body.data.id]);
  assert.is(rows.length, 2);
  for (const r of rows) assert.equal(r.attribution, { utm_source: 'newsletter', utm_campaign: 'spring' }, 'first touch, once per visitor');
  for (const bad of [lead({ consent: false }), lead({ email: 'nope' }), lead({ volume: 'lots' }), { ...lead(), extra: 1 }]) {
    const r = await ctx.api.call('POST', '/api/tenant/pilot-requests', { tenant: ctx.tenant, body: bad });
    assert.is(r.status, 400, r.text);
    assert.ok(r.body.errors);
  }
});

test('GET /api/merchant/profile: 200 for the owner of an ACTIVE merchant; sellerMerchantSlug resolves to its owner, for its owner only', async (ctx) => {
  const owner = await ctx.api.user(ctx.tenant, { role: 'organiser' });
  await ctx.api.merchant(ctx.tenant, { slug: 'cave-a-vins', name: 'Cave à vins', ownerEmail: owner.email });
  const res = await ctx.api.call('GET', '/api/merchant/profile', { token: owner.token });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.slug, 'cave-a-vins');
  assert.is(res.body.data.status, 'ACTIVE');
  const pool = await ctx.api.call('POST', '/api/merchant/pools', { token: owner.token, tenant: ctx.tenant, body: groupsPool({ sellerMerchantSlug: 'cave-a-vins' }) });
  assert.is(pool.status, 201, pool.text);
  assert.is(pool.body.data.sellerId, owner.id);
  const notMine = await ctx.api.call('POST', '/api/merchant/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body: groupsPool({ sellerMerchantSlug: 'cave-a-vins' }) });
  assert.is(notMine.status, 400, notMine.text);
  assert.ok(notMine.body.errors.sellerMerchantSlug, 'another owner\'s merchant is refused');
  const inactiveOwner = await ctx.api.user(ctx.tenant);
  await ctx.api.merchant(ctx.tenant, { slug: 'pas-encore', name: 'Pas encore', ownerEmail: inactiveOwner.email, active: false });
  assert.is((await ctx.api.call('GET', '/api/merchant/profile', { token: inactiveOwner.token })).status, 403);
});

const limits = suite<{ api: TestApi; tenant: string }>('catalogue rate limits');

limits.before(async (ctx) => {
  ctx.api = await startApi({ RATE_LIMIT_CATALOGUE_PER_MINUTE: 2, RATE_LIMIT_SEARCH_PER_MINUTE: 3, TRUST_PROXY: true });
  ctx.tenant = (await ctx.api.tenant()).slug;
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
limits.after(async (ctx) => ctx.api.stop());

limits('per-IP limits on merchants, group-buys and search answer 429 in the envelope with Retry-After', async (ctx) => {
  const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
  for (const [path, n] of [['/api/tenant/merchants', 2], ['/api/tenant/group-buys', 2], ['/api/tenant/search?q=x', 3]] as const) {
    for (let i = 0; i < n; i++) assert.is((await ctx.api.call('GET', path, { tenant: ctx.tenant, headers: { 'x-forwarded-for': ip } })).status, 200, path);
    const over = await ctx.api.call('GET', path, { tenant: ctx.tenant, headers: { 'x-forwarded-for': ip } });
    assert.is(over.status, 429, path);
    assert.is(over.body.code, 'rate_limited');
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
  }
});

test.run();
limits.run();
