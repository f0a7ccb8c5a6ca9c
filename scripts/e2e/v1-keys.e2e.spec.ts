import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';

/**
 * API keys as a partner's back end and an operator use them: issued by an organiser over HTTP (the secret once) or by
 * the operator CLI, acting as their owner on /v1 only, restricted by scopes, rolled and revoked with immediate effect;
 * live keys only for a verified tenant. And the /v1 request rules every resource shares: Idempotency-Key required on
 * POST, errors with `code`, `param` and `requestId`.
 */

interface Ctx {
  api: TestApi;
  tenant: string;
  ana: TestUser;
  bob: TestUser;
  buyer: TestUser;
  other: { tenant: string; carla: TestUser };
}

const test = suite<Ctx>('/v1 API keys');

type Envelope = { success: boolean; data: any; code?: string; error?: string; param?: string; requestId?: string; errors?: Record<string, string[]> };

const withKey =
  (ctx: Ctx, secret: string) =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<Envelope>> =>
    ctx.api.call<Envelope>(method, path, { headers: { authorization: `Bearer ${secret}`, ...headers }, ...(body !== undefined ? { body } : {}) });

const asUser = (ctx: Ctx, user: TestUser) => (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  ctx.api.call<Envelope>(method, path, { token: user.token, tenant: user.tenant, headers, ...(body !== undefined ? { body } : {}) });

test.before(async (ctx) => {
  ctx.api = await startApi();
  const t = await ctx.api.tenant();
  ctx.tenant = t.slug;
  ctx.ana = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Ana' });
  ctx.bob = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Bob' });
  ctx.buyer = await ctx.api.user(t.slug, { name: 'Buyer' });
  const other = await ctx.api.tenant();
  ctx.other = { tenant: other.slug, carla: await ctx.api.user(other.slug, { role: 'organiser', wallet: false, name: 'Carla' }) };
});

test.after(async (ctx) => ctx.api.stop());

test('an organiser issues a test key: the secret once, hashed at rest, listed redacted; a replay of the same Idempotency-Key never shows it again', async (ctx) => {
  const headers = { 'idempotency-key': `key-create-${Date.now()}` };
  const res = await asUser(ctx, ctx.ana)('POST', '/v1/api-keys', { name: 'Storefront', scopes: ['*'] }, headers);
  assert.is(res.status, 201, res.text);
  const key = res.body.data;
  assert.match(key.id, /^key_[0-9a-f]{32}$/);
  assert.match(key.secret, /^sk_test_[A-Za-z0-9]{40}$/);
  assert.is(key.object, 'api_key');
  assert.is(key.livemode, false);
  assert.is(key.redactedSecret, `sk_test_…${key.secret.slice(-4)}`);
  assert.match(key.owner, /^acct_[0-9a-f]{32}$/);
  assert.is(key.owner, `acct_${ctx.ana.id.replace(/-/g, '')}`);

  const stored = await ctx.api.services.knex('api_keys').where({ id: key.id.slice(4).replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5') }).first();
  assert.ok(stored);
  assert.not.ok(JSON.stringify(stored).includes(key.secret), 'the secret is not stored');
  const kept = await ctx.api.services.knex('idempotency_keys').where({ key: headers['idempotency-key'] }).first();
  assert.not.ok(JSON.stringify(kept).includes(key.secret), 'nor kept for replays');

  const replay = await asUser(ctx, ctx.ana)('POST', '/v1/api-keys', { name: 'Storefront', scopes: ['*'] }, headers);
  assert.is(replay.status, 201);
  assert.is(replay.headers.get('idempotent-replayed'), 'true');
  assert.is(replay.body.data.id, key.id);
  assert.is(replay.body.data.secret, null);

  const list = await asUser(ctx, ctx.ana)('GET', '/v1/api-keys');
  assert.is(list.status, 200);
  assert.is(list.body.data.object, 'list');
  assert.ok(list.body.data.items.some((k: { id: string }) => k.id === key.id));
  assert.not.ok(list.text.includes(key.secret));
  // Bob sees only his own keys, and Ana's is a 404 to him.
  const bobs = await asUser(ctx, ctx.bob)('GET', '/v1/api-keys');
  assert.not.ok(bobs.body.data.items.some((k: { id: string }) => k.id === key.id));
  assert.is((await asUser(ctx, ctx.bob)('GET', `/v1/api-keys/${key.id}`)).status, 404);
  assert.is((await asUser(ctx, ctx.bob)('DELETE', `/v1/api-keys/${key.id}`)).status, 404);
});

test('a key acts as its owner on /v1, in its own tenant only; it is refused on /api', async (ctx) => {
  const key = await ctx.api.apiKey(ctx.ana);
  const as = withKey(ctx, key.secret);
  const list = await as('GET', '/v1/webhooks');
  assert.is(list.status, 200, list.text);
  const created = await as('POST', '/v1/webhooks', { url: 'https://hooks.partner.example/in', enabledEvents: ['*'] });
  assert.ok(created.status === 201 || created.status === 400, created.text); // DNS of the sandbox may refuse the host: the key passed auth either way
  const me = await as('GET', '/api/auth/me');
  assert.is(me.status, 401);
  assert.is(me.body.code, 'api_key_not_allowed');
  // Another tenant named in the header finds nothing.
  const elsewhere = await as('GET', '/v1/webhooks', undefined, { 'x-service-tenant': ctx.other.tenant });
  assert.is(elsewhere.status, 404);
  assert.is(elsewhere.body.code, 'tenant_not_found');
  const own = await as('GET', '/v1/webhooks', undefined, { 'x-service-tenant': ctx.tenant });
  assert.is(own.status, 200);
});

test('a revoked key is a 401 from the very next request; an unknown or malformed one too', async (ctx) => {
  const key = await ctx.api.apiKey(ctx.ana);
  const as = withKey(ctx, key.secret);
  assert.is((await as('GET', '/v1/webhooks')).status, 200);
  const revoked = await asUser(ctx, ctx.ana)('DELETE', `/v1/api-keys/${key.id}`);
  assert.is(revoked.status, 200);
  assert.ok(revoked.body.data.revokedAt);
  const after = await as('GET', '/v1/webhooks');
  assert.is(after.status, 401);
  assert.is(after.body.code, 'api_key_invalid');
  assert.is((await withKey(ctx, `sk_test_${'A'.repeat(40)}`)('GET', '/v1/webhooks')).status, 401);
  assert.is((await withKey(ctx, 'sk_test_short')('GET', '/v1/webhooks')).status, 401);
  // Gone from the list.
  const list = await asUser(ctx, ctx.ana)('GET', '/v1/api-keys');
  assert.not.ok(list.body.data.items.some((k: { id: string }) => k.id === key.id));
});

test('scopes: a read-only key reads and cannot write (403 insufficient_scope); a per-resource key only its resource', async (ctx) => {
  const readOnly = withKey(ctx, (await ctx.api.apiKey(ctx.ana, { scopes: ['*:read'] })).secret);
  assert.is((await readOnly('GET', '/v1/webhooks')).status, 200);
  assert.is((await readOnly('GET', '/v1/events')).status, 200);
  const write = await readOnly('POST', '/v1/webhooks', { url: 'https://hooks.partner.example/in', enabledEvents: ['*'] });
  assert.is(write.status, 403);
  assert.is(write.body.code, 'insufficient_scope');
  const eventsOnly = withKey(ctx, (await ctx.api.apiKey(ctx.ana, { scopes: ['events:read'] })).secret);
  assert.is((await eventsOnly('GET', '/v1/events')).status, 200);
  assert.is((await eventsOnly('GET', '/v1/webhooks')).status, 403);
  const bad = await asUser(ctx, ctx.ana)('POST', '/v1/api-keys', { name: 'x', scopes: ['everything'] });
  assert.is(bad.status, 400);
  assert.is(bad.body.param, 'scopes.0');
});

test('keys cannot mint keys; a buyer cannot have one; a live key needs a verified tenant', async (ctx) => {
  const as = withKey(ctx, (await ctx.api.apiKey(ctx.ana)).secret);
  const minted = await as('POST', '/v1/api-keys', { name: 'escalate' });
  assert.is(minted.status, 403);
  assert.is(minted.body.code, 'session_required');
  const buyer = await asUser(ctx, ctx.buyer)('POST', '/v1/api-keys', { name: 'mine' });
  assert.is(buyer.status, 403);
  assert.is(buyer.body.code, 'organiser_required');
  const live = await asUser(ctx, ctx.other.carla)('POST', '/v1/api-keys', { name: 'prod', mode: 'live' });
  assert.is(live.status, 403);
  assert.is(live.body.code, 'tenant_not_verified');
  const verified = await runCli('tenant', 'verify', ctx.other.tenant, '--note', 'KYB passed');
  assert.is(verified.code, 0, verified.err);
  assert.is(JSON.parse(verified.out).verified, true);
  const issued = await asUser(ctx, ctx.other.carla)('POST', '/v1/api-keys', { name: 'prod', mode: 'live' });
  assert.is(issued.status, 201, issued.text);
  assert.match(issued.body.data.secret, /^sk_live_/);
  assert.is(issued.body.data.livemode, true);
});

test('rolling: the new secret works at once; the old one for its grace period only, or not at all', async (ctx) => {
  const first = await ctx.api.apiKey(ctx.bob);
  const graceful = await asUser(ctx, ctx.bob)('POST', `/v1/api-keys/${first.id}/roll`, { expiresInHours: 1 });
  assert.is(graceful.status, 201, graceful.text);
  const second = graceful.body.data;
  assert.is.not(second.secret, first.secret);
  assert.is((await withKey(ctx, second.secret)('GET', '/v1/webhooks')).status, 200);
  assert.is((await withKey(ctx, first.secret)('GET', '/v1/webhooks')).status, 200, 'the old secret works through its grace period');
  const old = await asUser(ctx, ctx.bob)('GET', `/v1/api-keys/${first.id}`);
  assert.is(old.body.data.rolledTo, second.id);
  assert.ok(old.body.data.expiresAt);
  // Rolled twice is refused: one successor only.
  assert.is((await asUser(ctx, ctx.bob)('POST', `/v1/api-keys/${first.id}/roll`, {})).status, 404);

  const now = await asUser(ctx, ctx.bob)('POST', `/v1/api-keys/${second.id}/roll`, {});
  assert.is(now.status, 201);
  assert.is((await withKey(ctx, second.secret)('GET', '/v1/webhooks')).status, 401, 'rolled without grace: refused at once');
  assert.is((await withKey(ctx, now.body.data.secret)('GET', '/v1/webhooks')).status, 200);
});

test('every POST under /v1 needs an Idempotency-Key; errors carry code, param and the request id', async (ctx) => {
  const missing = await ctx.api.call<Envelope>('POST', '/v1/api-keys', { token: ctx.ana.token, tenant: ctx.tenant, body: { name: 'x' }, idempotencyKey: false });
  assert.is(missing.status, 400);
  assert.is(missing.body.code, 'idempotency_key_required');
  assert.is(missing.body.param, 'Idempotency-Key');
  assert.is(missing.body.requestId, missing.headers.get('x-request-id'));
  const webhooks = await withKey(ctx, (await ctx.api.apiKey(ctx.ana)).secret)('POST', '/v1/webhooks', { url: 'https://x.example/in', enabledEvents: ['*'] }, {});
  assert.ok(webhooks.status !== 400 || webhooks.body.code !== 'idempotency_key_required', 'call() sent one');
  const raw = await fetch(`${ctx.api.url}/v1/webhooks`, { method: 'POST', headers: { authorization: `Bearer ${ctx.ana.token}`, 'content-type': 'application/json' }, body: '{}' });
  const body = (await raw.json()) as Envelope;
  assert.is(raw.status, 400);
  assert.is(body.code, 'idempotency_key_required');

  const reused = { 'idempotency-key': `reuse-${Date.now()}` };
  assert.is((await asUser(ctx, ctx.ana)('POST', '/v1/api-keys', { name: 'one' }, reused)).status, 201);
  const conflict = await asUser(ctx, ctx.ana)('POST', '/v1/api-keys', { name: 'two' }, reused);
  assert.is(conflict.status, 409);
  assert.is(conflict.body.code, 'idempotency_key_reused');
  assert.ok(conflict.body.requestId);

  const invalid = await asUser(ctx, ctx.ana)('POST', '/v1/api-keys', { name: '' });
  assert.is(invalid.status, 400);
  assert.is(invalid.body.code, 'validation_failed');
  assert.is(invalid.body.param, 'name');
  assert.ok(invalid.body.errors?.name);
  const notFound = await asUser(ctx, ctx.ana)('GET', '/v1/api-keys/key_00000000000000000000000000000000');
  assert.is(notFound.status, 404);
  assert.is(notFound.body.code, 'api_key_not_found');
  assert.match(notFound.body.requestId ?? '', /^[0-9a-f-]{36}$/);
  const malformed = await asUser(ctx, ctx.ana)('GET', '/v1/api-keys/sk_test_nope');
  assert.is(malformed.status, 404);
});

test('modes: a test key’s webhook endpoint is none of a live key’s, and the reverse', async (ctx) => {
  const test = withKey(ctx, (await ctx.api.apiKey(ctx.other.carla)).secret);
  const live = withKey(ctx, (await ctx.api.apiKey(ctx.other.carla, { mode: 'live' })).secret);
  const inbox = await ctx.api.call<Envelope>('POST', '/sandbox/webhook-inbox', {});
  assert.is(inbox.status, 201, inbox.text);
  const made = await test('POST', '/v1/webhooks', { url: inbox.body.data.url, enabledEvents: ['*'] });
  assert.is(made.status, 201, made.text);
  const id = made.body.data.id;
  assert.is((await test('GET', `/v1/webhooks/${id}`)).status, 200);
  assert.is((await live('GET', `/v1/webhooks/${id}`)).status, 404);
  assert.not.ok((await live('GET', '/v1/webhooks')).body.data.items.some((w: { id: string }) => w.id === id));
  assert.is((await live('DELETE', `/v1/webhooks/${id}`)).status, 404);
  // The session of the sandbox deployment works in test mode: it sees the test key's endpoint.
  assert.is((await asUser(ctx, ctx.other.carla)('GET', `/v1/webhooks/${id}`)).status, 200);
});

test('the operator CLI issues, lists, rolls and revokes keys', async (ctx) => {
  const created = await runCli('api-keys', 'create', '--tenant', ctx.tenant, '--email', ctx.bob.email, '--name', 'ops', '--scopes', 'deals:write,events:read');
  assert.is(created.code, 0, created.err);
  const key = JSON.parse(created.out);
  assert.match(key.secret, /^sk_test_/);
  assert.equal(key.scopes, ['deals:write', 'events:read']);
  assert.is((await withKey(ctx, key.secret)('GET', '/v1/events')).status, 200);
  const listed = await runCli('api-keys', 'list', '--tenant', ctx.tenant, '--email', ctx.bob.email);
  assert.is(listed.code, 0, listed.err);
  assert.ok(JSON.parse(listed.out).items.some((k: { id: string }) => k.id === key.id));
  assert.not.ok(listed.out.includes(key.secret));
  const notOrganiser = await runCli('api-keys', 'create', '--tenant', ctx.tenant, '--email', ctx.buyer.email);
  assert.is(notOrganiser.code, 1);
  const live = await runCli('api-keys', 'create', '--tenant', ctx.tenant, '--email', ctx.bob.email, '--mode', 'live');
  assert.is(live.code, 1, 'the tenant is not verified');
  const revoked = await runCli('api-keys', 'revoke', key.id);
  assert.is(revoked.code, 0, revoked.err);
  assert.is((await withKey(ctx, key.secret)('GET', '/v1/events')).status, 401);
  assert.is((await runCli('api-keys', 'revoke', 'key_nope')).code, 2);
});

test.run();
