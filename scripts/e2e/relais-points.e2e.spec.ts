import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SANDBOX_POINTS_TABLE } from '@cagnotte/infra';
import { startApi, type TestApi } from './harness';

// GET /api/relais/points through HTTP, the way a partner's checkout asks for pick-up points, on the sandbox carrier
// (no carrier is configured in the test run: no credentials, so only the sandbox and community networks answer).

interface Ctx {
  api: TestApi;
  tenant: string;
}
const test = suite<Ctx>('relais points: search, filters, partial answers, one point, sandbox overrides');

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
  ctx.tenant = (await ctx.api.tenant()).slug;
  await ctx.api.services.knex(SANDBOX_POINTS_TABLE).del();
});
test.after(async (ctx) => {
  await ctx.api.services.knex(SANDBOX_POINTS_TABLE).del();
  await ctx.api.stop();
});

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

test('sandbox override: POST /sandbox/relais/points/{id} changes the point for every reader, searches reflect it at once', async (ctx) => {
  assert.ok(ids((await get(ctx, '/api/relais/points?postalCode=13001')).body.data).includes('sandbox:SBX-002'), 'cached with SBX-002');
  const closed = await ctx.api.call('POST', '/sandbox/relais/points/sandbox:SBX-002', { body: { status: 'temporarily_closed' } });
  assert.is(closed.status, 200, closed.text);
  assert.is(closed.body.data.status, 'temporarily_closed');
  const after = (await get(ctx, '/api/relais/points?postalCode=13001')).body.data;
  assert.not.ok(ids(after).includes('sandbox:SBX-002'), 'the cached answer was forgotten');
  assert.is(after.sources.find((s) => s.network === 'sandbox')!.cached ?? false, false);
  assert.is((await ctx.api.call('GET', '/api/relais/points/sandbox:SBX-002', { tenant: ctx.tenant })).body.data.status, 'temporarily_closed');

  const lighter = await ctx.api.call('POST', '/sandbox/relais/points/SBX-003', { body: { maxWeightG: 500, closures: [{ from: day(30), to: day(31), reason: 'inventaire' }] } });
  assert.is(lighter.status, 200, lighter.text);
  assert.is(lighter.body.data.maxWeightG, 500);
  assert.not.ok(ids((await get(ctx, '/api/relais/points?postalCode=13001&weightG=800')).body.data).includes('sandbox:SBX-003'));

  const reopened = await ctx.api.call('POST', '/sandbox/relais/points/SBX-002', { body: { status: 'active' } });
  assert.is(reopened.body.data.status, 'active');
  assert.ok(ids((await get(ctx, '/api/relais/points?postalCode=13001')).body.data).includes('sandbox:SBX-002'));

  assert.is((await ctx.api.call('POST', '/sandbox/relais/points/SBX-NOPE', { body: { status: 'active' } })).status, 404);
  const empty = await ctx.api.call('POST', '/sandbox/relais/points/SBX-001', { body: {} });
  assert.is(empty.status, 400, empty.text);
  const bad = await ctx.api.call('POST', '/sandbox/relais/points/SBX-001', { body: { status: 'gone', closures: [{ from: '2026-13-01', to: 'x' }] } });
  assert.is(bad.status, 400);
  assert.ok(bad.body.errors.status && Object.keys(bad.body.errors).some((k) => k.startsWith('closures')), bad.text);
});

test.run();
