/**
 * Carrier webhooks through HTTP (docs/relais.md, "Webhook mapping"): the routes of command-api/src/relais/carrier-webhooks.ts
 * and sandbox-shipments.ts served by the same HTTP kit as the API (body parser, limits, envelope, rate limits), on the
 * test database. The shipment side (part D's recordShipmentStatus) is a double here, injected through the route
 * factory: it keeps each known parcel's status forward only, as the pool's decider does, and records every call.
 * The last test drives the embedded service itself (startApi: the real recordShipmentStatus and lookup).
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  CommandFacts,
  autoAdvanceMagic,
  makeCarrierWebhookRoutes,
  makeSandboxShipmentRoutes,
  relaisDepsOf,
  RELAIS_WEBHOOK_MAX_BODY_BYTES,
  type RecordShipmentStatus,
} from '@cagnotte/command-api';
import { advancesShipment, type ShipmentStatus } from '@cagnotte/event-schemas';
import { createApiServer, createServices, loadConfig, relaisWebhookSecret, signRelaisPayload, type Services } from '@cagnotte/infra';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';
import { TenantReadModel } from '@cagnotte/read-models';
import type { ShipmentStatusReport } from '../../command-api/src/relais/ports';
import { call, listen, startApi } from './harness';

const INPOST_SECRET = `inpost-${randomUUID()}-${randomUUID()}`;

interface Ctx {
  url: string;
  services: Services;
  calls: ShipmentStatusReport[];
  known: Map<string, ShipmentStatus>;
  crashOnce: Set<string>;
  relais: ReturnType<typeof relaisDepsOf>;
}

const test = suite<Ctx>('relais carrier webhooks (HTTP)');

test.before(async (ctx) => {
  const config = { ...loadConfig({ ...process.env, LOG_LEVEL: 'silent', RELAIS_WEBHOOK_SECRET_INPOST: INPOST_SECRET }), PORT: 0, HOST: '127.0.0.1' };
  const services = await createServices(config, { migrate: false });
  ctx.calls = [];
  ctx.known = new Map();
  ctx.crashOnce = new Set();
  // The shipment side, forward only: an unknown parcel is unknown_tracking; a status that does not advance is unchanged.
  const record: RecordShipmentStatus = async (_deps, report) => {
    ctx.calls.push(report);
    if (ctx.crashOnce.delete(report.trackingNumber)) throw new Error('the process died between the insert and the command');
    const current = ctx.known.get(`${report.network}:${report.trackingNumber}`);
    if (current === undefined) return { outcome: 'unknown_tracking' };
    const ids = { poolId: randomUUID(), shipmentId: randomUUID() };
    if (!advancesShipment(current, report.status)) return { outcome: 'unchanged', ...ids, status: current };
    ctx.known.set(`${report.network}:${report.trackingNumber}`, report.status);
    return { outcome: 'advanced', ...ids, status: report.status };
  };
  const tenants = new TenantReadModel(services.knex);
  const relais = relaisDepsOf(services, new CommandFacts({ store: services.store, tenants, config: services.config }), () => new Date());
  ctx.relais = relais;
  const routes = [...makeCarrierWebhookRoutes(relais, { recordShipmentStatus: record }), ...makeSandboxShipmentRoutes(relais)];
  const app = createApiServer({ services, tenants, routes, projections: [], info: { title: 'relais webhooks', version: '1', description: 'relais carrier webhooks' } });
  const { server, url } = await listen(app);
  ctx.url = url;
  ctx.services = services;
  onTestTeardown(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections?.();
    await services.close();
  });
});

const uniqueTracking = (prefix: string) => `${prefix}${randomUUID().replace(/-/g, '').slice(0, 16).toUpperCase()}`;
const inpostPush = (trackingNumber: string, status: string, eventTs = '2026-11-24 18:02:11 +0100') =>
  JSON.stringify({ event_ts: eventTs, event: 'shipment_status_changed', organization_id: 40172, payload: { shipment_id: 1, status, tracking_number: trackingNumber } });
const post = (ctx: Ctx, network: string, body: string, headers: Record<string, string> = {}, contentType = 'application/json') =>
  call(ctx.url, 'POST', `/api/relais/webhooks/${network}`, { rawBody: body, contentType, headers });
const signed = (secret: string, body: string) => ({ 'X-Relais-Signature': signRelaisPayload(secret, body) });
const rowsOf = async (ctx: Ctx, trackingNumber: string) =>
  (await ctx.services.knex('relais_carrier_events').where({ tracking_number: trackingNumber }).orderBy('id')) as Array<{ network: string; status: string; carrier_status: string; outcome: string | null; body_sha256: string }>;
const knownParcel = (ctx: Ctx, network: string, trackingNumber: string, status: ShipmentStatus = 'label_created') => ctx.known.set(`${network}:${trackingNumber}`, status);
const lookupRow = (ctx: Ctx, network: string, trackingNumber: string) =>
  ctx.services.knex('relais_shipment_lookup').insert({ network, tracking_number: trackingNumber, pool_id: randomUUID(), shipment_id: randomUUID(), tenant_id: randomUUID(), point_id: `${network}:SBX-001` });

test('a forged signature (other secret, none, malformed) is a 401 invalid_signature and stores nothing', async (ctx) => {
  const tracking = uniqueTracking('6834');
  knownParcel(ctx, 'inpost', tracking);
  const body = inpostPush(tracking, 'delivered');
  for (const headers of [signed(`forged-${randomUUID()}-${randomUUID()}`, body), {}, { 'X-Relais-Signature': 'sha256=abc' }, { 'X-Relais-Signature': signRelaisPayload(INPOST_SECRET, `${body} `) }]) {
    const res = await post(ctx, 'inpost', body, headers);
    assert.is(res.status, 401, res.text);
    assert.is(res.body.code, 'invalid_signature');
  }
  assert.equal(await rowsOf(ctx, tracking), []);
  assert.is(ctx.calls.filter((c) => c.trackingNumber === tracking).length, 0);
});

test('a valid push is stored and applied; the same push replayed is a duplicate, applied once', async (ctx) => {
  const tracking = uniqueTracking('6834');
  knownParcel(ctx, 'inpost', tracking);
  const body = inpostPush(tracking, 'ready_to_pickup');
  const first = await post(ctx, 'inpost', body, signed(INPOST_SECRET, body));
  assert.is(first.status, 200, first.text);
  assert.equal(first.body.data, { received: 1, applied: 1, duplicates: 0, unknown: 0, duplicate: false });
  const [row] = await rowsOf(ctx, tracking);
  assert.equal([row!.network, row!.status, row!.carrier_status, row!.outcome], ['inpost', 'available_for_pickup', 'ready_to_pickup', 'advanced']);
  assert.match(row!.body_sha256, /^[0-9a-f]{64}$/);

  const replay = await post(ctx, 'inpost', body, signed(INPOST_SECRET, body));
  assert.is(replay.status, 200, replay.text);
  assert.equal(replay.body.data, { received: 1, applied: 0, duplicates: 1, unknown: 0, duplicate: true });
  assert.is((await rowsOf(ctx, tracking)).length, 1);
  assert.is(ctx.calls.filter((c) => c.trackingNumber === tracking).length, 1, 'the shipment side saw the update once');
  assert.equal(ctx.calls.find((c) => c.trackingNumber === tracking), {
    network: 'inpost',
    trackingNumber: tracking,
    status: 'available_for_pickup',
    carrierStatus: 'ready_to_pickup',
    occurredAt: '2026-11-24T17:02:11.000Z',
    source: 'carrier',
  });
});

test('a late status is stored but moves nothing back; an unknown tracking number is stored as unknown_tracking', async (ctx) => {
  const tracking = uniqueTracking('6834');
  knownParcel(ctx, 'inpost', tracking, 'delivered');
  const late = inpostPush(tracking, 'adopted_at_sorting_center', '2026-11-22 08:00:00 +0100');
  const res = await post(ctx, 'inpost', late, signed(INPOST_SECRET, late));
  assert.equal(res.body.data, { received: 1, applied: 0, duplicates: 0, unknown: 0, duplicate: false });
  assert.is(ctx.known.get(`inpost:${tracking}`), 'delivered');
  assert.is((await rowsOf(ctx, tracking))[0]!.outcome, 'unchanged');

  const stranger = uniqueTracking('6834');
  const body = inpostPush(stranger, 'delivered');
  const unknown = await post(ctx, 'inpost', body, signed(INPOST_SECRET, body));
  assert.equal(unknown.body.data, { received: 1, applied: 0, duplicates: 0, unknown: 1, duplicate: false });
  assert.is((await rowsOf(ctx, stranger))[0]!.outcome, 'unknown_tracking');
});

test('a crash between the insert and the command is healed by the carrier’s retry: the row without outcome is applied again', async (ctx) => {
  const tracking = uniqueTracking('6834');
  knownParcel(ctx, 'inpost', tracking);
  ctx.crashOnce.add(tracking);
  const body = inpostPush(tracking, 'delivered');
  const crashed = await post(ctx, 'inpost', body, signed(INPOST_SECRET, body));
  assert.is(crashed.status, 500, crashed.text);
  assert.is((await rowsOf(ctx, tracking))[0]!.outcome, null, 'stored, not applied');
  const retry = await post(ctx, 'inpost', body, signed(INPOST_SECRET, body));
  assert.equal(retry.body.data, { received: 1, applied: 1, duplicates: 1, unknown: 0, duplicate: true });
  assert.is((await rowsOf(ctx, tracking))[0]!.outcome, 'advanced');
  assert.is(ctx.known.get(`inpost:${tracking}`), 'delivered');
  const again = await post(ctx, 'inpost', body, signed(INPOST_SECRET, body));
  assert.equal(again.body.data, { received: 1, applied: 0, duplicates: 1, unknown: 0, duplicate: true });
});

test('a batch (Colissimo, La Poste Suivi v2 relayed) is applied oldest first; a code of no status is stored, not applied', async (ctx) => {
  const secret = relaisWebhookSecret(ctx.services.config, 'colissimo');
  assert.is(secret, null, 'no secret configured for colissimo in this run');
  const res = await post(ctx, 'colissimo', '[]', signed('whatever-secret-0123456789abcdef012', '[]'));
  assert.is(res.status, 404, 'a network without a secret is a 404');
  // The sandbox carrier takes several events in one push: oldest first, whatever the order sent.
  const tracking = uniqueTracking('SBX');
  knownParcel(ctx, 'sandbox', tracking);
  const sandboxSecret = relaisWebhookSecret(ctx.services.config, 'sandbox')!;
  const body = JSON.stringify({
    shipment: {
      tracking_number: tracking,
      events: [
        { code: 'AVAILABLE_FOR_PICKUP', at: '2026-11-27T10:00:00Z' },
        { code: 'TELEPORTED', at: '2026-11-27T09:30:00Z' },
        { code: 'IN_TRANSIT', at: '2026-11-27T09:00:00Z' },
      ],
    },
  });
  const pushed = await post(ctx, 'sandbox', body, signed(sandboxSecret, body));
  assert.equal(pushed.body.data, { received: 3, applied: 2, duplicates: 0, unknown: 0, duplicate: false });
  assert.equal(
    ctx.calls.filter((c) => c.trackingNumber === tracking).map((c) => [c.status, c.source]),
    [
      ['in_transit', 'sandbox'],
      ['available_for_pickup', 'sandbox'],
    ],
  );
  assert.equal((await rowsOf(ctx, tracking)).map((r) => [r.status, r.outcome]).sort(), [
    ['available_for_pickup', 'advanced'],
    ['in_transit', 'advanced'],
    ['unknown', 'unknown_status'],
  ]);
});

test('an unknown network, the community network and a network without a secret are 404', async (ctx) => {
  for (const network of ['ups', 'community', 'colissimo', 'chronopost', 'mondial_relay']) {
    const res = await post(ctx, network, '{}', signed(INPOST_SECRET, '{}'));
    assert.is(res.status, 404, `${network}: ${res.text}`);
  }
});

test('malformed JSON is a 400, a payload not in the network’s shape a 400 invalid_payload, an oversized body a 413: nothing stored', async (ctx) => {
  const before = Number((await ctx.services.knex('relais_carrier_events').count({ n: '*' }))[0]!.n);
  const broken = '{"event": "shipment_status_changed", ';
  const malformed = await post(ctx, 'inpost', broken, signed(INPOST_SECRET, broken));
  assert.is(malformed.status, 400, malformed.text);
  assert.is(malformed.body.code, 'malformed_json');
  // Sent as text: read off the stream by the route itself, the same answer.
  const asText = await post(ctx, 'inpost', broken, signed(INPOST_SECRET, broken), 'text/plain');
  assert.is(asText.status, 400, asText.text);
  assert.is(asText.body.code, 'malformed_json');
  const notInpost = JSON.stringify({ shipment: { tracking_number: 'X', events: [] } });
  const shape = await post(ctx, 'inpost', notInpost, signed(INPOST_SECRET, notInpost));
  assert.is(shape.status, 400, shape.text);
  assert.is(shape.body.code, 'invalid_payload');
  assert.ok(Object.keys(shape.body.errors).some((k) => k.startsWith('body')));
  const huge = JSON.stringify({ event_ts: '2026-11-24 18:02:11 +0100', event: 'shipment_status_changed', payload: { status: 'delivered', tracking_number: 'X12345', pad: 'x'.repeat(RELAIS_WEBHOOK_MAX_BODY_BYTES) } });
  const tooLarge = await post(ctx, 'inpost', huge, signed(INPOST_SECRET, huge));
  assert.is(tooLarge.status, 413, tooLarge.text);
  const after = Number((await ctx.services.knex('relais_carrier_events').count({ n: '*' }))[0]!.n);
  assert.is(after, before);
});

test('sandbox advance: the next status each time through the signed webhook, a named status, then 409 at the end; unknown tracking 404', async (ctx) => {
  const tracking = uniqueTracking('SBX');
  knownParcel(ctx, 'sandbox', tracking);
  await lookupRow(ctx, 'sandbox', tracking);
  const advance = (body?: unknown) => call(ctx.url, 'POST', `/sandbox/relais/shipments/${tracking}/advance`, body === undefined ? {} : { body });

  const first = await advance();
  assert.is(first.status, 200, first.text);
  assert.is(first.body.data.tracking, tracking);
  assert.is(first.body.data.status, 'in_transit');
  assert.is(first.body.data.webhook.status, 200);
  assert.equal(first.body.data.webhook.body.data, { received: 1, applied: 1, duplicates: 0, unknown: 0, duplicate: false });
  assert.is((await advance()).body.data.status, 'out_for_delivery');
  assert.is((await advance({ status: 'delivered' })).body.data.status, 'delivered');
  const final = await advance();
  assert.is(final.status, 409, final.text);
  assert.is(final.body.code, 'shipment_final');
  assert.equal(
    ctx.calls.filter((c) => c.trackingNumber === tracking).map((c) => c.status),
    ['in_transit', 'out_for_delivery', 'delivered'],
  );
  assert.is((await call(ctx.url, 'POST', `/sandbox/relais/shipments/${uniqueTracking('SBX')}/advance`, { body: {} })).status, 404);
  const bad = await advance({ status: 'teleported' });
  assert.is(bad.status, 400, bad.text);
  assert.ok(bad.body.errors.status);
});

test('sandbox advance of a community parcel reports it for the community network', async (ctx) => {
  const tracking = uniqueTracking('CMY');
  knownParcel(ctx, 'community', tracking);
  await lookupRow(ctx, 'community', tracking);
  const res = await call(ctx.url, 'POST', `/sandbox/relais/shipments/${tracking}/advance`, { body: {} });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.webhook.body.data.applied, 1);
  assert.equal(ctx.calls.filter((c) => c.trackingNumber === tracking).map((c) => [c.network, c.status]), [['community', 'in_transit']]);
  assert.is((await rowsOf(ctx, tracking))[0]!.network, 'community');
});

test('magic tracking numbers: auto walks every status up to the magic one, in order; autoAdvanceMagic does the same and ignores others', async (ctx) => {
  const tracking = `SBX-AVAILABLE-${randomUUID().slice(0, 8)}`;
  knownParcel(ctx, 'sandbox', tracking);
  await lookupRow(ctx, 'sandbox', tracking);
  const res = await call(ctx.url, 'POST', `/sandbox/relais/shipments/${tracking}/advance`, { body: { status: 'auto' } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.status, 'available_for_pickup');
  assert.equal(res.body.data.webhook.body.data, { received: 3, applied: 3, duplicates: 0, unknown: 0, duplicate: false });
  assert.equal(
    ctx.calls.filter((c) => c.trackingNumber === tracking).map((c) => c.status),
    ['in_transit', 'out_for_delivery', 'available_for_pickup'],
  );

  const returned = `SBX-RETURNED-${randomUUID().slice(0, 8)}`;
  knownParcel(ctx, 'sandbox', returned);
  const answer = await autoAdvanceMagic(ctx.relais, { trackingNumber: returned });
  assert.is(answer?.status, 'returned');
  assert.equal(ctx.calls.filter((c) => c.trackingNumber === returned).map((c) => c.status), ['in_transit', 'returned']);
  assert.is(await autoAdvanceMagic(ctx.relais, { trackingNumber: 'SBX123456789012' }), null);

  const plain = uniqueTracking('SBX');
  await lookupRow(ctx, 'sandbox', plain);
  const notMagic = await call(ctx.url, 'POST', `/sandbox/relais/shipments/${plain}/advance`, { body: { status: 'auto' } });
  assert.is(notMagic.status, 400, notMagic.text);
});

test('the embedded service serves both routes with the real shipment side: an unknown parcel is stored as unknown_tracking, its advance a 404', async (ctx) => {
  const api = await startApi();
  const tracking = uniqueTracking('SBX');
  const secret = relaisWebhookSecret(api.services.config, 'sandbox')!;
  const body = JSON.stringify({ shipment: { tracking_number: tracking, events: [{ code: 'IN_TRANSIT', at: '2026-11-27T09:00:00Z' }] } });
  const res = await api.call('POST', '/api/relais/webhooks/sandbox', { rawBody: body, headers: signed(secret, body) });
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data, { received: 1, applied: 0, duplicates: 0, unknown: 1, duplicate: false });
  assert.equal((await rowsOf(ctx, tracking)).map((r) => [r.network, r.status, r.outcome]), [['sandbox', 'in_transit', 'unknown_tracking']]);
  const forged = await api.call('POST', '/api/relais/webhooks/sandbox', { rawBody: body, headers: signed(INPOST_SECRET, body) });
  assert.is(forged.status, 401, forged.text);
  assert.is((await api.call('POST', `/sandbox/relais/shipments/${tracking}/advance`, { body: {} })).status, 404);
  assert.is((await api.call('POST', '/api/relais/webhooks/inpost', { rawBody: '{}', headers: signed(INPOST_SECRET, '{}') })).status, 404, 'no InPost secret in this deployment');
});

test.run();
