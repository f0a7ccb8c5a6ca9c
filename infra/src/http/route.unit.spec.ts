import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { UnauthorizedError } from '@cagnotte/domain';
import { createLogger } from '../logger';
import { createBaseApp, newRouter } from './app';
import type { IdempotencyStore } from './idempotency';
import type { RateLimiter } from './rate-limit';
import { defineRoute, mountRoutes, routePathOf, type HttpKit, type RouteDef, type TenantRef } from './route';

const TENANT: TenantRef = { id: '00000000-0000-4000-8000-000000000001', slug: 'acme', name: 'Acme', whiteLabel: true, approvedOrigins: [] };

/** The kit without storage: no session is valid, one tenant, no limits; these routes are not idempotent. */
const kit: HttpKit = {
  authenticator: {
    authenticate: () => Promise.reject(new UnauthorizedError('Invalid or expired token', 'invalid_token')),
  },
  tenants: { bySlug: async (slug) => (slug === TENANT.slug ? TENANT : null), byId: async (id) => (id === TENANT.id ? TENANT : null) },
  rateLimiter: { hit: async () => undefined } as unknown as RateLimiter,
  idempotency: null as unknown as IdempotencyStore,
  defaultTenantSlug: TENANT.slug,
};

const route = (method: RouteDef['method'], path: string, answer: (p: Record<string, string>) => unknown, status = 200) =>
  defineRoute({
    method,
    path,
    summary: path,
    tags: ['spec'],
    auth: 'optional',
    params: z.record(z.string(), z.string()),
    success: { status, description: '', schema: null },
    errors: [],
    handler: async (ctx) => ({ data: { ...(answer(ctx.params as Record<string, string>) as object), route: routePathOf(ctx.req) } }),
  });

const routes: RouteDef[] = [
  route('get', '/api/things/mine', () => ({ mine: true })),
  route('get', '/api/things/{id}', (p) => ({ id: p.id })),
  route('get', '/api/things/{id}/parts/{partId}', (p) => ({ id: p.id, partId: p.partId })),
  route('post', '/api/things/{id}', (p) => ({ posted: p.id }), 201),
  route('delete', '/api/things/{id}', () => ({}), 204),
];

let server: Server;
let base = '';
const call = (method: string, path: string, headers: Record<string, string> = {}) => fetch(`${base}${path}`, { method, headers });
type Envelope = { data: Record<string, unknown>; code?: string };
const envelope = async (res: Response | Promise<Response>) => (await (await res).json()) as Envelope;

const test = suite('route kit: matching and answers');

test.before(async () => {
  const app = createBaseApp({ logger: createLogger('silent'), bodyLimitBytes: 10_000, trustProxy: false }, (a) => {
    const router = newRouter();
    mountRoutes(router, kit, routes);
    a.use(router);
  });
  server = await new Promise<Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

test.after(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

test('a JSON answer is the envelope, serialised once: its length, its type, no ETag', async () => {
  const res = await call('GET', '/api/things/42');
  const text = await res.text();
  assert.is(res.status, 200);
  assert.equal(JSON.parse(text), { success: true, data: { id: '42', route: '/api/things/:id' } });
  assert.is(res.headers.get('content-type'), 'application/json; charset=utf-8');
  assert.is(res.headers.get('content-length'), String(Buffer.byteLength(text)));
  assert.is(res.headers.get('etag'), null, 'every answer is no-store: nothing to revalidate');
  assert.is(res.headers.get('cache-control'), 'no-store');
  assert.ok(res.headers.get('x-request-id'));
});

test('the first route that matches answers, in the order given; parameters are decoded', async () => {
  assert.equal((await envelope(call('GET', '/api/things/mine'))).data, { mine: true, route: '/api/things/mine' });
  assert.equal((await envelope(call('GET', '/api/things/a%20b/parts/c'))).data, { id: 'a b', partId: 'c', route: '/api/things/:id/parts/:partId' });
  assert.equal((await envelope(call('GET', '/api/things/7/'))).data.id, '7', 'a trailing slash is allowed');
  assert.equal((await envelope(call('POST', '/api/things/7'))).data.posted, '7');
  const malformed = await call('GET', '/api/things/%E0%A4%A');
  assert.is(malformed.status, 400);
  assert.is((await envelope(malformed)).code, 'bad_request');
});

test('no route: another method, another case, a longer path are 404 route_not_found', async () => {
  for (const [method, path] of [['PATCH', '/api/things/1'], ['GET', '/API/things/1'], ['GET', '/api/things/1/parts'], ['GET', '/api/things//x']] as const) {
    const res = await call(method, path);
    assert.is(res.status, 404, `${method} ${path}`);
    assert.is((await envelope(res)).code, 'route_not_found');
  }
});

test('HEAD answers as GET without a body; OPTIONS names the methods; 204 has no body', async () => {
  const head = await call('HEAD', '/api/things/9');
  assert.is(head.status, 200);
  assert.is(await head.text(), '');
  assert.ok(Number(head.headers.get('content-length')) > 0);
  const options = await call('OPTIONS', '/api/things/9');
  assert.is(options.status, 200);
  assert.is(options.headers.get('allow'), 'DELETE, GET, HEAD, POST');
  const deleted = await call('DELETE', '/api/things/9');
  assert.is(deleted.status, 204);
  assert.is(await deleted.text(), '');
  assert.is(deleted.headers.get('content-type'), null);
});

test.run();
