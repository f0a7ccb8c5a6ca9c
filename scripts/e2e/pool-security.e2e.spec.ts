/**
 * Issue 8 (pool side): what a pool may hold, who sees which of it, and the references a pool names.
 * - every field a pool can hold, with a distinctive value, checked field by field in the anonymous, member
 *   (signed-in, not the owner), owner and catalogue-card views;
 * - config is closed; no secret key is ever stored; old events and stale documents never leak through a view;
 * - sellerId / sellerMerchantSlug are checked in the tenant; a database outage during the lookup is a 503;
 * - an anonymous read without tenant header or token is scoped to DEFAULT_TENANT.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import knexFactory from 'knex';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { makeCommandRoutes } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { createApiServer, type Services } from '@cagnotte/infra';
import { API_INFO } from '../src/api';
import { call, fundingPool, groupsPool, listen, startApi, uniqueSlug, type TestApi, type TestUser } from './harness';
import { TenantReadModel } from '@cagnotte/read-models';
import { currentReservationTerms } from '@cagnotte/event-schemas';

/** An error answer but for its request's own id (every answer names its request: `requestId`). */
const sansRequestId = (body: unknown): unknown => {
  if (!body || typeof body !== 'object') return body;
  const { requestId: _requestId, ...rest } = body as Record<string, unknown>;
  return rest;
};

interface Ctx {
  api: TestApi;
  tenant: string;
  otherTenant: string;
  business: TestUser;
  organiser: TestUser;
  seller: TestUser;
  viewer: TestUser;
  foreigner: TestUser;
}

const test = suite<Ctx>('pool security: views, closed config, references, tenant scoping');

test.before(async (ctx) => {
  const dflt = uniqueSlug('dflt');
  ctx.api = await startApi({ DEFAULT_TENANT: dflt });
  ctx.tenant = (await ctx.api.tenant({ slug: dflt })).slug;
  ctx.otherTenant = (await ctx.api.tenant()).slug;
  ctx.business = await ctx.api.user(ctx.tenant, { role: 'organiser', accountType: 'BUSINESS', name: 'VIEW-organiser-name' });
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Plain Organiser' });
  ctx.seller = await ctx.api.user(ctx.tenant, { role: 'user', name: 'Seller Sam' });
  ctx.viewer = await ctx.api.user(ctx.tenant, { role: 'user', name: 'Viewer Val' });
  ctx.foreigner = await ctx.api.user(ctx.otherTenant, { role: 'organiser', name: 'Foreign Fred' });
});

test.after(async (ctx) => ctx.api.stop());

const expectError = (res: { status: number; body: any; text: string }, status: number, code?: string) => {
  assert.is(res.status, status, res.text);
  assert.is(res.body.success, false);
  if (code) assert.is(res.body.code, code, res.text);
};

const base32 = (seed: string) => seed.replace(/[^A-Z2-7]/g, '').repeat(20).slice(0, 55);
const PAYOUT = `G${base32('PAYOUTVIEW')}`;
const ESCROW = `G${base32('ESCROWVIEWACCOUNT')}`;
const SEED = `S${base32('SECRETSEEDVIEW')}`;

/** A value in every field a pool can hold, each one distinctive. */
const everyField = (sellerId: string) => ({
  type: 'GROUPS',
  title: 'VIEW-title',
  description: 'VIEW-description',
  country: 'LU',
  currency: 'EUR',
  sellerId,
  payoutAccount: PAYOUT,
  organiserCommissionPercent: '12.5',
  targetAmount: '777.77',
  deadline: '2031-01-02T03:04:05.000Z',
  config: {
    units: [
      {
        id: 'u-view', label: 'VIEW-unit', price: '9.99', quantity: 42, minPerBuyer: 2, maxPerBuyer: 7,
        tiers: [{ minQuantity: 10, price: '8.88' }, { minQuantity: 20, price: '7.77' }],
      },
    ],
    minimumUnits: 13,
    release: { after: 'RECEIPT', inspectionDays: 9 },
    relais: [
      { id: 'r-view', name: 'VIEW-relais', address: 'VIEW-address', postalCode: '69009', city: 'VIEW-city', country: 'FR', lat: 45.1, lng: 4.2, openingHours: 'VIEW-hours' },
    ],
    sellerPhone: '+33611223344',
    notes: 'VIEW-notes',
    links: ['https://view.example.test/VIEW-link'],
    escrow: { accountId: ESCROW },
  },
});

type View = 'anon' | 'member' | 'owner' | 'card';
const ALL: View[] = ['anon', 'member', 'owner', 'card'];
const READERS: View[] = ['anon', 'member', 'owner'];

const at = (obj: unknown, path: string): unknown =>
  path.split('.').reduce<unknown>((o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined), obj);

test('every field a pool can hold, field by field: anonymous, member, owner and card views (allowlists)', async (ctx) => {
  const body = everyField(ctx.seller.id);
  const created = await ctx.api.call('POST', '/api/pools', { token: ctx.business.token, tenant: ctx.tenant, body });
  assert.is(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const pub = await ctx.api.call('POST', `/api/pools/${id}/publish`, { token: ctx.business.token, tenant: ctx.tenant });
  assert.is(pub.status, 200, pub.text);
  await ctx.api.list(ctx.business, id, 'LISTED');
  await ctx.api.runner.catchUp();

  const anon = await ctx.api.call('GET', `/api/pools/${id}`, { tenant: ctx.tenant });
  const member = await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.viewer.token, tenant: ctx.tenant });
  const owner = await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.business.token, tenant: ctx.tenant });
  const list = await ctx.api.call('GET', '/api/tenant/group-buys?q=VIEW-title', { tenant: ctx.tenant });
  const search = await ctx.api.call('GET', '/api/tenant/search?q=VIEW-title&type=pools', { tenant: ctx.tenant });
  for (const r of [anon, member, owner, list, search]) assert.is(r.status, 200, r.text);
  const card = list.body.data.items.find((c: { id: string }) => c.id === id);
  assert.ok(card, 'the listed pool has a card');
  const hit = search.body.data.pools.find((h: { id: string }) => h.id === id);
  assert.ok(hit, 'and a search hit');
  assert.equal(hit.item, card, 'the search hit carries the same card');
  const views: Record<View, { data: unknown; text: string }> = {
    anon: { data: anon.body.data, text: anon.text },
    member: { data: member.body.data, text: member.text },
    owner: { data: owner.body.data, text: owner.text },
    card: { data: card, text: JSON.stringify(card) + search.text },
  };

  // [path in the view, expected value, views that show it]. Absent elsewhere (null for GroupBuy's nullable fields).
  const c = body.config;
  const expected: Array<[string, unknown, View[]]> = [
    ['id', id, ALL],
    ['tenantId', owner.body.data.tenantId, READERS],
    ['type', 'GROUPS', ALL],
    ['status', 'OPEN', ALL],
    ['title', body.title, ALL],
    ['description', body.description, ALL],
    ['country', body.country, ALL],
    ['currency', 'EUR', ALL],
    ['marketplaceVisibility', 'LISTED', ALL],
    ['archivedAt', null, READERS],
    ['organiserId', ctx.business.id, READERS],
    ['organiserName', 'VIEW-organiser-name', ALL],
    ['sellerId', ctx.seller.id, READERS],
    ['payoutAccount', PAYOUT, ['owner']],
    ['organiserCommissionPercent', '12.5', READERS],
    ['targetAmount', body.targetAmount, ALL],
    ['deadline', body.deadline, ALL],
    ['config.units', c.units, ALL],
    ['config.relais', c.relais, ALL],
    ['config.sellerPhone', c.sellerPhone, ['owner']],
    ['config.notes', c.notes, ['owner']],
    ['config.links', c.links, ['owner']],
    ['config.escrow', c.escrow, ['owner']],
    ['config.units.0.tiers', c.units[0]!.tiers, ALL],
    ['config.units.0.minPerBuyer', 2, ALL],
    ['config.units.0.maxPerBuyer', 7, ALL],
    ['config.minimumUnits', 13, ALL],
    ['config.release', c.release, ALL],
    ['units', c.units, ['card']],
    // Whether a point still takes parcels (docs/relais.md) is on the pool, not on its card.
    ['pickupPoints.0.available', true, READERS],
    ['pickupPoints.0.unavailableReason', null, READERS],
    ['publishedAt', owner.body.data.publishedAt, ALL],
    ['createdAt', owner.body.data.createdAt, ALL],
    ['updatedAt', owner.body.data.updatedAt, READERS],
    ['revision', 3, READERS], // created, published, escrow opened, listed
    ['myReservations', [], READERS],
  ];
  for (const [path, value, shownIn] of expected) {
    for (const view of ALL) {
      const got = at(views[view].data, path);
      if (shownIn.includes(view)) assert.equal(got, value, `${view}: ${path}`);
      else assert.ok(got === undefined || (got === null && path === 'payoutAccount'), `${view} must not show ${path}: ${JSON.stringify(got)}`);
    }
  }
  assert.ok(owner.body.data.publishedAt && owner.body.data.createdAt, 'the dates compared against are real');
  assert.equal(created.body.data.config, owner.body.data.config, 'the command answers config as its owner reads it back');
  // Owner-only values appear nowhere in the other views, not even under another key.
  for (const secretish of [PAYOUT, ESCROW, c.sellerPhone, c.notes, c.links[0]!]) {
    for (const view of ['anon', 'member', 'card'] as View[]) assert.not.ok(views[view].text.includes(secretish), `${view} leaks ${secretish}`);
  }
  // Members: none for anonymous readers; names for a signed-in reader; ids for the owner only; names on cards.
  assert.equal(anon.body.data.members, []);
  assert.equal(member.body.data.members.map((m: Record<string, unknown>) => [m.userId, m.displayName, m.role]), [[undefined, 'VIEW-organiser-name', 'organiser']]);
  assert.equal(owner.body.data.members.map((m: Record<string, unknown>) => [m.userId, m.displayName, m.role]), [[ctx.business.id, 'VIEW-organiser-name', 'organiser']]);
  assert.equal(card.members, [{ displayName: 'VIEW-organiser-name' }]);
  for (const view of ALL) {
    assert.equal(at(views[view].data, 'pickupPoints'), [{ ...c.relais[0], ...(view === 'card' ? {} : { available: true, unavailableReason: null }) }], `${view}: pickupPoints`);
  }
  // No view has a key beyond its allowlist.
  const groupBuyKeys = [
    'archivedAt', 'cancelledAt', 'closing', 'config', 'country', 'createdAt', 'currency', 'deadline', 'description', 'id', 'marketplaceVisibility', 'members',
    'myReservations', 'organiserCommissionPercent', 'organiserId', 'organiserName', 'payoutAccount', 'pickupPoints', 'publishedAt', 'revision', 'sellerId',
    'settledAt', 'status', 'targetAmount', 'tenantId', 'title', 'type', 'updatedAt',
  ];
  for (const view of READERS) assert.equal(Object.keys(views[view].data as object).sort(), groupBuyKeys, `${view} keys`);
  assert.equal(Object.keys(card).sort(), [
    'config', 'country', 'createdAt', 'currency', 'deadline', 'description', 'id', 'marketplaceVisibility', 'members', 'organiserName', 'pickupPoints',
    'publishedAt', 'status', 'targetAmount', 'title', 'type', 'units',
  ]);
  // Every key of PoolConfig is served to the owner: what a pool holds, its owner can read back.
  assert.equal(Object.keys(owner.body.data.config).sort(), ['escrow', 'links', 'minimumUnits', 'notes', 'relais', 'release', 'sellerPhone', 'units']);
  for (const view of ['anon', 'member', 'card'] as View[]) {
    assert.equal(Object.keys(at(views[view].data, 'config') as object).sort(), ['minimumUnits', 'relais', 'release', 'units'], `${view} config keys`);
  }
  for (const view of ALL) assert.equal(Object.keys(at(views[view].data, 'config.units.0') as object).sort(), ['id', 'label', 'maxPerBuyer', 'minPerBuyer', 'price', 'quantity', 'tiers'], `${view} unit keys`);
});

test('a FUNDING pool\'s pledge range and release terms: in every reader\'s view, its search card and the command\'s answer', async (ctx) => {
  const config = { pledge: { min: '5.00', max: '250.00' }, release: { after: 'CLOSE' }, notes: 'PLEDGE-notes' };
  const created = await ctx.api.call('POST', '/api/pools', { token: ctx.business.token, tenant: ctx.tenant, body: fundingPool({ title: 'PLEDGE-title', config }) });
  assert.is(created.status, 201, created.text);
  const id = created.body.data.id as string;
  assert.is((await ctx.api.call('POST', `/api/pools/${id}/publish`, { token: ctx.business.token, tenant: ctx.tenant })).status, 200);
  await ctx.api.list(ctx.business, id, 'LISTED');
  await ctx.api.runner.catchUp();
  const anon = await ctx.api.call('GET', `/api/pools/${id}`, { tenant: ctx.tenant });
  const member = await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.viewer.token, tenant: ctx.tenant });
  const owner = await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.business.token, tenant: ctx.tenant });
  const search = await ctx.api.call('GET', '/api/tenant/search?q=PLEDGE-title&type=pools', { tenant: ctx.tenant });
  for (const r of [anon, member, owner, search]) assert.is(r.status, 200, r.text);
  const card = search.body.data.pools.find((h: { id: string }) => h.id === id)?.item;
  assert.ok(card, 'the listed FUNDING pool is found');
  const { notes: _ownerOnly, ...shown } = config;
  for (const [view, got] of [['anon', anon.body.data.config], ['member', member.body.data.config], ['card', card.config]] as const) assert.equal(got, shown, view);
  assert.equal(owner.body.data.config, config, 'owner');
  assert.equal(created.body.data.config, config, 'the command\'s answer');
});

test('config is closed: an unknown key (config.reclaimXdr, escrow.secret) is a 400 naming it, on create and PATCH', async (ctx) => {
  const create = (config: Record<string, unknown>) => ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body: groupsPool({ config }) });
  const xdr = await create({ ...groupsPool().config, reclaimXdr: 'AAAAAgAAAAB' });
  expectError(xdr, 400, 'validation_failed');
  assert.equal(Object.keys(xdr.body.errors), ['config.reclaimXdr'], xdr.text);
  const secret = await create({ escrow: { accountId: ESCROW, secret: 'whatever' } });
  expectError(secret, 400, 'validation_failed');
  assert.equal(Object.keys(secret.body.errors), ['config.escrow.secret'], secret.text);
  const notAnAccount = await create({ escrow: { accountId: 'GPUBLIC' } });
  assert.ok(notAnAccount.body.errors['config.escrow.accountId'], notAnAccount.text);
  const id = (await create({ units: [{ id: 'u', label: 'u', price: '1' }] })).body.data.id;
  for (const path of [`/api/pools/${id}`, `/api/merchant/pools/${id}`]) {
    const res = await ctx.api.call('PATCH', path, { token: ctx.organiser.token, tenant: ctx.tenant, body: { config: { partnerKey: 1 } } });
    expectError(res, 400, 'validation_failed');
    assert.equal(Object.keys(res.body.errors), ['config.partnerKey']);
  }
});

test('a Stellar secret seed anywhere in a pool command is a 400 secret_key_refused, and nothing is stored', async (ctx) => {
  const before = await ctx.api.services.knex('es_events').count<{ count: string }[]>({ count: '*' });
  for (const body of [
    groupsPool({ description: `key ${SEED}` }),
    groupsPool({ config: { ...groupsPool().config, notes: SEED } }),
    groupsPool({ config: { units: [{ id: 'u', label: SEED, price: '1' }] } }),
  ]) {
    const res = await ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body });
    expectError(res, 400, 'secret_key_refused');
    assert.ok(Object.keys(res.body.errors).length === 1, res.text);
  }
  const id = (await ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body: groupsPool() })).body.data.id;
  const patch = await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { title: SEED } });
  expectError(patch, 400, 'secret_key_refused');
  assert.equal(Object.keys(patch.body.errors), ['title']);
  const after = await ctx.api.services.knex('es_events').count<{ count: string }[]>({ count: '*' });
  assert.ok(Number(after[0]!.count) - Number(before[0]!.count) <= 2, 'only the valid pool was written');
  const stored = await ctx.api.services.knex('es_events').whereRaw('data::text LIKE ?', [`%${SEED}%`]).count<{ count: string }[]>({ count: '*' });
  assert.is(Number(stored[0]!.count), 0, 'no event holds the seed');
});

test('old events (v1 free-form config with secrets) and stale read-model documents never reach a view', async (ctx) => {
  const tenant = (await new TenantReadModel(ctx.api.services.knex).bySlug(ctx.tenant))!;
  const poolId = randomUUID();
  const now = new Date().toISOString();
  const metadata = { tenantId: tenant.id, actor: { kind: 'user' as const, id: ctx.organiser.id }, correlationId: randomUUID(), causationId: null, occurredAt: now };
  const v1Config = {
    units: [{ id: 'u1', label: 'Old unit', price: '5' }],
    notes: 'old note',
    reclaimXdr: 'OLD-RECLAIM-XDR',
    partnerKey: 'OLD-PARTNER-KEY',
    escrow: { accountId: ESCROW, secret: SEED, signerSecret: 'OLD-SIGNER-SECRET' },
  };
  const { position } = await ctx.api.services.store.append(
    `pool-${poolId}`,
    [
      {
        id: randomUUID(),
        type: 'PoolCreated',
        schemaVersion: 1,
        data: {
          poolId, tenantId: tenant.id, type: 'GROUPS', organiserId: ctx.organiser.id, organiserName: 'Plain Organiser', createdAt: now,
          title: 'Old pool', description: '', country: 'FR', currency: 'EUR', marketplaceVisibility: 'LISTED', config: v1Config,
          sellerId: null, payoutAccount: null, organiserCommissionPercent: null, targetAmount: null, deadline: null,
        },
        metadata,
      },
      { id: randomUUID(), type: 'PoolPublished', schemaVersion: 1, data: { poolId, publishedAt: now }, metadata },
    ],
    { expectedRevision: 'no_stream' },
  );
  await ctx.api.runner.catchUp(position);
  const leaks = ['OLD-RECLAIM-XDR', 'OLD-PARTNER-KEY', 'OLD-SIGNER-SECRET', SEED];
  const read = async () => {
    const owner = await ctx.api.call('GET', `/api/pools/${poolId}`, { token: ctx.organiser.token, tenant: ctx.tenant });
    const anon = await ctx.api.call('GET', `/api/pools/${poolId}`, { tenant: ctx.tenant });
    const cards = await ctx.api.call('GET', '/api/tenant/group-buys?q=Old%20pool', { tenant: ctx.tenant });
    for (const r of [owner, anon, cards]) {
      assert.is(r.status, 200, r.text);
      for (const leak of leaks) assert.not.ok(r.text.includes(leak), `served ${leak}: ${r.text}`);
    }
    assert.equal(owner.body.data.config, { units: v1Config.units, notes: 'old note', escrow: { accountId: ESCROW } });
    assert.equal(anon.body.data.config, { units: v1Config.units });
    assert.ok(cards.body.data.items.some((c: { id: string }) => c.id === poolId));
  };
  await read();
  const doc = await ctx.api.services.knex('rm_pools').where({ id: poolId }).first();
  for (const leak of leaks) assert.not.ok(JSON.stringify(doc.doc).includes(leak), `the upcast fold keeps ${leak} out of rm_pools.doc`);
  // A document projected before config was closed (not rebuilt since): the allowlists still serve nothing of it.
  await ctx.api.services.knex.raw(
    `UPDATE rm_pools SET doc = jsonb_set(jsonb_set(doc, '{fields,config,reclaimXdr}', '"OLD-RECLAIM-XDR"'), '{fields,config,escrow}', ?::jsonb) WHERE id = ?`,
    [JSON.stringify(v1Config.escrow), poolId],
  );
  await read();
});

test('sellerId must be a user of the tenant (400 sellerId), on create, merchant create and PATCH', async (ctx) => {
  const create = (body: Record<string, unknown>, path = '/api/pools') => ctx.api.call('POST', path, { token: ctx.organiser.token, tenant: ctx.tenant, body: groupsPool(body) });
  for (const sellerId of [ctx.foreigner.id, randomUUID()]) {
    for (const path of ['/api/pools', '/api/merchant/pools']) {
      const res = await create({ sellerId }, path);
      expectError(res, 400, 'validation_failed');
      assert.equal(Object.keys(res.body.errors), ['sellerId'], res.text);
    }
  }
  const ok = await create({ sellerId: ctx.seller.id });
  assert.is(ok.status, 201, ok.text);
  assert.is(ok.body.data.sellerId, ctx.seller.id);
  const id = ok.body.data.id;
  const patch = await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { sellerId: ctx.foreigner.id } });
  expectError(patch, 400, 'validation_failed');
  assert.equal(Object.keys(patch.body.errors), ['sellerId']);
  // Under another tenant's header the pool is not the caller's (404): no answer about that tenant's users.
  expectError(await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.otherTenant, body: { sellerId: ctx.foreigner.id } }), 404, 'pool_not_found');
  expectError(await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.otherTenant, body: { sellerId: randomUUID() } }), 404, 'pool_not_found');
  const cleared = await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { sellerId: null } });
  assert.is(cleared.status, 200, cleared.text);
  assert.is(cleared.body.data.sellerId, null);
  const foreignIdentifier = await create({ sellerIdentifier: ctx.foreigner.email }, '/api/merchant/pools');
  expectError(foreignIdentifier, 400);
  assert.ok(foreignIdentifier.body.errors.sellerIdentifier);
});

test('sellerMerchantSlug: a merchant of this tenant owned by the caller; another owner\'s, an ownerless or another tenant\'s is a 400', async (ctx) => {
  const own = await ctx.api.merchant(ctx.tenant, { name: 'My Shop', ownerEmail: ctx.organiser.email });
  const others = await ctx.api.merchant(ctx.tenant, { name: 'Their Shop', ownerEmail: ctx.business.email });
  const ownerless = await ctx.api.merchant(ctx.tenant, { name: 'Nobody\'s Shop' });
  const foreign = await ctx.api.merchant(ctx.otherTenant, { name: 'Foreign Shop', ownerEmail: ctx.foreigner.email });
  const create = (body: Record<string, unknown>) => ctx.api.call('POST', '/api/merchant/pools', { token: ctx.organiser.token, tenant: ctx.tenant, body: groupsPool(body) });
  const ok = await create({ sellerMerchantSlug: own.slug });
  assert.is(ok.status, 201, ok.text);
  assert.is(ok.body.data.sellerId, ctx.organiser.id);
  for (const [slug, message] of [
    [others.slug, /you can name only a merchant you own/],
    [ownerless.slug, /no owner/],
    [foreign.slug, /no active merchant/],
    ['no-such-shop', /no active merchant/],
  ] as const) {
    const res = await create({ sellerMerchantSlug: slug });
    expectError(res, 400, 'validation_failed');
    assert.equal(Object.keys(res.body.errors), ['sellerMerchantSlug'], res.text);
    assert.match(res.body.errors.sellerMerchantSlug[0], message);
  }
  const mismatch = await create({ sellerMerchantSlug: own.slug, sellerId: ctx.seller.id });
  expectError(mismatch, 400);
  assert.ok(mismatch.body.errors.sellerId, mismatch.text);
  const draft = ok.body.data.id;
  const patch = await ctx.api.call('PATCH', `/api/merchant/pools/${draft}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { sellerMerchantSlug: others.slug } });
  expectError(patch, 400);
  assert.ok(patch.body.errors.sellerMerchantSlug, patch.text);
});

const QUIET = { warn: () => {}, error: () => {}, debug: () => {}, deprecate: () => {} };

/** A TCP port nothing listens on: connecting to it is refused, as when the database is down. */
const closedPort = async (): Promise<number> => {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
};

/**
 * The event store of `services`, except that reading a seller's account stream or a merchant's stream meets a
 * database that refuses connections: the reference lookups read those streams. The caller's own account stream
 * (who acts) and the pool streams stay up.
 */
const referenceStreamsDown = (store: Services['store'], callerId: string): Services['store'] => {
  const refused = () => Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  const isReference = (streamId: string) => streamId.startsWith('merchant-') || (streamId.startsWith('account-') && streamId !== `account-${callerId}`);
  return new Proxy(store, {
    get(target, prop) {
      if (prop === 'readStream') {
        return (streamId: string, ...rest: unknown[]) =>
          isReference(streamId) ? Promise.reject(refused()) : (target.readStream as (...a: unknown[]) => unknown).call(target, streamId, ...rest);
      }
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
};

test('a database outage during a reference lookup is a 503 service_unavailable, never a 400', async (ctx) => {
  // The lookups of this app go to a database that refuses connections (the read models, and the streams of the
  // accounts and merchants a pool names); auth, tenants, the caller's own stream and the pool streams stay up.
  const down = knexFactory({ client: 'pg', connection: { host: '127.0.0.1', port: await closedPort(), user: 'postgres', database: 'down' }, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 20_000, log: QUIET });
  const store = referenceStreamsDown(ctx.api.services.store, ctx.organiser.id);
  const services: Services = { ...ctx.api.services, knex: down, store };
  const app = createApiServer({ services, tenants: new TenantReadModel(services.knex), routes: makeCommandRoutes({ services }), projections: [], info: API_INFO });
  const { server, url } = await listen(app);
  try {
    const as = { token: ctx.organiser.token, tenant: ctx.tenant };
    const merchant = await ctx.api.merchant(ctx.tenant, { name: 'Outage Shop', ownerEmail: ctx.organiser.email });
    const cases: Array<[string, string, Record<string, unknown>]> = [
      ['POST', '/api/pools', groupsPool({ sellerId: ctx.seller.id })],
      ['POST', '/api/merchant/pools', groupsPool({ sellerIdentifier: ctx.seller.email })],
      ['POST', '/api/merchant/pools', groupsPool({ sellerMerchantSlug: merchant.slug })],
    ];
    for (const [method, path, body] of cases) {
      const res = await call(url, method, path, { ...as, body });
      expectError(res, 503, 'service_unavailable');
    }
    const id = (await ctx.api.call('POST', '/api/pools', { ...as, body: groupsPool() })).body.data.id;
    expectError(await call(url, 'PATCH', `/api/pools/${id}`, { ...as, body: { sellerId: ctx.seller.id } }), 503, 'service_unavailable');
    // The same requests against the live database succeed: the 503 was the outage, not the input.
    assert.is((await ctx.api.call('POST', '/api/merchant/pools', { ...as, body: groupsPool({ sellerMerchantSlug: merchant.slug }) })).status, 201);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections?.();
    await down.destroy();
  }
});

test('a database outage on any route (a read of a read model) is a 503 with Retry-After, never a 500', async (ctx) => {
  const down = knexFactory({ client: 'pg', connection: { host: '127.0.0.1', port: await closedPort(), user: 'postgres', database: 'down' }, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 20_000, log: QUIET });
  const services: Services = { ...ctx.api.services, knex: down };
  const app = createApiServer({ services, tenants: new TenantReadModel(services.knex), routes: makeQueryRoutes({ services }), projections: [], info: API_INFO });
  const { server, url } = await listen(app);
  try {
    const res = await call(url, 'GET', '/api/tenant/group-buys', { tenant: ctx.tenant });
    expectError(res, 503, 'service_unavailable');
    assert.ok(Number(res.headers.get('retry-after')) >= 1, 'Retry-After');
    assert.not.match(res.text, /ECONNREFUSED|127\.0\.0\.1|stack/i, 'nothing of the failure leaks');
    assert.is((await ctx.api.call('GET', '/api/tenant/group-buys', { tenant: ctx.tenant })).status, 200, 'the live database answers');
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections?.();
    await down.destroy();
  }
});

test('an anonymous GET /api/pools/{id} with neither tenant header nor token is scoped to DEFAULT_TENANT', async (ctx) => {
  const publish = async (user: TestUser) => {
    const created = await ctx.api.call('POST', '/api/pools', { token: user.token, tenant: user.tenant, body: groupsPool() });
    assert.is(created.status, 201, created.text);
    const id = created.body.data.id as string;
    assert.is((await ctx.api.call('POST', `/api/pools/${id}/publish`, { token: user.token, tenant: user.tenant })).status, 200);
    return id;
  };
  const inDefault = await publish(ctx.organiser);
  const inOther = await publish(ctx.foreigner);
  assert.is((await ctx.api.call('GET', `/api/pools/${inDefault}`)).status, 200, 'a default-tenant pool reads without header');
  expectError(await ctx.api.call('GET', `/api/pools/${inOther}`), 404, 'pool_not_found');
  expectError(await ctx.api.call('GET', `/api/pools/${inOther}`, { headers: { authorization: 'Bearer not.a.jwt' } }), 404, 'pool_not_found');
  assert.is((await ctx.api.call('GET', `/api/pools/${inOther}`, { tenant: ctx.otherTenant })).status, 200, 'readable in its own tenant');
  assert.is((await ctx.api.call('GET', `/api/pools/${inOther}`, { token: ctx.viewer.token })).status, 404, 'a token scopes to its own tenant');
});

/** The organiser's commands on a pool, as a partner calls them: each path for a pool id, and a valid body. */
const ORGANISER_ROUTES: Array<[string, (poolId: string) => string, Record<string, unknown> | undefined]> = [
  ['close', (id) => `/api/pools/${id}/close`, undefined],
  ['cancel', (id) => `/api/pools/${id}/cancel`, { reason: 'changed my mind' }],
  ['delivered', (id) => `/api/pools/${id}/delivered`, { note: 'at the shop' }],
  ['contest', (id) => `/api/pools/${id}/disputes/${randomUUID()}/contest`, { statement: 'it arrived whole' }],
  ['dispute refund', (id) => `/api/pools/${id}/disputes/${randomUUID()}/refund`, { amount: '1.00' }],
];

test('no existence oracle: close, cancel, delivered, contest and refund answer another organiser\'s pool (its DRAFT included) or another tenant\'s as a random id', async (ctx) => {
  const create = async (user: TestUser) => {
    const res = await ctx.api.call('POST', '/api/pools', { token: user.token, tenant: user.tenant, body: groupsPool() });
    assert.is(res.status, 201, res.text);
    return res.body.data.id as string;
  };
  const draft = await create(ctx.business);
  const open = await create(ctx.business);
  assert.is((await ctx.api.call('POST', `/api/pools/${open}/publish`, { token: ctx.business.token, tenant: ctx.tenant })).status, 200);
  const foreign = await create(ctx.foreigner);
  const pools: Array<[string, string]> = [
    ['another organiser\'s DRAFT', draft],
    ['another organiser\'s OPEN pool', open],
    ['another tenant\'s pool', foreign],
  ];
  // Without the organise capability: 403 whatever the id; an organiser of other pools: 404, as for no pool.
  const callers: Array<[string, TestUser, number, string]> = [
    ['a signed-in user without the organise capability', ctx.viewer, 403, 'organise_capability_required'],
    ['an organiser of other pools', ctx.organiser, 404, 'pool_not_found'],
  ];
  for (const [who, caller, status, code] of callers) {
    const post = (path: string, body?: Record<string, unknown>) => ctx.api.call('POST', path, { token: caller.token, tenant: ctx.tenant, ...(body ? { body } : {}) });
    for (const [route, path, body] of ORGANISER_ROUTES) {
      const none = await post(path(randomUUID()), body);
      expectError(none, status, code);
      for (const [what, id] of pools) {
        const res = await post(path(id), body);
        assert.equal({ status: res.status, body: sansRequestId(res.body) }, { status: none.status, body: sansRequestId(none.body) }, `${who}, ${route} on ${what}: the answer for no pool`);
      }
    }
  }
  // Nothing was decided on those pools.
  const statusOf = async (id: string) => (await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.business.token, tenant: ctx.tenant })).body.data.status;
  assert.equal([await statusOf(draft), await statusOf(open)], ['DRAFT', 'OPEN']);
});

test('no existence oracle: reserve, quote, the commission and a buyer\'s reservation and dispute routes answer a pool the caller may not read or holds nothing in as a random id', async (ctx) => {
  const as = (user: TestUser, tenant = ctx.tenant) => (path: string, body?: Record<string, unknown>) => ctx.api.call('POST', path, { token: user.token, tenant, ...(body ? { body } : {}) });
  const create = async (user: TestUser, body: Record<string, unknown>, tenant = ctx.tenant, publish = true) => {
    const res = await as(user, tenant)('/api/pools', body);
    assert.is(res.status, 201, res.text);
    const id = res.body.data.id as string;
    if (publish) assert.is((await as(user, tenant)(`/api/pools/${id}/publish`)).status, 200);
    return id;
  };
  const draft = await create(ctx.business, groupsPool(), ctx.tenant, false);
  const privateFunding = await create(ctx.business, fundingPool());
  const archived = await create(ctx.business, groupsPool());
  assert.is((await as(ctx.business)(`/api/pools/${archived}/archive`)).status, 200);
  const foreign = await create(ctx.foreigner, groupsPool(), ctx.otherTenant);
  // An OPEN pool anyone may read, where someone else (the seller's account, as a buyer) holds a reservation.
  const open = await create(ctx.business, groupsPool());
  const theirs = await as(ctx.seller)(`/api/pools/${open}/reservations`, { lines: [{ unitId: 'panier-m', quantity: 1 }], relaisId: 'r1' });
  assert.is(theirs.status, 201, theirs.text);
  const rid = theirs.body.data.id as string;
  const same = async (caller: TestUser, route: string, path: (poolId: string) => string, body: Record<string, unknown> | undefined, pools: Array<[string, string]>) => {
    const none = await as(caller)(path(randomUUID()), body);
    assert.is(none.status, 404, `${route} on no pool: ${none.text}`);
    for (const [what, id] of pools) {
      const res = await as(caller)(path(id), body);
      assert.equal({ status: res.status, body: sansRequestId(res.body) }, { status: none.status, body: sansRequestId(none.body) }, `${route} on ${what}: the answer for no pool`);
    }
  };
  // Reserving and quoting: a pool closed to buyers (another's DRAFT, archived, another tenant's) is no pool.
  const closed: Array<[string, string]> = [
    ['another organiser\'s DRAFT', draft],
    ['an archived pool', archived],
    ['another tenant\'s pool', foreign],
  ];
  for (const [, id] of closed) expectError(await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.viewer.token, tenant: ctx.tenant }), 404, 'pool_not_found');
  const lines = [{ unitId: 'panier-m', quantity: 1 }];
  await same(ctx.viewer, 'reserve', (id) => `/api/pools/${id}/reservations`, { lines, relaisId: 'r1' }, closed);
  await same(ctx.viewer, 'quote', (id) => `/api/pools/${id}/quote`, { lines }, closed);
  // A PRIVATE FUNDING pot is not read by others (not listed) but is shared by its link: whoever holds its id pledges.
  expectError(await ctx.api.call('GET', `/api/pools/${privateFunding}`, { token: ctx.viewer.token, tenant: ctx.tenant }), 404, 'pool_not_found');
  const friend = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Friend with the link' });
  const pledge = await as(friend)(`/api/pools/${privateFunding}/reservations`, { pledge: '10.00' });
  assert.is(pledge.status, 201, `a pledge in a PRIVATE FUNDING pot by its link: ${pledge.text}`);
  const unreadable: Array<[string, string]> = [...closed, ['a PRIVATE FUNDING pool', privateFunding]];
  for (const caller of [ctx.viewer, ctx.organiser]) {
    const none = await as(caller)('/api/fees/commission', { poolId: randomUUID(), amount: '10.00' });
    expectError(none, 404, 'pool_not_found');
    for (const [what, id] of [...unreadable, ['an OPEN pool of another organiser', open]]) {
      const res = await as(caller)('/api/fees/commission', { poolId: id, amount: '10.00' });
      assert.equal({ status: res.status, body: sansRequestId(res.body) }, { status: none.status, body: sansRequestId(none.body) }, `commission on ${what}: the answer for no pool`);
    }
  }
  // A buyer's routes: a pool where the caller holds no reservation is no pool, whoever's reservation id they name.
  const holdsNothing: Array<[string, string]> = [...unreadable, ['an OPEN pool where someone else holds the reservation', open]];
  const terms = currentReservationTerms();
  const BUYER_ROUTES: Array<[string, (poolId: string) => string, Record<string, unknown> | undefined]> = [
    ['sign', (id) => `/api/pools/${id}/reservations/${rid}/sign`, { acceptTerms: true, termsVersion: terms.version, termsHash: terms.hash }],
    ['pay', (id) => `/api/pools/${id}/reservations/${rid}/pay`, { txHash: 'ab'.repeat(32) }],
    ['cancel', (id) => `/api/pools/${id}/reservations/${rid}/cancel`, undefined],
    ['receipt', (id) => `/api/pools/${id}/reservations/${rid}/receipt`, undefined],
    ['open dispute', (id) => `/api/pools/${id}/reservations/${rid}/disputes`, { reason: 'NOT_RECEIVED' }],
    ['withdraw dispute', (id) => `/api/pools/${id}/disputes/${randomUUID()}/withdraw`, undefined],
  ];
  for (const [route, path, body] of BUYER_ROUTES) await same(ctx.viewer, route, path, body, holdsNothing);
  // Nothing was decided: the reservation still holds, the DRAFT is a DRAFT.
  const mine = await ctx.api.call('GET', `/api/pools/${open}`, { token: ctx.seller.token, tenant: ctx.tenant });
  assert.equal(mine.body.data.myReservations.map((r: { id: string; status: string }) => [r.id, r.status]), [[rid, 'PENDING']]);
  assert.is((await ctx.api.call('GET', `/api/pools/${draft}`, { token: ctx.business.token, tenant: ctx.tenant })).body.data.status, 'DRAFT');
});

test.run();
