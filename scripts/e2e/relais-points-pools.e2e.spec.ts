import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TenantReadModel } from '@cagnotte/read-models';
import { checkPoolPoints, reportPointUnavailable } from '@cagnotte/command-api';
import { InMemoryRelaisDirectory, relaisPointFixture } from '@cagnotte/command-api/src/relais/directory.testing';
import { relaisDepsOf } from '@cagnotte/command-api/src/relais/routes';
import { CommandFacts } from '@cagnotte/command-api/src/shared/facts';
import type { RelaisDeps } from '@cagnotte/command-api/src/relais/ports';
import { startApi, type TestApi, type TestUser } from './harness';

/**
 * A pool's directory pick-up points through HTTP (docs/relais.md), with an in-memory directory in place of the
 * carriers: a pool references points by id and keeps their snapshot, the directory refuses what it does not vouch
 * for, a point reported unavailable asks its buyers to choose again, nobody new may reserve on it, and the buyer's
 * re-choice puts the reservation right. Pools with the organiser's own inline points never ask the directory.
 */
interface Ctx {
  api: TestApi;
  directory: InMemoryRelaisDirectory;
  relais: RelaisDeps;
  tenant: string;
  organiser: TestUser;
}

const A = 'sandbox:SBX-001';
const B = 'sandbox:SBX-002';
/** Only the buyer's test's pool references it (every pool referencing a point hears of it, drafts included). */
const C = 'sandbox:SBX-003';
/** Only the periodic check's pool references these. */
const D = 'sandbox:SBX-004';
const E = 'sandbox:SBX-005';

const test = suite<Ctx>('relais: pool points through HTTP');

test.before(async (ctx) => {
  ctx.directory = new InMemoryRelaisDirectory([
    relaisPointFixture(A),
    relaisPointFixture(C),
    relaisPointFixture(D),
    relaisPointFixture(E),
    relaisPointFixture(B, { address: { line1: '3 place du Marché', line2: 'Bâtiment B', postalCode: '69001', city: 'Lyon', country: 'FR' } }),
    relaisPointFixture('sandbox:SBX-RETIRED', { status: 'retired' }),
    relaisPointFixture('sandbox:SBX-HOLIDAY', { status: 'temporarily_closed' }),
    relaisPointFixture('sandbox:SBX-LIGHT', { maxWeightG: 1000 }),
  ]);
  ctx.api = await startApi({}, { relaisDirectory: ctx.directory });
  const { services } = ctx.api;
  ctx.relais = relaisDepsOf(services, new CommandFacts({ store: services.store, tenants: new TenantReadModel(services.knex), config: services.config }), () => new Date(), ctx.directory);
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Rel' });
});
test.after(async (ctx) => ctx.api.stop());

const as = (ctx: Ctx, user: TestUser) => ({
  post: (path: string, body: unknown = {}) => ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID() } }),
  patch: (path: string, body: unknown) => ctx.api.call('PATCH', path, { token: user.token, tenant: ctx.tenant, body }),
  get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: ctx.tenant }),
});

const pool = (relais: unknown[], extra: Record<string, unknown> = {}) => ({
  type: 'GROUPS',
  title: 'Paniers du marché',
  config: { units: [{ id: 'panier', label: 'Panier', price: '12.00' }], relais, ...extra },
});

const openPool = async (ctx: Ctx, body: unknown): Promise<string> => {
  const created = await as(ctx, ctx.organiser).post('/api/pools', body);
  assert.is(created.status, 201, created.text);
  const published = await as(ctx, ctx.organiser).post(`/api/pools/${created.body.data.id}/publish`);
  assert.is(published.status, 200, published.text);
  return created.body.data.id as string;
};

test('given directory ids (alone or as {id}), when a pool is created, then they are resolved fresh and stored as snapshots; inline points as sent', async (ctx) => {
  const before = ctx.directory.resolved.length;
  const res = await as(ctx, ctx.organiser).post('/api/pools', pool([A, { id: B }, { id: 'chez-moi', name: 'Chez moi', city: 'Lyon' }], { parcelWeightG: 800 }));
  assert.is(res.status, 201, res.text);
  assert.equal(ctx.directory.resolved.slice(before), [{ ids: [A, B], tenantId: res.body.data.tenantId, fresh: true }]);
  const relais = res.body.data.config.relais;
  assert.equal(relais[0], {
    id: A,
    name: 'Relais SBX-001',
    address: '12 rue des Lilas',
    postalCode: '75011',
    city: 'Paris',
    country: 'FR',
    lat: 48.8589,
    lng: 2.3795,
    openingHours: 'Mon–Fri 09:00–12:00, 14:00–19:00; Sat 09:00–12:00',
  });
  assert.is(relais[1].address, '3 place du Marché, Bâtiment B');
  assert.equal(relais[2], { id: 'chez-moi', name: 'Chez moi', city: 'Lyon' });
  assert.equal(
    res.body.data.pickupPoints.map((p: { id: string; available: boolean; unavailableReason: unknown }) => [p.id, p.available, p.unavailableReason]),
    [
      [A, true, null],
      [B, true, null],
      ['chez-moi', true, null],
    ],
  );
  assert.is(res.body.data.config.parcelWeightG, 800);
});

test('given a point the directory does not know, a retired or closed one, one too small, or a network down, then 400 per entry, or 503', async (ctx) => {
  const refused = await as(ctx, ctx.organiser).post('/api/pools', pool([A, 'sandbox:SBX-404', { id: 'sandbox:SBX-RETIRED' }, 'sandbox:SBX-HOLIDAY', 'sandbox:SBX-LIGHT'], { parcelWeightG: 1500 }));
  assert.is(refused.status, 400, refused.text);
  assert.is(refused.body.success, false);
  assert.equal(refused.body.errors, {
    'config.relais.1.id': ['unknown pick-up point'],
    'config.relais.2.id': ['pick-up point sandbox:SBX-RETIRED is retired'],
    'config.relais.3.id': ['pick-up point sandbox:SBX-HOLIDAY is temporarily closed'],
    'config.relais.4.id': ['pick-up point sandbox:SBX-LIGHT takes parcels up to 1000 g (config.parcelWeightG is 1500 g)'],
  });
  const noName = await as(ctx, ctx.organiser).post('/api/pools', pool([{ id: 'mine' }]));
  assert.is(noName.status, 400, noName.text);
  assert.ok(noName.body.errors['config.relais.0.name']);

  const draft = await as(ctx, ctx.organiser).post('/api/pools', pool([{ id: 'r1', name: 'Épicerie' }]));
  assert.is(draft.status, 201, draft.text);
  const patched = await as(ctx, ctx.organiser).patch(`/api/pools/${draft.body.data.id}`, { config: { units: [{ id: 'panier', label: 'Panier', price: '12.00' }], relais: ['sandbox:SBX-RETIRED'] } });
  assert.is(patched.status, 400, patched.text);
  assert.equal(patched.body.errors, { 'config.relais.0.id': ['pick-up point sandbox:SBX-RETIRED is retired'] });

  ctx.directory.failing.add('sandbox');
  try {
    const down = await as(ctx, ctx.organiser).post('/api/pools', pool([A]));
    assert.is(down.status, 503, down.text);
    assert.is(down.body.code, 'relais_unavailable');
  } finally {
    ctx.directory.failing.delete('sandbox');
  }
  const ok = await as(ctx, ctx.organiser).patch(`/api/pools/${draft.body.data.id}`, { config: { units: [{ id: 'panier', label: 'Panier', price: '12.00' }], relais: [B] } });
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.body.data.config.relais[0].name, 'Relais SBX-002');
});

test('given a buyer at a point reported unavailable, then the reservation asks to choose again, nobody new reserves there, and the re-choice puts it right', async (ctx) => {
  const poolId = await openPool(ctx, pool([C, B, { id: 'r1', name: 'Épicerie' }]));
  const bea = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bea' });
  const cleo = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Cleo' });
  const placed = await as(ctx, bea).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'panier', quantity: 1 }], relaisId: C });
  assert.is(placed.status, 201, placed.text);
  const reservationId = placed.body.data.id as string;
  assert.equal(placed.body.data.pickupPoint, { id: C, status: 'ok', reason: null, action: null });

  await ctx.api.runner.catchUp();
  assert.equal(await reportPointUnavailable(ctx.relais, { pointId: C, reason: 'retired', detail: 'the shop closed' }), { pools: 1 });
  assert.equal(await reportPointUnavailable(ctx.relais, { pointId: C, reason: 'retired', detail: 'the shop closed' }), { pools: 0 }, 'told once');
  await ctx.api.runner.catchUp();

  const mine = await as(ctx, bea).get(`/api/me/reservations/${reservationId}`);
  assert.is(mine.status, 200, mine.text);
  assert.equal(mine.body.data.pickupPoint, { id: C, status: 'unavailable', reason: 'retired', action: 'choose_again' });
  const read = await as(ctx, bea).get(`/api/pools/${poolId}`);
  assert.equal(
    read.body.data.pickupPoints.map((p: { id: string; available: boolean; unavailableReason: unknown }) => [p.id, p.available, p.unavailableReason]),
    [
      [C, false, 'retired'],
      [B, true, null],
      ['r1', true, null],
    ],
  );
  assert.equal(read.body.data.myReservations[0].pickupPoint, mine.body.data.pickupPoint, 'the pool’s view of the reservation says the same');

  const late = await as(ctx, cleo).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'panier', quantity: 1 }], relaisId: C });
  assert.is(late.status, 409, late.text);
  assert.is(late.body.code, 'pickup_point_unavailable');

  const path = `/api/pools/${poolId}/reservations/${reservationId}/pickup-point`;
  const again = await as(ctx, bea).post(path, { relaisId: C });
  assert.is(again.status, 409, again.text);
  assert.is(again.body.code, 'pickup_point_unavailable');
  assert.is((await as(ctx, ctx.organiser).post(path, { relaisId: B })).status, 404, 'the organiser');
  assert.is((await as(ctx, cleo).post(path, { relaisId: B })).status, 404, 'someone else');
  const unknown = await as(ctx, bea).post(path, { relaisId: 'sandbox:SBX-999' });
  assert.is(unknown.status, 400, unknown.text);

  const moved = await as(ctx, bea).post(path, { relaisId: B });
  assert.is(moved.status, 200, moved.text);
  assert.is(moved.body.data.relaisId, B);
  assert.equal(moved.body.data.pickupPoint, { id: B, status: 'ok', reason: null, action: null });
  const same = await as(ctx, bea).post(path, { relaisId: B });
  assert.is(same.status, 200, same.text);
  assert.equal(same.body.data, moved.body.data, 'choosing it again changes nothing');

  await ctx.api.runner.catchUp();
  const after = await as(ctx, bea).get(`/api/me/reservations/${reservationId}`);
  assert.equal([after.body.data.relaisId, after.body.data.pickupPoint], [B, { id: B, status: 'ok', reason: null, action: null }], 'the read model shows what the answer said');
});

test('given pools with inline points only, then the directory is never asked, and reserving works as before', async (ctx) => {
  const before = ctx.directory.resolved.length;
  const poolId = await openPool(ctx, pool([{ id: 'r1', name: 'Épicerie', city: 'Lyon' }]));
  const bea = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bea Inline' });
  const placed = await as(ctx, bea).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'panier', quantity: 1 }], relaisId: 'r1' });
  assert.is(placed.status, 201, placed.text);
  assert.equal(placed.body.data.pickupPoint, { id: 'r1', status: 'ok', reason: null, action: null });
  assert.is(ctx.directory.resolved.length, before, 'no directory call');
  assert.equal(await reportPointUnavailable(ctx.relais, { pointId: 'sandbox:SBX-404', reason: 'not_found', detail: null }), { pools: 0 });
});

test('given an open pool whose points changed at the carrier, when the periodic check runs, then the unusable ones are reported (a closure covering today, gone) and a network down is skipped', async (ctx) => {
  const poolId = await openPool(ctx, pool([D, E, { id: 'r1', name: 'Épicerie' }]));
  await ctx.api.runner.catchUp();
  const today = new Date().toISOString().slice(0, 10);
  ctx.directory.set(relaisPointFixture(D, { closures: [{ from: today, to: today, reason: 'inventaire' }] }));
  ctx.directory.points.delete(E);
  const outcome = await checkPoolPoints(ctx.relais);
  assert.ok(outcome.reported >= 2, JSON.stringify(outcome));
  await ctx.api.runner.catchUp();
  const read = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`);
  assert.equal(
    read.body.data.pickupPoints.map((p: { id: string; available: boolean; unavailableReason: unknown }) => [p.id, p.available, p.unavailableReason]),
    [
      [D, false, 'closed_on_date'],
      [E, false, 'not_found'],
      ['r1', true, null],
    ],
  );
  ctx.directory.failing.add('sandbox');
  try {
    const down = await checkPoolPoints(ctx.relais);
    assert.is(down.reported, 0);
    assert.ok(down.skipped > 0, JSON.stringify(down));
  } finally {
    ctx.directory.failing.delete('sandbox');
  }
});

test.run();
