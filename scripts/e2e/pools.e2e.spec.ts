import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { parsePosition } from '@cagnotte/infra';
import { ESCROW_ACCOUNT_ID, fundingPool, groupsPool, startApi, type TestApi, type TestUser } from './harness';

interface Ctx {
  api: TestApi;
  tenant: string;
  otherTenant: string;
  organiser: TestUser;
  business: TestUser;
  otherOrganiser: TestUser;
  buyer: TestUser;
  foreigner: TestUser;
}

const test = suite<Ctx>('pool CRUD through HTTP');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.otherTenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', accountType: 'CONSUMER', name: 'Org Anne' });
  ctx.business = await ctx.api.user(ctx.tenant, { role: 'organiser', accountType: 'BUSINESS', name: 'Biz Co' });
  ctx.otherOrganiser = await ctx.api.user(ctx.tenant, { role: 'organiser' });
  ctx.buyer = await ctx.api.user(ctx.tenant, { role: 'user', name: 'Bea Buyer' });
  ctx.foreigner = await ctx.api.user(ctx.otherTenant, { role: 'organiser' });
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

const create = async (ctx: Ctx, body: unknown, user: TestUser = ctx.organiser, path = '/api/pools') =>
  ctx.api.call('POST', path, { token: user.token, tenant: user.tenant, body });

const published = async (ctx: Ctx, body: Record<string, unknown> = groupsPool(), user: TestUser = ctx.organiser) => {
  const created = await create(ctx, body, user);
  assert.is(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const pub = await ctx.api.call('POST', `/api/pools/${id}/publish`, { token: user.token, tenant: user.tenant });
  assert.is(pub.status, 200, pub.text);
  return id;
};

const expectError = (res: { status: number; body: any; text: string }, status: number, code?: string) => {
  assert.is(res.status, status, res.text);
  assert.is(res.body.success, false);
  assert.type(res.body.error, 'string');
  if (code) assert.is(res.body.code, code);
};

test('POST /api/pools creates a DRAFT pool and answers 201 with the GroupBuy (read-your-writes)', async (ctx) => {
  const res = await create(ctx, groupsPool());
  assert.is(res.status, 201, res.text);
  assert.is(res.body.success, true);
  const pool = res.body.data;
  assert.is(pool.status, 'DRAFT');
  assert.is(pool.type, 'GROUPS');
  assert.is(pool.organiserId, ctx.organiser.id);
  assert.is(pool.marketplaceVisibility, 'PRIVATE');
  assert.is(pool.archivedAt, null);
  assert.is(pool.country, 'FR');
  assert.equal(pool.pickupPoints.map((p: { id: string }) => p.id), ['r1', 'r2']);
  assert.is(pool.config.notes, 'owner only note', 'the owner sees owner-only config');
  assert.equal(pool.config.escrow, { accountId: ESCROW_ACCOUNT_ID }, 'the owner sees the escrow account id');
  assert.equal(pool.members.map((m: { role: string }) => m.role), ['organiser']);
  assert.equal(pool.myReservations, []);
  assert.match(res.headers.get('x-event-position') ?? '', /^\d+-\d+$/);
  const read = await ctx.api.call('GET', `/api/pools/${pool.id}`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.is(read.status, 200);
  assert.equal(read.body.data, pool);
});

test('creating needs a token (401) and the organise capability (403)', async (ctx) => {
  expectError(await ctx.api.call('POST', '/api/pools', { tenant: ctx.tenant, body: groupsPool() }), 401);
  expectError(await ctx.api.call('POST', '/api/pools', { token: 'not.a.jwt', tenant: ctx.tenant, body: groupsPool() }), 401);
  expectError(await create(ctx, groupsPool(), ctx.buyer), 403, 'organise_capability_required');
  expectError(await create(ctx, groupsPool(), ctx.buyer, '/api/merchant/pools'), 403, 'organise_capability_required');
});

test('invalid create bodies are 400 with per-field errors', async (ctx) => {
  const res = await create(ctx, { type: 'NOPE', title: '', targetAmount: 12.5, config: { units: [{ id: 'u', label: 'x', price: '1.123456789' }] }, surprise: 1 });
  expectError(res, 400, 'validation_failed');
  for (const field of ['type', 'title', 'targetAmount', 'config.units.0.price', 'surprise']) assert.ok(res.body.errors[field], `errors.${field} in ${res.text}`);
  expectError(await create(ctx, { ...groupsPool(), payoutAccount: 'not-a-stellar-account' }), 400);
});

test('organiserCommissionPercent is accepted only for BUSINESS accounts', async (ctx) => {
  expectError(await create(ctx, groupsPool({ organiserCommissionPercent: '5' })), 403, 'business_account_required');
  const ok = await create(ctx, groupsPool({ organiserCommissionPercent: 7.5 }), ctx.business);
  assert.is(ok.status, 201, ok.text);
  assert.is(ok.body.data.organiserCommissionPercent, '7.5');
  const id = ok.body.data.id;
  expectError(await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.business.token, tenant: ctx.tenant, body: { organiserCommissionPercent: '150' } }), 400);
});

test('acceptCommissionMandate on a brokered paid pool records the COMMISSION mandate', async (ctx) => {
  const res = await create(ctx, groupsPool({ sellerId: ctx.buyer.id, acceptCommissionMandate: true }), ctx.business);
  assert.is(res.status, 201, res.text);
  const events = await ctx.api.services.store.readStream(`pool-${res.body.data.id}`);
  const mandate = events.find((e) => e.type === 'PoolCommissionMandateAccepted');
  assert.ok(mandate, 'mandate event recorded');
  assert.match((mandate!.data as { hash: string }).hash, /^[0-9a-f]{64}$/);
  const own = await create(ctx, groupsPool({ acceptCommissionMandate: true }), ctx.business);
  const ownEvents = await ctx.api.services.store.readStream(`pool-${own.body.data.id}`);
  assert.not.ok(ownEvents.some((e) => e.type === 'PoolCommissionMandateAccepted'), 'not brokered: no mandate');
});

test('merchant path resolves sellerIdentifier (email, phone or id) to sellerId; unknown seller is 400', async (ctx) => {
  const byEmail = await create(ctx, groupsPool({ sellerIdentifier: ctx.buyer.email }), ctx.organiser, '/api/merchant/pools');
  assert.is(byEmail.status, 201, byEmail.text);
  assert.is(byEmail.body.data.sellerId, ctx.buyer.id);
  const byId = await create(ctx, groupsPool({ sellerIdentifier: ctx.buyer.id }), ctx.organiser, '/api/merchant/pools');
  assert.is(byId.body.data.sellerId, ctx.buyer.id);
  const unknown = await create(ctx, groupsPool({ sellerIdentifier: 'nobody@example.test' }), ctx.organiser, '/api/merchant/pools');
  expectError(unknown, 400);
  assert.ok(unknown.body.errors.sellerIdentifier);
  const foreignSeller = await create(ctx, groupsPool({ sellerIdentifier: ctx.foreigner.email }), ctx.organiser, '/api/merchant/pools');
  expectError(foreignSeller, 400);
  const slug = await create(ctx, groupsPool({ sellerMerchantSlug: 'no-such-merchant' }), ctx.organiser, '/api/merchant/pools');
  expectError(slug, 400);
  assert.ok(slug.body.errors.sellerMerchantSlug);
  expectError(await create(ctx, groupsPool({ sellerIdentifier: ctx.buyer.email })), 400, 'validation_failed');
});

test('PATCH while DRAFT edits every field, money spine included; GROUPS pick-up points re-sync from config.relais', async (ctx) => {
  const created = await create(ctx, groupsPool());
  const id = created.body.data.id;
  const payout = `G${'A'.repeat(55)}`;
  const res = await ctx.api.call('PATCH', `/api/merchant/pools/${id}`, {
    token: ctx.organiser.token,
    tenant: ctx.tenant,
    body: {
      title: 'Paniers d’hiver',
      sellerId: ctx.buyer.id,
      payoutAccount: payout,
      config: { units: [{ id: 'u2', label: 'Grand panier', price: '20' }], relais: [{ id: 'r3', name: 'Mairie', city: 'Caluire' }] },
    },
  });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.title, 'Paniers d’hiver');
  assert.is(res.body.data.sellerId, ctx.buyer.id);
  assert.is(res.body.data.payoutAccount, payout);
  assert.is(res.body.data.refund, null);
  assert.equal(res.body.data.pickupPoints.map((p: { id: string }) => p.id), ['r3']);
  // The command answers from its own fold; the read model's rows follow once the projection has the write.
  await ctx.api.runner.catchUp(parsePosition(res.headers.get('x-event-position') ?? '')!);
  const rows = await ctx.api.services.knex('rm_pool_pickup_points').where({ pool_id: id });
  assert.equal(rows.map((r: { point_id: string }) => r.point_id), ['r3']);
});

test('publishing goes through POST /publish only: PATCH {status:"OPEN"} is a 400 and the pool stays DRAFT; incomplete pools are refused', async (ctx) => {
  const draft = (await create(ctx, groupsPool())).body.data.id;
  for (const path of [`/api/pools/${draft}`, `/api/merchant/pools/${draft}`]) {
    const viaPatch = await ctx.api.call('PATCH', path, { token: ctx.organiser.token, tenant: ctx.tenant, body: { status: 'OPEN' } });
    expectError(viaPatch, 400, 'status_not_patchable');
    assert.ok(viaPatch.body.errors.status, viaPatch.text);
    const withChange = await ctx.api.call('PATCH', path, { token: ctx.organiser.token, tenant: ctx.tenant, body: { title: 'changed', status: 'OPEN' } });
    expectError(withChange, 400, 'status_not_patchable');
  }
  const still = await ctx.api.call('GET', `/api/pools/${draft}`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.is(still.body.data.status, 'DRAFT');
  assert.is(still.body.data.title, groupsPool().title, 'a refused PATCH changes nothing');
  assert.is((await ctx.api.call('PATCH', `/api/pools/${draft}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { status: 'DRAFT' } })).status, 200, 'the current status is accepted and ignored');
  const id = await published(ctx);
  // An anonymous reader is another client: it sees the write once the projection has it (or with X-Min-Position).
  await ctx.api.runner.catchUp();
  const read = await ctx.api.call('GET', `/api/pools/${id}`, { tenant: ctx.tenant });
  assert.is(read.body.data.status, 'OPEN');
  assert.ok(read.body.data.publishedAt);
  const empty = await create(ctx, groupsPool({ config: {} }));
  expectError(await ctx.api.call('POST', `/api/pools/${empty.body.data.id}/publish`, { token: ctx.organiser.token, tenant: ctx.tenant }), 400, 'pool_incomplete');
  const funding = await create(ctx, fundingPool());
  const pub = await ctx.api.call('POST', `/api/pools/${funding.body.data.id}/publish`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.is(pub.status, 200, pub.text);
  assert.is(pub.body.data.status, 'OPEN');
  expectError(await ctx.api.call('POST', `/api/pools/${funding.body.data.id}/publish`, { token: ctx.organiser.token, tenant: ctx.tenant }), 400, 'pool_not_draft');
});

test('once published only marketplaceVisibility (to PRIVATE) and country change; money spine is refused', async (ctx) => {
  const id = await published(ctx);
  const patch = (body: unknown) => ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body });
  for (const body of [{ sellerId: ctx.buyer.id }, { payoutAccount: `G${'B'.repeat(55)}` }, { config: { relais: [] } }, { title: 'New title' }]) {
    const res = await patch(body);
    expectError(res, 400, 'pool_published');
    assert.ok(res.body.errors[Object.keys(body)[0]!], res.text);
  }
  const country = await patch({ country: 'BE' });
  assert.is(country.status, 200, country.text);
  assert.is(country.body.data.country, 'BE');
  assert.is(country.body.data.refund, null);
  const same = await patch({ title: country.body.data.title, country: 'BE' });
  assert.is(same.status, 200, 'unchanged values are accepted');
  assert.is(same.headers.get('x-event-position'), null, 'and change nothing');
});

test('LISTED or FEATURED through PATCH is rejected; delisting to PRIVATE answers refund', async (ctx) => {
  const draft = await create(ctx, groupsPool());
  for (const v of ['LISTED', 'FEATURED']) {
    const res = await ctx.api.call('PATCH', `/api/pools/${draft.body.data.id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { marketplaceVisibility: v } });
    expectError(res, 400, 'listing_requires_listing_operation');
    assert.ok(res.body.errors.marketplaceVisibility);
  }
  for (const v of ['LISTED', 'FEATURED']) expectError(await create(ctx, groupsPool({ marketplaceVisibility: v })), 400, 'listing_requires_listing_operation');
  const listed = await published(ctx, groupsPool());
  await ctx.api.list(ctx.organiser, listed, 'LISTED');
  const delist = await ctx.api.call('PATCH', `/api/pools/${listed}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { marketplaceVisibility: 'PRIVATE' } });
  assert.is(delist.status, 200, delist.text);
  assert.is(delist.body.data.marketplaceVisibility, 'PRIVATE');
  assert.ok('refund' in delist.body.data);
  assert.is(delist.body.data.refund, null, 'the listing was free (this tenant’s fee is 0), nothing to refund');
  expectError(
    await ctx.api.call('PATCH', `/api/pools/${listed}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { marketplaceVisibility: 'LISTED' } }),
    400,
    'listing_requires_listing_operation',
  );
});

test('archive and unarchive: 200 with archivedAt, 400 when repeated, audit-logged as events', async (ctx) => {
  const id = (await create(ctx, groupsPool())).body.data.id;
  const call = (method: string) => ctx.api.call(method, `/api/pools/${id}/archive`, { token: ctx.organiser.token, tenant: ctx.tenant });
  const archived = await call('POST');
  assert.is(archived.status, 200, archived.text);
  assert.is(archived.body.data.id, id);
  assert.ok(!Number.isNaN(Date.parse(archived.body.data.archivedAt)));
  expectError(await call('POST'), 400, 'pool_already_archived');
  const list = await ctx.api.call('GET', '/api/merchant/pools?archived=true', { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.ok(list.body.data.items.some((p: { id: string }) => p.id === id));
  const restored = await call('DELETE');
  assert.is(restored.status, 200);
  assert.equal(restored.body.data, { id, archivedAt: null });
  expectError(await call('DELETE'), 400, 'pool_not_archived');
  const events = await ctx.api.services.store.readStream(`pool-${id}`);
  const archive = events.find((e) => e.type === 'PoolArchived')!;
  assert.equal(archive.metadata.actor, { kind: 'user', id: ctx.organiser.id }, 'the actor is audited');
  assert.ok(events.some((e) => e.type === 'PoolUnarchived'));
});

test('archive and unarchive need a token (401), then the organiser role (403, before ownership), then ownership (404)', async (ctx) => {
  const id = (await create(ctx, groupsPool())).body.data.id;
  expectError(await ctx.api.call('POST', `/api/pools/${id}/archive`, { tenant: ctx.tenant }), 401);
  expectError(await ctx.api.call('POST', `/api/pools/${id}/archive`, { token: ctx.otherOrganiser.token, tenant: ctx.tenant }), 404);
  expectError(await ctx.api.call('POST', `/api/pools/${id}/archive`, { token: ctx.buyer.token, tenant: ctx.tenant }), 403, 'organise_capability_required');
  expectError(await ctx.api.call('DELETE', `/api/pools/${id}/archive`, { token: ctx.buyer.token, tenant: ctx.tenant }), 403, 'organise_capability_required');
  expectError(await ctx.api.call('POST', `/api/pools/${randomUUID()}/archive`, { token: ctx.buyer.token, tenant: ctx.tenant }), 403, 'organise_capability_required');
  expectError(await ctx.api.call('POST', `/api/pools/${randomUUID()}/archive`, { token: ctx.organiser.token, tenant: ctx.tenant }), 404);
  expectError(await ctx.api.call('DELETE', `/api/pools/not-a-uuid/archive`, { token: ctx.organiser.token, tenant: ctx.tenant }), 404);
});

test('PATCH by someone else is 404, by a non-organiser on a missing pool 404, without token 401', async (ctx) => {
  const id = (await create(ctx, groupsPool())).body.data.id;
  for (const path of [`/api/pools/${id}`, `/api/merchant/pools/${id}`]) {
    expectError(await ctx.api.call('PATCH', path, { token: ctx.otherOrganiser.token, tenant: ctx.tenant, body: { title: 'x' } }), 404);
    expectError(await ctx.api.call('PATCH', path, { tenant: ctx.tenant, body: { title: 'x' } }), 401);
    expectError(await ctx.api.call('PATCH', path, { token: ctx.organiser.token, tenant: ctx.tenant, body: { title: 42 } }), 400);
  }
});

test('anonymous reads: published GROUPS and LISTED/FEATURED FUNDING only, with members and myReservations empty', async (ctx) => {
  const draft = (await create(ctx, groupsPool())).body.data.id;
  const open = await published(ctx);
  const privateFunding = await published(ctx, fundingPool());
  const listedFunding = await published(ctx, fundingPool());
  await ctx.api.list(ctx.organiser, listedFunding, 'LISTED');
  const archivedOpen = await published(ctx);
  await ctx.api.call('POST', `/api/pools/${archivedOpen}/archive`, { token: ctx.organiser.token, tenant: ctx.tenant });
  // Anonymous readers are other clients: they see the organiser's writes once the projections have them.
  await ctx.api.runner.catchUp();
  const anon = (id: string) => ctx.api.call('GET', `/api/pools/${id}`, { tenant: ctx.tenant });
  expectError(await anon(draft), 404);
  expectError(await anon(privateFunding), 404);
  expectError(await anon(archivedOpen), 404);
  const groups = await anon(open);
  assert.is(groups.status, 200);
  assert.equal(groups.body.data.members, []);
  assert.equal(groups.body.data.myReservations, []);
  for (const k of ['notes', 'sellerPhone', 'links', 'escrow']) assert.is(groups.body.data.config[k], undefined, `config.${k} hidden`);
  assert.is(groups.body.data.payoutAccount, null);
  assert.ok(groups.body.data.config.units.length > 0, 'public config stays');
  assert.is(groups.text.includes(ESCROW_ACCOUNT_ID), false);
  assert.is((await anon(listedFunding)).status, 200);
  const viewer = await ctx.api.call('GET', `/api/pools/${open}`, { token: ctx.buyer.token, tenant: ctx.tenant });
  assert.is(viewer.status, 200);
  assert.is(viewer.body.data.members.length, 1, 'signed-in viewers see member names');
  assert.is(viewer.body.data.members[0].userId, undefined, 'but not other members\' ids');
  expectError(await ctx.api.call('GET', `/api/pools/${draft}`, { token: ctx.buyer.token, tenant: ctx.tenant }), 404);
  assert.is((await ctx.api.call('GET', `/api/pools/${draft}`, { token: ctx.organiser.token, tenant: ctx.tenant })).status, 200);
  expectError(await ctx.api.call('GET', `/api/pools/${randomUUID()}`, { tenant: ctx.tenant }), 404);
  expectError(await ctx.api.call('GET', '/api/pools/not-a-uuid', { tenant: ctx.tenant }), 404);
});

test('tenant isolation: another tenant\'s pool is a 404 everywhere and never listed', async (ctx) => {
  const id = await published(ctx);
  expectError(await ctx.api.call('GET', `/api/pools/${id}`, { tenant: ctx.otherTenant }), 404);
  expectError(await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.foreigner.token }), 404);
  expectError(await ctx.api.call('GET', `/api/merchant/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.otherTenant }), 404);
  expectError(await ctx.api.call('GET', `/api/merchant/pools/${id}`, { token: ctx.foreigner.token, tenant: ctx.otherTenant }), 404);
  expectError(await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.foreigner.token, tenant: ctx.otherTenant, body: { country: 'DE' } }), 404);
  expectError(await ctx.api.call('POST', `/api/pools/${id}/archive`, { token: ctx.foreigner.token }), 404);
  const foreignList = await ctx.api.call('GET', '/api/merchant/pools', { token: ctx.foreigner.token, tenant: ctx.otherTenant });
  assert.is(foreignList.body.data.items.length, 0);
  expectError(await ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.otherTenant, body: groupsPool() }), 403, 'tenant_mismatch');
  expectError(await ctx.api.call('GET', `/api/pools/${id}`, { tenant: 'no-such-tenant' }), 404, 'tenant_not_found');
});

test('GET /api/merchant/pools lists only my pools in the tenant, any status, filtered and paginated', async (ctx) => {
  const org = await ctx.api.user(ctx.tenant, { role: 'organiser' });
  const ids: string[] = [];
  for (let i = 0; i < 3; i++) ids.push((await create(ctx, groupsPool({ title: `G${i}` }), org)).body.data.id);
  const funding = (await create(ctx, fundingPool(), org)).body.data.id;
  await ctx.api.call('POST', `/api/pools/${ids[0]}/publish`, { token: org.token, tenant: ctx.tenant });
  const list = (q = '') => ctx.api.call('GET', `/api/merchant/pools${q}`, { token: org.token, tenant: ctx.tenant });
  const all = await list();
  assert.is(all.status, 200);
  assert.is(all.body.data.pagination.total, 4);
  assert.equal(new Set(all.body.data.items.map((p: { id: string }) => p.id)), new Set([...ids, funding]));
  assert.is((await list('?type=FUNDING')).body.data.items[0].id, funding);
  assert.is((await list('?status=OPEN')).body.data.items.length, 1);
  assert.is((await list('?archived=false')).body.data.items.length, 4);
  const page = await list('?page=2&limit=3');
  assert.equal(page.body.data.pagination, { page: 2, limit: 3, total: 4, totalPages: 2, hasNext: false });
  assert.is(page.body.data.items.length, 1);
  expectError(await list('?limit=0'), 400);
  expectError(await list('?limit=101'), 400);
  expectError(await list('?page=0'), 400);
  expectError(await list('?status=NOPE'), 400);
  expectError(await list('?archived=maybe'), 400);
  const buyerList = await ctx.api.call('GET', '/api/merchant/pools', { token: ctx.buyer.token, tenant: ctx.tenant });
  assert.is(buyerList.status, 200);
  assert.equal(buyerList.body.data.items, [], 'a non-organiser gets an empty list');
  expectError(await ctx.api.call('GET', '/api/merchant/pools', { tenant: ctx.tenant }), 401);
});

test('GET /api/merchant/pools/{id}: owner 200, others 404, non-organiser 403, no token 401', async (ctx) => {
  const id = (await create(ctx, groupsPool())).body.data.id;
  const own = await ctx.api.call('GET', `/api/merchant/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.is(own.status, 200);
  assert.equal(own.body.data.config.escrow, { accountId: ESCROW_ACCOUNT_ID });
  expectError(await ctx.api.call('GET', `/api/merchant/pools/${id}`, { token: ctx.otherOrganiser.token, tenant: ctx.tenant }), 404);
  expectError(await ctx.api.call('GET', `/api/merchant/pools/${id}`, { token: ctx.buyer.token, tenant: ctx.tenant }), 403);
  expectError(await ctx.api.call('GET', `/api/merchant/pools/${id}`, { tenant: ctx.tenant }), 401);
  expectError(await ctx.api.call('GET', `/api/merchant/pools/${randomUUID()}`, { token: ctx.organiser.token, tenant: ctx.tenant }), 404);
});

test('GET /api/pools lists pools I organise (any tenant-scoped status) and is 401 without a token', async (ctx) => {
  const org = await ctx.api.user(ctx.tenant, { role: 'organiser' });
  const a = (await create(ctx, groupsPool(), org)).body.data.id;
  const b = (await create(ctx, fundingPool(), org)).body.data.id;
  const res = await ctx.api.call('GET', '/api/pools', { token: org.token });
  assert.is(res.status, 200);
  assert.equal(new Set(res.body.data.items.map((p: { id: string }) => p.id)), new Set([a, b]));
  assert.is((await ctx.api.call('GET', '/api/pools?type=GROUPS', { token: org.token })).body.data.items.length, 1);
  assert.equal((await ctx.api.call('GET', '/api/pools', { token: ctx.buyer.token })).body.data.items, []);
  expectError(await ctx.api.call('GET', '/api/pools'), 401);
});

test('GET /api/merchant/profile: 401 without token, 403 without an active merchant profile', async (ctx) => {
  expectError(await ctx.api.call('GET', '/api/merchant/profile'), 401);
  expectError(await ctx.api.call('GET', '/api/merchant/profile', { token: ctx.organiser.token }), 403, 'merchant_profile_required');
});

test('concurrent PATCHes on one pool all land or answer 409, never 500, and the stream stays consistent', async (ctx) => {
  const id = (await create(ctx, groupsPool())).body.data.id;
  const results = await Promise.all(
    Array.from({ length: 8 }, (_, i) => ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { description: `d${i}` } })),
  );
  for (const r of results) assert.ok(r.status === 200 || r.status === 409, r.text);
  const events = await ctx.api.services.store.readStream(`pool-${id}`);
  assert.equal(events.map((e) => e.revision), events.map((_, i) => BigInt(i)));
  assert.is((await ctx.api.services.store.verifyStream(`pool-${id}`)).ok, true);
});

test.run();
