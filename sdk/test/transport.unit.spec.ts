import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { CagnotteError, createClient } from '../src';
import { json, localServer } from './local-server';

/**
 * Retries and idempotency keys through a real local HTTP server that fails first: a POST's retries carry the key of
 * its first attempt (the API replays instead of acting twice), and only what may succeed later is retried.
 */
const test = suite('sdk: retries and idempotency keys');

const endpoint = { id: 'we_0123456789abcdef0123456789abcdef', url: 'https://hooks.example.com', enabledEvents: ['*'], secret: 'whsec_x' };
const ok = { success: true, data: endpoint };
const body = { url: 'https://hooks.example.com', enabledEvents: ['*'] };
const fast = { initialDelayMs: 5, maxDelayMs: 20 };

test('given a POST whose first attempt answers 503, when it is retried, then the retry carries the same Idempotency-Key, credentials and tenant', async () => {
  const { url, seen } = await localServer((_req, n, res) => (n === 0 ? json(res, 503, { success: false, error: 'down', code: 'unavailable' }) : json(res, 201, ok)));
  const client = createClient({ baseUrl: url, apiKey: 'sk_test_abc', tenant: 'acme', ...fast });
  const created = await client.webhooks.create(body);
  assert.is(created.id, endpoint.id);
  assert.is(seen.length, 2);
  const [first, second] = seen;
  assert.match(String(first!.headers['idempotency-key']), /^[0-9a-f-]{36}$/);
  assert.is(second!.headers['idempotency-key'], first!.headers['idempotency-key']);
  assert.is(second!.body, JSON.stringify(body));
  for (const s of seen) {
    assert.is(s.headers.authorization, 'Bearer sk_test_abc');
    assert.is(s.headers['x-service-tenant'], 'acme');
    assert.is(s.url, '/v1/webhooks');
  }
});

test('given a connection cut before any answer, when the POST is retried, then it succeeds with the same key', async () => {
  const { url, seen } = await localServer((_req, n, res) => (n === 0 ? 'drop' : json(res, 201, ok)));
  const client = createClient({ baseUrl: url, sessionToken: 'jwt.token', ...fast });
  assert.is((await client.webhooks.create(body)).id, endpoint.id);
  assert.is(seen.length, 2);
  assert.is(seen[1]!.headers['idempotency-key'], seen[0]!.headers['idempotency-key']);
  assert.is(seen[0]!.headers.authorization, 'Bearer jwt.token');
});

test('given two calls, then each has its own key; a key the caller gives is sent as is; a GET has none', async () => {
  const { url, seen } = await localServer((req, _n, res) => json(res, req.method === 'POST' ? 201 : 200, ok));
  const client = createClient({ baseUrl: url, ...fast });
  await client.webhooks.create(body);
  await client.webhooks.create(body);
  await client.webhooks.create(body, { idempotencyKey: 'order-42-endpoint' });
  await client.webhooks.retrieve(endpoint.id);
  assert.is.not(seen[0]!.headers['idempotency-key'], seen[1]!.headers['idempotency-key']);
  assert.is(seen[2]!.headers['idempotency-key'], 'order-42-endpoint');
  assert.is(seen[3]!.method, 'GET');
  assert.is(seen[3]!.headers['idempotency-key'], undefined);
  assert.is(seen[3]!.url, `/v1/webhooks/${endpoint.id}`);
});

test('given a tenant for one call, then that call names it and the others the client\'s', async () => {
  const { url, seen } = await localServer((_req, _n, res) => json(res, 200, ok));
  const client = createClient({ baseUrl: url, tenant: 'acme', ...fast });
  await client.webhooks.retrieve(endpoint.id, undefined, { tenant: 'globex', headers: { 'x-trace': 't1' } });
  await client.webhooks.retrieve(endpoint.id);
  assert.equal([seen[0]!.headers['x-service-tenant'], seen[0]!.headers['x-trace'], seen[1]!.headers['x-service-tenant']], ['globex', 't1', 'acme']);
});

test('given a PATCH and a DELETE cut before any answer, then each retry carries its call\'s key (the API replays keyed writes)', async () => {
  const { url, seen } = await localServer((req, n, res) => (n % 2 === 0 ? 'drop' : req.method === 'DELETE' ? void res.writeHead(204).end() : json(res, 200, ok)));
  const client = createClient({ baseUrl: url, ...fast });
  await client.webhooks.update(endpoint.id, { description: 'x' });
  assert.is(await client.webhooks.del(endpoint.id), undefined);
  assert.equal(seen.map((s) => s.method), ['PATCH', 'PATCH', 'DELETE', 'DELETE']);
  assert.ok(seen[0]!.headers['idempotency-key']);
  assert.is(seen[1]!.headers['idempotency-key'], seen[0]!.headers['idempotency-key']);
  assert.ok(seen[2]!.headers['idempotency-key']);
  assert.is(seen[3]!.headers['idempotency-key'], seen[2]!.headers['idempotency-key']);
  assert.is.not(seen[2]!.headers['idempotency-key'], seen[0]!.headers['idempotency-key']);
});

test('given 429 with Retry-After: 1, then the retry waits a second', async () => {
  const { url, seen } = await localServer((_req, n, res) => (n === 0 ? json(res, 429, { success: false, error: 'slow down', code: 'rate_limited' }, { 'retry-after': '1' }) : json(res, 201, ok)));
  await createClient({ baseUrl: url, ...fast }).webhooks.create(body);
  assert.is(seen.length, 2);
  const waited = seen[1]!.at - seen[0]!.at;
  assert.ok(waited >= 950, `waited ${waited} ms`);
  assert.is(seen[1]!.headers['idempotency-key'], seen[0]!.headers['idempotency-key']);
});

test('given a Retry-After longer than maxRetryAfterMs, then the 429 is thrown at once', async () => {
  const { url, seen } = await localServer((_req, _n, res) => json(res, 429, { success: false, error: 'slow down', code: 'rate_limited' }, { 'retry-after': '3600' }));
  try {
    await createClient({ baseUrl: url, ...fast }).webhooks.create(body);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, CagnotteError);
    assert.is((error as CagnotteError).code, 'rate_limited');
  }
  assert.is(seen.length, 1);
});

test('given a server that keeps failing, then it tries 1 + maxRetries times (2 by default) and throws the last answer', async () => {
  const { url, seen } = await localServer((_req, _n, res) => json(res, 500, { success: false, error: 'boom', code: 'internal_error', requestId: 'req-1' }));
  try {
    await createClient({ baseUrl: url, ...fast }).webhooks.create(body);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, CagnotteError);
    assert.equal([(error as CagnotteError).status, (error as CagnotteError).code, (error as CagnotteError).requestId], [500, 'internal_error', 'req-1']);
  }
  assert.is(seen.length, 3);
  assert.is(new Set(seen.map((s) => s.headers['idempotency-key'])).size, 1);
  const once = await localServer((_req, _n, res) => json(res, 502, { success: false, error: 'boom', code: 'bad_gateway' }));
  await createClient({ baseUrl: once.url, maxRetries: 0, ...fast }).webhooks.create(body).catch(() => undefined);
  assert.is(once.seen.length, 1);
});

test('given nobody listening, then it throws a CagnotteError connection_failed with status 0 after the retries', async () => {
  const { url, seen } = await localServer(() => 'drop');
  try {
    await createClient({ baseUrl: url, ...fast }).webhooks.retrieve(endpoint.id);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, CagnotteError);
    assert.equal([(error as CagnotteError).status, (error as CagnotteError).code], [0, 'connection_failed']);
  }
  assert.is(seen.length, 3);
});

test('given a 4xx (400, 404, 409), then it is not retried', async () => {
  for (const status of [400, 404, 409]) {
    const { url, seen } = await localServer((_req, _n, res) => json(res, status, { success: false, error: 'no', code: 'refused' }));
    await createClient({ baseUrl: url, ...fast }).webhooks.create(body).catch(() => undefined);
    assert.is(seen.length, 1, `status ${status}`);
  }
});

test.run();
