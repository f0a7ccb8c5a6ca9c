import { randomUUID } from 'node:crypto';
import * as http from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SSO_CODE_TTL_SECONDS } from '@cagnotte/infra';
import { startApi, type CallOptions, type TestApi, type TestUser } from './harness';

/**
 * The white-label gate comes first: with the toggle off, every gated endpoint answers 404 whatever its body,
 * headers, query and request rate. Each case has a control on a tenant with the toggle on, where the same request
 * gets its 400 or 429: the 404 is the gate's, not an accident.
 */

interface Ctx {
  api: TestApi;
  on: { id: string; slug: string };
  off: { id: string; slug: string };
  onUser: TestUser;
  offUser: TestUser;
}

const LIMIT = 2;
const test = suite<Ctx>('white-label gate before validation and rate limits');

test.before(async (ctx) => {
  // A long window: once a limit is reached it stays reached for the whole test, however slow the machine.
  ctx.api = await startApi({
    RATE_LIMIT_REGISTER_PER_MINUTE: LIMIT,
    RATE_LIMIT_PASSWORD_RESET_PER_MINUTE: LIMIT,
    RATE_LIMIT_ORGANISER_PER_MINUTE: LIMIT,
    RATE_LIMIT_WINDOW_SECONDS: 300,
    TRUST_PROXY: true,
  });
  ctx.on = await ctx.api.tenant({ whiteLabel: true });
  ctx.off = await ctx.api.tenant({ whiteLabel: false });
  ctx.onUser = await ctx.api.user(ctx.on.slug);
  ctx.offUser = await ctx.api.user(ctx.off.slug);
});

test.after(async (ctx) => ctx.api.stop());

/** One gated endpoint: how to reach it as someone of a tenant, a body its schema refuses, and its rate limit. */
interface Gated {
  method: string;
  path: string;
  who: 'header' | 'user';
  badBody: string;
  limit?: number;
  /** What the bad body gets where the toggle is on (a route that reads no body ignores it). */
  control?: number;
}

const GATED: Gated[] = [
  { method: 'POST', path: '/api/auth/register/simple', who: 'header', badBody: '{"email":"not-an-email"}', limit: LIMIT },
  { method: 'POST', path: '/api/auth/forgot-password', who: 'header', badBody: '{"email":42}', limit: LIMIT },
  { method: 'POST', path: '/api/auth/reset-password', who: 'header', badBody: '{"token":"","password":"x"}', limit: LIMIT },
  { method: 'POST', path: '/api/tenant/pilot-requests', who: 'header', badBody: '{"contactName":""}', limit: 30 },
  { method: 'POST', path: '/api/auth/sso/handoff', who: 'user', badBody: '{"unexpected":true}', control: 200 },
  { method: 'POST', path: '/api/me/become-seller', who: 'user', badBody: '{"companyName":"","siret":"12"}' },
  { method: 'POST', path: '/api/me/become-organiser/prepare', who: 'user', badBody: '{"nonce":"not-a-uuid"}', limit: LIMIT },
  { method: 'POST', path: '/api/me/become-organiser/submit', who: 'user', badBody: '{"grantId":""}', limit: LIMIT },
];

const as = (ctx: Ctx, g: Gated, toggle: 'on' | 'off', ip: string, o: CallOptions = {}): CallOptions => ({
  ...o,
  ...(g.who === 'header' ? { tenant: ctx[toggle].slug } : { token: toggle === 'on' ? ctx.onUser.token : ctx.offUser.token }),
  headers: { 'x-forwarded-for': ip, ...(o.headers ?? {}) },
});

let ipCounter = 0;
const freshIp = () => `10.77.${Math.floor(++ipCounter / 250)}.${ipCounter % 250}`;

const HOSTILE: Array<[string, CallOptions]> = [
  ['malformed JSON', { rawBody: '{bad' }],
  ['trailing garbage', { rawBody: '{"a":1}garbage' }],
  ['NUL in a string', { rawBody: '{"email":"\\u0000"}' }],
  ['too deep', { rawBody: `${'['.repeat(100)}${']'.repeat(100)}` }],
  ['gzip that is not', { rawBody: '{}', headers: { 'content-encoding': 'gzip' } }],
  ['bad charset', { rawBody: '{}', contentType: 'application/json; charset=klingon' }],
  ['text/plain', { rawBody: 'hello', contentType: 'text/plain' }],
  ['bad Idempotency-Key', { rawBody: '{}', headers: { 'idempotency-key': '\u00e9'.repeat(3) } }],
  ['no body', {}],
];

for (const g of GATED) {
  test(`${g.method} ${g.path}: toggle off → 404 for a bad body, malformed or hostile input, and past the rate limit`, async (ctx) => {
    const ip = freshIp();
    // Control: with the toggle on, the bad body is a 400.
    const control = await ctx.api.call(g.method, g.path, as(ctx, g, 'on', freshIp(), { rawBody: g.badBody }));
    assert.is(control.status, g.control ?? 400, `control (toggle on): ${control.text}`);
    const bad = await ctx.api.call(g.method, g.path, as(ctx, g, 'off', ip, { rawBody: g.badBody }));
    assert.is(bad.status, 404, `bad body: ${bad.status} ${bad.text}`);
    assert.is(bad.body.success, false);
    for (const [label, o] of HOSTILE) {
      const res = await ctx.api.call(g.method, g.path, as(ctx, g, 'off', ip, o));
      assert.is(res.status, 404, `${label}: ${res.status} ${res.text.slice(0, 200)}`);
      assert.is(res.body.success, false, label);
    }
    if (g.limit === undefined) return;
    // Exhaust the limit of this IP where the toggle is on (429 there), then knock where it is off: still 404.
    const flooded = freshIp();
    let last = 0;
    for (let i = 0; i <= g.limit; i++) last = (await ctx.api.call(g.method, g.path, as(ctx, g, 'on', flooded, { rawBody: g.badBody }))).status;
    assert.is(last, 429, 'control: the IP is over the limit');
    for (let i = 0; i < 3; i++) {
      const res = await ctx.api.call(g.method, g.path, as(ctx, g, 'off', flooded, { rawBody: g.badBody }));
      assert.is(res.status, 404, `over the limit #${i + 1}: ${res.status} ${res.text}`);
    }
    assert.is((await ctx.api.call(g.method, g.path, as(ctx, g, 'on', flooded, { rawBody: g.badBody }))).status, 429, 'the limit still holds where the toggle is on');
  });
}

test('GET /api/me/become-organiser/{grantId}: toggle off → 404 for any id; on → 404 only for a grant that is not yours', async (ctx) => {
  for (const id of [randomUUID(), 'not-a-uuid', '%00']) {
    const res = await ctx.api.call('GET', `/api/me/become-organiser/${id}?x=%00`, { token: ctx.offUser.token });
    assert.is(res.status, 404, `${id}: ${res.text}`);
  }
  assert.is((await ctx.api.call('GET', '/api/me/become-organiser/x', { token: 'garbage' })).status, 401, 'no user, no tenant to gate: 401');
});

test('GET /api/auth/sso/start: a code of a tenant with the toggle off is a 404 whatever the query; on, the same query is a 400', async (ctx) => {
  const mint = (user: TestUser, tenantId: string) => ctx.api.services.tokens.signPurpose('partner-sso', { sub: user.id, tid: tenantId }, SSO_CODE_TTL_SECONDS).token;
  const queries: Array<Record<string, string>> = [{ dest: '//evil.example' }, { returnTo: 'javascript:alert(1)' }, { dest: 'x'.repeat(3000) }, { dest: '%E0%A4%A' }, { returnTo: 'https://evil.example/', dest: '/..//evil.example' }];
  for (const q of queries) {
    const off = await ctx.api.call('GET', `/api/auth/sso/start?${new URLSearchParams({ code: mint(ctx.offUser, ctx.off.id), ...q }).toString()}`);
    assert.is(off.status, 404, `${JSON.stringify(q)}: ${off.status} ${off.text}`);
    assert.is(off.headers.get('location'), null);
    assert.is(off.headers.get('set-cookie'), null);
    const on = await ctx.api.call('GET', `/api/auth/sso/start?${new URLSearchParams({ code: mint(ctx.onUser, ctx.on.id), ...q }).toString()}`);
    assert.is(on.status, 400, `control ${JSON.stringify(q)}: ${on.status} ${on.text}`);
  }
  const bare = await ctx.api.call('GET', `/api/auth/sso/start?code=${mint(ctx.offUser, ctx.off.id)}`);
  assert.is(bare.status, 404, 'even a clean request');
});

const parser = suite<{ api: TestApi }>('requests the HTTP parser refuses are answered in the envelope');

parser.before(async (ctx) => {
  ctx.api = await startApi();
});

parser.after(async (ctx) => ctx.api.stop());

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
const raw = (base: string, bytes: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> =>
  new Promise((resolve, reject) => {
    const url = new URL(base);
    const req = http.request({ host: url.hostname, port: url.port, method: 'GET', path: bytes, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.setTimeout(30_000, () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });

parser('a 20 KB URL and 20 KB of headers get 431 with the JSON envelope, not Node\'s bare status line', async (ctx) => {
  const long = await raw(ctx.api.url, `/api/tenant/search?q=${'x'.repeat(20_000)}`);
  assert.is(long.status, 431, long.text);
  assert.match(String(long.headers['content-type']), /application\/json/);
  assert.equal(JSON.parse(long.text), { success: false, error: 'Request line or headers too large', code: 'headers_too_large' });
  const res = await fetch(`${ctx.api.url}/api/tenant/search`, { headers: { 'x-padding': 'y'.repeat(20_000) } });
  assert.is(res.status, 431);
  const body = (await res.json()) as { success: boolean; code: string };
  assert.is(body.success, false);
  assert.is(body.code, 'headers_too_large');
  // Control: a long but acceptable URL is served as usual, and the server still answers after the refusals.
  const fine = await raw(ctx.api.url, `/openapi.json?q=${'x'.repeat(150)}`);
  assert.is(fine.status, 200, fine.text);
});

test.run();
parser.run();
