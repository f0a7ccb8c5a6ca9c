import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { relaisWebhookSecret, signRelaisPayload } from '@cagnotte/infra';
import { eventually, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * Relais end to end, through HTTP only, on the real components (the sandbox carrier, the community network, the
 * sandbox ledger): a GROUPS pool whose pick-up points are a sandbox carrier relay, a second relay and a community
 * host; buyers reserve and pay with a point; the second relay closes and its buyer chooses again; the organiser
 * closes the pool and ships each point's parcels; the relay's shipment goes label → in transit → available for
 * pickup through signed carrier webhooks (a forged one is a 401 and changes nothing, a replayed one changes nothing, a
 * late in_transit never downgrades); the host confirms reception, the pool is delivered (the inspection period
 * starts); a buyer collects at the host with their one-time code (receipt confirmed), the other confirms receipt; the
 * organiser cosigns the release and the pool settles. Public events say each step.
 */
type Envelope = { success: boolean; data: any; code?: string; error?: string; errors?: Record<string, string[]> };
interface Paid {
  buyer: TestUser;
  reservationId: string;
}
interface Ctx {
  api: TestApi;
  tenant: { id: string; slug: string };
  organiser: TestUser;
  hostUser: TestUser;
  hostId: string;
  poolId: string;
  ann: Paid;
  ben: Paid;
  relayShipment: { id: string; trackingNumber: string };
  hostShipment: { id: string; trackingNumber: string };
}

const test = suite<Ctx>('e2e: relais, from the search to the release');

const RELAY = 'sandbox:SBX-001';
const CLOSING = 'sandbox:SBX-002';
const everyDay = Object.fromEntries(['1', '2', '3', '4', '5', '6', '7'].map((d) => [d, [{ open: '08:00', close: '20:00' }]]));

const as =
  (ctx: Ctx, user: TestUser | null) =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<Envelope>> =>
    ctx.api.call<Envelope>(method, path, {
      ...(user ? { token: user.token } : {}),
      tenant: ctx.tenant.slug,
      headers: method === 'POST' && !('idempotency-key' in headers) ? { 'idempotency-key': randomUUID(), ...headers } : headers,
      ...(body !== undefined ? { body } : {}),
    });

/** The sandbox carrier's webhook, signed (or not) as the carrier would send it. */
const carrierWebhook = (ctx: Ctx, payload: unknown, signature?: string) => {
  const raw = JSON.stringify(payload);
  const sig = signature ?? signRelaisPayload(relaisWebhookSecret(ctx.api.services.config, 'sandbox')!, raw);
  return ctx.api.call<Envelope>('POST', '/api/relais/webhooks/sandbox', { rawBody: raw, headers: { 'x-relais-signature': sig } });
};

const shipmentsOf = async (ctx: Ctx) => (await as(ctx, ctx.organiser)('GET', `/api/pools/${ctx.poolId}/shipments`)).body.data.items as Array<{ id: string; status: string; pointId: string }>;
const statusOf = async (ctx: Ctx, shipmentId: string) => (await shipmentsOf(ctx)).find((s) => s.id === shipmentId)?.status;
const publicTypes = async (ctx: Ctx, types: string) => {
  const res = await as(ctx, ctx.organiser)('GET', `/v1/events?types=${encodeURIComponent(types)}&limit=100`);
  assert.is(res.status, 200, res.text);
  return (res.body.data.items as Array<{ type: string; data: Record<string, unknown> }>) ?? [];
};

/** Reserve with a point, sign, pay from the buyer's own wallet: PAID. */
const buy = async (ctx: Ctx, name: string, relaisId: string): Promise<Paid> => {
  const buyer = await ctx.api.user(ctx.tenant.slug, { wallet: true, name });
  const placed = await as(ctx, buyer)('POST', `/api/pools/${ctx.poolId}/reservations`, { lines: [{ unitId: 'panier', quantity: 1 }], relaisId });
  assert.is(placed.status, 201, placed.text);
  const terms = (await as(ctx, buyer)('GET', `/api/pools/${ctx.poolId}/terms`)).body.data;
  const signed = await as(ctx, buyer)('POST', `/api/pools/${ctx.poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: terms.version, termsHash: terms.hash });
  assert.is(signed.status, 200, signed.text);
  await buyer.wallet!.horizon.submitTransaction(signXdr(buyer.wallet!, signed.body.data.payment.xdr));
  const paid = await as(ctx, buyer)('POST', `/api/pools/${ctx.poolId}/reservations/${placed.body.data.id}/pay`, { txHash: signed.body.data.payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  return { buyer, reservationId: placed.body.data.id };
};

test.before(async (ctx) => {
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: `Cagnotte relais e2e ${randomUUID()}` });
  ctx.tenant = await ctx.api.tenant();
  ctx.organiser = await ctx.api.user(ctx.tenant.slug, { role: 'organiser', name: 'Org Olga' });
  ctx.hostUser = await ctx.api.user(ctx.tenant.slug, { name: 'Louise' });
});
test.after(async (ctx) => ctx.api.stop());

test('a member becomes a community host under the RELAIS mandate, approved by an organiser; the search shows the host beside the sandbox carrier’s relays', async (ctx) => {
  assert.is((await as(ctx, ctx.hostUser)('POST', '/api/mandates', { kind: 'RELAIS' })).status, 201);
  const applied = await as(ctx, ctx.hostUser)('POST', '/api/relais/hosts', {
    name: 'Chez Louise',
    address: { line1: '3 rue Mercière', postalCode: '69002', city: 'Lyon', country: 'FR' },
    geo: { lat: 45.7622, lng: 4.8327 },
    openingHours: everyDay,
    capacity: { parcelsPerDay: 3, maxWeightG: 10_000 },
  });
  assert.is(applied.status, 201, applied.text);
  ctx.hostId = applied.body.data.id;
  const approved = await as(ctx, ctx.organiser)('POST', `/api/relais/hosts/${ctx.hostId}/approve`);
  assert.is(approved.status, 200, approved.text);

  const found = await eventually(async () => {
    const res = await as(ctx, null)('GET', '/api/relais/points?country=FR&lat=45.7640&lng=4.8357&radiusKm=10&limit=50');
    assert.is(res.status, 200, res.text);
    return res.body.data.items.some((p: { id: string }) => p.id === `community:${ctx.hostId}`) ? res.body.data : null;
  }, 'the approved host in the search');
  const ids = found.items.map((p: { id: string }) => p.id);
  assert.ok(ids.includes(RELAY) && ids.includes(CLOSING), ids.join(', '));
  assert.ok(!ids.includes('sandbox:SBX-RETIRED'), 'a retired point is never offered');
  const distances = found.items.map((p: { distanceM: number }) => p.distanceM);
  assert.equal(distances, [...distances].sort((a: number, b: number) => a - b), 'nearest first');
  assert.equal(
    found.sources.map((s: { network: string; status: string }) => [s.network, s.status]).sort(),
    [
      ['community', 'ok'],
      ['sandbox', 'ok'],
    ],
  );
  const host = found.items.find((p: { id: string }) => p.id === `community:${ctx.hostId}`);
  assert.equal([host.kind, host.network, host.maxWeightG, host.status], ['community_host', 'community', 10_000, 'active']);
});

test('a GROUPS pool references its points by id: checked at create (unknown, retired, too small refused per entry), snapshots stored', async (ctx) => {
  const body = (relais: unknown[], parcelWeightG = 1500) => ({
    type: 'GROUPS',
    title: 'Paniers du Beaujolais',
    config: { units: [{ id: 'panier', label: 'Panier', price: '20.00' }], relais, parcelWeightG, release: { after: 'RECEIPT', inspectionDays: 3 } },
  });
  const refused = await as(ctx, ctx.organiser)('POST', '/api/pools', body([{ id: RELAY }, { id: 'sandbox:SBX-RETIRED' }, { id: 'sandbox:SBX-LIGHT' }, { id: 'sandbox:SBX-NOPE' }]));
  assert.is(refused.status, 400, refused.text);
  assert.equal(Object.keys(refused.body.errors ?? {}).sort(), ['config.relais.1.id', 'config.relais.2.id', 'config.relais.3.id'], refused.text);
  const created = await as(ctx, ctx.organiser)('POST', '/api/pools', body([{ id: RELAY }, { id: CLOSING }, { id: `community:${ctx.hostId}` }]));
  assert.is(created.status, 201, created.text);
  ctx.poolId = created.body.data.id;
  const points = created.body.data.pickupPoints as Array<{ id: string; name: string; city: string | null }>;
  assert.equal(points.map((p) => p.id), [RELAY, CLOSING, `community:${ctx.hostId}`]);
  assert.is(points[2]!.name, 'Chez Louise', 'the host’s own name, from the directory');
  assert.ok(points.every((p) => p.name && p.city), 'every snapshot has a name and a city');
  assert.is((await as(ctx, ctx.organiser)('POST', `/api/pools/${ctx.poolId}/publish`)).status, 200);
});

test('buyers reserve with a point; the relay closes: the buyer who chose it is asked to choose again, nobody reserves on it, they choose another', async (ctx) => {
  ctx.ann = await buy(ctx, 'Ann', CLOSING);
  ctx.ben = await buy(ctx, 'Ben', `community:${ctx.hostId}`);

  const closed = await as(ctx, ctx.organiser)('POST', `/sandbox/relais/points/${CLOSING}`, { status: 'temporarily_closed' });
  assert.is(closed.status, 200, closed.text);
  const mine = await eventually(async () => {
    const r = (await as(ctx, ctx.ann.buyer)('GET', `/api/me/reservations/${ctx.ann.reservationId}`)).body.data;
    return r?.pickupPoint?.action === 'choose_again' ? r : null;
  }, 'Ann asked to choose again');
  assert.equal([mine.pickupPoint.id, mine.pickupPoint.status], [CLOSING, 'unavailable']);
  const bens = (await as(ctx, ctx.ben.buyer)('GET', `/api/me/reservations/${ctx.ben.reservationId}`)).body.data;
  assert.is(bens.pickupPoint.action, null, 'Ben’s point is fine');

  const cleo = await ctx.api.user(ctx.tenant.slug, { wallet: true, name: 'Cleo' });
  const onClosed = await as(ctx, cleo)('POST', `/api/pools/${ctx.poolId}/reservations`, { lines: [{ unitId: 'panier', quantity: 1 }], relaisId: CLOSING });
  assert.is(onClosed.status, 409, onClosed.text);
  assert.is(onClosed.body.code, 'pickup_point_unavailable');

  const chosen = await as(ctx, ctx.ann.buyer)('POST', `/api/pools/${ctx.poolId}/reservations/${ctx.ann.reservationId}/pickup-point`, { relaisId: RELAY });
  assert.is(chosen.status, 200, chosen.text);
  await eventually(async () => {
    const r = (await as(ctx, ctx.ann.buyer)('GET', `/api/me/reservations/${ctx.ann.reservationId}`)).body.data;
    return r?.relaisId === RELAY && r.pickupPoint.action === null;
  }, 'Ann’s new point');
  const events = await eventually(async () => {
    const items = await publicTypes(ctx, 'relais.point.unavailable,relais.pickup_point.changed');
    return items.length >= 2 ? items : null;
  }, 'the public events of the closure and the re-choice');
  assert.equal(events.map((e) => e.type), ['relais.point.unavailable', 'relais.pickup_point.changed']);
  assert.equal(events[0]!.data.reservationIds, [ctx.ann.reservationId]);
});

test('shipping: the organiser closes the pool and ships each point’s parcels (a sandbox label, a booking on the host’s day)', async (ctx) => {
  const closed = await as(ctx, ctx.organiser)('POST', `/api/pools/${ctx.poolId}/close`);
  assert.is(closed.body.data.status, 'LOCKED', closed.text);
  const relay = await as(ctx, ctx.organiser)('POST', `/api/pools/${ctx.poolId}/shipments`, { pointId: RELAY });
  assert.is(relay.status, 201, relay.text);
  assert.equal([relay.body.data.status, relay.body.data.reservationIds], ['label_created', [ctx.ann.reservationId]]);
  ctx.relayShipment = { id: relay.body.data.id, trackingNumber: relay.body.data.trackingNumber };
  const host = await as(ctx, ctx.organiser)('POST', `/api/pools/${ctx.poolId}/shipments`, { pointId: `community:${ctx.hostId}` });
  assert.is(host.status, 201, host.text);
  assert.equal(host.body.data.reservationIds, [ctx.ben.reservationId]);
  ctx.hostShipment = { id: host.body.data.id, trackingNumber: host.body.data.trackingNumber };
  const bookings = await eventually(async () => {
    const res = await as(ctx, ctx.hostUser)('GET', `/api/relais/hosts/${ctx.hostId}/bookings`);
    const days = res.body.data?.days ?? res.body.data?.items ?? res.body.data;
    return Array.isArray(days) && days.length ? days : null;
  }, 'the host’s booked day');
  assert.is(JSON.stringify(bookings).includes('"parcels":1'), true, JSON.stringify(bookings));
});

test('tracking: signed carrier webhooks move the relay’s shipment forward; a forged one is a 401 and changes nothing; a replay changes nothing; a late in_transit never downgrades', async (ctx) => {
  const tracking = ctx.relayShipment.trackingNumber;
  const advanced = await ctx.api.call<Envelope>('POST', `/sandbox/relais/shipments/${tracking}/advance`, { body: { status: 'in_transit' } });
  assert.is(advanced.status, 200, advanced.text);
  await eventually(async () => (await statusOf(ctx, ctx.relayShipment.id)) === 'in_transit', 'in transit');

  const push = (code: string, at: Date) => ({ shipment: { tracking_number: tracking, events: [{ code, at: at.toISOString() }] } });
  const forgedBody = push('DELIVERED', new Date());
  const forged = await carrierWebhook(ctx, forgedBody, `sha256=${'0'.repeat(64)}`);
  assert.is(forged.status, 401, forged.text);
  const unsigned = await ctx.api.call<Envelope>('POST', '/api/relais/webhooks/sandbox', { body: forgedBody });
  assert.is(unsigned.status, 401, unsigned.text);

  const available = await ctx.api.call<Envelope>('POST', `/sandbox/relais/shipments/${tracking}/advance`, { body: { status: 'available_for_pickup' } });
  assert.is(available.status, 200, available.text);
  await eventually(async () => (await statusOf(ctx, ctx.relayShipment.id)) === 'available_for_pickup', 'available for pickup');
  const pool = (await as(ctx, ctx.organiser)('GET', `/api/pools/${ctx.poolId}`)).body.data;
  assert.is(pool.closing.deliveredAt, null, 'the host’s parcels have not arrived: the pool is not delivered yet');

  const late = push('IN_TRANSIT', new Date(Date.now() + 60_000));
  const lateAnswer = await carrierWebhook(ctx, late);
  assert.is(lateAnswer.status, 200, lateAnswer.text);
  const replay = await carrierWebhook(ctx, late);
  assert.is(replay.status, 200, replay.text);
  assert.is(replay.body.data.duplicates, 1, replay.text);
  await new Promise((r) => setTimeout(r, 300));
  assert.is(await statusOf(ctx, ctx.relayShipment.id), 'available_for_pickup', 'never downgraded');
  const updates = await eventually(async () => {
    const items = (await publicTypes(ctx, 'relais.shipment.updated')).filter((e) => e.data.shipmentId === ctx.relayShipment.id);
    return items.length >= 3 ? items : null;
  }, 'the relay shipment’s public events');
  assert.equal(updates.map((e) => e.data.status), ['label_created', 'in_transit', 'available_for_pickup'], 'one event per move forward, none for the forged, replayed or late ones');
});

test('the host confirms reception: every shipment has arrived, the pool is delivered (the inspection period starts); the buyer collects with the code: receipt confirmed', async (ctx) => {
  const wrongHost = await as(ctx, ctx.ann.buyer)('POST', `/api/relais/hosts/${ctx.hostId}/receptions`, { shipmentId: ctx.hostShipment.id });
  assert.is(wrongHost.status, 404, 'only the host confirms reception');
  const received = await as(ctx, ctx.hostUser)('POST', `/api/relais/hosts/${ctx.hostId}/receptions`, { shipmentId: ctx.hostShipment.id });
  assert.is(received.status, 200, received.text);
  const pool = await eventually(async () => {
    const p = (await as(ctx, ctx.organiser)('GET', `/api/pools/${ctx.poolId}`)).body.data;
    return p.closing?.deliveredAt ? p : null;
  }, 'the pool delivered');
  assert.ok(Date.parse(pool.closing.inspectionEndsAt) > Date.parse(pool.closing.deliveredAt), 'the inspection period runs');

  const collection = await eventually(async () => {
    const res = await as(ctx, ctx.ben.buyer)('GET', `/api/pools/${ctx.poolId}/reservations/${ctx.ben.reservationId}/collection`);
    return res.status === 200 && res.body.data.status === 'ready' ? res.body.data : null;
  }, 'Ben’s code ready');
  assert.match(collection.code, /^\d{8}$/);
  assert.is((await as(ctx, ctx.ann.buyer)('GET', `/api/pools/${ctx.poolId}/reservations/${ctx.ben.reservationId}/collection`)).status, 404, 'a code is its buyer’s only');
  const wrong = await as(ctx, ctx.hostUser)('POST', `/api/relais/hosts/${ctx.hostId}/collections`, { code: collection.code === '00000000' ? '11111111' : '00000000' });
  assert.is(wrong.status, 400, wrong.text);
  const collected = await as(ctx, ctx.hostUser)('POST', `/api/relais/hosts/${ctx.hostId}/collections`, { code: collection.code });
  assert.is(collected.status, 200, collected.text);
  const again = await as(ctx, ctx.hostUser)('POST', `/api/relais/hosts/${ctx.hostId}/collections`, { code: collection.code });
  assert.is(again.status, 409, 'a one-time code');
  const bens = await eventually(async () => {
    const r = (await as(ctx, ctx.ben.buyer)('GET', `/api/me/reservations/${ctx.ben.reservationId}`)).body.data;
    return r?.acceptance ? r : null;
  }, 'Ben’s receipt confirmed');
  assert.is(bens.acceptance.by, 'BUYER');
  const events = await eventually(async () => {
    const items = await publicTypes(ctx, 'relais.parcel.collected');
    return items.length ? items : null;
  }, 'relais.parcel.collected');
  assert.equal([events[0]!.data.reservationId, events[0]!.data.hostId], [ctx.ben.reservationId, ctx.hostId]);
});

test('release: Ann confirms receipt at the relay, the organiser cosigns the release, the pool settles', async (ctx) => {
  const receipt = await as(ctx, ctx.ann.buyer)('POST', `/api/pools/${ctx.poolId}/reservations/${ctx.ann.reservationId}/receipt`);
  assert.is(receipt.status, 200, receipt.text);
  const plan = await as(ctx, ctx.organiser)('POST', `/api/pools/${ctx.poolId}/escrow/settlement`);
  assert.ok(plan.status === 201 || plan.status === 200, plan.text);
  assert.is(plan.body.data.kind, 'RELEASE');
  const signed = plan.body.data.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [
    signXdr(ctx.organiser.wallet!, r.lock.xdr).toXDR(),
    signXdr(ctx.organiser.wallet!, r.release.xdr).toXDR(),
  ]);
  const done = await as(ctx, ctx.organiser)('POST', `/api/pools/${ctx.poolId}/escrow/settlement/submit`, { settlementId: plan.body.data.settlementId, signedXdrs: signed });
  assert.is(done.status, 200, done.text);
  await eventually(async () => (await as(ctx, ctx.organiser)('GET', `/api/pools/${ctx.poolId}`)).body.data.status === 'SETTLED', 'the pool settled');
});

test.run();
