import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type TestApi } from './harness';

const test = suite<{ api: TestApi }>('OpenAPI document and reference page');

test.before(async (ctx) => {
  ctx.api = await startApi();
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

const CONTRACT: Array<[string, string]> = [
  ['post', '/api/auth/login/password'],
  ['post', '/api/auth/logout'],
  ['get', '/api/auth/me'],
  ['get', '/api/merchant/pools'],
  ['post', '/api/merchant/pools'],
  ['get', '/api/merchant/pools/{id}'],
  ['patch', '/api/merchant/pools/{id}'],
  ['get', '/api/pools'],
  ['post', '/api/pools'],
  ['get', '/api/pools/{id}'],
  ['patch', '/api/pools/{id}'],
  ['post', '/api/pools/{id}/archive'],
  ['delete', '/api/pools/{id}/archive'],
  ['get', '/api/merchant/profile'],
  ['get', '/api/tenant/merchants'],
  ['get', '/api/tenant/group-buys'],
  ['get', '/api/tenant/search'],
  ['post', '/api/tenant/pilot-requests'],
];

test('GET /openapi.json is OpenAPI 3.1 with every implemented contract path, its statuses and the envelope', async ({ api }) => {
  const res = await api.call('GET', '/openapi.json');
  assert.is(res.status, 200);
  const doc = res.body;
  assert.is(doc.openapi, '3.1.0');
  for (const [method, path] of CONTRACT) {
    const op = doc.paths[path]?.[method];
    assert.ok(op, `${method.toUpperCase()} ${path} documented`);
    assert.ok(Object.keys(op.responses).length >= 1);
  }
  const create = doc.paths['/api/pools'].post;
  for (const status of ['201', '400', '401', '403']) assert.ok(create.responses[status], `POST /api/pools documents ${status}`);
  assert.ok(create.requestBody.content['application/json'].schema);
  const login = doc.paths['/api/auth/login/password'].post;
  assert.ok(login.responses['429'].headers['Retry-After']);
  const list = doc.paths['/api/merchant/pools'].get;
  const params = list.parameters.map((p: { name: string }) => p.name);
  for (const name of ['page', 'limit', 'type', 'status', 'archived', 'x-service-tenant']) assert.ok(params.includes(name), `parameter ${name}`);
  const search = doc.paths['/api/tenant/search'].get;
  const searchParams = search.parameters.map((p: { name: string }) => p.name);
  for (const name of ['q', 'limit', 'type', 'lat', 'lng', 'postal_code', 'radius']) assert.ok(searchParams.includes(name), `search parameter ${name}`);
  assert.ok(search.responses['429'] && search.responses['400']);
  assert.ok(doc.paths['/api/tenant/pilot-requests'].post.responses['201']);
  assert.ok(doc.components.schemas.Error, 'the error envelope is the Error component');
  assert.ok(doc.components.securitySchemes.bearerAuth);
  // Every operation resolves X-Service-Tenant (a slug naming no tenant is a 404 tenant_not_found): each lists the header
  // and the 404, the reservation included; logout and the probes (/livez, /readyz) alone ignore what they are sent.
  const undocumented: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths as Record<string, Record<string, { parameters?: Array<{ name: string; in: string }>; responses: Record<string, unknown> }>>)) {
    for (const [method, op] of Object.entries(ops)) {
      if (path === '/api/auth/logout' || path === '/livez' || path === '/readyz') continue;
      const header = (op.parameters ?? []).some((p) => p.in === 'header' && p.name === 'x-service-tenant');
      if (!header || !op.responses['404']) undocumented.push(`${method.toUpperCase()} ${path}`);
    }
  }
  assert.equal(undocumented, [], 'operations missing X-Service-Tenant or its 404');
});

test('GET /docs serves a readable reference page without external assets', async ({ api }) => {
  const res = await fetch(`${api.url}/docs/`);
  assert.is(res.status, 200);
  const html = await res.text();
  assert.match(html, /swagger-ui/i);
  assert.not.match(html, /https?:\/\/(?:cdn|unpkg)/);
});

test.run();
