import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { BullJobQueue, SANDBOX_WEBHOOK_ENCRYPTION_KEY, WebhookKeyring, createLogger, verifyEd25519Delivery, webhookEncryptionKey, type JobQueue, type SignedDeliveryHeaders } from '@cagnotte/infra';
import { onTestTeardown, testKnex } from '@cagnotte/infra/src/testing/resources';
import { ConsumerGroup, PUBLIC_EVENTS_CHANNEL } from '@cagnotte/read-models';
import { startWebhookDelivery } from './dispatcher';
import { makeDeliveryScheduler, runDeliveryAttempt, type WebhookDeliveryDeps } from './delivery';

/**
 * Webhook delivery against a real receiver (a node http server in this spec), with public events and endpoints
 * inserted as rows (the projection and the endpoints API are other features). Each test runs its own dispatcher (a
 * consumer group of its own, started at the feed's head) and its own job queue, with a retry schedule in ms.
 */
const test = suite('webhook delivery: a real receiver, retries, ordering, safety');
const logger = createLogger('silent');
const knex = () => testKnex();
const keyring = () => new WebhookKeyring(knex(), webhookEncryptionKey(SANDBOX_WEBHOOK_ENCRYPTION_KEY));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
};

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}
type Answer = { status: number; headers?: Record<string, string> } | 'hang';

/** A receiver whose answers the test decides, request by request. */
const receiver = async (answer: (r: Received, n: number) => Answer) => {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(r);
      const a = answer(r, received.length);
      if (a === 'hang') return; // never answers: the delivery's timeout must end it
      res.writeHead(a.status, a.headers ?? {});
      res.end('x'.repeat(3000));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  onTestTeardown(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url, received };
};

const newJobs = (): JobQueue => {
  const jobs = new BullJobQueue({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15', keyPrefix: `${process.env.REDIS_KEY_PREFIX ?? 'test:'}wh-${randomUUID().slice(0, 8)}:`, logger });
  onTestTeardown(() => jobs.close());
  return jobs;
};

/** An endpoint row and its secret, as the endpoints API would write them. */
const newEndpoint = async (o: { tenantId: string; url: string; ordering?: 'none' | 'per_subject'; events?: string[]; failingSince?: Date }) => {
  const id = `we_${randomUUID().replace(/-/g, '')}`;
  await knex()('webhook_endpoints').insert({
    id,
    tenant_id: o.tenantId,
    created_by: randomUUID(),
    url: o.url,
    enabled_events: o.events ?? ['*'],
    ordering: o.ordering ?? 'none',
    status: 'enabled',
    failing_since: o.failingSince ?? null,
  });
  const secret = await knex().transaction((trx) => keyring().createEndpointSecret(trx, id));
  return { id, secret };
};

/** Public events committed as the projection would: one transaction, positions at its own xid, then a NOTIFY. */
const publish = async (tenantId: string, events: Array<{ type?: string; subject: string; sequence?: number; data?: unknown }>) => {
  const ids = events.map(() => `evt_${randomUUID().replace(/-/g, '')}`);
  await knex().transaction(async (trx) => {
    await trx('rm_public_events').insert(
      events.map((e, i) => ({
        commit_position: trx.raw('pg_current_xact_id()'),
        prepare_position: String(i + 1),
        idx: 0,
        id: ids[i],
        tenant_id: tenantId,
        owner_id: null,
        type: e.type ?? 'reservation.paid',
        subject: e.subject,
        sequence: e.sequence ?? i + 1,
        api_version: '2026-11-01',
        created_at: new Date(),
        data: JSON.stringify(e.data ?? { reservationId: e.subject, amount: '12.5000000' }),
      })),
    );
    await trx.raw('SELECT pg_notify(?, ?)', [PUBLIC_EVENTS_CHANNEL, tenantId]);
  });
  return ids;
};

/** Starts delivery (dispatcher from the feed's head, workers, sweeper) with the test's deps. */
const start = async (o: Partial<WebhookDeliveryDeps> = {}) => {
  const jobs = newJobs();
  const deps: WebhookDeliveryDeps = {
    knex: knex(),
    jobs,
    keyring: keyring(),
    logger,
    production: false,
    sandboxInboxBase: () => undefined,
    timeoutMs: 2_000,
    schedule: [0, 50, 100, 100, 100],
    clock: () => new Date(),
    ...o,
  };
  const group = `spec-webhooks-${randomUUID()}`;
  const head = await knex().raw<{ rows: Array<{ c: string; p: string; i: number }> }>(
    'SELECT commit_position::text AS c, prepare_position AS p, idx AS i FROM rm_public_events ORDER BY commit_position DESC, prepare_position DESC, idx DESC LIMIT 1',
  );
  const top = head.rows[0];
  await new ConsumerGroup(knex(), group).ensure(top ? { commit: BigInt(top.c), prepare: BigInt(top.p), idx: Number(top.i) } : null);
  const stop = startWebhookDelivery(deps, { group, pollMs: 20, maxPollMs: 200, sweepEveryMs: 200, sweepGraceMs: 3_000, concurrency: 8 });
  onTestTeardown(stop);
  return { deps, stop };
};

const verify = (secret: string, r: Received) => new Webhook(secret).verify(r.body, r.headers as Record<string, string>);
const attempts = (endpointId: string) => knex()('webhook_attempts').where({ endpoint_id: endpointId }).orderBy('id');
const delivery = (endpointId: string, eventId: string) => knex()('webhook_deliveries').where({ endpoint_id: endpointId, event_id: eventId }).first();
const endpointRow = (id: string) => knex()('webhook_endpoints').where({ id }).first();

test('given an endpoint, when an event is published, then it is delivered once, signed (standardwebhooks verifies v1, the tenant key verifies v1a), and the attempt is recorded', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 202 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { stop } = await start();
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('delivered', async () => (await delivery(ep.id, id!))?.status === 'delivered');
  await sleep(300);
  await stop();
  assert.is(rx.received.length, 1, 'delivered once');
  const r = rx.received[0]!;
  const payload = verify(ep.secret, r) as Record<string, unknown>;
  assert.equal(Object.keys(payload), ['id', 'type', 'createdAt', 'tenant', 'subject', 'sequence', 'apiVersion', 'data']);
  assert.equal([payload.id, payload.type, payload.tenant, payload.subject, payload.sequence], [id, 'reservation.paid', tenant, 'res_1', 1]);
  assert.is(r.headers['webhook-id'], id);
  assert.is(r.headers['content-type'], 'application/json');
  assert.is(r.headers['user-agent'], 'Cagnotte-Webhooks/1');
  const { publicKey } = await keyring().signingKey(tenant);
  assert.ok(verifyEd25519Delivery({ headers: r.headers as unknown as SignedDeliveryHeaders, body: r.body, publicKey }));
  const [a] = await attempts(ep.id);
  assert.equal([a.event_id, a.attempt, a.status_code, a.trigger, a.error], [id, 1, 202, 'dispatch', null]);
  assert.is(a.response_excerpt.length, 1024, 'the first 1 KB of the answer');
});

test('given a receiver answering 500 then 200, then the event is retried with the same webhook-id and both attempts verify', async () => {
  const tenant = randomUUID();
  const rx = await receiver((_r, n) => ({ status: n === 1 ? 500 : 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { stop } = await start();
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('delivered', async () => (await delivery(ep.id, id!))?.status === 'delivered');
  await stop();
  assert.is(rx.received.length, 2);
  assert.equal(
    rx.received.map((r) => r.headers['webhook-id']),
    [id, id],
  );
  for (const r of rx.received) verify(ep.secret, r);
  assert.equal(
    (await attempts(ep.id)).map((a) => [a.attempt, a.status_code, a.error]),
    [
      [1, 500, 'HTTP 500'],
      [2, 200, null],
    ],
  );
  assert.is((await endpointRow(ep.id)).failing_since, null, 'a success clears failing_since');
});

test('given a receiver answering 410, then the endpoint is disabled (gone) and nothing is retried', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 410 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { stop } = await start();
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('disabled', async () => (await endpointRow(ep.id)).status === 'disabled');
  await sleep(300);
  await stop();
  const row = await endpointRow(ep.id);
  assert.equal([row.status, row.disabled_reason], ['disabled', 'gone']);
  assert.is((await delivery(ep.id, id!)).status, 'failed');
  assert.is(rx.received.length, 1);
});

test('given a receiver that hangs, then the attempt ends at the timeout, is recorded, and is retried', async () => {
  const tenant = randomUUID();
  const rx = await receiver((_r, n) => (n === 1 ? 'hang' : { status: 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { stop } = await start({ timeoutMs: 300 });
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('delivered', async () => (await delivery(ep.id, id!))?.status === 'delivered');
  await stop();
  const [first, second] = await attempts(ep.id);
  assert.is(first.status_code, null);
  assert.match(first.error, /^timeout/);
  assert.ok(first.latency_ms >= 280 && first.latency_ms < 1_500, `latency ${first.latency_ms}`);
  assert.is(second.status_code, 200);
});

test('given 429 with Retry-After: 1, then the next attempt waits a second, not the schedule\'s 50 ms', async () => {
  const tenant = randomUUID();
  const rx = await receiver((_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '1' } } : { status: 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { stop } = await start();
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('delivered', async () => (await delivery(ep.id, id!))?.status === 'delivered');
  await stop();
  const gap = rx.received[1]!.at - rx.received[0]!.at;
  assert.ok(gap >= 950 && gap < 3_000, `second attempt ${gap} ms after the first`);
});

test('given per_subject ordering and a failing delivery, then only its subject waits: the others go on, and it goes in sequence once it succeeds', async () => {
  const tenant = randomUUID();
  let aFails = true;
  const rx = await receiver((r) => ({ status: aFails && (JSON.parse(r.body) as { subject: string }).subject === 'res_a' ? 500 : 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url, ordering: 'per_subject' });
  const { stop } = await start({ schedule: [0, ...Array(40).fill(100)] });
  const ids = await publish(tenant, [
    { subject: 'res_a', sequence: 1 },
    { subject: 'res_b', sequence: 1 },
    { subject: 'res_a', sequence: 2 },
    { subject: 'res_b', sequence: 2 },
    { subject: 'res_a', sequence: 3 },
  ]);
  const subjectOf = (r: Received) => JSON.parse(r.body) as { subject: string; sequence: number };
  await until('both of res_b are delivered', () => rx.received.filter((r) => subjectOf(r).subject === 'res_b').length === 2);
  await sleep(400);
  const aSent = rx.received.filter((r) => subjectOf(r).subject === 'res_a');
  assert.ok(aSent.length >= 2, 'res_a #1 was retried meanwhile');
  assert.ok(
    aSent.every((r) => r.headers['webhook-id'] === ids[0]),
    'nothing after res_a #1 was sent while it failed',
  );
  aFails = false;
  await until('every event delivered', async () => (await knex()('webhook_deliveries').where({ endpoint_id: ep.id, status: 'delivered' })).length === 5);
  await stop();
  const delivered = rx.received.filter((r) => subjectOf(r).subject === 'res_a' && r.headers['webhook-id'] !== ids[0]).map((r) => subjectOf(r).sequence);
  assert.equal(delivered, [2, 3], 'res_a in sequence order after #1');
  assert.equal(
    rx.received.filter((r) => subjectOf(r).subject === 'res_b').map((r) => subjectOf(r).sequence),
    [1, 2],
  );
});

test('given a production endpoint whose name resolves to a private address, then every attempt is refused before connecting, and the delivery fails for good', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 200 }));
  const port = new URL(rx.url).port;
  const ep = await newEndpoint({ tenantId: tenant, url: `https://hooks.partner.example:${port}/hook` });
  // The name resolved to a public address when the endpoint was created; now it answers the receiver's loopback (rebinding).
  const { stop } = await start({ production: true, resolver: async () => [{ address: '127.0.0.1', family: 4 }], schedule: [0, 20, 20] });
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('failed', async () => (await delivery(ep.id, id!))?.status === 'failed');
  await stop();
  assert.is(rx.received.length, 0, 'never connected');
  const rows = await attempts(ep.id);
  assert.is(rows.length, 3);
  for (const a of rows) assert.match(a.error, /^address_refused: .*127\.0\.0\.1/);
});

test('given an endpoint failing for 5 days, when one more attempt fails, then the endpoint is disabled (failing) and its pending deliveries cancelled', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 503 }));
  const now = new Date('2026-12-10T12:00:00Z');
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url, failingSince: new Date(now.getTime() - 5 * 86_400_000 + 60_000) });
  let clock = now;
  const { stop } = await start({ clock: () => clock, schedule: [0, 10_000] });
  const [first] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('the first attempt is recorded', async () => (await attempts(ep.id)).length === 1);
  assert.is((await endpointRow(ep.id)).status, 'enabled', '4 days 23 h 59 min: still enabled');
  clock = new Date(now.getTime() + 120_000);
  const [second] = await publish(tenant, [{ subject: 'res_2' }]);
  await until('disabled', async () => (await endpointRow(ep.id)).status === 'disabled');
  await stop();
  const row = await endpointRow(ep.id);
  assert.equal([row.disabled_reason, new Date(row.disabled_at).toISOString()], ['failing', clock.toISOString()]);
  assert.is((await delivery(ep.id, first!)).status, 'cancelled', 'the retry waiting for the first event is cancelled');
  assert.is((await delivery(ep.id, second!)).status, 'failed');
});

test('given a delivered event, when the endpoint asks for a test and a recovery of the window, then both are delivered: the recovery with the same webhook-id', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { deps, stop } = await start();
  const since = new Date(Date.now() - 1000);
  const [id] = await publish(tenant, [{ subject: 'res_1' }]);
  await until('delivered', async () => (await delivery(ep.id, id!))?.status === 'delivered');
  const scheduler = makeDeliveryScheduler(deps);
  const endpoint = await endpointRow(ep.id);
  const { eventId } = await scheduler.scheduleTest(endpoint);
  const { scheduled } = await scheduler.scheduleRecovery(endpoint, since, new Date(Date.now() + 1000));
  assert.is(scheduled, 1);
  await until('three deliveries received', () => rx.received.length === 3);
  await stop();
  const test = rx.received.find((r) => r.headers['webhook-id'] === eventId)!;
  assert.is((verify(ep.secret, test) as { type: string }).type, 'webhook.test');
  assert.equal(
    rx.received.filter((r) => r.headers['webhook-id'] === id).length,
    2,
    'recovered with the same webhook-id',
  );
  const triggers = (await attempts(ep.id)).map((a) => [a.event_id === id ? 'event' : 'test', a.trigger]);
  assert.equal(triggers.sort(), [['event', 'dispatch'], ['event', 'recovery'], ['test', 'test']].sort());
});

test('given deliveries committed but never queued (a dispatcher that died after its commit) and an attempt whose worker died (lease expired), then the sweeper queues them and both are delivered', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  // Published to no dispatcher: the group of start() begins after these rows, as if they had been dispatched already.
  const [lost, leased] = await publish(tenant, [{ subject: 'res_1' }, { subject: 'res_2' }]);
  const rows = await knex().raw<{ rows: Array<{ id: string; c: string; p: string }> }>(
    'SELECT id, commit_position::text AS c, prepare_position AS p FROM rm_public_events WHERE tenant_id = ?',
    [tenant],
  );
  for (const r of rows.rows) {
    await knex()('webhook_deliveries').insert({
      endpoint_id: ep.id,
      event_id: r.id,
      commit_position: knex().raw('?::text::xid8', [r.c]),
      prepare_position: r.p,
      idx: 0,
      subject: r.id === lost ? 'res_1' : 'res_2',
      sequence: 1,
      status: 'pending',
      created_at: new Date(Date.now() - 10_000),
      // The second one's first attempt was claimed by a worker that died: attempts 1, its lease over.
      ...(r.id === leased ? { attempts: 1, step: 1, leased_until: new Date(Date.now() - 1_000), next_attempt_at: new Date(Date.now() - 10_000) } : {}),
    });
  }
  const { stop } = await start();
  await until('both delivered', async () => (await knex()('webhook_deliveries').where({ endpoint_id: ep.id, status: 'delivered' })).length === 2);
  await stop();
  assert.equal(
    (await attempts(ep.id)).map((a) => [a.event_id === lost ? 'lost' : 'leased', a.attempt]).sort(),
    [
      ['leased', 2],
      ['lost', 1],
    ],
  );
  assert.is(rx.received.length, 2);
});

test('given an event whose body would reach 64 KB, then nothing is sent and the delivery fails with body_too_large; given an endpoint disabled by its owner, then its pending deliveries are cancelled, saying why', async () => {
  const tenant = randomUUID();
  const rx = await receiver((_r, n) => ({ status: n === 1 ? 500 : 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  const { stop } = await start({ schedule: [0, 1_000] });
  const [big, small] = await publish(tenant, [
    { subject: 'res_big', data: { note: 'x'.repeat(64 * 1024) } },
    { subject: 'res_1' },
  ]);
  await until('the big one failed and the small one was tried', async () => (await delivery(ep.id, big!))?.status === 'failed' && (await attempts(ep.id)).length === 2);
  const bigAttempt = (await attempts(ep.id)).find((a) => a.event_id === big)!;
  assert.match(bigAttempt.error, /^body_too_large/);
  assert.equal(
    rx.received.map((r) => r.headers['webhook-id']),
    [small],
    'only the small event reached the receiver',
  );
  // The small one's retry is due in a second: the owner disables the endpoint meanwhile.
  await knex()('webhook_endpoints').where({ id: ep.id }).update({ status: 'disabled', disabled_at: new Date() });
  await until('cancelled', async () => (await delivery(ep.id, small!))?.status === 'cancelled', 5_000);
  await stop();
  assert.match((await delivery(ep.id, small!)).last_error, /endpoint disabled/);
  assert.is(rx.received.length, 1, 'nothing sent to a disabled endpoint');
});

test('given many attempts at once, some of them twice (two runs of one job), then their claims and records share statements, yet each delivery is sent once and recorded once', async () => {
  const tenant = randomUUID();
  const rx = await receiver(() => ({ status: 200 }));
  const ep = await newEndpoint({ tenantId: tenant, url: rx.url });
  // Published to no dispatcher; the attempts are run here, by hand, all in one turn of the event loop.
  const ids = await publish(tenant, Array.from({ length: 30 }, (_, i) => ({ subject: `res_${i}` })));
  const rows = await knex().raw<{ rows: Array<{ id: string; c: string; p: string }> }>(
    'SELECT id, commit_position::text AS c, prepare_position AS p FROM rm_public_events WHERE tenant_id = ?',
    [tenant],
  );
  await knex()('webhook_deliveries').insert(
    rows.rows.map((r) => ({ endpoint_id: ep.id, event_id: r.id, commit_position: knex().raw('?::text::xid8', [r.c]), prepare_position: r.p, idx: 0, subject: r.id, sequence: 1, status: 'pending' })),
  );
  const deps: WebhookDeliveryDeps = {
    knex: knex(),
    jobs: newJobs(),
    keyring: keyring(),
    logger,
    production: false,
    sandboxInboxBase: () => undefined,
    timeoutMs: 2_000,
    schedule: [0, 50],
    clock: () => new Date(),
  };
  const runs = [...ids, ...ids.slice(0, 10)].map((eventId) => runDeliveryAttempt(deps, { endpointId: ep.id, eventId, attempt: 1 }));
  const outcomes = await Promise.all(runs);
  assert.is(outcomes.filter((o) => o !== 'skipped' && o.kind === 'delivered').length, 30);
  assert.is(outcomes.filter((o) => o === 'skipped').length, 10);
  assert.equal(rx.received.map((r) => String(r.headers['webhook-id'])).sort(), [...ids].sort(), 'each event sent once');
  const recorded = await attempts(ep.id);
  assert.equal(recorded.map((a) => a.event_id).sort(), [...ids].sort(), 'one attempt recorded per event');
  assert.ok(recorded.every((a) => a.attempt === 1 && a.status_code === 200 && a.trigger === 'dispatch' && a.response_excerpt?.length === 1024));
  const delivered = await knex()('webhook_deliveries').where({ endpoint_id: ep.id });
  assert.ok(delivered.every((d) => d.status === 'delivered' && d.attempts === 1 && d.leased_until === null && d.delivered_at !== null));
});

test.run();
