import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { startWebhooks } from '@cagnotte/command-api';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';
import { call, groupsPool, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';

/**
 * Webhook delivery through HTTP, the way a partner meets it: the embedded API with the delivery workers running
 * (startWebhooks, as `pnpm start` runs them), an endpoint created through POST /v1/webhooks pointing at a real
 * receiver in this spec, test deliveries asked through POST /v1/webhooks/{id}/test, verified with `standardwebhooks`,
 * and the attempts read back through GET /v1/webhooks/{id}/attempts. (Feed events reach endpoints the same way once
 * the public-events projection fills rm_public_events: command-api/src/webhooks/delivery.int.spec.ts covers those.)
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  ana: TestUser;
  stopWebhooks: () => Promise<void>;
}

const test = suite<Ctx>('webhook delivery through HTTP (sandbox)');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 15_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
};

type Envelope = { success: boolean; data: any; code?: string; errors?: Record<string, string[]> };
const as =
  (ctx: Ctx, user: TestUser) =>
  (method: string, path: string, body?: unknown): Promise<ApiResponse<Envelope>> =>
    call<Envelope>(ctx.api.url, method, path, { token: user.token, tenant: user.tenant, ...(body === undefined ? {} : { body }), headers: { 'Idempotency-Key': `k-${Math.random()}` } });

const receiver = async (status: (n: number) => number) => {
  const received: Array<{ headers: Record<string, string>; body: string }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') });
      res.writeHead(status(received.length)).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  onTestTeardown(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, received };
};

test.before(async (ctx) => {
  ctx.api = await startApi({ WEBHOOK_RETRY_SCHEDULE_MS: [0, 50, 100], WEBHOOK_TIMEOUT_MS: 2_000 });
  ctx.stopWebhooks = startWebhooks(ctx.api.services);
  const t = await ctx.api.tenant();
  ctx.tenant = t.slug;
  ctx.ana = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Ana' });
});

test.after(async (ctx) => {
  // The workers stop before the services they use.
  await ctx.stopWebhooks();
  await ctx.api.stop();
});

const create = async (ctx: Ctx, url: string, o: { user?: TestUser; enabledEvents?: string[]; ordering?: string } = {}) => {
  const res = await as(ctx, o.user ?? ctx.ana)('POST', '/v1/webhooks', { url, enabledEvents: o.enabledEvents ?? ['*'], ...(o.ordering ? { ordering: o.ordering } : {}) });
  assert.is(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string };
};

test('given an endpoint at a receiver, when a test is asked, then the receiver gets one signed webhook.test event and the attempt is listed', async (ctx) => {
  const rx = await receiver(() => 200);
  const ep = await create(ctx, rx.url);
  const asked = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${ep.id}/test`);
  assert.is(asked.status, 202, asked.text);
  const eventId = asked.body.data.eventId as string;
  await until('the receiver got it', () => rx.received.length === 1);
  const r = rx.received[0]!;
  assert.is(r.headers['webhook-id'], eventId);
  const payload = new Webhook(ep.secret).verify(r.body, r.headers) as { type: string; subject: string; tenant: string };
  assert.equal([payload.type, payload.subject], ['webhook.test', ep.id]);
  await until('the attempt is listed', async () => (await as(ctx, ctx.ana)('GET', `/v1/webhooks/${ep.id}/attempts`)).body.data?.items?.length === 1);
  const [a] = (await as(ctx, ctx.ana)('GET', `/v1/webhooks/${ep.id}/attempts`)).body.data.items;
  assert.equal([a.eventId, a.statusCode, a.trigger, a.attempt], [eventId, 200, 'test', 1]);
  await sleep(200);
  assert.is(rx.received.length, 1, 'delivered once');
});

test('given a receiver answering 500 then 200 and a secret rotated before the test, then the retry carries the same webhook-id and both secrets verify each attempt', async (ctx) => {
  const rx = await receiver((n) => (n === 1 ? 500 : 200));
  const ep = await create(ctx, rx.url);
  const rotated = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${ep.id}/rotate-secret`, { expiresInSeconds: 3600 });
  assert.is(rotated.status, 200, rotated.text);
  const newSecret = rotated.body.data.secret as string;
  const asked = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${ep.id}/test`);
  assert.is(asked.status, 202, asked.text);
  await until('the retry arrived', () => rx.received.length === 2);
  for (const r of rx.received) {
    assert.is(r.headers['webhook-id'], asked.body.data.eventId);
    new Webhook(ep.secret).verify(r.body, r.headers);
    new Webhook(newSecret).verify(r.body, r.headers);
  }
  await until('both attempts are listed', async () => (await as(ctx, ctx.ana)('GET', `/v1/webhooks/${ep.id}/attempts`)).body.data?.items?.length === 2);
  const items = (await as(ctx, ctx.ana)('GET', `/v1/webhooks/${ep.id}/attempts`)).body.data.items as Array<{ attempt: number; statusCode: number }>;
  assert.equal(
    items.map((a) => [a.attempt, a.statusCode]),
    [
      [2, 200],
      [1, 500],
    ],
    'newest first',
  );
});

test("given endpoints of two organisers, when one creates and publishes a pool, then her endpoint receives that pool's events once each, in sequence, verified; the other organiser's endpoint receives none", async (ctx) => {
  const rx = await receiver(() => 200);
  const other = await receiver(() => 200);
  const bob = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Bob' });
  const ana = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Ana P' });
  const ep = await create(ctx, rx.url, { user: ana, enabledEvents: ['pool.*'], ordering: 'per_subject' });
  await create(ctx, other.url, { user: bob });
  const created = await call(ctx.api.url, 'POST', '/api/pools', { token: ana.token, tenant: ana.tenant, body: groupsPool() });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await call(ctx.api.url, 'POST', `/api/pools/${poolId}/publish`, { token: ana.token, tenant: ana.tenant })).status, 200);
  await until('pool.created and pool.published arrived', () => rx.received.length >= 2);
  await sleep(500);
  const events = rx.received.map((r) => new Webhook(ep.secret).verify(r.body, r.headers) as { id: string; type: string; subject: string; sequence: number });
  assert.equal(
    events.map((e) => e.type),
    ['pool.created', 'pool.published'],
    'pool.* only (not escrow.opened), each once, in order',
  );
  assert.ok(events.every((e) => e.subject === poolId));
  assert.ok(events[0]!.sequence < events[1]!.sequence);
  assert.equal(
    rx.received.map((r) => r.headers['webhook-id']),
    events.map((e) => e.id),
  );
  assert.is(other.received.length, 0, "another organiser's endpoint sees nothing of Ana's pool");
});

test.run();
