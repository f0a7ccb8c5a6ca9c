import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { bookHostParcels } from '@cagnotte/command-api';
import { CommunityHostsAdapter } from '@cagnotte/read-models';
import { eventually, runCli, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';

/**
 * Community hosts through HTTP, as a partner front-end and an operator drive them: a member without the RELAIS mandate
 * is refused; with it they apply (pending, not a pick-up point yet); an organiser of the tenant approves (a member who
 * is no organiser is refused, another tenant's organiser finds no host); the host pauses and reopens; the operator
 * lists and approves with the CLI. The directory endpoint is another part's: the community network is checked
 * through its adapter on the same read model.
 */

type Envelope = { success: boolean; data: any; code?: string; errors?: Record<string, string[]> };

interface Ctx {
  api: TestApi;
  tenant: { id: string; slug: string };
  other: { id: string; slug: string };
  host: TestUser;
  member: TestUser;
  organiser: TestUser;
  otherOrganiser: TestUser;
}

const test = suite<Ctx>('e2e: community hosts');

const profile = (name = 'Chez Louise') => ({
  name,
  address: { line1: '3 rue des Lilas', postalCode: '75011', city: 'Paris', country: 'FR' },
  geo: { lat: 48.8575, lng: 2.3795 },
  openingHours: { '1': [{ open: '09:00', close: '19:00' }], '3': [{ open: '14:00', close: '19:00' }] },
  capacity: { parcelsPerDay: 6, maxWeightG: 8000 },
});

const as =
  (ctx: Ctx, user: TestUser) =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<Envelope>> =>
    ctx.api.call<Envelope>(method, path, { token: user.token, tenant: user.tenant, headers, ...(body !== undefined ? { body } : {}) });

const nearby = (ctx: Ctx) =>
  new CommunityHostsAdapter(ctx.api.services.knex).search({ country: 'FR', lat: 48.8532, lng: 2.3691, radiusKm: 5, limit: 50, tenantId: ctx.tenant.id }, new AbortController().signal);

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = await ctx.api.tenant();
  ctx.other = await ctx.api.tenant();
  ctx.host = await ctx.api.user(ctx.tenant.slug);
  ctx.member = await ctx.api.user(ctx.tenant.slug);
  ctx.organiser = await ctx.api.user(ctx.tenant.slug, { role: 'organiser', wallet: false });
  ctx.otherOrganiser = await ctx.api.user(ctx.other.slug, { role: 'organiser', wallet: false });
});
test.after(async (ctx) => {
  await ctx.api.stop();
});

let hostId = '';

test('given a member without the RELAIS mandate, when they apply, then 403 relais_mandate_required; a malformed profile is a 400 naming the field', async (ctx) => {
  const refused = await as(ctx, ctx.host)('POST', '/api/relais/hosts', profile());
  assert.is(refused.status, 403, refused.text);
  assert.is(refused.body.code, 'relais_mandate_required');
  const mandate = await as(ctx, ctx.host)('POST', '/api/mandates', { kind: 'RELAIS' });
  assert.is(mandate.status, 201, mandate.text);
  const bad = await as(ctx, ctx.host)('POST', '/api/relais/hosts', { ...profile(), geo: { lat: 91, lng: 2 }, capacity: { parcelsPerDay: 0, maxWeightG: 10 } });
  assert.is(bad.status, 400, bad.text);
  assert.is(bad.body.success, false);
  assert.ok(bad.body.errors?.['geo.lat'] && bad.body.errors['capacity.parcelsPerDay'], bad.text);
});

test('given the RELAIS mandate, when the member applies (twice with one Idempotency-Key), then one host, pending, not a pick-up point yet', async (ctx) => {
  const key = randomUUID();
  const applied = await as(ctx, ctx.host)('POST', '/api/relais/hosts', profile(), { 'idempotency-key': key });
  assert.is(applied.status, 201, applied.text);
  hostId = applied.body.data.id;
  assert.equal([applied.body.data.status, applied.body.data.pointId, applied.body.data.userId, applied.body.data.profile.closures], ['pending', `community:${hostId}`, ctx.host.id, []]);
  const again = await as(ctx, ctx.host)('POST', '/api/relais/hosts', profile(), { 'idempotency-key': key });
  assert.is(again.status, 201);
  assert.is(again.body.data.id, hostId, 'the same host answered again');

  const own = await as(ctx, ctx.host)('GET', `/api/relais/hosts/${hostId}`);
  assert.is(own.status, 200, own.text);
  assert.is(own.body.data.status, 'pending');
  assert.is((await as(ctx, ctx.member)('GET', `/api/relais/hosts/${hostId}`)).status, 404, 'another member sees no host');
  assert.is((await as(ctx, ctx.otherOrganiser)('GET', `/api/relais/hosts/${hostId}`)).status, 404, 'another tenant’s organiser sees no host');
  assert.equal((await nearby(ctx)).map((p) => p.id), [], 'pending: not a pick-up point');
});

test('given a pending host, when reviewed, then a member who is no organiser gets 403, another tenant’s organiser 404, the tenant’s organiser approves it', async (ctx) => {
  const notOrganiser = await as(ctx, ctx.member)('POST', `/api/relais/hosts/${hostId}/approve`);
  assert.is(notOrganiser.status, 403, notOrganiser.text);
  assert.is(notOrganiser.body.code, 'organise_capability_required');
  const otherTenant = await as(ctx, ctx.otherOrganiser)('POST', `/api/relais/hosts/${hostId}/approve`);
  assert.is(otherTenant.status, 404, otherTenant.text);
  assert.is((await as(ctx, ctx.otherOrganiser)('POST', `/api/relais/hosts/${hostId}/reject`, { reason: 'x' })).status, 404);

  const approved = await as(ctx, ctx.organiser)('POST', `/api/relais/hosts/${hostId}/approve`);
  assert.is(approved.status, 200, approved.text);
  assert.is(approved.body.data.status, 'active');
  assert.ok(approved.body.data.approvedAt);
  assert.is((await as(ctx, ctx.organiser)('POST', `/api/relais/hosts/${hostId}/reject`, {})).body.code, 'host_not_pending');

  const list = await as(ctx, ctx.organiser)('GET', '/api/relais/hosts?status=active');
  assert.is(list.status, 200, list.text);
  assert.equal(list.body.data.items.map((h: { id: string }) => h.id), [hostId]);
  assert.equal((await as(ctx, ctx.member)('GET', '/api/relais/hosts')).body.data.items, [], 'a member lists their own hosts only');
  assert.equal((await as(ctx, ctx.otherOrganiser)('GET', '/api/relais/hosts')).body.data.items, [], 'another tenant’s organiser lists their own tenant’s');
  const points = await nearby(ctx);
  assert.equal(points.map((p) => [p.id, p.kind, p.status, p.maxWeightG]), [[`community:${hostId}`, 'community_host', 'active', 8000]]);
});

test('given an approved host, when it changes its profile, pauses and reopens, then each shows; only the host may, and retired is final', async (ctx) => {
  const patched = await as(ctx, ctx.host)('PATCH', `/api/relais/hosts/${hostId}`, { capacity: { parcelsPerDay: 10, maxWeightG: 8000 }, closures: [{ from: '2026-12-24', to: '2026-12-26' }] });
  assert.is(patched.status, 200, patched.text);
  assert.equal([patched.body.data.profile.capacity.parcelsPerDay, patched.body.data.profile.closures.length], [10, 1]);
  assert.is((await as(ctx, ctx.organiser)('PATCH', `/api/relais/hosts/${hostId}`, { name: 'Mine now' })).status, 404, 'the host only');
  assert.is((await as(ctx, ctx.host)('PATCH', `/api/relais/hosts/${hostId}`, {})).status, 400, 'nothing to change');

  const paused = await as(ctx, ctx.host)('POST', `/api/relais/hosts/${hostId}/status`, { status: 'temporarily_closed', reason: 'holidays' });
  assert.is(paused.status, 200, paused.text);
  assert.is(paused.body.data.status, 'temporarily_closed');
  assert.is((await as(ctx, ctx.organiser)('GET', `/api/relais/hosts/${hostId}`)).body.data.status, 'temporarily_closed', 'the organiser reads it (read-your-writes)');
  assert.equal(await nearby(ctx), [], 'paused: out of searches');
  assert.is((await as(ctx, ctx.member)('POST', `/api/relais/hosts/${hostId}/status`, { status: 'active' })).status, 404);
  assert.is((await as(ctx, ctx.host)('POST', `/api/relais/hosts/${hostId}/status`, { status: 'gone' })).status, 400);
  const reopened = await as(ctx, ctx.host)('POST', `/api/relais/hosts/${hostId}/status`, { status: 'active' });
  assert.is(reopened.body.data.status, 'active');

  const days = await as(ctx, ctx.host)('GET', `/api/relais/hosts/${hostId}/bookings?from=2026-12-01&to=2026-12-31`);
  assert.is(days.status, 200, days.text);
  assert.equal(days.body.data.days, [], 'nothing booked yet');

  // A shipment (part D) books parcels on the host's next Monday: the host reads the day's usage.
  const monday = new Date();
  monday.setUTCDate(monday.getUTCDate() + ((8 - monday.getUTCDay()) % 7 || 7));
  const date = monday.toISOString().slice(0, 10);
  const relaisDeps = { services: ctx.api.services, facts: { written: () => {} }, clock: () => new Date() } as unknown as Parameters<typeof bookHostParcels>[0];
  const shipmentId = randomUUID();
  const poolId = randomUUID();
  await bookHostParcels(relaisDeps, { hostId, shipmentId, poolId, date, parcels: 4, weightG: 2000 });
  const usage = await eventually(async () => {
    const r = await as(ctx, ctx.organiser)('GET', `/api/relais/hosts/${hostId}/bookings?from=${date}&to=${date}`);
    return r.body.data?.days?.length ? r.body.data.days : null;
  }, 'the booking in the read model');
  assert.equal(usage, [{ date, parcels: 4, capacity: 10, remaining: 6, bookings: [{ shipmentId, poolId, parcels: 4, bookedAt: usage[0].bookings[0].bookedAt }] }]);
  // Closing that day (a closure over a booked day) is recorded; the pools are told by part C (reportPointUnavailable).
  const closing = await as(ctx, ctx.host)('PATCH', `/api/relais/hosts/${hostId}`, { closures: [{ from: date, to: date, reason: 'away' }] });
  assert.is(closing.status, 200, closing.text);
  assert.is((await as(ctx, ctx.host)('GET', `/api/relais/hosts/${hostId}/bookings?from=2026-12-31&to=2026-12-01`)).status, 400);
  assert.is((await as(ctx, ctx.member)('GET', `/api/relais/hosts/${hostId}/bookings`)).status, 404);
});

test('given a second application, when the operator lists and approves it with the CLI, then the list shows it pending (JSON lines) and the approval makes it active', async (ctx) => {
  const second = await ctx.api.user(ctx.tenant.slug);
  assert.is((await as(ctx, second)('POST', '/api/mandates', { kind: 'RELAIS' })).status, 201);
  const applied = await as(ctx, second)('POST', '/api/relais/hosts', profile('Chez Marc'));
  assert.is(applied.status, 201, applied.text);
  const id = applied.body.data.id as string;

  const listed = await runCli('relais', 'hosts', 'list', '--tenant', ctx.tenant.slug, '--status', 'pending');
  assert.is(listed.code, 0, listed.err);
  const lines = listed.out.trim().split('\n').map((l) => JSON.parse(l) as { id: string; status: string });
  assert.equal(lines.map((h) => [h.id, h.status]), [[id, 'pending']]);
  assert.is((await runCli('relais', 'hosts', 'list', '--status', 'nope')).code, 2);
  assert.is((await runCli('relais', 'hosts', 'approve', 'not-an-id')).code, 2);

  const approved = await runCli('relais', 'hosts', 'approve', id);
  assert.is(approved.code, 0, approved.err);
  assert.equal([JSON.parse(approved.out).status, JSON.parse(approved.out).changed], ['active', true]);
  const reject = await runCli('relais', 'hosts', 'reject', id, '--reason', 'too late');
  assert.is(reject.code, 1, 'an approved host is not rejected');
  assert.match(reject.err, /host_not_pending/);
  assert.is((await runCli('relais', 'hosts', 'approve', randomUUID())).code, 1, 'no such host');

  const seen = await as(ctx, ctx.organiser)('GET', `/api/relais/hosts/${id}`);
  assert.is(seen.status, 200, seen.text);
  assert.is(seen.body.data.status, 'active');

  // The read model is disposable: rebuilt from the streams, it answers the same.
  const before = (await as(ctx, ctx.organiser)('GET', '/api/relais/hosts')).body.data.items;
  assert.is(before.length, 2);
  await ctx.api.runner.rebuild('relais-hosts');
  assert.equal((await as(ctx, ctx.organiser)('GET', '/api/relais/hosts')).body.data.items, before);
});

test.run();
