import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { grantAuditor, makeCommandRoutes, type WebhookDeliveryScheduler } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { WebhookKeyring, createApiServer, signDelivery, verifyEd25519Delivery, webhookEncryptionKey, type Resolver, type Services } from '@cagnotte/infra';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';
import { TenantReadModel } from '@cagnotte/read-models';
import { API_INFO } from '../src/api';
import { call, listen, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';

/**
 * The webhook endpoints API through HTTP, the way a partner's back office drives it: create (the secret once), list,
 * read, change, delete; who sees which endpoint; what is refused and why; rotating a secret; the tenant's signing key;
 * the sandbox inbox. The delivery side is not in this branch: the test and recover routes run against a recording
 * scheduler (the port they take), injected here only.
 */

/** What the routes asked the delivery side. */
const recordingScheduler = () => {
  const calls: Array<{ kind: 'test' | 'recover'; endpointId: string; since?: Date; until?: Date }> = [];
  const scheduler: WebhookDeliveryScheduler = {
    async scheduleTest(endpoint) {
      calls.push({ kind: 'test', endpointId: endpoint.id });
      return { eventId: `evt_test_${calls.length}` };
    },
    async scheduleRecovery(endpoint, since, until) {
      calls.push({ kind: 'recover', endpointId: endpoint.id, since, until });
      return { scheduled: 3 };
    },
  };
  return { scheduler, calls };
};

/** DNS as the production spec sees it. */
const resolver: Resolver = async (host) => {
  const answers: Record<string, string> = { 'hooks.partner.example': '93.184.216.34', 'rebind.partner.example': '10.0.0.7', 'meta.partner.example': '169.254.169.254' };
  const address = answers[host];
  if (!address) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
  return [{ address, family: 4 }];
};

/** The app as the embedded default serves it, with a delivery scheduler and DNS of the spec's. */
const serve = async (api: TestApi, services: Services, o: { delivery?: WebhookDeliveryScheduler } = {}): Promise<string> => {
  const app = createApiServer({
    services,
    tenants: new TenantReadModel(services.knex),
    routes: [...makeCommandRoutes({ services, webhookResolver: resolver, ...(o.delivery ? { webhookDelivery: o.delivery } : {}) }), ...makeQueryRoutes({ services })],
    projections: api.runner.names,
    info: API_INFO,
  });
  const { server, url } = await listen(app);
  onTestTeardown(async () => {
    await new Promise<void>((r) => server.close(() => r()));
    server.closeAllConnections?.();
  });
  return url;
};

interface Ctx {
  api: TestApi;
  url: string;
  calls: ReturnType<typeof recordingScheduler>['calls'];
  tenant: string;
  tenantId: string;
  ana: TestUser;
  bob: TestUser;
  auditor: TestUser;
  buyer: TestUser;
  other: { tenant: string; auditor: TestUser };
}

const test = suite<Ctx>('webhook endpoints API (sandbox)');

const meta = () => ({ actor: { kind: 'operator' as const, id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
const makeAuditor = async (api: TestApi, tenant: string): Promise<TestUser> => {
  const user = await api.user(tenant, { name: 'Audrey' });
  const granted = await grantAuditor(api.services, { slug: tenant, userId: user.id }, meta());
  await api.runner.catchUp(granted.position!);
  return user;
};

test.before(async (ctx) => {
  ctx.api = await startApi();
  const { scheduler, calls } = recordingScheduler();
  ctx.calls = calls;
  ctx.url = await serve(ctx.api, ctx.api.services, { delivery: scheduler });
  const t = await ctx.api.tenant();
  ctx.tenant = t.slug;
  ctx.tenantId = t.id;
  ctx.ana = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Ana' });
  ctx.bob = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Bob' });
  ctx.buyer = await ctx.api.user(t.slug, { name: 'Buyer' });
  ctx.auditor = await makeAuditor(ctx.api, t.slug);
  const other = await ctx.api.tenant();
  ctx.other = { tenant: other.slug, auditor: await makeAuditor(ctx.api, other.slug) };
});

test.after(async (ctx) => ctx.api.stop());

type Envelope = { success: boolean; data: any; code?: string; errors?: Record<string, string[]> };
const as =
  (ctx: Ctx, user: TestUser | null, base = ctx.url) =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<Envelope>> =>
    call<Envelope>(base, method, path, { ...(user ? { token: user.token, tenant: user.tenant } : {}), ...(body === undefined ? {} : { body }), headers });

const create = async (ctx: Ctx, user: TestUser, body: Record<string, unknown> = {}) => {
  const res = await as(ctx, user)('POST', '/v1/webhooks', { url: 'https://hooks.partner.example/in', enabledEvents: ['reservation.*', 'payout.settled'], ...body });
  assert.is(res.status, 201, res.text);
  return res.body.data as { id: string; secret: string; [k: string]: unknown };
};

test('given an organiser, when they create an endpoint, then it is 201 with a we_ id and its whsec_ secret, shown once: never in GET or the list', async (ctx) => {
  const res = await as(ctx, ctx.ana)('POST', '/v1/webhooks', {
    url: 'https://hooks.partner.example/in',
    enabledEvents: ['reservation.*', 'payout.settled', 'payout.settled'],
    description: 'orders',
    metadata: { team: 'ops' },
    ordering: 'per_subject',
  });
  assert.is(res.status, 201, res.text);
  const created = res.body.data;
  assert.match(created.id, /^we_[0-9a-f]{32}$/);
  assert.match(created.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.equal(
    [created.url, created.enabledEvents, created.description, created.metadata, created.ordering, created.status, created.scope, created.ownerId],
    ['https://hooks.partner.example/in', ['reservation.*', 'payout.settled'], 'orders', { team: 'ops' }, 'per_subject', 'enabled', 'owner', ctx.ana.id],
  );
  const got = await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}`);
  assert.is(got.status, 200, got.text);
  assert.not.ok('secret' in got.body.data);
  assert.not.ok(got.text.includes(created.secret.slice(6)), 'the secret never comes back');
  assert.equal({ ...got.body.data }, (({ secret: _s, ...rest }) => rest)(created));
  const list = await as(ctx, ctx.ana)('GET', '/v1/webhooks');
  assert.is(list.status, 200);
  assert.ok(list.body.data.items.some((e: { id: string }) => e.id === created.id));
  assert.not.ok(list.text.includes(created.secret.slice(6)));
  // Stored encrypted, not in clear.
  const stored = JSON.stringify(await ctx.api.services.knex('webhook_secrets').where({ endpoint_id: created.id }));
  assert.not.ok(stored.includes(created.secret.slice(6)));
});

test('given an endpoint, when it is changed, disabled, re-enabled and deleted, then each answer shows it, and once deleted it is gone from GET and the list', async (ctx) => {
  const created = await create(ctx, ctx.ana);
  const patch = await as(ctx, ctx.ana)('PATCH', `/v1/webhooks/${created.id}`, { enabledEvents: ['*'], description: null, metadata: { a: '1' }, url: 'https://hooks.partner.example/v2' });
  assert.is(patch.status, 200, patch.text);
  assert.equal([patch.body.data.enabledEvents, patch.body.data.description, patch.body.data.metadata, patch.body.data.url], [['*'], null, { a: '1' }, 'https://hooks.partner.example/v2']);
  const off = await as(ctx, ctx.ana)('PATCH', `/v1/webhooks/${created.id}`, { status: 'disabled' });
  assert.equal([off.body.data.status, off.body.data.disabledReason], ['disabled', 'manual']);
  const on = await as(ctx, ctx.ana)('PATCH', `/v1/webhooks/${created.id}`, { status: 'enabled' });
  assert.equal([on.body.data.status, on.body.data.disabledReason, on.body.data.recovery], ['enabled', null, undefined], 'a manual disable offers no recovery');
  const del = await as(ctx, ctx.ana)('DELETE', `/v1/webhooks/${created.id}`);
  assert.is(del.status, 204, del.text);
  assert.is((await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}`)).status, 404);
  assert.is((await as(ctx, ctx.ana)('DELETE', `/v1/webhooks/${created.id}`)).status, 404);
  assert.not.ok((await as(ctx, ctx.ana)('GET', '/v1/webhooks?limit=100')).body.data.items.some((e: { id: string }) => e.id === created.id));
  assert.is((await ctx.api.services.knex('webhook_secrets').where({ endpoint_id: created.id })).length, 0, 'its secrets are erased');
});

test('given endpoints of two organisers and of the tenant, when each principal reaches for the others, then another owner’s, another scope’s and another tenant’s endpoint is a 404', async (ctx) => {
  const anas = await create(ctx, ctx.ana);
  const tenantWide = await create(ctx, ctx.auditor);
  assert.equal([tenantWide.scope, tenantWide.ownerId], ['tenant', null]);
  const reach = async (user: TestUser | null, id: string) => {
    const act = as(ctx, user);
    return [
      (await act('GET', `/v1/webhooks/${id}`)).status,
      (await act('GET', `/v1/webhooks/${id}/attempts`)).status,
      (await act('PATCH', `/v1/webhooks/${id}`, { description: 'mine now' })).status,
      (await act('POST', `/v1/webhooks/${id}/rotate-secret`, {})).status,
      (await act('POST', `/v1/webhooks/${id}/test`)).status,
      (await act('POST', `/v1/webhooks/${id}/recover`, { since: new Date(Date.now() - 60_000).toISOString() })).status,
      (await act('DELETE', `/v1/webhooks/${id}`)).status,
    ];
  };
  const notFound = [404, 404, 404, 404, 404, 404, 404];
  assert.equal(await reach(ctx.bob, anas.id), notFound, 'another organiser');
  assert.equal(await reach(ctx.auditor, anas.id), notFound, 'the auditor does not manage an organiser’s own endpoint');
  assert.equal(await reach(ctx.ana, tenantWide.id), notFound, 'an organiser does not manage the tenant’s');
  assert.equal(await reach(ctx.buyer, anas.id), notFound, 'a buyer is no principal');
  assert.equal(await reach(ctx.other.auditor, tenantWide.id), notFound, 'another tenant’s auditor');
  // Another tenant's auditor naming this tenant in X-Service-Tenant is nobody here.
  const cross = await call<Envelope>(ctx.url, 'GET', `/v1/webhooks/${tenantWide.id}`, { token: ctx.other.auditor.token, tenant: ctx.tenant });
  assert.is(cross.status, 404);
  assert.is(cross.body.code, 'webhook_endpoint_not_found');
  assert.is((await as(ctx, null)('GET', '/v1/webhooks')).status, 401);
  assert.is((await as(ctx, ctx.buyer)('POST', '/v1/webhooks', { url: 'https://hooks.partner.example/in', enabledEvents: ['*'] })).status, 404);
  // Lists: each sees its own scope only.
  const ids = async (u: TestUser) => (await as(ctx, u)('GET', '/v1/webhooks?limit=100')).body.data.items.map((e: { id: string }) => e.id) as string[];
  assert.ok((await ids(ctx.ana)).includes(anas.id));
  assert.not.ok((await ids(ctx.ana)).includes(tenantWide.id));
  assert.not.ok((await ids(ctx.bob)).includes(anas.id));
  assert.ok((await ids(ctx.auditor)).includes(tenantWide.id));
  assert.not.ok((await ids(ctx.auditor)).includes(anas.id));
  assert.equal(await ids(ctx.other.auditor), []);
  // Nothing changed: the endpoints are as their owners left them.
  assert.is((await as(ctx, ctx.ana)('GET', `/v1/webhooks/${anas.id}`)).body.data.description, null);
  assert.equal(ctx.calls.filter((c) => c.endpointId === anas.id || c.endpointId === tenantWide.id), [], 'nothing was scheduled for them');
});

test('given invalid input, when creating or changing, then it is a 400 with per-field errors', async (ctx) => {
  const post = (body: unknown) => as(ctx, ctx.ana)('POST', '/v1/webhooks', body);
  const errorsOf = async (body: unknown) => {
    const res = await post(body);
    assert.is(res.status, 400, res.text);
    assert.is(res.body.code, 'validation_failed');
    return res.body.errors!;
  };
  let e = await errorsOf({ url: 'ftp://hooks.partner.example/', enabledEvents: ['*'] });
  assert.match(e.url!.join(), /https/);
  e = await errorsOf({ url: 'not a url', enabledEvents: ['*'] });
  assert.match(e.url!.join(), /valid absolute URL/);
  e = await errorsOf({ url: 'http://hooks.partner.example/in', enabledEvents: ['*'] });
  assert.match(e.url!.join(), /https:\/\/ \(the sandbox allows http:\/\/ only to localhost/);
  e = await errorsOf({ url: `https://hooks.partner.example/${'x'.repeat(2048)}`, enabledEvents: ['*'] });
  assert.ok(e.url);
  e = await errorsOf({ url: 'https://user:pw@hooks.partner.example/', enabledEvents: ['*'] });
  assert.match(e.url!.join(), /user name or password/);
  e = await errorsOf({ url: 'https://hooks.partner.example/', enabledEvents: ['reservation.paid', 'reservation.payed', 'reservaton.*', 'pool.*'] });
  assert.equal(Object.keys(e).sort(), ['enabledEvents.1', 'enabledEvents.2']);
  assert.match(e['enabledEvents.1']!.join(), /unknown event type 'reservation.payed'/);
  e = await errorsOf({ url: 'https://hooks.partner.example/', enabledEvents: [] });
  assert.ok(e.enabledEvents);
  e = await errorsOf({ url: 'https://hooks.partner.example/', enabledEvents: new Array(101).fill('*') });
  assert.match(e.enabledEvents!.join(), /at most 100/);
  e = await errorsOf({
    url: 'https://hooks.partner.example/',
    enabledEvents: ['*'],
    description: 'd'.repeat(501),
    metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])),
    ordering: 'fifo',
    extra: 1,
  });
  assert.equal(Object.keys(e).sort(), ['description', 'extra', 'metadata', 'ordering']);
  e = await errorsOf({ enabledEvents: ['*'] });
  assert.equal(e.url, ['required']);
  // Changing: the same rules, and something to change.
  const created = await create(ctx, ctx.ana);
  const patch = (body: unknown) => as(ctx, ctx.ana)('PATCH', `/v1/webhooks/${created.id}`, body);
  assert.is((await patch({})).status, 400);
  const badUrl = await patch({ url: 'http://169.254.169.254/latest/meta-data' });
  assert.is(badUrl.status, 400);
  assert.ok(badUrl.body.errors?.url);
  assert.ok((await patch({ enabledEvents: ['nope'] })).body.errors?.['enabledEvents.0']);
  assert.ok((await patch({ status: 'paused' })).body.errors?.status);
  assert.is((await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/rotate-secret`, { expiresInSeconds: 604_801 })).status, 400);
  assert.is((await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}`)).body.data.url, 'https://hooks.partner.example/in', 'nothing changed');
});

test('given the sandbox, when the URL is http://localhost or 127.0.0.1, then it is allowed; a private or link-local address (the cloud metadata one) is a 400 there too', async (ctx) => {
  for (const url of ['http://localhost:4000/hook', 'http://127.0.0.1:4000/hook', 'https://127.0.0.1:8443/hook']) {
    const res = await as(ctx, ctx.ana)('POST', '/v1/webhooks', { url, enabledEvents: ['*'] });
    assert.is(res.status, 201, `${url}: ${res.text}`);
    await as(ctx, ctx.ana)('DELETE', `/v1/webhooks/${res.body.data.id}`);
  }
  for (const url of ['https://192.168.1.20/hook', 'https://169.254.169.254/latest/meta-data/', 'https://10.0.0.7/hook', 'http://169.254.169.254/']) {
    const res = await as(ctx, ctx.ana)('POST', '/v1/webhooks', { url, enabledEvents: ['*'] });
    assert.is(res.status, 400, `${url}: ${res.text}`);
    assert.ok(res.body.errors?.url, url);
  }
});

test('given a Host header the caller wrote, when the URL names that host as the sandbox inbox, then it is still a private address: a 400 (the inbox is where the service listens, not what the request says)', async (ctx) => {
  const { request } = await import('node:http');
  const target = new URL(ctx.url);
  const body = JSON.stringify({ url: 'http://10.0.0.9/sandbox/webhook-inbox/ibx_forged', enabledEvents: ['*'] });
  const status = await new Promise<number>((resolve, reject) => {
    const req = request(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path: '/v1/webhooks',
        headers: { host: '10.0.0.9', 'content-type': 'application/json', authorization: `Bearer ${ctx.ana.token}`, 'x-service-tenant': ctx.ana.tenant, 'idempotency-key': randomUUID() },
      },
      (res) => (res.resume(), res.on('end', () => resolve(res.statusCode ?? 0))),
    );
    req.on('error', reject);
    req.end(body);
  });
  assert.is(status, 400);
});

test('given a rotation, when the old secret has not expired, then both secrets sign (both verify with standardwebhooks), and after its expiry only the new one', async (ctx) => {
  const created = await create(ctx, ctx.ana);
  const rotated = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/rotate-secret`, { expiresInSeconds: 3600 });
  assert.is(rotated.status, 200, rotated.text);
  const { secret, previousSecretsExpireAt } = rotated.body.data;
  assert.match(secret, /^whsec_/);
  assert.is.not(secret, created.secret);
  const expiresAt = Date.parse(previousSecretsExpireAt);
  assert.ok(Math.abs(expiresAt - (Date.now() + 3600_000)) < 60_000, previousSecretsExpireAt);
  const keyring = new WebhookKeyring(ctx.api.services.knex, webhookEncryptionKey(ctx.api.services.config.WEBHOOK_ENCRYPTION_KEY));
  const active = await keyring.activeSecrets(created.id, new Date());
  assert.equal(active, [secret, created.secret], 'two secrets active, the newest first');
  const body = JSON.stringify({ id: 'evt_x', type: 'payout.settled' });
  const headers = signDelivery({ id: 'evt_x', timestamp: Math.floor(Date.now() / 1000), body, secrets: active });
  assert.ok(new Webhook(created.secret).verify(body, { ...headers }));
  assert.ok(new Webhook(secret).verify(body, { ...headers }));
  assert.equal(await keyring.activeSecrets(created.id, new Date(expiresAt + 1000)), [secret], 'the old one expires');
  // Rotating with 0 stops the previous ones at once.
  const now = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/rotate-secret`, { expiresInSeconds: 0 });
  assert.equal(await keyring.activeSecrets(created.id, new Date(Date.now() + 1000)), [now.body.data.secret]);
  // The GET shows none of them.
  const got = await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}`);
  for (const s of [created.secret, secret, now.body.data.secret]) assert.not.ok(got.text.includes(s.slice(6)));
});

test('given an Idempotency-Key, when a creation is retried, then the same endpoint comes back (one endpoint), without its secret', async (ctx) => {
  const key = randomUUID();
  const body = { url: 'https://hooks.partner.example/idem', enabledEvents: ['pool.*'] };
  const first = await as(ctx, ctx.ana)('POST', '/v1/webhooks', body, { 'idempotency-key': key });
  const again = await as(ctx, ctx.ana)('POST', '/v1/webhooks', body, { 'idempotency-key': key });
  assert.is(first.status, 201, first.text);
  assert.is(again.status, 201, again.text);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.is(again.body.data.id, first.body.data.id);
  assert.match(first.body.data.secret, /^whsec_/);
  assert.is(again.body.data.secret, undefined, 'a kept answer holds no secret');
  const kept = JSON.stringify(await ctx.api.services.knex('idempotency_keys').where({ key }));
  assert.not.ok(kept.includes(first.body.data.secret.slice(6)));
  const mine = (await as(ctx, ctx.ana)('GET', '/v1/webhooks?limit=100')).body.data.items.filter((e: { url: string }) => e.url === 'https://hooks.partner.example/idem');
  assert.is(mine.length, 1);
});

test('given the tenant’s signing key, when principals of the tenant ask, then they get one whpk_ ed25519 key that verifies v1a signatures; another tenant has another', async (ctx) => {
  const a = await as(ctx, ctx.ana)('GET', '/v1/webhooks/signing-key');
  assert.is(a.status, 200, a.text);
  assert.equal(a.body.data.algorithm, 'ed25519');
  assert.match(a.body.data.publicKey, /^whpk_[A-Za-z0-9+/]{43}=$/);
  assert.is((await as(ctx, ctx.auditor)('GET', '/v1/webhooks/signing-key')).body.data.publicKey, a.body.data.publicKey);
  const other = await as(ctx, ctx.other.auditor)('GET', '/v1/webhooks/signing-key');
  assert.is.not(other.body.data.publicKey, a.body.data.publicKey);
  assert.is((await as(ctx, ctx.buyer)('GET', '/v1/webhooks/signing-key')).status, 404);
  const keyring = new WebhookKeyring(ctx.api.services.knex, webhookEncryptionKey(ctx.api.services.config.WEBHOOK_ENCRYPTION_KEY));
  const body = '{"type":"pool.closed"}';
  const headers = signDelivery({ id: 'evt_y', timestamp: Math.floor(Date.now() / 1000), body, secrets: [], ed25519: (await keyring.signingKey(ctx.tenantId)).privateKey });
  assert.ok(verifyEd25519Delivery({ headers, body, publicKey: a.body.data.publicKey }));
  assert.not.ok(verifyEd25519Delivery({ headers, body, publicKey: other.body.data.publicKey }));
});

test('given an endpoint, when a test or a recovery is asked, then the delivery side is asked with the endpoint and the window; a bad window is a 400', async (ctx) => {
  const created = await create(ctx, ctx.ana);
  const t = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/test`);
  assert.is(t.status, 202, t.text);
  assert.match(t.body.data.eventId, /^evt_test_/);
  const since = new Date(Date.now() - 3600_000).toISOString();
  const r = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/recover`, { since });
  assert.is(r.status, 202, r.text);
  assert.equal([r.body.data.scheduled, r.body.data.since], [3, since]);
  const mine = ctx.calls.filter((c) => c.endpointId === created.id);
  assert.equal(mine.map((c) => c.kind), ['test', 'recover']);
  assert.is(mine[1]!.since!.toISOString(), since);
  assert.ok(Math.abs(mine[1]!.until!.getTime() - Date.now()) < 60_000, 'until defaults to now');
  const bad = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/recover`, { since: new Date(Date.now() + 3600_000).toISOString() });
  assert.is(bad.status, 400);
  assert.ok(bad.body.errors?.since);
  assert.ok((await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/recover`, { since: 'yesterday' })).body.errors?.since);
  await as(ctx, ctx.ana)('PATCH', `/v1/webhooks/${created.id}`, { status: 'disabled' });
  const disabled = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/test`);
  assert.equal([disabled.status, disabled.body.code], [400, 'webhook_endpoint_disabled']);
  assert.is(ctx.calls.filter((c) => c.endpointId === created.id).length, 2);
});

test('given an endpoint the delivery side disabled for failures, when it is re-enabled, then the answer offers the missed window to recover', async (ctx) => {
  const created = await create(ctx, ctx.ana);
  const failingSince = new Date(Date.now() - 6 * 86_400_000);
  await ctx.api.services.knex('webhook_endpoints').where({ id: created.id }).update({ status: 'disabled', disabled_reason: 'failing', disabled_at: new Date(Date.now() - 86_400_000), failing_since: failingSince });
  const got = await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}`);
  assert.equal([got.body.data.status, got.body.data.disabledReason, got.body.data.failingSince], ['disabled', 'failing', failingSince.toISOString()]);
  const on = await as(ctx, ctx.ana)('PATCH', `/v1/webhooks/${created.id}`, { status: 'enabled' });
  assert.is(on.status, 200, on.text);
  assert.equal([on.body.data.status, on.body.data.failingSince, on.body.data.recovery?.since], ['enabled', null, failingSince.toISOString()]);
  const r = await as(ctx, ctx.ana)('POST', `/v1/webhooks/${created.id}/recover`, on.body.data.recovery);
  assert.is(r.status, 202, r.text);
});

test('given attempts recorded by the delivery side, when listed, then they come newest first, paged, with a 1 KB excerpt at most', async (ctx) => {
  const created = await create(ctx, ctx.ana);
  const knex = ctx.api.services.knex;
  for (let i = 1; i <= 5; i++) {
    await knex('webhook_attempts').insert({ endpoint_id: created.id, event_id: `evt_${i}`, attempt: 1, trigger: 'event', status_code: i === 3 ? null : 200, latency_ms: 10 * i, error: i === 3 ? 'timeout after 15000 ms' : null, response_excerpt: 'x'.repeat(1024) });
  }
  const page1 = await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}/attempts?limit=2`);
  assert.is(page1.status, 200, page1.text);
  assert.equal(page1.body.data.items.map((a: { eventId: string }) => a.eventId), ['evt_5', 'evt_4']);
  assert.equal([page1.body.data.pagination.total, page1.body.data.pagination.hasNext], [5, true]);
  const page2 = await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}/attempts?limit=2&page=2`);
  const timeout = page2.body.data.items.find((a: { eventId: string }) => a.eventId === 'evt_3');
  assert.equal([timeout.statusCode, timeout.error, timeout.latencyMs], [null, 'timeout after 15000 ms', 30]);
  assert.is(timeout.responseExcerpt.length, 1024);
  assert.is((await as(ctx, ctx.ana)('GET', `/v1/webhooks/${created.id}/attempts?limit=0`)).status, 400);
});

test('given the public feed has events, when an endpoint is created, then it starts after the feed’s head (by position, as numbers)', async (ctx) => {
  const knex = ctx.api.services.knex;
  // A public event of a tenant of its own, placed before anything real (xid8 1): the head is whatever is highest.
  await knex.raw(
    `INSERT INTO rm_public_events (commit_position, prepare_position, idx, id, tenant_id, type, subject, sequence, api_version, created_at, data)
     VALUES ('1'::xid8, 0, 0, ?, ?, 'pool.published', 'p', 0, '2026-11-01', now(), '{}') ON CONFLICT DO NOTHING`,
    [`evt_${randomUUID().replaceAll('-', '')}`, randomUUID()],
  );
  const head = (
    await knex.raw(`SELECT commit_position::text AS commit_text, prepare_position, idx FROM rm_public_events ORDER BY commit_position DESC, prepare_position DESC, idx DESC LIMIT 1`)
  ).rows[0];
  const created = await create(ctx, ctx.ana);
  const row = (await knex.raw(`SELECT from_commit::text AS commit_text, from_prepare, from_idx FROM webhook_endpoints WHERE id = ?`, [created.id])).rows[0];
  assert.equal([row.commit_text, row.from_prepare, row.from_idx], [head.commit_text, head.prepare_position, head.idx]);
});

test('given the per-tenant limit, when one more endpoint is created, then it is a 409 until one is deleted', async (ctx) => {
  const t = await ctx.api.tenant();
  const auditor = await makeAuditor(ctx.api, t.slug);
  const max = ctx.api.services.config.WEBHOOK_MAX_ENDPOINTS_PER_TENANT;
  const ids: string[] = [];
  for (let i = 0; i < max; i++) ids.push((await create(ctx, auditor)).id);
  const over = await as(ctx, auditor)('POST', '/v1/webhooks', { url: 'https://hooks.partner.example/in', enabledEvents: ['*'] });
  assert.equal([over.status, over.body.code], [409, 'webhook_endpoint_limit']);
  await as(ctx, auditor)('DELETE', `/v1/webhooks/${ids[0]}`);
  assert.is((await as(ctx, auditor)('POST', '/v1/webhooks', { url: 'https://hooks.partner.example/in', enabledEvents: ['*'] })).status, 201);
});

test('given the sandbox inbox, when an endpoint points at it and a signed delivery arrives, then GET shows it with its headers and raw body, which standardwebhooks verifies', async (ctx) => {
  const opened = await call<Envelope>(ctx.url, 'POST', '/sandbox/webhook-inbox');
  assert.is(opened.status, 201, opened.text);
  const { token, url } = opened.body.data;
  assert.match(token, /^ibx_/);
  assert.is(url, `${ctx.url}/sandbox/webhook-inbox/${token}`);
  const endpoint = await create(ctx, ctx.ana, { url, enabledEvents: ['*'] });
  assert.is(endpoint.url, url, 'http is allowed for the inbox');
  // A delivery as the delivery side sends it: the exact bytes signed, spacing and non-ASCII included.
  const body = '{"id":"evt_1", "type":"webhook.test","data":{"note":"café ☕"}}';
  const headers = signDelivery({ id: 'evt_1', timestamp: Math.floor(Date.now() / 1000), body, secrets: [endpoint.secret] });
  const sent = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers, authorization: 'Bearer not-kept' }, body });
  assert.is(sent.status, 200, await sent.clone().text());
  await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'second' });
  const read = await call<Envelope>(ctx.url, 'GET', `/sandbox/webhook-inbox/${token}`);
  assert.is(read.status, 200, read.text);
  const [newest, first] = read.body.data.items;
  assert.is(newest.body, 'second');
  assert.is(first.body, body);
  assert.is(first.headers['webhook-id'], 'evt_1');
  assert.is(first.headers.authorization, undefined, 'credentials are not kept');
  assert.equal(new Webhook(endpoint.secret).verify(first.body, first.headers), JSON.parse(body));
  // Refusals: a token the service did not issue, a body over 64 KB.
  const forged = `ibx_${'A'.repeat(35)}`;
  assert.is((await fetch(`${ctx.url}/sandbox/webhook-inbox/${forged}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status, 404);
  assert.is((await call(ctx.url, 'GET', '/sandbox/webhook-inbox/nope')).status, 404);
  const big = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ x: 'y'.repeat(65 * 1024) }) });
  assert.is(big.status, 413);
  const bigText = await fetch(url, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'y'.repeat(65 * 1024) });
  assert.is(bigText.status, 413);
  assert.is((await call<Envelope>(ctx.url, 'GET', `/sandbox/webhook-inbox/${token}`)).body.data.items.length, 2);
});

test('given an inbox, when more than 100 deliveries arrive, then it keeps the newest 100; past 300 a minute it answers 429', async (ctx) => {
  const { url, token } = (await call<Envelope>(ctx.url, 'POST', '/sandbox/webhook-inbox')).body.data;
  for (let i = 0; i < 300; i++) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i }) });
    assert.is(res.status, 200, `delivery ${i}`);
  }
  const limited = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"i":300}' });
  assert.is(limited.status, 429);
  assert.ok(Number(limited.headers.get('retry-after')) >= 1);
  const items = (await call<Envelope>(ctx.url, 'GET', `/sandbox/webhook-inbox/${token}`)).body.data.items;
  assert.is(items.length, 100);
  assert.equal([JSON.parse(items[0].body).i, JSON.parse(items[99].body).i], [299, 200]);
});

test('the OpenAPI document serves every operation of the endpoints API and the inbox', async (ctx) => {
  const doc = (await call<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>(ctx.url, 'GET', '/openapi.json')).body;
  const ops: Array<[string, string, string]> = [
    ['post', '/v1/webhooks', '201'],
    ['get', '/v1/webhooks', '200'],
    ['get', '/v1/webhooks/{id}', '200'],
    ['patch', '/v1/webhooks/{id}', '200'],
    ['delete', '/v1/webhooks/{id}', '204'],
    ['post', '/v1/webhooks/{id}/rotate-secret', '200'],
    ['post', '/v1/webhooks/{id}/test', '202'],
    ['post', '/v1/webhooks/{id}/recover', '202'],
    ['get', '/v1/webhooks/{id}/attempts', '200'],
    ['get', '/v1/webhooks/signing-key', '200'],
    ['post', '/sandbox/webhook-inbox', '201'],
    ['post', '/sandbox/webhook-inbox/{token}', '200'],
    ['get', '/sandbox/webhook-inbox/{token}', '200'],
  ];
  for (const [method, path, status] of ops) assert.ok(doc.paths[path]?.[method]?.responses[status], `${method.toUpperCase()} ${path} ${status}`);
});

test.run();

const production = suite<{ api: TestApi; url: string; tenant: string; auditor: TestUser }>('webhook endpoints API (APP_ENV=production)');

production.before(async (ctx) => {
  ctx.api = await startApi({ APP_ENV: 'production' });
  ctx.url = await serve(ctx.api, ctx.api.services);
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.auditor = await makeAuditor(ctx.api, ctx.tenant);
});

production.after(async (ctx) => ctx.api.stop());

production('given production, when the URL is http, a private or link-local address, localhost, or a name resolving to one, then it is a 400 on url; a public https URL is 201', async (ctx) => {
  const post = (url: string) => call<Envelope>(ctx.url, 'POST', '/v1/webhooks', { token: ctx.auditor.token, tenant: ctx.tenant, body: { url, enabledEvents: ['*'] } });
  const refusals: Array<[string, RegExp]> = [
    ['http://hooks.partner.example/in', /https:\/\/ in production/],
    ['https://10.1.2.3/in', /private, loopback or link-local/],
    ['https://192.168.0.1/in', /private, loopback or link-local/],
    ['https://[::1]/in', /private, loopback or link-local/],
    ['https://[::ffff:127.0.0.1]/in', /private, loopback or link-local/],
    ['https://2130706433/in', /private, loopback or link-local/],
    ['https://0x7f.1/in', /private, loopback or link-local/],
    ['https://localhost/in', /public host/],
    ['https://rebind.partner.example/in', /resolves to 10\.0\.0\.7/],
    ['https://meta.partner.example/in', /resolves to 169\.254\.169\.254/],
    ['https://nowhere.partner.example/in', /does not resolve/],
  ];
  for (const [url, why] of refusals) {
    const res = await post(url);
    assert.is(res.status, 400, `${url}: ${res.text}`);
    assert.match(res.body.errors?.url?.join() ?? '', why, url);
  }
  const ok = await post('https://hooks.partner.example/in');
  assert.is(ok.status, 201, ok.text);
  const patched = await call<Envelope>(ctx.url, 'PATCH', `/v1/webhooks/${ok.body.data.id}`, { token: ctx.auditor.token, tenant: ctx.tenant, body: { url: 'https://rebind.partner.example/x' } });
  assert.is(patched.status, 400, 'the URL is checked again when it changes');
  // No sandbox inbox in production; a test delivery is queued like any other (the delivery checks the URL again).
  assert.is((await call(ctx.url, 'POST', '/sandbox/webhook-inbox')).status, 404);
  assert.is((await call(ctx.url, 'POST', `/v1/webhooks/${ok.body.data.id}/test`, { token: ctx.auditor.token, tenant: ctx.tenant })).status, 202);
});

production.run();

