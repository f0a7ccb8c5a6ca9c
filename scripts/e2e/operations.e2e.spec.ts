import { randomUUID } from 'node:crypto';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger, parseTraceparent } from '@cagnotte/infra';
import { call, eventually, startApi, startSecondCommandApi, type TestApi, type TestUser } from './harness';

/**
 * Operating the service: the probes (/livez, /readyz, readiness lost and found again with Redis), the request id kept
 * or replaced, the W3C trace continued, one access line per request without secrets, and the new /metrics series.
 */

interface Ctx {
  api: TestApi;
  lines: Record<string, unknown>[];
  tenant: string;
  ana: TestUser;
}

const test = suite<Ctx>('e2e: operations (probes, request ids, traces, access log, metrics)');

const TRACE = '0af7651916cd43dd8448eb211c80319c';
const PARENT = 'b7ad6b7169203331';
type Envelope = { success: boolean; data?: any; code?: string; errors?: Record<string, string[]>; requestId?: string };

test.before(async (ctx) => {
  ctx.lines = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString().split('\n').filter(Boolean)) ctx.lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  // Logins limited to 3 a minute here (the suite's default is unlimited): Ana's own, then wrong ones until a 429.
  // Its own Redis key prefix: the login limiter counts per IP, and every spec of a run logs in from 127.0.0.1, so the
  // run's shared counters would have this instance refuse Ana's first login.
  const prefix = `${process.env.REDIS_KEY_PREFIX ?? ''}ops${randomUUID().slice(0, 8)}:`;
  ctx.api = await startApi({ RATE_LIMIT_LOGIN_PER_MINUTE: 3, REDIS_KEY_PREFIX: prefix }, { logger: createLogger('debug', 'e2e-operations', sink) });
  ctx.tenant = (await ctx.api.tenant()).slug;
  // Linking a wallet calls the ledger (the sandbox network, over HTTP at /sandbox/horizon).
  ctx.ana = await ctx.api.user(ctx.tenant, { name: 'Ana', role: 'organiser', wallet: true });
});

// Stopped when this file ends, not with the run: its projectors run beside every later spec's on the run's database,
// and one holding a projection would queue that projection's jobs (invoices, timers) under this instance's own key
// prefix, where no later worker listens.
test.after(async (ctx) => {
  await ctx.api?.stop();
});

const linesOf = (ctx: Ctx, requestId: string, count = 1) =>
  eventually(async () => {
    const found = ctx.lines.filter((l) => l.requestId === requestId);
    return found.length >= count ? found : null;
  }, `${count} log line(s) of ${requestId}`);

test('/livez answers 200 in the envelope, without auth or tenant', async (ctx) => {
  const res = await ctx.api.call<Envelope>('GET', '/livez');
  assert.is(res.status, 200);
  assert.equal(res.body, { success: true, data: { status: 'live' } });
  // A tenant that does not exist changes nothing: the probe resolves none.
  const named = await ctx.api.call<Envelope>('GET', '/livez', { tenant: 'no-such-tenant', token: 'garbage' });
  assert.is(named.status, 200);
});

test('/readyz answers 200 with each check when PostgreSQL, Redis, the event store and the projections are there', async (ctx) => {
  const res = await ctx.api.call<Envelope>('GET', '/readyz', { tenant: 'no-such-tenant' });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.status, 'ready');
  assert.equal(res.body.data.checks, { postgres: 'ok', redis: 'ok', eventStore: 'ok', projections: 'ok' });
});

test('/readyz goes 503 naming Redis when Redis is unreachable, and 200 again once it is back (a second instance behind a proxy)', async () => {
  // A TCP proxy to the machine's Redis, closed and reopened: the machine's Redis itself stays up for everyone else.
  const sockets = new Set<Socket>();
  let proxy: Server | null = null;
  const open = (port: number) =>
    new Promise<void>((resolve, reject) => {
      proxy = createServer((client) => {
        const upstream = connect(6379, '127.0.0.1');
        sockets.add(client).add(upstream);
        client.pipe(upstream).pipe(client);
        const drop = () => {
          client.destroy();
          upstream.destroy();
          sockets.delete(client);
          sockets.delete(upstream);
        };
        client.on('error', drop).on('close', drop);
        upstream.on('error', drop).on('close', drop);
      });
      proxy.once('error', reject);
      proxy.listen(port, '127.0.0.1', () => resolve());
    });
  const close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      sockets.clear();
      if (!proxy) return resolve();
      proxy.close(() => resolve());
      proxy = null;
    });
  await open(0);
  const port = ((proxy as unknown as Server).address() as { port: number }).port;
  try {
    const second = await startSecondCommandApi({ REDIS_URL: `redis://127.0.0.1:${port}`, READYZ_TIMEOUT_MS: 1_000 });
    await eventually(async () => (await call(second.url, 'GET', '/readyz')).status === 200, '/readyz 200 through the proxy', 30_000);

    await close();
    const down = await eventually(async () => {
      const r = await call<Envelope>(second.url, 'GET', '/readyz');
      return r.status === 503 ? r : null;
    }, '/readyz 503 with Redis unreachable', 30_000);
    assert.is(down.body.success, false);
    assert.is(down.body.code, 'not_ready');
    assert.ok(down.body.errors?.redis, `redis named: ${down.text}`);
    assert.is(down.body.errors?.postgres, undefined, 'PostgreSQL is fine');
    // The process itself is alive all along: a liveness probe must not restart it.
    assert.is((await call(second.url, 'GET', '/livez')).status, 200);

    await open(port);
    await eventually(async () => (await call(second.url, 'GET', '/readyz')).status === 200, '/readyz 200 again once Redis is back', 60_000);
  } finally {
    await close();
  }
});

test('a well-formed X-Request-Id is kept and echoed; a malformed one is replaced by a fresh UUID', async (ctx) => {
  for (const id of ['partner-req-42', 'a', 'x'.repeat(128), 'trace:abc/DEF_1~!']) {
    const res = await ctx.api.call<Envelope>('GET', '/api/no-such-route', { headers: { 'x-request-id': id } });
    assert.is(res.headers.get('x-request-id'), id);
    assert.is(res.body.requestId, id, 'the error envelope quotes it');
  }
  // (fetch sends no control or non-ASCII header bytes: the unit spec covers those.)
  for (const bad of ['x'.repeat(129), 'has space', '"quoted id"']) {
    const res = await ctx.api.call('GET', '/livez', { headers: { 'x-request-id': bad } });
    const answered = res.headers.get('x-request-id') ?? '';
    assert.is.not(answered, bad);
    assert.match(answered, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  }
});

test('a valid traceparent is continued with a new span; an invalid one starts a new trace', async (ctx) => {
  const res = await ctx.api.call('GET', '/livez', { headers: { traceparent: `00-${TRACE}-${PARENT}-01` } });
  const answered = parseTraceparent(res.headers.get('traceparent'));
  assert.ok(answered, 'a traceparent answered');
  assert.is(answered!.traceId, TRACE);
  assert.is.not(answered!.parentId, PARENT, 'this request’s own span');
  assert.is(answered!.flags, '01');
  const fresh = parseTraceparent((await ctx.api.call('GET', '/livez', { headers: { traceparent: `00-${'0'.repeat(32)}-${PARENT}-01` } })).headers.get('traceparent'));
  assert.ok(fresh);
  assert.is.not(fresh!.traceId, '0'.repeat(32));
  assert.is.not(fresh!.traceId, TRACE);
});

test('one access line per request at info: route template, status, duration, ids, tenant, user; no secret', async (ctx) => {
  const requestId = `ops-${randomUUID()}`;
  const res = await ctx.api.call('GET', `/api/auth/me?token=query-secret-1&code=query-secret-2`, {
    token: ctx.ana.token,
    tenant: ctx.tenant,
    headers: { 'x-request-id': requestId, traceparent: `00-${TRACE}-${PARENT}-01`, cookie: 'service_session=cookie-secret-3' },
  });
  assert.is(res.status, 200, res.text);
  const [line] = (await linesOf(ctx, requestId)).filter((l) => l.msg === 'request');
  assert.ok(line, 'an access line');
  assert.is(line!.level, 30, 'info');
  assert.is(line!.method, 'GET');
  assert.is(line!.route, '/api/auth/me');
  assert.is(line!.status, 200);
  assert.type(line!.ms, 'number');
  assert.is(line!.traceId, TRACE);
  assert.match(String(line!.spanId), /^[0-9a-f]{16}$/);
  assert.is(line!.tenant, ctx.tenant);
  assert.is(line!.userId, ctx.ana.id);

  // A templated route logs its template, not the id in the path.
  const poolId = randomUUID();
  const templated = `ops-${randomUUID()}`;
  await ctx.api.call('GET', `/api/pools/${poolId}`, { tenant: ctx.tenant, headers: { 'x-request-id': templated } });
  const [pool] = (await linesOf(ctx, templated)).filter((l) => l.msg === 'request');
  assert.is(pool!.route, '/api/pools/:id');
  assert.not.ok(JSON.stringify(pool).includes(poolId));

  const all = JSON.stringify(ctx.lines);
  for (const secret of ['query-secret-1', 'query-secret-2', 'cookie-secret-3', ctx.ana.token, ctx.ana.password]) assert.not.ok(all.includes(secret), 'a secret reached the logs');
});

test('probes and scrapes log their access lines at debug only', async (ctx) => {
  for (const path of ['/livez', '/readyz', '/metrics']) {
    const requestId = `ops-${randomUUID()}`;
    await ctx.api.call('GET', path, { headers: { 'x-request-id': requestId } });
    const [line] = (await linesOf(ctx, requestId)).filter((l) => l.msg === 'request');
    assert.is(line!.level, 20, `${path} at debug`);
  }
});

test('/metrics shows ledger call latency, database pools, rate-limit refusals, idempotent replays and the sandbox routes with their prefix', async (ctx) => {
  // A 429 from the login limiter (3 a minute per IP here).
  await eventually(async () => {
    const r = await ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: ctx.ana.email, password: 'wrong password!' } });
    return r.status === 429;
  }, 'a rate-limited login', 30_000);
  // An answer replayed from the idempotency store.
  const key = `ops-${randomUUID()}`;
  const first = await ctx.api.call('POST', '/v1/api-keys', { token: ctx.ana.token, tenant: ctx.tenant, headers: { 'idempotency-key': key }, body: { name: 'ops', scopes: ['*'] } });
  assert.is(first.status, 201, first.text);
  const again = await ctx.api.call('POST', '/v1/api-keys', { token: ctx.ana.token, tenant: ctx.tenant, headers: { 'idempotency-key': key }, body: { name: 'ops', scopes: ['*'] } });
  assert.is(again.headers.get('idempotent-replayed'), 'true');

  const metrics = (await ctx.api.call('GET', '/metrics')).text;
  const has = (pattern: RegExp, what: string) => assert.match(metrics, pattern, what);
  has(/^ledger_call_duration_seconds_count\{method="GET",endpoint="accounts\/:id",outcome="(ok|not_found)"\} [1-9]/m, 'ledger call latency');
  has(/^db_pool_connections\{pool="pg"\} \d+/m, 'pg pool total');
  has(/^db_pool_idle_connections\{pool="pg"\} \d+/m, 'pg pool idle');
  has(/^db_pool_waiting_requests\{pool="pg"\} \d+/m, 'pg pool waiting');
  has(/^db_pool_connections\{pool="knex"\} \d+/m, 'knex pool');
  has(/^rate_limit_refusals_total\{limiter="login"\} [1-9]/m, 'rate-limit refusals by limiter');
  has(/^idempotent_replays_total\{route="\/v1\/api-keys"\} [1-9]/m, 'idempotent replays');
  has(/^http_request_duration_seconds_count\{method="GET",route="\/sandbox\/horizon\/accounts\/:[a-zA-Z]+",status="200"\} [1-9]/m, 'a sandbox route with its prefix');
  assert.not.match(metrics, /route="\/accounts\//, 'no sandbox route without its prefix');
});

test.run();
