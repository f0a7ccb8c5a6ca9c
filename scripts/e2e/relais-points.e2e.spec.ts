import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { checkPoolPoints } from '@cagnotte/command-api';
import { relaisDepsOf } from '@cagnotte/command-api/src/relais/routes';
import { CommandFacts } from '@cagnotte/command-api/src/shared/facts';
import { SANDBOX_POINTS_TABLE, overrideSandboxPoint } from '@cagnotte/infra';
import { TenantReadModel } from '@cagnotte/read-models';
import { eventually, startApi, type TestApi, type TestUser } from './harness';

// GET /api/relais/points through HTTP, the way a partner's checkout asks for pick-up points, on the sandbox carrier
// (no carrier is configured in the test run: no credentials, so only the sandbox and community networks answer).

interface Ctx {
  api: TestApi;
  tenant: string;
  tenantId: string;
  /** A second partner sharing the sandbox carrier: tenant A's overrides must never reach it. */
  other: { id: string; slug: string };
}
const test = suite<Ctx>('relais points: search, filters, partial answers, one point, sandbox overrides per tenant');

const TODAY = new Date();
const day = (n: number) => new Date(TODAY.getTime() + n * 86_400_000).toISOString().slice(0, 10);
/** A weekday (the sandbox relays open Monday to Saturday) inside SBX-HOLIDAY's closure (today … today + 14). */
const weekdayWithin = (from: number, to: number) => {
  for (let n = from; n <= to; n++) if (new Date(`${day(n)}T12:00:00Z`).getUTCDay() !== 0) return day(n);
  throw new Error('no weekday');
};

type Point = { id: string; distanceM: number; status: string; maxWeightG?: number; kind: string };
type Page = { items: Point[]; sources: Array<{ network: string; status: string; ms: number; cached?: boolean }> };

test.before(async (ctx) => {
  ctx.api = await startApi({ RATE_LIMIT_RELAIS_PER_MINUTE: 100_000 });
  const tenant = await ctx.api.tenant();
  ctx.tenant = tenant.slug;
  ctx.tenantId = tenant.id;
  ctx.other = await ctx.api.tenant();
  organisers.set(ctx.tenant, await ctx.api.user(ctx.tenant, { role: 'organiser', wallet: false, name: 'Sandbox Org' }));
  organisers.set(ctx.other.slug, await ctx.api.user(ctx.other.slug, { role: 'organiser', wallet: false, name: 'Other Org' }));
});
test.after(async (ctx) => {
  await ctx.api.services.knex(SANDBOX_POINTS_TABLE).whereIn('tenant_id', [ctx.tenantId, ctx.other.id]).del();
  await ctx.api.stop();
});

/** Each tenant's organiser: the sandbox carrier's control is theirs. */
const organisers = new Map<string, TestUser>();
/** The sandbox carrier's control, in `tenant`'s sandbox, by its organiser (null: no X-Service-Tenant). */
const override = (ctx: Ctx, id: string, body: unknown, tenant: string | null = ctx.tenant) =>
  ctx.api.call('POST', `/sandbox/relais/points/${id}`, { body, token: (organisers.get(tenant ?? ctx.tenant) ?? organisers.get(ctx.tenant)!).token, ...(tenant ? { tenant } : {}) });
const get = (ctx: Ctx, path: string, tenant = ctx.tenant) => ctx.api.call<{ success: boolean; data: Page; errors?: Record<string, string[]> }>('GET', path, { tenant });
const ids = (page: Page) => page.items.map((p) => p.id);

test('search by postal code: sandbox points nearest first, every network’s source ok', async (ctx) => {
  const res = await get(ctx, '/api/relais/points?postalCode=69001');
  assert.is(res.status, 200, res.text);
  const page = res.body.data;
  assert.equal(page.sources.map((s) => [s.network, s.status]).sort(), [['community', 'ok'], ['sandbox', 'ok']]);
  assert.ok(ids(page).includes('sandbox:SBX-001') && ids(page).includes('sandbox:SBX-LOCKER') && ids(page).includes('sandbox:SBX-005'));
  assert.not.ok(ids(page).includes('sandbox:SBX-RETIRED'));
  const d = page.items.map((p) => p.distanceM);
  assert.equal(d, [...d].sort((a, b) => a - b), 'sorted by distance');
  assert.is(page.items.find((p) => p.id === 'sandbox:SBX-LOCKER')!.kind, 'locker');
  const again = await get(ctx, '/api/relais/points?postalCode=69001');
  assert.is(again.body.data.sources.find((s) => s.network === 'sandbox')!.cached, true, 'the second search is served from the cache');
  const byPosition = await get(ctx, '/api/relais/points?lat=45.764&lng=4.8357&radiusKm=5&limit=3');
  assert.is(byPosition.status, 200, byPosition.text);
  assert.is(byPosition.body.data.items.length, 3);
});

test('filters: weightG drops SBX-LIGHT, openOn drops SBX-HOLIDAY, networks= asks only those', async (ctx) => {
  const all = ids((await get(ctx, '/api/relais/points?postalCode=75011')).body.data);
  assert.ok(all.includes('sandbox:SBX-LIGHT') && all.includes('sandbox:SBX-HOLIDAY'));
  const heavy = ids((await get(ctx, '/api/relais/points?postalCode=75011&weightG=2500')).body.data);
  assert.not.ok(heavy.includes('sandbox:SBX-LIGHT'));
  assert.ok(heavy.includes('sandbox:SBX-HOLIDAY'));
  const open = ids((await get(ctx, `/api/relais/points?postalCode=75011&openOn=${weekdayWithin(1, 13)}`)).body.data);
  assert.not.ok(open.includes('sandbox:SBX-HOLIDAY'));
  assert.ok(open.includes('sandbox:SBX-LIGHT'));
  const community = (await get(ctx, '/api/relais/points?postalCode=75011&networks=community')).body.data;
  assert.equal(community.sources.map((s) => s.network), ['community']);
  assert.not.ok(ids(community).some((id) => id.startsWith('sandbox:')));
  const sandbox = (await get(ctx, '/api/relais/points?postalCode=75011&networks=sandbox')).body.data;
  assert.equal(sandbox.sources.map((s) => s.network), ['sandbox']);
});

test('a network that times out (sandbox magic postal code 99001): a partial answer whose sources say so', async (ctx) => {
  const res = await get(ctx, '/api/relais/points?postalCode=99001');
  assert.is(res.status, 200, res.text);
  const bySource = Object.fromEntries(res.body.data.sources.map((s) => [s.network, s.status]));
  assert.equal(bySource, { sandbox: 'timeout', community: 'ok' });
  assert.not.ok(ids(res.body.data).some((id) => id.startsWith('sandbox:')));
  const failing = await get(ctx, '/api/relais/points?postalCode=99002&networks=sandbox');
  assert.equal(failing.body.data.sources.map((s) => s.status), ['error']);
});

test('bad input: 400 with per-field errors; an unknown tenant 404', async (ctx) => {
  const cases: Array<[string, string]> = [
    ['/api/relais/points', 'postalCode'],
    ['/api/relais/points?lat=45.7', 'lng'],
    ['/api/relais/points?postalCode=69001&radiusKm=100', 'radiusKm'],
    ['/api/relais/points?postalCode=69001&limit=0', 'limit'],
    ['/api/relais/points?postalCode=69001&networks=ups', 'networks'],
    ['/api/relais/points?postalCode=69001&openOn=tomorrow', 'openOn'],
    ['/api/relais/points?postalCode=69001&weightG=-5', 'weightG'],
    ['/api/relais/points?postalCode=69001&country=France', 'country'],
  ];
  for (const [path, field] of cases) {
    const res = await get(ctx, path);
    assert.is(res.status, 400, `${path}: ${res.text}`);
    assert.is(res.body.success, false);
    assert.ok(res.body.errors?.[field]?.length, `${path}: errors.${field} in ${res.text}`);
  }
  const unknown = await get(ctx, '/api/relais/points?postalCode=69001', 'no-such-tenant');
  assert.is(unknown.status, 404, unknown.text);
});

test('GET one point: any status (a retired one too), 404 for an unknown id', async (ctx) => {
  const res = await ctx.api.call('GET', '/api/relais/points/sandbox:SBX-RETIRED', { tenant: ctx.tenant });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.id, 'sandbox:SBX-RETIRED');
  assert.is(res.body.data.status, 'retired');
  const light = await ctx.api.call('GET', '/api/relais/points/sandbox:SBX-LIGHT', { tenant: ctx.tenant });
  assert.is(light.body.data.maxWeightG, 1000);
  for (const id of ['sandbox:SBX-NOPE', 'not-a-point', 'community:00000000-0000-4000-8000-000000000000']) {
    const r = await ctx.api.call('GET', `/api/relais/points/${id}`, { tenant: ctx.tenant });
    assert.is(r.status, 404, `${id}: ${r.text}`);
  }
});

test('sandbox override: POST /sandbox/relais/points/{id} changes the point in the tenant’s sandbox, its searches reflect it at once (the cache still serves)', async (ctx) => {
  assert.ok(ids((await get(ctx, '/api/relais/points?postalCode=13001')).body.data).includes('sandbox:SBX-002'), 'cached with SBX-002');
  const closed = await override(ctx, 'sandbox:SBX-002', { status: 'temporarily_closed' });
  assert.is(closed.status, 200, closed.text);
  assert.is(closed.body.data.status, 'temporarily_closed');
  const after = (await get(ctx, '/api/relais/points?postalCode=13001')).body.data;
  assert.not.ok(ids(after).includes('sandbox:SBX-002'), 'the tenant’s override applies to the cached answer');
  assert.is(after.sources.find((s) => s.network === 'sandbox')!.cached, true, 'nothing to forget: the cache holds the fixtures');
  assert.is((await ctx.api.call('GET', '/api/relais/points/sandbox:SBX-002', { tenant: ctx.tenant })).body.data.status, 'temporarily_closed');

  const lighter = await override(ctx, 'SBX-003', { maxWeightG: 500, closures: [{ from: day(30), to: day(31), reason: 'inventaire' }] });
  assert.is(lighter.status, 200, lighter.text);
  assert.is(lighter.body.data.maxWeightG, 500);
  assert.not.ok(ids((await get(ctx, '/api/relais/points?postalCode=13001&weightG=800')).body.data).includes('sandbox:SBX-003'));

  const reopened = await override(ctx, 'SBX-002', { status: 'active' });
  assert.is(reopened.body.data.status, 'active');
  assert.ok(ids((await get(ctx, '/api/relais/points?postalCode=13001')).body.data).includes('sandbox:SBX-002'));

  assert.is((await override(ctx, 'SBX-NOPE', { status: 'active' })).status, 404);
  const empty = await override(ctx, 'SBX-001', {});
  assert.is(empty.status, 400, empty.text);
  const bad = await override(ctx, 'SBX-001', { status: 'gone', closures: [{ from: '2026-13-01', to: 'x' }] });
  assert.is(bad.status, 400);
  assert.ok(bad.body.errors.status && Object.keys(bad.body.errors).some((k) => k.startsWith('closures')), bad.text);
});

test('sandbox override without X-Service-Tenant, under an unknown tenant or another tenant’s, anonymously or by a member: refused, nothing stored', async (ctx) => {
  const before = await ctx.api.services.knex(SANDBOX_POINTS_TABLE).count<Array<{ count: string }>>('* as count');
  for (const tenant of [null, 'no-such-tenant']) {
    const res = await override(ctx, 'SBX-005', { status: 'retired' }, tenant);
    assert.is(res.status, 404, res.text);
    assert.is(res.body.code, 'tenant_not_found');
  }
  const blank = await ctx.api.call('POST', '/sandbox/relais/points/SBX-005', { body: { status: 'retired' }, token: organisers.get(ctx.tenant)!.token, headers: { 'x-service-tenant': ' ' } });
  assert.is(blank.status, 404, blank.text);
  const anonymous = await ctx.api.call('POST', '/sandbox/relais/points/SBX-005', { body: { status: 'retired' }, tenant: ctx.tenant });
  assert.is(anonymous.status, 401, 'a signed-in organiser of the tenant only');
  const member = await ctx.api.user(ctx.tenant, { name: 'Just a member' });
  const notOrganiser = await ctx.api.call('POST', '/sandbox/relais/points/SBX-005', { body: { status: 'retired' }, token: member.token, tenant: ctx.tenant });
  assert.is(notOrganiser.status, 403, notOrganiser.text);
  const otherTenants = await ctx.api.call('POST', '/sandbox/relais/points/SBX-005', { body: { status: 'retired' }, token: organisers.get(ctx.other.slug)!.token, tenant: ctx.tenant });
  assert.is(otherTenants.status, 404, 'another tenant’s organiser naming this tenant finds no sandbox of theirs');
  assert.equal(await ctx.api.services.knex(SANDBOX_POINTS_TABLE).count('* as count'), before);
});

test('tenant isolation: tenant A closing a sandbox point changes nothing for tenant B: not its searches, not its lookups, not its pools', async (ctx) => {
  const POINT = 'sandbox:SBX-004';
  const orgA = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org A' });
  const orgB = await ctx.api.user(ctx.other.slug, { role: 'organiser', name: 'Org B' });
  const as = (user: TestUser) => ({
    post: (path: string, body: unknown = {}) => ctx.api.call('POST', path, { token: user.token, tenant: user.tenant, body, headers: { 'Idempotency-Key': randomUUID() } }),
    get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: user.tenant }),
  });
  const body = { type: 'GROUPS', title: 'Paniers', config: { units: [{ id: 'panier', label: 'Panier', price: '12.00' }], relais: [{ id: POINT }, { id: 'sandbox:SBX-001' }] } };
  const openPool = async (user: TestUser) => {
    const created = await as(user).post('/api/pools', body);
    assert.is(created.status, 201, created.text);
    assert.is((await as(user).post(`/api/pools/${created.body.data.id}/publish`)).status, 200);
    return created.body.data.id as string;
  };
  const poolA = await openPool(orgA);
  const poolB = await openPool(orgB);
  const search = '/api/relais/points?postalCode=31000&networks=sandbox';
  const bBefore = (await get(ctx, search, ctx.other.slug)).body.data;
  assert.ok(ids(bBefore).includes(POINT));

  const closed = await override(ctx, POINT, { status: 'temporarily_closed' }, ctx.tenant);
  assert.is(closed.status, 200, closed.text);
  const availability = async (user: TestUser, poolId: string, point = POINT) => {
    const res = await as(user).get(`/api/pools/${poolId}`);
    assert.is(res.status, 200, res.text);
    return (res.body.data.pickupPoints as Array<{ id: string; available: boolean; unavailableReason: string | null }>).find((p) => p.id === point)!;
  };
  // Tenant A: its pool hears it (the override's report), its search and lookup no longer offer the point.
  const mine = await eventually(async () => {
    await ctx.api.runner.catchUp();
    const p = await availability(orgA, poolA);
    return p.available ? null : p;
  }, 'tenant A’s pool told its point is unavailable');
  assert.is(mine.unavailableReason, 'temporarily_closed');
  assert.not.ok(ids((await get(ctx, search)).body.data).includes(POINT));
  assert.is((await as(orgA).post('/api/pools', body)).status, 400, 'A may not pick it for a new pool');

  // Tenant B: nothing changed.
  await ctx.api.runner.catchUp();
  assert.equal([(await availability(orgB, poolB)).available, (await availability(orgB, poolB)).unavailableReason], [true, null], 'B’s pool was not told');
  const unavailable = await as(orgB).get(`/v1/events?types=relais.point.unavailable&limit=100`);
  assert.is(unavailable.status, 200, unavailable.text);
  assert.not.ok(JSON.stringify(unavailable.body).includes(poolB), 'no relais.point.unavailable for B’s pool');
  const bAfter = (await get(ctx, search, ctx.other.slug)).body.data;
  assert.equal(ids(bAfter), ids(bBefore), 'B’s search is the fixtures');
  assert.is(bAfter.sources[0]!.cached, true, 'from the same cache as A’s');
  assert.is((await ctx.api.call('GET', `/api/relais/points/${POINT}`, { tenant: ctx.other.slug })).body.data.status, 'active');
  const poolB2 = await as(orgB).post('/api/pools', body);
  assert.is(poolB2.status, 201, `B may still pick it: ${poolB2.text}`);

  // The periodic check resolves each tenant's points with that tenant's overrides and tells that tenant's pools only:
  // an override stored without its report (as if the route's report had failed) is found by the check, in A alone.
  assert.ok(await overrideSandboxPoint(ctx.api.services.knex, ctx.tenantId, 'SBX-001', { status: 'retired' }));
  const { services } = ctx.api;
  const relais = relaisDepsOf(services, new CommandFacts({ store: services.store, tenants: new TenantReadModel(services.knex), config: services.config }), () => new Date());
  const checked = await checkPoolPoints(relais);
  assert.ok(checked.pools >= 1, JSON.stringify(checked));
  const retired = await eventually(async () => {
    await ctx.api.runner.catchUp();
    const p = await availability(orgA, poolA, 'sandbox:SBX-001');
    return p.available ? null : p;
  }, 'tenant A’s pool told by the periodic check');
  assert.is(retired.unavailableReason, 'retired');
  await ctx.api.runner.catchUp();
  for (const poolId of [poolB, poolB2.body.data.id as string]) {
    const theirs = await availability(orgB, poolId, 'sandbox:SBX-001');
    assert.equal([theirs.available, theirs.unavailableReason], [true, null], 'B’s pools were not told by the check');
    assert.is((await availability(orgB, poolId)).available, true);
  }

  // B's own override is B's alone; A's stays.
  assert.is((await override(ctx, POINT, { maxWeightG: 700 }, ctx.other.slug)).body.data.status, 'active');
  assert.is((await ctx.api.call('GET', `/api/relais/points/${POINT}`, { tenant: ctx.tenant })).body.data.maxWeightG, 20_000);
  assert.is((await ctx.api.call('GET', `/api/relais/points/${POINT}`, { tenant: ctx.tenant })).body.data.status, 'temporarily_closed');
});

test.run();
