import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CommandFacts, makeShipmentCommandRoutes, recordShipmentStatus, type HostBooking, type PointUnavailableReport, type RelaisDeps } from '@cagnotte/command-api';
import type { CarrierAdapter, LabelRequest, RelaisDirectoryPort, ShipmentStatus } from '@cagnotte/event-schemas';
import { createApiServer } from '@cagnotte/infra';
import { TenantReadModel } from '@cagnotte/read-models';
import { call, eventually, listen, startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';
import { InMemoryRelaisDirectory, relaisPointFixture } from '@cagnotte/command-api/src/relais/directory.testing';

/**
 * Relais shipments through HTTP: a LOCKED pool with a sandbox carrier's relay and a community host; the organiser ships
 * each point's parcels (the carrier's label from a directory double; the host's booking through a double of part B),
 * the host confirms reception, the carrier's updates move the relay's shipment to available_for_pickup (the last
 * arrival: the pool is delivered, the inspection period starts), a late in_transit changes nothing; the buyer at the
 * host reads their code, the host enters it (receipt confirmed by the buyer); a used code 409, wrong codes 400 then 429.
 * The shipment routes run in a command app of the spec's own (the same services), built with the doubles: the
 * directory and the host bookings are other parts of the feature.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
  /** The command app with the shipment routes and the doubles. */
  relais: string;
  deps: RelaisDeps;
  labels: LabelRequest[];
  bookings: HostBooking[];
  released: Array<{ hostId: string; shipmentId: string }>;
  reports: PointUnavailableReport[];
}

const test = suite<Ctx>('relais shipments: label, tracking, delivery, collection with a code');

const sandboxAdapter = (labels: LabelRequest[]): CarrierAdapter => ({
  network: 'sandbox',
  search: async () => [],
  get: async () => null,
  createLabel: async (request) => {
    labels.push(request);
    if (request.pointId === 'sandbox:SBX-RETIRED') return { ok: false, refused: 'point retired' };
    return { ok: true, trackingNumber: request.trackingNumber ?? `SBX${String(labels.length).padStart(12, '0')}` };
  },
});

test.before(async (ctx) => {
  // The pools' points are vouched for by a directory double (the real one is relais-flow.e2e's): every id is an active relay.
  const vouching = new (class extends InMemoryRelaisDirectory {
    override async resolve(ids: string[]) {
      return new Map(ids.map((id) => [id, relaisPointFixture(id)]));
    }
  })();
  ctx.api = await startApi({}, { relaisDirectory: vouching });
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Olga' });
  const services = ctx.api.services;
  Object.assign(ctx, { labels: [], bookings: [], released: [], reports: [] });
  const directory: RelaisDirectoryPort = {
    search: async () => ({ items: [], sources: [] }),
    resolve: async (ids) => new Map(ids.map((id) => [id, null])),
    invalidate: async () => undefined,
    adapter: (network) => (network === 'sandbox' ? sandboxAdapter(ctx.labels) : null),
  };
  ctx.deps = { services, facts: new CommandFacts({ store: services.store, tenants: new TenantReadModel(services.knex), config: services.config }), clock: () => new Date(), directory };
  const routes = makeShipmentCommandRoutes(ctx.deps, {
    bookHostParcels: async (_deps, booking) => void ctx.bookings.push(booking),
    releaseHostBooking: async (_deps, booking) => void ctx.released.push(booking),
    reportPointUnavailable: async (_deps, report) => {
      ctx.reports.push(report);
      return { pools: 1 };
    },
  });
  const app = createApiServer({ services, tenants: new TenantReadModel(services.knex), routes, projections: [], info: { title: 'relais', version: '1', description: 'shipment routes with doubles' } });
  const { server, url } = await listen(app);
  ctx.relais = url;
  const stopApi = ctx.api.stop;
  ctx.api.stop = async () => {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections?.();
    await stopApi();
  };
});
test.after(async (ctx) => ctx.api.stop());

const as = (ctx: Ctx, user: TestUser, base?: string) => ({
  post: (path: string, body: unknown = {}, key: string = randomUUID()) =>
    call(base ?? ctx.api.url, 'POST', path, { token: user.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': key } }),
  get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: ctx.tenant }),
});

/** A community host (part B's application, as its stream records it): the host routes learn their user from it. */
const host = async (ctx: Ctx, user: TestUser): Promise<string> => {
  const hostId = randomUUID();
  const tenantId = (await new TenantReadModel(ctx.api.services.knex).bySlug(ctx.tenant))!.id;
  const at = new Date().toISOString();
  const profile = {
    name: 'Chez Hélène',
    address: { line1: '3 rue des Lilas', postalCode: '69003', city: 'Lyon', country: 'FR' },
    geo: { lat: 45.76, lng: 4.85 },
    openingHours: { '1': [{ open: '09:00', close: '19:00' }] },
    closures: [],
    capacity: { parcelsPerDay: 10, maxWeightG: 5000 },
    photoUrl: null,
  };
  const { position } = await ctx.api.services.store.append(
    `relais-host-${hostId}`,
    [
      {
        id: randomUUID(),
        type: 'RelaisHostApplied',
        schemaVersion: 1,
        data: { hostId, tenantId, userId: user.id, profile, mandate: { version: 'v1', hash: 'ab'.repeat(32) }, appliedAt: at },
        metadata: { tenantId, actor: { kind: 'user', id: user.id }, correlationId: randomUUID(), causationId: null, occurredAt: at },
      },
      {
        id: randomUUID(),
        type: 'RelaisHostApproved',
        schemaVersion: 1,
        data: { hostId, approvedBy: 'operator:e2e', approvedAt: at },
        metadata: { tenantId, actor: { kind: 'operator', id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: at },
      },
    ],
    { expectedRevision: 'no_stream' },
  );
  await ctx.api.runner.catchUp(position);
  return hostId;
};

/** Reserve with a pick-up point, sign, submit the deposit with the buyer's key, pay by hash: PAID. */
const buy = async (ctx: Ctx, poolId: string, relaisId: string, name: string) => {
  const user = await ctx.api.user(ctx.tenant, { wallet: true, name });
  const placed = await as(ctx, user).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity: 1 }], relaisId });
  assert.is(placed.status, 201, placed.text);
  const t = (await as(ctx, user).get(`/api/pools/${poolId}/terms`)).body.data;
  const signed = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash });
  assert.is(signed.status, 200, signed.text);
  await user.wallet!.horizon.submitTransaction(signXdr(user.wallet!, signed.body.data.payment.xdr));
  const paid = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/pay`, { txHash: signed.body.data.payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  return { user, reservationId: placed.body.data.id as string };
};

const track = (ctx: Ctx, trackingNumber: string, status: ShipmentStatus) =>
  recordShipmentStatus(ctx.deps, { network: 'sandbox', trackingNumber, status, carrierStatus: status.toUpperCase(), occurredAt: new Date().toISOString(), source: 'carrier' });

test('a LOCKED pool ships to a sandbox relay and a community host; the last arrival delivers it; the buyer collects with their code (receipt confirmed); wrong codes 400 then 429', async (ctx) => {
  const helene = await ctx.api.user(ctx.tenant, { name: 'Hélène' });
  const hostId = await host(ctx, helene);
  const CMY = `community:${hostId}`;
  const SBX = 'sandbox:SBX-001';
  const created = await as(ctx, ctx.organiser).post('/api/pools', {
    type: 'GROUPS',
    title: 'Fromages du Jura',
    config: {
      units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 20 }],
      relais: [
        { id: SBX, name: 'Relais SBX 001' },
        { id: CMY, name: 'Chez Hélène' },
      ],
      parcelWeightG: 1200,
      release: { after: 'RECEIPT' },
    },
  });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/publish`)).status, 200);
  const ann = await buy(ctx, poolId, SBX, 'Ann');
  const ben = await buy(ctx, poolId, CMY, 'Ben');

  // Not before the pool closed.
  const early = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: SBX });
  assert.is(early.status, 400, early.text);
  assert.is(early.body.code, 'pool_not_locked');
  assert.is(ctx.labels.length, 0, 'no label before the rules pass');
  const closed = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`);
  assert.is(closed.body.data.status, 'LOCKED', closed.text);

  // A buyer cannot ship; a point of no network in the pool: 400.
  assert.is((await as(ctx, ann.user, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: SBX })).status, 403);
  const unknown = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: 'sandbox:SBX-404' });
  assert.is(unknown.status, 400, unknown.text);
  const malformed = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: 'nowhere', weightG: -1 });
  assert.is(malformed.status, 400);
  assert.ok(malformed.body.errors.pointId && malformed.body.errors.weightG, malformed.text);

  // The relay: a label from the carrier, Ann's parcel; the same Idempotency-Key again gives the same shipment, no second label.
  const key = randomUUID();
  const toRelay = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: SBX }, key);
  assert.is(toRelay.status, 201, toRelay.text);
  assert.equal([toRelay.body.data.network, toRelay.body.data.status, toRelay.body.data.reservationIds, toRelay.body.data.weightG], ['sandbox', 'label_created', [ann.reservationId], 1200]);
  assert.equal(ctx.labels.map((l) => [l.pointId, l.reference, l.parcels, l.weightG]), [[SBX, poolId, 1, 1200]]);
  const again = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: SBX }, key);
  assert.is(again.body.data.id, toRelay.body.data.id);
  assert.is(ctx.labels.length, 1);
  const twice = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: SBX });
  assert.is(twice.body.code, 'nothing_to_ship', twice.text);
  const relayTracking = toRelay.body.data.trackingNumber as string;

  // The host: capacity booked for the day, a CMY tracking number.
  const toHost = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: CMY, expectedOn: '2030-01-07' });
  assert.is(toHost.status, 201, toHost.text);
  assert.match(toHost.body.data.trackingNumber, /^CMY\d{12}$/);
  assert.equal(ctx.bookings, [{ hostId, shipmentId: toHost.body.data.id, poolId, date: '2030-01-07', parcels: 1, weightG: 1200 }]);

  // The organiser reads both shipments; a buyer gets a 404.
  const listed = await eventually(async () => {
    const r = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}/shipments`);
    return r.status === 200 && r.body.data.items.length === 2 && r.body.data.items;
  }, 'both shipments in the read model');
  assert.equal(listed.map((s: { pointId: string }) => s.pointId).sort(), [CMY, SBX].sort());
  assert.is((await as(ctx, ann.user).get(`/api/pools/${poolId}/shipments`)).status, 404);

  // Ben's code, waiting; nobody else reads it.
  const waiting = await eventually(async () => {
    const r = await as(ctx, ben.user).get(`/api/pools/${poolId}/reservations/${ben.reservationId}/collection`);
    return r.status === 200 && r.body.data;
  }, 'Ben’s collection');
  assert.is(waiting.status, 'waiting');
  assert.match(waiting.code, /^\d{8}$/);
  assert.ok(waiting.qr.includes(waiting.code));
  assert.is((await as(ctx, ann.user).get(`/api/pools/${poolId}/reservations/${ben.reservationId}/collection`)).status, 404);
  assert.is((await as(ctx, ann.user).get(`/api/pools/${poolId}/reservations/${ann.reservationId}/collection`)).status, 404, 'a relay parcel has no host code');

  // The host confirms reception (only the host): the pool is not delivered yet, the relay's parcel is on its way.
  assert.is((await as(ctx, ann.user, ctx.relais).post(`/api/relais/hosts/${hostId}/receptions`, { shipmentId: toHost.body.data.id })).status, 404);
  const received = await as(ctx, helene, ctx.relais).post(`/api/relais/hosts/${hostId}/receptions`, { shipmentId: toHost.body.data.id });
  assert.is(received.status, 200, received.text);
  assert.equal([received.body.data.outcome, received.body.data.status], ['advanced', 'available_for_pickup']);
  assert.is((await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`)).body.data.closing.deliveredAt, null);

  // The carrier moves the relay's shipment: in transit, then available for pickup, the last arrival: delivered.
  assert.equal(await track(ctx, relayTracking, 'in_transit'), { outcome: 'advanced', poolId, shipmentId: toRelay.body.data.id, status: 'in_transit' });
  assert.is((await track(ctx, relayTracking, 'available_for_pickup')).outcome, 'advanced');
  const delivered = await eventually(async () => {
    const r = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`);
    return r.body.data.closing?.deliveredAt ? r.body.data.closing : null;
  }, 'the pool delivered');
  assert.ok(delivered.inspectionEndsAt > delivered.deliveredAt);
  // A late in_transit: unchanged; an unknown tracking number: said so.
  assert.equal(await track(ctx, relayTracking, 'in_transit'), { outcome: 'unchanged', poolId, shipmentId: toRelay.body.data.id, status: 'available_for_pickup' });
  assert.equal(await track(ctx, 'SBX999999999999', 'in_transit'), { outcome: 'unknown_tracking' });

  // At the host: the parcel is ready; the host sees it (nobody else does).
  const ready = await eventually(async () => {
    const r = await as(ctx, ben.user).get(`/api/pools/${poolId}/reservations/${ben.reservationId}/collection`);
    return r.body.data?.status === 'ready' && r.body.data;
  }, 'Ben’s parcel ready');
  assert.is(ready.code, waiting.code, 'the code is derived, the same on every read');
  const parcels = await as(ctx, helene).get(`/api/relais/hosts/${hostId}/parcels`);
  assert.is(parcels.status, 200, parcels.text);
  assert.equal(parcels.body.data.items[0].collections, [{ reservationId: ben.reservationId, status: 'ready', collectedAt: null }]);
  assert.not.ok(parcels.text.includes(ready.code), 'the host never reads the codes');
  assert.is((await as(ctx, ben.user).get(`/api/relais/hosts/${hostId}/parcels`)).status, 404);

  // The host enters Ben's code: collected, and Ben's receipt confirmed for the escrow.
  assert.is((await as(ctx, ben.user, ctx.relais).post(`/api/relais/hosts/${hostId}/collections`, { code: ready.code })).status, 404, 'only the host enters codes');
  const collected = await as(ctx, helene, ctx.relais).post(`/api/relais/hosts/${hostId}/collections`, { code: ready.code });
  assert.is(collected.status, 200, collected.text);
  assert.equal([collected.body.data.reservationId, collected.body.data.receiptConfirmed], [ben.reservationId, true]);
  const mine = await eventually(async () => {
    const r = await as(ctx, ben.user).get(`/api/me/reservations/${ben.reservationId}`);
    return r.body.data?.acceptance ? r.body.data : null;
  }, 'Ben’s reservation accepted');
  assert.is(mine.acceptance.by, 'BUYER');
  await eventually(async () => (await as(ctx, ben.user).get(`/api/pools/${poolId}/reservations/${ben.reservationId}/collection`)).body.data?.status === 'collected', 'collected');
  const reused = await as(ctx, helene, ctx.relais).post(`/api/relais/hosts/${hostId}/collections`, { code: ready.code });
  assert.is(reused.status, 409, reused.text);
  assert.is(reused.body.code, 'already_collected');

  // Wrong codes: 400 invalid_code, ten of them in 15 minutes; then 429 whatever the code.
  const wrong = String((Number(ready.code) + 1) % 100_000_000).padStart(8, '0');
  for (let i = 0; i < 10; i++) {
    const r = await as(ctx, helene, ctx.relais).post(`/api/relais/hosts/${hostId}/collections`, { code: wrong });
    assert.is(r.status, 400, r.text);
    assert.is(r.body.code, 'invalid_code');
  }
  const limited = await as(ctx, helene, ctx.relais).post(`/api/relais/hosts/${hostId}/collections`, { code: ready.code });
  assert.is(limited.status, 429, limited.text);
  assert.ok(Number(limited.headers.get('retry-after')) > 0);
});

test('a carrier refusing the label: the point is reported unavailable and the answer is 409 pickup_point_unavailable; a failed command after a host booking gives the booking back', async (ctx) => {
  const helene = await ctx.api.user(ctx.tenant, { name: 'Hélène 2' });
  const hostId = await host(ctx, helene);
  const RETIRED = 'sandbox:SBX-RETIRED';
  const CMY = `community:${hostId}`;
  const created = await as(ctx, ctx.organiser).post('/api/pools', {
    type: 'GROUPS',
    title: 'Miel',
    config: { units: [{ id: 'comte', label: 'Pot', price: '8.00', quantity: 20 }], relais: [{ id: RETIRED, name: 'Relais retiré' }, { id: CMY, name: 'Chez Hélène' }], release: { after: 'RECEIPT' } },
  });
  const poolId = created.body.data.id as string;
  await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/publish`);
  await buy(ctx, poolId, RETIRED, 'Cleo');
  await buy(ctx, poolId, CMY, 'Dan');
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).body.data.status, 'LOCKED');

  const refused = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: RETIRED, weightG: 400 });
  assert.is(refused.status, 409, refused.text);
  assert.is(refused.body.code, 'pickup_point_unavailable');
  // A sandbox refusal is the tenant's (its overrides): only its pools hear it.
  assert.equal(ctx.reports.at(-1), { pointId: RETIRED, reason: 'refused_at_label', detail: 'point retired', tenantId: created.body.data.tenantId });
  assert.is(ctx.labels.at(-1)?.tenantId, created.body.data.tenantId, 'the label request names the tenant');

  // No parcelWeightG and no weightG: refused before the booking, nothing to give back.
  const booked = ctx.bookings.length;
  const noWeight = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: CMY });
  assert.is(noWeight.status, 400, noWeight.text);
  assert.ok(noWeight.body.errors.weightG);
  assert.is(ctx.bookings.length, booked);

  // A tracking number another shipment holds: the pool command is refused after the booking, which is given back.
  const first = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${poolId}/shipments`, { pointId: CMY, weightG: 300, trackingNumber: 'CMY-TAKEN-0001' });
  assert.is(first.status, 201, first.text);
  const otherPool = await as(ctx, ctx.organiser).post('/api/pools', {
    type: 'GROUPS',
    title: 'Miel 2',
    config: { units: [{ id: 'comte', label: 'Pot', price: '8.00', quantity: 20 }], relais: [{ id: CMY, name: 'Chez Hélène' }], release: { after: 'RECEIPT' } },
  });
  const other = otherPool.body.data.id as string;
  await as(ctx, ctx.organiser).post(`/api/pools/${other}/publish`);
  await buy(ctx, other, CMY, 'Eve');
  await as(ctx, ctx.organiser).post(`/api/pools/${other}/close`);
  const taken = await as(ctx, ctx.organiser, ctx.relais).post(`/api/pools/${other}/shipments`, { pointId: CMY, weightG: 300, trackingNumber: 'CMY-TAKEN-0001' });
  assert.is(taken.status, 409, taken.text);
  assert.is(taken.body.code, 'tracking_number_taken');
  assert.equal(ctx.released.at(-1), { hostId, shipmentId: ctx.bookings.at(-1)!.shipmentId });
});

test.run();
