import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnavailableError } from '@cagnotte/domain';
import type { CarrierAdapter } from '@cagnotte/event-schemas';
import { createRedis, type Redis } from '../redis';
import { testKnex } from '../testing/resources';
import { InpostAdapter } from './carriers/inpost';
import { SANDBOX_POINTS_TABLE, SandboxCarrier, overrideSandboxPoint } from './carriers/sandbox';
import { RelaisDirectory } from './directory';

// The directory on the real Redis and PostgreSQL of the test run: the sandbox carrier answers, an InPost adapter points
// at a local server that never answers (a real HTTP call that times out).

interface Ctx {
  redis: Redis;
  hanging: Server;
  directory: RelaisDirectory;
  sandboxCalls: number;
  sandboxGets: number;
}
const test = suite<Ctx>('relais directory: fan-out, timeouts, Redis cache, filters, per-tenant overlay after the cache');
/** Two tenants sharing the sandbox carrier (and the directory's cache). */
const A = randomUUID();
const B = randomUUID();
const clearOverrides = () => testKnex()(SANDBOX_POINTS_TABLE).whereIn('tenant_id', [A, B]).del();
const TODAY = new Date();
const day = (n: number) => new Date(TODAY.getTime() + n * 86_400_000).toISOString().slice(0, 10);
/** A weekday (Mon–Sat: the sandbox relays' days) inside SBX-HOLIDAY's closure. */
const weekdayWithin = (from: number, to: number) => {
  for (let n = from; n <= to; n++) if (new Date(`${day(n)}T12:00:00Z`).getUTCDay() !== 0) return day(n);
  throw new Error('no weekday');
};

test.before(async (ctx) => {
  console.log('  no carrier is reachable from here: the InPost adapter calls a local server that never answers');
  ctx.redis = createRedis(process.env.REDIS_URL!, `${process.env.REDIS_KEY_PREFIX ?? ''}dirspec:${Date.now()}:`);
  ctx.hanging = createServer(() => undefined);
  await new Promise<void>((r) => ctx.hanging.listen(0, '127.0.0.1', () => r()));
  const addr = ctx.hanging.address();
  const sandbox = new SandboxCarrier({ knex: testKnex() });
  ctx.sandboxCalls = 0;
  ctx.sandboxGets = 0;
  const counted: CarrierAdapter = {
    network: sandbox.network,
    search: (...a: Parameters<SandboxCarrier['search']>) => (ctx.sandboxCalls++, sandbox.search(...a)),
    get: (...a: Parameters<SandboxCarrier['get']>) => (ctx.sandboxGets++, sandbox.get(...a)),
    overlay: sandbox.overlay.bind(sandbox),
  };
  ctx.directory = new RelaisDirectory({
    adapters: [counted, new InpostAdapter({ token: 't', url: `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}` })],
    redis: ctx.redis,
    timeoutMs: 1000,
    cacheTtlSeconds: 60,
  });
  await clearOverrides();
});

test.after(async (ctx) => {
  await clearOverrides();
  ctx.hanging.closeAllConnections();
  await new Promise<void>((r) => ctx.hanging.close(() => r()));
  ctx.redis.disconnect();
});

test('one network timing out: a partial answer whose sources say so; the second search is served from the cache', async (ctx) => {
  const first = await ctx.directory.search({ country: 'FR', postalCode: '69001', radiusKm: 10, limit: 20 }, null);
  assert.equal(first.sources.map((s) => [s.network, s.status, s.cached ?? false]), [['sandbox', 'ok', false], ['inpost', 'timeout', false]]);
  assert.ok(first.sources[1]!.ms >= 900, `the timeout waited (${first.sources[1]!.ms} ms)`);
  const ids = first.items.map((p) => p.id);
  assert.ok(ids.includes('sandbox:SBX-001') && ids.includes('sandbox:SBX-LOCKER'));
  assert.not.ok(ids.includes('sandbox:SBX-RETIRED'), 'a retired point is never found');
  const distances = first.items.map((p) => p.distanceM!);
  assert.equal(distances, [...distances].sort((a, b) => a - b), 'nearest first');
  assert.is(first.items[0]!.distanceM, 0, 'measured from the postal code’s first point');

  const calls = ctx.sandboxCalls;
  const second = await ctx.directory.search({ country: 'FR', postalCode: '69001', radiusKm: 10, limit: 20 }, null);
  assert.equal(second.sources.map((s) => [s.network, s.status, s.cached ?? false]), [['sandbox', 'ok', true], ['inpost', 'timeout', false]]);
  assert.is(ctx.sandboxCalls, calls, 'the sandbox carrier was not asked again');
  assert.equal(second.items.map((p) => p.id), ids);
});

test('filters: weight, open on a date, networks, radius, limit', async (ctx) => {
  const base = { country: 'FR', postalCode: '75011', radiusKm: 10, limit: 20, networks: ['sandbox' as const] };
  const all = (await ctx.directory.search(base, null)).items.map((p) => p.id);
  assert.ok(all.includes('sandbox:SBX-LIGHT') && all.includes('sandbox:SBX-HOLIDAY'));
  const heavy = (await ctx.directory.search({ ...base, weightG: 2000 }, null)).items.map((p) => p.id);
  assert.not.ok(heavy.includes('sandbox:SBX-LIGHT'), 'SBX-LIGHT takes 1 kg');
  assert.is(heavy.length, all.length - 1);
  const open = (await ctx.directory.search({ ...base, openOn: weekdayWithin(1, 13) }, null)).items.map((p) => p.id);
  assert.not.ok(open.includes('sandbox:SBX-HOLIDAY'), 'closed during its holiday');
  assert.ok(open.includes('sandbox:SBX-001'));
  const later = (await ctx.directory.search({ ...base, openOn: weekdayWithin(20, 30) }, null)).items.map((p) => p.id);
  assert.ok(later.includes('sandbox:SBX-HOLIDAY'), 'open again after it');
  const onlyInpost = await ctx.directory.search({ ...base, networks: ['inpost'] }, null);
  assert.equal(onlyInpost.sources.map((s) => s.network), ['inpost']);
  assert.equal(onlyInpost.items, []);
  assert.is((await ctx.directory.search({ ...base, limit: 3 }, null)).items.length, 3);
  const near = (await ctx.directory.search({ ...base, radiusKm: 1 }, null)).items;
  assert.ok(near.length > 0 && near.length < all.length && near.every((p) => p.distanceM! <= 1000));
});

test('a position search measures from the position; invalidate forgets the cached answers', async (ctx) => {
  const q = { country: 'FR', lat: 45.764, lng: 4.8357, radiusKm: 5, limit: 20, networks: ['sandbox' as const] };
  const first = await ctx.directory.search(q, null);
  assert.ok(first.items[0]!.distanceM! > 100, 'no point sits on the searched position');
  assert.is((await ctx.directory.search(q, null)).sources[0]!.cached, true);
  const calls = ctx.sandboxCalls;
  await ctx.directory.invalidate('sandbox:SBX-002');
  const after = await ctx.directory.search(q, null);
  assert.is(after.sources[0]!.cached ?? false, false);
  assert.is(ctx.sandboxCalls, calls + 1, 'the network was asked again');
  assert.equal(after.items.map((p) => p.id), first.items.map((p) => p.id));
});

test('a tenant’s overrides apply after the cache, on every request: the tenant sees them at once, another tenant and the cache never', async (ctx) => {
  const q = { country: 'FR', postalCode: '33000', radiusKm: 10, limit: 20, networks: ['sandbox' as const] };
  const ids = (r: { items: Array<{ id: string }> }) => r.items.map((p) => p.id);
  const before = await ctx.directory.search(q, A);
  assert.ok(ids(before).includes('sandbox:SBX-002') && ids(before).includes('sandbox:SBX-003'));
  assert.not.ok(ids(before).includes('sandbox:SBX-RETIRED'));
  const warm = await ctx.directory.resolve(['sandbox:SBX-001', 'sandbox:SBX-002', 'sandbox:SBX-003'], A);
  assert.is(warm.get('sandbox:SBX-002')?.status, 'active', 'the lookups are cached now');
  const searches = ctx.sandboxCalls;
  const gets = ctx.sandboxGets;

  assert.ok(await overrideSandboxPoint(testKnex(), A, 'SBX-002', { status: 'temporarily_closed' }));
  assert.ok(await overrideSandboxPoint(testKnex(), A, 'SBX-003', { maxWeightG: 500, closures: [{ from: day(30), to: day(31), reason: 'inventaire' }] }));
  assert.ok(await overrideSandboxPoint(testKnex(), A, 'SBX-RETIRED', { status: 'active' }));
  assert.not.ok(await overrideSandboxPoint(testKnex(), A, 'SBX-NOPE', { status: 'active' }), 'not a fixture');

  // Tenant A: the cached answer, overlaid.
  const a = await ctx.directory.search(q, A);
  assert.is(a.sources[0]!.cached, true, 'served from the cache');
  assert.not.ok(ids(a).includes('sandbox:SBX-002'), 'closed in A’s sandbox');
  assert.ok(ids(a).includes('sandbox:SBX-RETIRED'), 'brought back in A’s sandbox');
  assert.is(a.items.find((p) => p.id === 'sandbox:SBX-003')?.maxWeightG, 500);
  assert.not.ok(ids(await ctx.directory.search({ ...q, weightG: 800 }, A)).includes('sandbox:SBX-003'));
  assert.not.ok(ids(await ctx.directory.search({ ...q, openOn: weekdayWithin(30, 31) }, A)).includes('sandbox:SBX-003'), 'closed on its closure');
  const lookedUp = await ctx.directory.resolve(['sandbox:SBX-002', 'sandbox:SBX-003', 'sandbox:SBX-001'], A);
  assert.is(lookedUp.get('sandbox:SBX-002')?.status, 'temporarily_closed', 'a cached lookup, overlaid');
  assert.equal(lookedUp.get('sandbox:SBX-003')?.closures, [{ from: day(30), to: day(31), reason: 'inventaire' }]);
  assert.is(lookedUp.get('sandbox:SBX-001')?.status, 'active');

  // Tenant B and no tenant: the fixtures, from the same cache.
  for (const tenant of [B, null]) {
    const b = await ctx.directory.search(q, tenant);
    assert.is(b.sources[0]!.cached, true);
    assert.equal(ids(b), ids(before), `${tenant ?? 'no tenant'}: the fixtures`);
    assert.is(b.items.find((p) => p.id === 'sandbox:SBX-003')?.maxWeightG, 20_000);
    assert.ok(ids(await ctx.directory.search({ ...q, weightG: 800 }, tenant)).includes('sandbox:SBX-003'));
    assert.ok(ids(await ctx.directory.search({ ...q, openOn: weekdayWithin(30, 31) }, tenant)).includes('sandbox:SBX-003'));
    assert.is((await ctx.directory.resolve(['sandbox:SBX-002'], tenant)).get('sandbox:SBX-002')?.status, 'active');
    assert.is((await ctx.directory.resolve(['sandbox:SBX-RETIRED'], tenant, { fresh: true })).get('sandbox:SBX-RETIRED')?.status, 'retired');
  }
  assert.is(ctx.sandboxCalls, searches, 'no search asked the network again: the cache still serves everyone');
  assert.is(ctx.sandboxGets, gets + 2, 'only the fresh lookups asked the network');

  // What the cache holds is the fixtures: nothing of A's overrides was written to it.
  // KEYS takes the whole key (ioredis does not prefix a pattern) and answers whole keys; GET prefixes its own.
  const prefix = ctx.redis.options.keyPrefix ?? '';
  const cached = await Promise.all((await ctx.redis.keys(`${prefix}relais:*`)).map((k) => ctx.redis.get(k.slice(prefix.length))));
  assert.ok(cached.length > 0);
  assert.ok(cached.every((raw) => raw !== null && !raw.includes('temporarily_closed') && !raw.includes('inventaire')), 'no override in the cache');

  // Back to the fixture in A’s sandbox: at once, no invalidation.
  await overrideSandboxPoint(testKnex(), A, 'SBX-002', { status: 'active' });
  assert.ok(ids(await ctx.directory.search(q, A)).includes('sandbox:SBX-002'));
  await clearOverrides();
});

test('an overlay that fails: that network fails the search (the others answer), and a lookup is relais_unavailable', async () => {
  const sandbox = new SandboxCarrier({ knex: testKnex() });
  const broken: CarrierAdapter = {
    network: 'sandbox',
    search: sandbox.search.bind(sandbox),
    get: sandbox.get.bind(sandbox),
    overlay: async () => {
      throw new Error('overrides unreadable');
    },
  };
  const directory = new RelaisDirectory({ adapters: [broken], redis: null, timeoutMs: 1000, cacheTtlSeconds: 60 });
  const answer = await directory.search({ country: 'FR', postalCode: '69001', radiusKm: 10, limit: 20 }, A);
  assert.equal(answer.sources.map((s) => [s.network, s.status]), [['sandbox', 'error']]);
  assert.equal(answer.items, [], 'never the fixtures without the tenant’s overrides');
  try {
    await directory.resolve(['sandbox:SBX-001'], A);
    assert.unreachable('resolve');
  } catch (e) {
    assert.instance(e, UnavailableError);
  }
});

test('resolve: any status, unknown ids null, fresh bypasses the cache, a network not enabled or silent throws relais_unavailable', async (ctx) => {
  const got = await ctx.directory.resolve(['sandbox:SBX-RETIRED', 'sandbox:SBX-NOPE', 'inline-point-id'], null);
  assert.is(got.get('sandbox:SBX-RETIRED')?.status, 'retired');
  assert.is(got.get('sandbox:SBX-NOPE'), null);
  assert.is(got.get('inline-point-id'), null);
  assert.is((await ctx.directory.resolve(['sandbox:SBX-003'], null)).get('sandbox:SBX-003')?.status, 'active');
  const gets = ctx.sandboxGets;
  assert.is((await ctx.directory.resolve(['sandbox:SBX-003'], null)).get('sandbox:SBX-003')?.status, 'active');
  assert.is(ctx.sandboxGets, gets, 'cached');
  assert.is((await ctx.directory.resolve(['sandbox:SBX-003'], null, { fresh: true })).get('sandbox:SBX-003')?.status, 'active');
  assert.is(ctx.sandboxGets, gets + 1, 'fresh asks the network');
  for (const id of ['mondial_relay:FR-066974', 'inpost:KRA010M']) {
    try {
      await ctx.directory.resolve([id], null);
      assert.unreachable(id);
    } catch (e) {
      assert.instance(e, UnavailableError);
      assert.is((e as UnavailableError).code, 'relais_unavailable');
    }
  }
  assert.is(ctx.directory.adapter('mondial_relay'), null);
  assert.is(ctx.directory.adapter('sandbox')?.network, 'sandbox');
});

test('the sandbox network’s magic postal codes: 99001 times out, 99002 fails', async (ctx) => {
  const timeout = await ctx.directory.search({ country: 'FR', postalCode: '99001', radiusKm: 10, limit: 20, networks: ['sandbox'] }, null);
  assert.equal(timeout.sources.map((s) => s.status), ['timeout']);
  const error = await ctx.directory.search({ country: 'FR', postalCode: '99002', radiusKm: 10, limit: 20, networks: ['sandbox'] }, null);
  assert.equal(error.sources.map((s) => s.status), ['error']);
  assert.equal(error.items, []);
});

test.run();
