import { createHash, randomUUID } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createTenant } from '@cagnotte/command-api';
import { eventually, startApi, uniqueSlug, type TestApi } from './harness';
import { TenantReadModel } from '@cagnotte/read-models';

interface Ctx {
  api: TestApi;
  tenant: string;
  closed: string;
}

const email = () => `${randomUUID().slice(0, 10)}@example.test`;
const phone = () => `+3361${Math.floor(1e6 + Math.random() * 8e6)}`;

const register = (ctx: Ctx, body: Record<string, unknown>, tenant: string | null = ctx.tenant) =>
  ctx.api.call('POST', '/api/auth/register/simple', { ...(tenant ? { tenant } : {}), body });

const test = suite<Ctx>('register-simple, password reset, SSO, become-seller, mandates');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant({ whiteLabel: true, origins: ['https://partner.example', 'http://localhost:5173'] })).slug;
  ctx.closed = (await ctx.api.tenant({ whiteLabel: false })).slug;
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

test('register-simple: a session, FR/EUR/Europe/Paris defaults, signupSource from the tenant header', async (ctx) => {
  const e = email();
  const res = await register(ctx, { email: e, password: 'long enough pw', displayName: 'Zoé' });
  assert.is(res.status, 200, res.text);
  const d = res.body.data;
  assert.is(d.tokenType, 'Bearer');
  assert.is(d.expiresIn, 7 * 24 * 3600);
  assert.equal([d.user.email, d.user.role, d.user.accountType, d.user.tenant], [e, 'user', 'CONSUMER', ctx.tenant]);
  const me = await ctx.api.call('GET', '/api/auth/me', { token: d.token });
  assert.is(me.status, 200, me.text);
  assert.equal(me.body.data.region, { country: 'FR', currency: 'EUR', timezone: 'Europe/Paris' });
  assert.is(me.body.data.user.signupSource, ctx.tenant);
  const login = await ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: e, password: 'long enough pw' } });
  assert.is(login.status, 200, 'the password works for login');
  const cred = await ctx.api.services.knex('credentials').whereRaw('lower(email) = ?', [e]).first();
  assert.match(cred.password_hash, /^\$argon2id\$/);
  assert.not.ok(res.text.includes('long enough pw'));
});

test('register-simple: 404 when the white-label toggle is off, or the tenant is unknown', async (ctx) => {
  assert.is((await register(ctx, { email: email(), password: 'long enough pw' }, ctx.closed)).status, 404);
  assert.is((await register(ctx, { email: email(), password: 'long enough pw' }, 'no-such-tenant')).status, 404);
});

test('register-simple: 409 on a taken email (any case) or phone; nothing half-made', async (ctx) => {
  const e = email();
  const p = phone();
  assert.is((await register(ctx, { email: e, password: 'long enough pw', phone: p })).status, 200);
  const again = await register(ctx, { email: e.toUpperCase(), password: 'long enough pw' });
  assert.is(again.status, 409);
  assert.is(again.body.success, false);
  const samePhone = await register(ctx, { email: email(), password: 'long enough pw', phone: p });
  assert.is(samePhone.status, 409);
  assert.is(samePhone.body.code, 'phone_taken');
});

test('register-simple: role whitelist and validation, each a 400 with per-field errors that leaves no account', async (ctx) => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ role: 'organiser' }, 'role'],
    [{ role: 'admin' }, 'role'],
    [{ password: 'short' }, 'password'],
    [{ email: 'not-an-email' }, 'email'],
    [{ accountType: 'BUSINESS' }, 'companyName'],
    [{ accountType: 'BUSINESS', companyName: 'Acme' }, 'siret'],
    [{ accountType: 'BUSINESS', companyName: 'Acme', siret: '1234567890123' }, 'siret'],
    [{ accountType: 'BUSINESS', companyName: 'Acme', taxCountry: 'SN' }, 'taxId'],
    [{ accountType: 'BUSINESS', companyName: 'Acme', taxCountry: 'SEN', taxId: 'SN-123456' }, 'taxCountry'],
    [{ accountType: 'BUSINESS', companyName: 'Acme', taxCountry: 'BE', siret: '12345678901234' }, 'siret'],
    [{ accountType: 'ADMIN' }, 'accountType'],
  ];
  for (const [extra, field] of cases) {
    const e = email();
    const res = await register(ctx, { email: e, password: 'long enough pw', ...extra });
    assert.is(res.status, 400, `${JSON.stringify(extra)}: ${res.text}`);
    assert.ok(res.body.errors?.[field], `${JSON.stringify(extra)} names ${field}: ${res.text}`);
    assert.is(await ctx.api.services.knex('credentials').whereRaw('lower(email) = ?', [e]).first(), undefined, 'no credentials left behind');
  }
});

test('register-simple BUSINESS: SIRET in France, taxCountry + taxId or rccm elsewhere; the identity is kept for DAC7', async (ctx) => {
  const fr = await register(ctx, { email: email(), password: 'long enough pw', accountType: 'BUSINESS', companyName: 'Fromagerie SAS', siret: '73282932000074' });
  assert.is(fr.status, 200, fr.text);
  assert.is(fr.body.data.user.accountType, 'BUSINESS');
  const me = await ctx.api.call('GET', '/api/auth/me', { token: fr.body.data.token });
  assert.equal(me.body.data.business, { companyName: 'Fromagerie SAS', siret: '73282932000074', taxCountry: 'FR', taxId: null, rccm: null });
  assert.ok(me.body.data.agent.capabilities.includes('commission'));
  const sn = await register(ctx, { email: email(), password: 'long enough pw', accountType: 'BUSINESS', companyName: 'Dakar SARL', taxCountry: 'sn', rccm: 'SN-DKR-2024-B-123' });
  assert.is(sn.status, 200, sn.text);
  const be = await register(ctx, { email: email(), password: 'long enough pw', accountType: 'BUSINESS', companyName: 'Bruxelles SRL', taxCountry: 'BE', taxId: 'BE0123456789' });
  assert.is(be.status, 200, be.text);
  const beMe = await ctx.api.call('GET', '/api/auth/me', { token: be.body.data.token });
  assert.is(beMe.body.data.business.taxId, 'BE0123456789');
});

test('register-simple with acceptFeeMandate records the FEE mandate with text version, hash and IP', async (ctx) => {
  const res = await register(ctx, { email: email(), password: 'long enough pw', acceptFeeMandate: true });
  assert.is(res.status, 200, res.text);
  const list = await ctx.api.call('GET', '/api/mandates', { token: res.body.data.token });
  assert.is(list.status, 200);
  const [m] = list.body.data.mandates;
  const fee = list.body.data.texts.find((t: { kind: string }) => t.kind === 'FEE');
  assert.equal([m.kind, m.status, m.version, m.hash, m.current], ['FEE', 'ACCEPTED', fee.version, fee.hash, true]);
  assert.ok(m.acceptedIp);
});

test('forgot-password: always 200; the token only for a real account, outside production; the mail goes through the outbox', async (ctx) => {
  const e = email();
  await register(ctx, { email: e, password: 'long enough pw' });
  const unknown = await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.tenant, body: { email: email() } });
  const known = await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.tenant, body: { email: e } });
  assert.is(unknown.status, 200);
  assert.is(known.status, 200);
  assert.is(unknown.body.data.message, known.body.data.message, 'same message: no enumeration');
  assert.is(unknown.body.data.resetToken, undefined);
  const token = known.body.data.resetToken as string;
  const claims = jwt.decode(token) as jwt.JwtPayload;
  assert.is(claims.kind, 'password-reset');
  assert.is(claims.exp! - claims.iat!, 30 * 60);
  // The mail is queued once the answer is out (so both answers take as long): wait for it.
  const mail = await eventually(async () => (await ctx.api.services.mail.list({ to: e }))[0], 'the reset mail in the outbox');
  assert.ok(mail!.text.includes(token), 'the mail carries the reset link');
  assert.is(mail!.kind, 'password-reset');
  assert.is((await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.closed, body: { email: e } })).status, 404);
  assert.is((await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.tenant, body: {} })).status, 400);
});

test('reset-password: new password works, every old session gets 401, the token works once', async (ctx) => {
  const e = email();
  const reg = await register(ctx, { email: e, password: 'first password' });
  const second = await ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: e, password: 'first password' } });
  const oldTokens = [reg.body.data.token, second.body.data.token];
  for (const t of oldTokens) assert.is((await ctx.api.call('GET', '/api/auth/me', { token: t })).status, 200);
  const { resetToken } = (await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.tenant, body: { email: e } })).body.data;
  assert.is((await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.tenant, body: { token: resetToken, password: 'short' } })).status, 400, 'min 8');
  const ok = await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.tenant, body: { token: resetToken, password: 'second password' } });
  assert.is(ok.status, 200, ok.text);
  assert.type(ok.body.data.message, 'string');
  for (const t of oldTokens) assert.is((await ctx.api.call('GET', '/api/auth/me', { token: t })).status, 401, 'old session revoked');
  assert.is((await ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: e, password: 'first password' } })).status, 401);
  assert.is((await ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: e, password: 'second password' } })).status, 200);
  const replay = await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.tenant, body: { token: resetToken, password: 'third password' } });
  assert.is(replay.status, 400, 'single use');
  assert.ok(replay.body.errors.token);
});

test('reset-password refuses forged, expired, wrong-kind and other-tenant tokens, and a token superseded by another reset', async (ctx) => {
  const e = email();
  const reg = await register(ctx, { email: e, password: 'first password' });
  const userId = reg.body.data.user.id;
  const p = jwt.decode(reg.body.data.token) as jwt.JwtPayload;
  const secret = ctx.api.services.config.JWT_SECRET;
  const sign = (claims: object, opts: jwt.SignOptions = {}, key = secret) =>
    jwt.sign(claims, key, { algorithm: 'HS256', keyid: 'k1', issuer: 'cagnotte', audience: 'cagnotte-api', expiresIn: 600, jwtid: randomUUID(), ...opts });
  const bad = [
    sign({ sub: userId, tid: p.tid, kind: 'password-reset' }, { expiresIn: -5 }),
    sign({ sub: userId, tid: p.tid, kind: 'partner-sso' }),
    sign({ sub: userId, tid: p.tid, kind: 'password-reset' }, {}, 'a-completely-different-secret-of-length'),
    sign({ sub: userId, tid: randomUUID(), kind: 'password-reset' }),
    reg.body.data.token,
    'garbage',
  ];
  for (const token of bad) {
    const r = await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.tenant, body: { token, password: 'whatever password' } });
    assert.is(r.status, 400, `${token}: ${r.text}`);
  }
  const first = (await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.tenant, body: { email: e } })).body.data.resetToken;
  const second = (await ctx.api.call('POST', '/api/auth/forgot-password', { tenant: ctx.tenant, body: { email: e } })).body.data.resetToken;
  assert.is((await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.tenant, body: { token: second, password: 'second password' } })).status, 200);
  assert.is((await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.tenant, body: { token: first, password: 'third password' } })).status, 400, 'issued for the old password');
  assert.is((await ctx.api.call('POST', '/api/auth/reset-password', { tenant: ctx.closed, body: { token: second, password: 'x'.repeat(9) } })).status, 404, 'gated');
  const log = await ctx.api.services.store.readStream(`account-${userId}`);
  assert.ok(log.some((ev) => ev.type === 'PasswordResetCompleted'), 'the reset is in the audit trail');
  assert.not.ok(JSON.stringify(log.map((ev) => ev.data)).includes('second password'));
});

const ssoStart = (ctx: Ctx, query: Record<string, string>, headers: Record<string, string> = {}) =>
  ctx.api.call('GET', `/api/auth/sso/start?${new URLSearchParams(query).toString()}`, { headers });

const handoff = async (ctx: Ctx, token: string) => {
  const res = await ctx.api.call('POST', '/api/auth/sso/handoff', { token });
  assert.is(res.status, 200, res.text);
  return res.body.data.code as string;
};

test('SSO: handoff gives a 2-minute partner-sso code; start sets service_session and answers 307 to onboarding', async (ctx) => {
  const reg = await register(ctx, { email: email(), password: 'long enough pw' });
  const code = await handoff(ctx, reg.body.data.token);
  const claims = jwt.decode(code) as jwt.JwtPayload;
  assert.is(claims.kind, 'partner-sso');
  assert.is(claims.exp! - claims.iat!, 120);
  const res = await ssoStart(ctx, { code });
  assert.is(res.status, 307, res.text);
  assert.is(res.headers.get('location'), '/onboarding');
  const cookie = res.headers.get('set-cookie')!;
  assert.match(cookie, /^service_session=[^;]+;/);
  for (const attr of ['HttpOnly', 'Secure', 'SameSite=None', 'Path=/']) assert.ok(cookie.includes(attr), `${attr} in ${cookie}`);
  const value = /^service_session=([^;]+)/.exec(cookie)![1]!;
  assert.is.not(value, reg.body.data.token, 'a fresh session');
  const me = await ctx.api.call('GET', '/api/auth/me', { headers: { cookie: `service_session=${value}` } });
  assert.is(me.status, 200, 'the cookie is a session');
  assert.is(me.body.data.user.id, reg.body.data.user.id);
  const replay = await ssoStart(ctx, { code });
  assert.is(replay.status, 404, 'a code works once');
});

test('SSO: returnTo must be an approved origin exactly; dest must be an internal path; a rejected target does not spend the code', async (ctx) => {
  const reg = await register(ctx, { email: email(), password: 'long enough pw' });
  const code = await handoff(ctx, reg.body.data.token);
  const badReturnTo = [
    'https://evil.example/',
    'https://partner.example.evil.com/',
    'http://partner.example/',
    'https://partner.example:8443/',
    'https://user:pw@partner.example/',
    'https://partner.example\\@evil.com',
    '//partner.example/',
    'javascript:alert(1)',
    'http://localhost:5174/',
  ];
  for (const returnTo of badReturnTo) {
    const r = await ssoStart(ctx, { code, returnTo });
    assert.is(r.status, 400, `${returnTo}: ${r.status}`);
    assert.is(r.headers.get('location'), null);
  }
  const badDest = ['//evil.com', '/\\evil.com', '\\\\evil.com', 'https://evil.com', 'javascript:alert(1)', '/%2F%2Fevil.com', '/%252F%252Fevil.com', '/%5Cevil.com', 'evil.com', '/\tevil', '%2F%2Fevil.com'];
  for (const dest of badDest) {
    const r = await ssoStart(ctx, { code, dest });
    assert.is(r.status, 400, `${dest}: ${r.status}`);
  }
  const ok = await ssoStart(ctx, { code, returnTo: 'https://partner.example/welcome?x=1' });
  assert.is(ok.status, 307, ok.text);
  assert.is(ok.headers.get('location'), 'https://partner.example/welcome?x=1');
  const code2 = await handoff(ctx, reg.body.data.token);
  const internal = await ssoStart(ctx, { code: code2, dest: '/pools/123?tab=members' });
  assert.is(internal.status, 307);
  assert.is(internal.headers.get('location'), '/pools/123?tab=members');
  const code3 = await handoff(ctx, reg.body.data.token);
  assert.is((await ssoStart(ctx, { code: code3, returnTo: 'http://localhost:5173/app' })).headers.get('location'), 'http://localhost:5173/app');
});

/** `dest` forms that a browser would resolve to another host (or that hide such a path under encodings). */
const EVIL_DEST = [
  '/..//evil.example',
  '/../..//evil.example/path',
  '/./..//evil.example',
  '/a/../..//evil.example',
  '/%2e%2e//evil.example',
  '/%2E%2E//evil.example',
  '/.%2e//evil.example',
  '/%2e.//evil.example',
  '/.%2E/.%2e//evil.example',
  '/a/%2e%2e/%2e%2e//evil.example',
  '/..%2f/evil.example',
  '/..%2F%2Fevil.example',
  '/%2e%2e%2f%2fevil.example',
  '/%2e%2e%5c%5cevil.example',
  '/%2f%2fevil.example',
  '/%2F/evil.example',
  '/%5cevil.example',
  '/%5C%5Cevil.example',
  '/%252e%252e//evil.example',
  '/%252f%252fevil.example',
  '/%25252f%25252fevil.example',
  '/%2525252f%2525252fevil.example',
  '/\t/evil.example',
  '/\n/evil.example',
  '/\r\n/evil.example',
  '/%09/evil.example',
  '/%0a/evil.example',
  '/%00/evil.example',
  '/ /evil.example',
  '\\/evil.example',
  '/\\evil.example',
  '//evil.example',
  '///evil.example',
  'https://evil.example',
  'javascript:alert(1)',
  '%2f%2fevil.example',
  '/.../..//evil.example',
  '/%u002e%u002e//evil.example',
];

/** Internal paths and where they lead once normalised. */
const GOOD_DEST: Array<[string, string]> = [
  ['/pools/123?tab=members', '/pools/123?tab=members'],
  ['/a/./b/../c', '/a/c'],
  ['/a/%2e%2e/pools', '/pools'],
  ['/..', '/'],
  ['/pools/../onboarding?next=//x', '/onboarding?next=//x'],
  ['/pools/123#members', '/pools/123#members'],
];

/** Checks the dest rules against a running API (sandbox or production mode). */
const destRules = async (api: TestApi, tenantSlug: string) => {
  const user = await api.user(tenantSlug);
  const tenant = (await new TenantReadModel(api.services.knex).bySlug(tenantSlug))!;
  const mint = () => api.services.tokens.signPurpose('partner-sso', { sub: user.id, tid: tenant.id }, 120).token;
  const start = (query: Record<string, string>) => api.call('GET', `/api/auth/sso/start?${new URLSearchParams(query).toString()}`);
  const code = mint();
  for (const dest of EVIL_DEST) {
    const r = await start({ code, dest });
    assert.is(r.status, 400, `${JSON.stringify(dest)}: ${r.status} → ${r.headers.get('location')}`);
    assert.is(r.headers.get('location'), null, dest);
    assert.is(r.headers.get('set-cookie'), null, dest);
    assert.is(r.body.code, 'invalid_redirect', dest);
  }
  const kept = await start({ code, dest: '/pools/1' });
  assert.is(kept.status, 307, 'a refused dest does not spend the code');
  for (const [dest, location] of GOOD_DEST) {
    const r = await start({ code: mint(), dest });
    assert.is(r.status, 307, `${dest}: ${r.text}`);
    assert.is(r.headers.get('location'), location, dest);
    assert.match(r.headers.get('set-cookie') ?? '', /^service_session=/);
  }
};

test(`SSO dest: ${EVIL_DEST.length} off-site forms (dot segments, encodings, whitespace, backslashes) are 400 with no Location; internal paths are normalised`, async (ctx) => {
  await destRules(ctx.api, ctx.tenant);
});

test('SSO: a code works only in the tenant it was minted for; another tenant\'s header (toggle on or off, or unknown) is a 404', async (ctx) => {
  const other = (await ctx.api.tenant({ whiteLabel: true })).slug;
  const reg = await register(ctx, { email: email(), password: 'long enough pw' });
  const code = await handoff(ctx, reg.body.data.token);
  for (const tenant of [other, ctx.closed, 'no-such-tenant', other.toUpperCase(), `${other}, ${ctx.tenant}`]) {
    const r = await ssoStart(ctx, { code }, { 'x-service-tenant': tenant });
    assert.is(r.status, 404, `${tenant}: ${r.status} ${r.headers.get('location')}`);
    assert.is(r.headers.get('set-cookie'), null);
  }
  const own = await ssoStart(ctx, { code }, { 'x-service-tenant': ctx.tenant.toUpperCase() });
  assert.is(own.status, 307, 'its own tenant (any case): the code was not spent by the refusals');
  const browser = await ssoStart(ctx, { code: await handoff(ctx, reg.body.data.token) });
  assert.is(browser.status, 307, 'a browser navigation sends no tenant header');
  // The other way round: a code of the other tenant under this tenant's header.
  const there = await ctx.api.user(other);
  const theirs = await handoff(ctx, there.token);
  assert.is((await ssoStart(ctx, { code: theirs }, { 'x-service-tenant': ctx.tenant })).status, 404);
  // A code minted for a tenant whose toggle is off (handoff itself refuses it; a code signed directly must fail too).
  const closedUser = await ctx.api.user(ctx.closed);
  const closedTenant = (await new TenantReadModel(ctx.api.services.knex).bySlug(ctx.closed))!;
  const closedCode = ctx.api.services.tokens.signPurpose('partner-sso', { sub: closedUser.id, tid: closedTenant.id }, 120).token;
  assert.is((await ssoStart(ctx, { code: closedCode })).status, 404);
  assert.is((await ssoStart(ctx, { code: closedCode }, { 'x-service-tenant': ctx.closed })).status, 404);
  // A code naming this tenant for a user of another tenant is refused too.
  const mixed = ctx.api.services.tokens.signPurpose('partner-sso', { sub: there.id, tid: (await new TenantReadModel(ctx.api.services.knex).bySlug(ctx.tenant))!.id }, 120).token;
  assert.is((await ssoStart(ctx, { code: mixed })).status, 404);
});

test('SSO: expired, forged and wrong-kind codes are 404; handoff needs a token (401) and the toggle (404)', async (ctx) => {
  const reg = await register(ctx, { email: email(), password: 'long enough pw' });
  const p = jwt.decode(reg.body.data.token) as jwt.JwtPayload;
  const secret = ctx.api.services.config.JWT_SECRET;
  const sign = (claims: object, opts: jwt.SignOptions = {}) =>
    jwt.sign(claims, secret, { algorithm: 'HS256', keyid: 'k1', issuer: 'cagnotte', audience: 'cagnotte-api', expiresIn: 60, jwtid: randomUUID(), ...opts });
  for (const code of [
    sign({ sub: p.sub, tid: p.tid, kind: 'partner-sso' }, { expiresIn: -1 }),
    sign({ sub: p.sub, tid: p.tid, kind: 'password-reset' }),
    reg.body.data.token,
    'nonsense',
  ]) {
    assert.is((await ssoStart(ctx, { code })).status, 404);
  }
  assert.is((await ssoStart(ctx, {})).status, 404, 'no code: no tenant to pass the gate with');
  assert.is((await ctx.api.call('POST', '/api/auth/sso/handoff')).status, 401);
  const closed = await ctx.api.user(ctx.closed);
  assert.is((await ctx.api.call('POST', '/api/auth/sso/handoff', { token: closed.token })).status, 404);
});

test('a cookie session may write only from an approved origin (CSRF)', async (ctx) => {
  const reg = await register(ctx, { email: email(), password: 'long enough pw' });
  const code = await handoff(ctx, reg.body.data.token);
  const set = (await ssoStart(ctx, { code })).headers.get('set-cookie')!;
  const cookie = set.split(';')[0]!;
  const body = { kind: 'RELAIS' };
  assert.is((await ctx.api.call('POST', '/api/mandates', { body, headers: { cookie } })).status, 401, 'no Origin');
  assert.is((await ctx.api.call('POST', '/api/mandates', { body, headers: { cookie, origin: 'https://evil.example' } })).status, 401, 'foreign Origin');
  assert.is((await ctx.api.call('POST', '/api/mandates', { body, headers: { cookie, origin: 'https://partner.example' } })).status, 201, 'approved Origin');
});

test('become-seller: validation, BUSINESS with the identity kept, role unchanged; again answers alreadyBusiness and changes nothing', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const call = (body: unknown, token: string | null = user.token) => ctx.api.call('POST', '/api/me/become-seller', { token: token ?? undefined, body });
  assert.is((await call({ companyName: 'X', siret: '73282932000074' }, null)).status, 401);
  for (const body of [
    {},
    { companyName: '' },
    { companyName: 'x'.repeat(121), siret: '73282932000074' },
    { companyName: 'Acme', siret: '7328293200007' },
    { companyName: 'Acme', siret: '7328293200007A' },
    { companyName: 'Acme', taxCountry: 'BEL', taxId: 'BE0123' },
    { companyName: 'Acme', taxCountry: 'BE', taxId: 'BE0' },
    { companyName: 'Acme', taxCountry: 'BE' },
    { companyName: 'Acme' },
  ]) {
    const r = await call(body);
    assert.is(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    assert.ok(r.body.errors, JSON.stringify(body));
  }
  const ok = await call({ companyName: 'Brasserie Dupont', siret: '73282932000074', acceptFeeMandate: true });
  assert.is(ok.status, 200, ok.text);
  assert.equal(ok.body.data, { accountType: 'BUSINESS', role: 'user' });
  const me = await ctx.api.call('GET', '/api/auth/me', { token: user.token });
  assert.is(me.body.data.user.accountType, 'BUSINESS');
  assert.is(me.body.data.user.role, 'user');
  assert.is(me.body.data.business.companyName, 'Brasserie Dupont');
  const before = await ctx.api.services.store.readStream(`account-${user.id}`);
  const again = await call({ companyName: 'Another name', taxCountry: 'BE', taxId: 'BE0123456789', acceptFeeMandate: true });
  assert.is(again.status, 200);
  assert.equal(again.body.data, { accountType: 'BUSINESS', role: 'user', alreadyBusiness: true });
  assert.is((await ctx.api.services.store.readStream(`account-${user.id}`)).length, before.length, 'nothing recorded');
  const closed = await ctx.api.user(ctx.closed);
  assert.is((await call({ companyName: 'Acme', siret: '73282932000074' }, closed.token)).status, 404, 'gated');
});

test('mandates: texts with sha256, acceptance as an event, idempotent re-acceptance, revocation, owner-only', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const other = await ctx.api.user(ctx.tenant);
  assert.is((await ctx.api.call('GET', '/api/mandates')).status, 401);
  assert.is((await ctx.api.call('POST', '/api/mandates', { body: { kind: 'FEE' } })).status, 401);
  const list = await ctx.api.call('GET', '/api/mandates', { token: user.token });
  assert.is(list.status, 200);
  assert.equal(list.body.data.mandates, []);
  assert.equal(list.body.data.texts.map((t: { kind: string }) => t.kind).sort(), ['COMMISSION', 'FEE', 'RELAIS']);
  for (const t of list.body.data.texts) assert.is(t.hash, createHash('sha256').update(t.text, 'utf8').digest('hex'));
  assert.is((await ctx.api.call('POST', '/api/mandates', { token: user.token, body: { kind: 'OTHER' } })).status, 400);
  const accepted = await ctx.api.call('POST', '/api/mandates', { token: user.token, body: { kind: 'COMMISSION' } });
  assert.is(accepted.status, 201, accepted.text);
  const m = accepted.body.data;
  const text = list.body.data.texts.find((t: { kind: string }) => t.kind === 'COMMISSION');
  assert.equal([m.kind, m.status, m.version, m.hash, m.revokedAt], ['COMMISSION', 'ACCEPTED', text.version, text.hash, null]);
  assert.ok(m.acceptedIp && m.acceptedAt);
  const again = await ctx.api.call('POST', '/api/mandates', { token: user.token, body: { kind: 'COMMISSION' } });
  assert.is(again.body.data.id, m.id, 'same record');
  assert.is((await ctx.api.call('DELETE', `/api/mandates/${m.id}`, { token: other.token })).status, 404, 'owner only');
  const revoked = await ctx.api.call('DELETE', `/api/mandates/${m.id}`, { token: user.token });
  assert.is(revoked.status, 200);
  assert.is(revoked.body.data.status, 'REVOKED');
  assert.ok(revoked.body.data.revokedAt);
  const fresh = await ctx.api.call('POST', '/api/mandates', { token: user.token, body: { kind: 'COMMISSION' } });
  assert.is.not(fresh.body.data.id, m.id, 'a new acceptance after revocation');
  const final = await ctx.api.call('GET', '/api/mandates', { token: user.token });
  assert.equal(final.body.data.mandates.map((x: { status: string }) => x.status), ['ACCEPTED', 'REVOKED']);
  const events = await ctx.api.services.store.readStream(`account-${user.id}`);
  assert.equal(events.filter((e) => e.type.startsWith('Mandate')).map((e) => e.type), ['MandateAccepted', 'MandateRevoked', 'MandateAccepted']);
  assert.is((await ctx.api.call('DELETE', `/api/mandates/${randomUUID()}`, { token: user.token })).status, 404);
});

const limited = suite<{ api: TestApi; tenant: string }>('auth rate limits');

limited.before(async (ctx) => {
  ctx.api = await startApi({
    RATE_LIMIT_REGISTER_PER_MINUTE: 2,
    RATE_LIMIT_PASSWORD_RESET_PER_MINUTE: 2,
    RATE_LIMIT_ORGANISER_PER_MINUTE: 2,
    // Long enough for three calls of each kind on a loaded machine (a 1 s window expired between them).
    RATE_LIMIT_WINDOW_SECONDS: 5,
    TRUST_PROXY: true,
  });
  ctx.tenant = (await ctx.api.tenant()).slug;
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
limited.after(async (ctx) => ctx.api.stop());

limited('register, forgot, reset and organiser activation: 429 with Retry-After past the limit, then recovery', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const ip = `10.1.${Math.floor(Math.random() * 250)}.9`;
  const calls: Array<[string, string, () => unknown, string | undefined]> = [
    ['POST', '/api/auth/register/simple', () => ({ email: 'bad' }), undefined],
    ['POST', '/api/auth/forgot-password', () => ({ email: `${randomUUID().slice(0, 8)}@example.test` }), undefined],
    ['POST', '/api/auth/reset-password', () => ({ token: 'x', password: 'long enough' }), undefined],
    ['POST', '/api/me/become-organiser/prepare', () => ({}), user.token],
    ['POST', '/api/me/become-organiser/submit', () => ({ grantId: randomUUID(), txHash: 'a'.repeat(64) }), user.token],
  ];
  for (const [method, path, body, token] of calls) {
    const hit = () => ctx.api.call(method, path, { tenant: ctx.tenant, token, body: body(), headers: { 'x-forwarded-for': ip } });
    for (let i = 0; i < 2; i++) assert.is.not((await hit()).status, 429, `${path} #${i + 1}`);
    const blocked = await hit();
    assert.is(blocked.status, 429, path);
    assert.is(blocked.body.code, 'rate_limited');
    assert.ok(Number(blocked.headers.get('retry-after')) >= 1);
  }
  // Recovery: the register window passes (polled, with a deadline that fits a loaded machine).
  const deadline = Date.now() + 10_000;
  let recovered = await ctx.api.call('POST', '/api/auth/register/simple', { tenant: ctx.tenant, body: { email: 'bad' }, headers: { 'x-forwarded-for': ip } });
  while (recovered.status === 429 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
    recovered = await ctx.api.call('POST', '/api/auth/register/simple', { tenant: ctx.tenant, body: { email: 'bad' }, headers: { 'x-forwarded-for': ip } });
  }
  assert.is(recovered.status, 400, 'recovered');
});

const production = suite<{ api: TestApi; tenant: string }>('SSO dest rules with APP_ENV=production');

production.before(async (ctx) => {
  ctx.api = await startApi({ APP_ENV: 'production' });
  ctx.tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
});

production.after(async (ctx) => ctx.api.stop());

production('the same off-site dest forms are refused, and internal paths normalised, in production', async (ctx) => {
  assert.is(ctx.api.services.config.APP_ENV, 'production');
  await destRules(ctx.api, ctx.tenant);
});

const fallback = suite<{ api: TestApi; slug: string }>('register-simple without X-Service-Tenant');

fallback.before(async (ctx) => {
  ctx.slug = uniqueSlug('dflt');
  ctx.api = await startApi({ DEFAULT_TENANT: ctx.slug });
  const meta = { actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
  const { position } = await createTenant(ctx.api.services, { slug: ctx.slug, whiteLabel: true, approvedOrigins: [] }, meta);
  await ctx.api.runner.catchUp(position);
});

fallback.after(async (ctx) => ctx.api.stop());

fallback('the default tenant applies, and is the signupSource', async (ctx) => {
  const res = await ctx.api.call('POST', '/api/auth/register/simple', { body: { email: email(), password: 'long enough pw' } });
  assert.is(res.status, 200, res.text);
  assert.is(res.body.data.user.tenant, ctx.slug);
  const me = await ctx.api.call('GET', '/api/auth/me', { token: res.body.data.token });
  assert.is(me.body.data.user.signupSource, ctx.slug);
});

test.run();
limited.run();
production.run();
fallback.run();
