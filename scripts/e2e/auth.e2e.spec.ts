import { randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type TestApi, type TestUser } from './harness';

interface Ctx {
  api: TestApi;
  tenant: string;
  user: TestUser;
}

const test = suite<Ctx>('auth through HTTP');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.user = await ctx.api.user(ctx.tenant, { role: 'organiser', accountType: 'BUSINESS', phone: `+3361${Math.floor(Math.random() * 1e7)}`, name: 'Alice' });
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

const login = (ctx: Ctx, body: unknown, headers: Record<string, string> = {}) =>
  ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body, headers });

test('login by email answers a 7-day JWT, a device id and a user summary', async (ctx) => {
  const res = await login(ctx, { email: ctx.user.email.toUpperCase(), password: ctx.user.password });
  assert.is(res.status, 200, res.text);
  const d = res.body.data;
  assert.is(d.tokenType, 'Bearer');
  assert.is(d.expiresIn, 7 * 24 * 3600);
  assert.match(d.deviceId, /^[0-9a-f-]{36}$/);
  assert.equal(d.user, { id: ctx.user.id, email: ctx.user.email, phone: d.user.phone, displayName: 'Alice', role: 'organiser', accountType: 'BUSINESS', tenant: ctx.tenant });
  const claims = jwt.decode(d.token, { complete: true }) as jwt.Jwt;
  assert.is(claims.header.alg, 'HS256');
  assert.is(claims.header.kid, 'k1');
  const p = claims.payload as jwt.JwtPayload;
  assert.is(p.exp! - p.iat!, 7 * 24 * 3600);
  assert.is(p.sub, ctx.user.id);
  assert.is(p.did, d.deviceId);
  assert.not.ok(res.text.includes(ctx.user.password));
});

test('login by phone works; a known device id is kept', async (ctx) => {
  const me = await ctx.api.call('GET', '/api/auth/me', { token: ctx.user.token });
  const device = randomUUID();
  const res = await login(ctx, { phone: me.body.data.user.phone, password: ctx.user.password }, { 'x-device-id': device });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.deviceId, device);
});

test('wrong password and unknown email are the same 401', async (ctx) => {
  const wrong = await login(ctx, { email: ctx.user.email, password: 'nope-nope' });
  const unknown = await login(ctx, { email: 'ghost@example.test', password: 'nope-nope' });
  for (const r of [wrong, unknown]) {
    assert.is(r.status, 401);
    assert.is(r.body.code, 'invalid_credentials');
  }
  assert.is(wrong.body.error, unknown.body.error);
});

test('login validation: 400 with per-field errors', async (ctx) => {
  const res = await login(ctx, { email: 'not-an-email', password: '' });
  assert.is(res.status, 400);
  assert.is(res.body.success, false);
  assert.ok(res.body.errors);
  assert.is((await login(ctx, { phone: '123', password: 'x' })).status, 400, 'phone 5-20 chars');
  assert.is((await login(ctx, { phone: '1'.repeat(21), password: 'x' })).status, 400);
  assert.is((await login(ctx, {})).status, 400);
});

test('a blocked account gets 403', async (ctx) => {
  const blocked = await ctx.api.user(ctx.tenant);
  await ctx.api.services.knex('credentials').where({ user_id: blocked.id }).update({ blocked_at: new Date() });
  const res = await login(ctx, { email: blocked.email, password: blocked.password });
  assert.is(res.status, 403);
  assert.is(res.body.code, 'account_blocked');
});

test('logout revokes the session: the old token gets 401; logout is always 200', async (ctx) => {
  const fresh = await login(ctx, { email: ctx.user.email, password: ctx.user.password });
  const token = fresh.body.data.token;
  assert.is((await ctx.api.call('GET', '/api/auth/me', { token })).status, 200);
  const out = await ctx.api.call('POST', '/api/auth/logout', { token });
  assert.is(out.status, 200);
  assert.type(out.body.data.message, 'string');
  const after = await ctx.api.call('GET', '/api/auth/me', { token });
  assert.is(after.status, 401);
  assert.is((await ctx.api.call('POST', '/api/auth/logout', { token })).status, 200, 'again');
  assert.is((await ctx.api.call('POST', '/api/auth/logout')).status, 200, 'no token');
  assert.is((await ctx.api.call('POST', '/api/auth/logout', { token: 'garbage' })).status, 200, 'invalid token');
});

test('logout answers 200 whatever it is sent (contract rule 9): malformed JSON, hostile bodies, odd headers; it still revokes', async (ctx) => {
  const big = `{"a":"${'x'.repeat(ctx.api.services.config.BODY_LIMIT_BYTES + 10)}"}`;
  const variants: Array<[string, { rawBody?: string; contentType?: string; headers?: Record<string, string>; query?: string }]> = [
    ['malformed JSON', { rawBody: '{bad' }],
    ['unterminated string', { rawBody: '"abc' }],
    ['JSON with trailing garbage', { rawBody: '{"a":1}garbage' }],
    ['NUL in a string', { rawBody: '{"a":"\u0000"}' }],
    ['lone surrogate', { rawBody: '{"a":"\ud800"}' }],
    ['too deep', { rawBody: `${'['.repeat(200)}${']'.repeat(200)}` }],
    ['too large', { rawBody: big }],
    ['gzip that is not', { rawBody: '{}', headers: { 'content-encoding': 'gzip' } }],
    ['unknown encoding', { rawBody: '{}', headers: { 'content-encoding': 'br2' } }],
    ['bad charset', { rawBody: '{}', contentType: 'application/json; charset=klingon' }],
    ['text/plain', { rawBody: 'hello', contentType: 'text/plain' }],
    ['a real body', { rawBody: '{"everything":true}' }],
    ['NUL in the query', { query: '?x=%00' }],
    ['bad escape in the query', { query: '?x=%E0%A4%A' }],
    ['an unknown tenant', { headers: { 'x-service-tenant': 'no-such-tenant' } }],
    ['malformed JSON under an unknown tenant', { rawBody: '{bad', headers: { 'x-service-tenant': 'no-such-tenant' } }],
  ];
  for (const [label, v] of variants) {
    const fresh = await login(ctx, { email: ctx.user.email, password: ctx.user.password });
    const token = fresh.body.data.token as string;
    const out = await ctx.api.call('POST', `/api/auth/logout${v.query ?? ''}`, { token, rawBody: v.rawBody, contentType: v.contentType, headers: v.headers });
    assert.is(out.status, 200, `${label}: ${out.status} ${out.text.slice(0, 200)}`);
    assert.is(out.body.success, true, label);
    assert.is((await ctx.api.call('GET', '/api/auth/me', { token })).status, 401, `${label}: the session is revoked all the same`);
    const anonymous = await ctx.api.call('POST', `/api/auth/logout${v.query ?? ''}`, { rawBody: v.rawBody, contentType: v.contentType, headers: v.headers });
    assert.is(anonymous.status, 200, `${label} without a token: ${anonymous.status}`);
  }
  const oddHeaders: Array<Record<string, string>> = [{ authorization: 'Bearer' }, { authorization: 'Bearer ' }, { authorization: 'Basic Zm9vOmJhcg==' }, { authorization: 'Bearer a b c' }, { cookie: 'service_session=garbage' }, { cookie: '=;;=' }];
  for (const headers of oddHeaders) {
    const out = await ctx.api.call('POST', '/api/auth/logout', { headers, rawBody: '{bad' });
    assert.is(out.status, 200, `${JSON.stringify(headers)}: ${out.status} ${out.text.slice(0, 200)}`);
  }
});

test('GET /api/auth/me: the full context; 401 without or with a forged token; 404 when the account is gone', async (ctx) => {
  const me = await ctx.api.call('GET', '/api/auth/me', { token: ctx.user.token });
  assert.is(me.status, 200, me.text);
  const d = me.body.data;
  assert.is(d.user.id, ctx.user.id);
  assert.is(d.tenant.slug, ctx.tenant);
  assert.equal(d.region, { country: 'FR', currency: 'EUR', timezone: 'Europe/Paris' });
  assert.ok(d.wallet && d.spending && d.verification && d.agent);
  assert.equal(d.agent.capabilities, ['organise', 'commission']);
  assert.is((await ctx.api.call('GET', '/api/auth/me')).status, 401);
  const p = jwt.decode(ctx.user.token) as jwt.JwtPayload;
  const forge = (secret: string, opts: jwt.SignOptions = {}) =>
    jwt.sign({ sub: p.sub, sid: p.sid, tid: p.tid, did: p.did, kind: 'access' }, secret, { algorithm: 'HS256', keyid: 'k1', issuer: 'cagnotte', audience: 'cagnotte-api', expiresIn: 60, ...opts });
  const secret = ctx.api.services.config.JWT_SECRET;
  for (const token of [
    forge('another-secret-another-secret-another-secret'),
    forge(secret, { audience: 'someone-else' }),
    forge(secret, { issuer: 'someone-else' }),
    forge(secret, { keyid: 'k0' }),
    forge(secret, { expiresIn: -10 }),
    `${ctx.user.token.split('.').slice(0, 2).join('.')}.`,
    jwt.sign({ sub: p.sub, sid: p.sid, tid: p.tid, did: p.did, kind: 'access' }, '', { algorithm: 'none' as jwt.Algorithm }),
  ]) {
    const r = await ctx.api.call('GET', '/api/auth/me', { token });
    assert.is(r.status, 401, `forged token accepted: ${token}`);
    assert.is(r.body.success, false);
  }
  assert.is((await ctx.api.call('GET', '/api/auth/me', { token: forge(secret) })).status, 200, 'a well-formed token with a live session passes');
  const gone = await ctx.api.user(ctx.tenant);
  await ctx.api.services.knex('rm_accounts').where({ id: gone.id }).delete();
  assert.is((await ctx.api.call('GET', '/api/auth/me', { token: gone.token })).status, 404);
});

/** Retries until the answer is not a 429 (the window has passed), within a deadline; returns the status. */
const untilNot429 = async (call: () => Promise<{ status: number }>, deadlineMs: number): Promise<number> => {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const { status } = await call();
    if (status !== 429 || Date.now() > deadline) return status;
    await new Promise((r) => setTimeout(r, 250));
  }
};

const limited = suite<{ api: TestApi; tenant: string }>('login rate limit');

limited.before(async (ctx) => {
  // A window long enough for four slow logins on a loaded machine (a 1 s window expired between them).
  ctx.api = await startApi({ RATE_LIMIT_LOGIN_PER_MINUTE: 3, RATE_LIMIT_WINDOW_SECONDS: 5, TRUST_PROXY: true });
  ctx.tenant = (await ctx.api.tenant()).slug;
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
limited.after(async (ctx) => ctx.api.stop());

limited('429 in the envelope with Retry-After past the limit, then recovery once the window passes', async (ctx) => {
  const ip = `10.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}.7`;
  const attempt = () =>
    ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: 'x@example.test', password: 'bad' }, headers: { 'x-forwarded-for': ip } });
  for (let i = 0; i < 3; i++) assert.is((await attempt()).status, 401);
  const blocked = await attempt();
  assert.is(blocked.status, 429);
  assert.is(blocked.body.success, false);
  assert.is(blocked.body.code, 'rate_limited');
  assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
  const other = await ctx.api.call('POST', '/api/auth/login/password', {
    tenant: ctx.tenant,
    body: { email: 'x@example.test', password: 'bad' },
    headers: { 'x-forwarded-for': '10.255.255.1' },
  });
  assert.is(other.status, 401, 'another IP is not limited');
  assert.is(await untilNot429(attempt, 10_000), 401, 'recovered once the window passed');
});

test.run();
limited.run();
