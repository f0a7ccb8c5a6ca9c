/**
 * What /docs shows a partner (the document every server serves at /openapi.json): an example on every JSON request
 * body and 2xx JSON answer, each accepted by its own schema, no amount "string" nor quantity 0, and X-Service-Tenant
 * listed on every operation that resolves a tenant (example-audit.ts). Built from the real route definitions.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServices, loadConfig, operationIdOf, probeRoutes, type OpenApiDocument, type RouteDef, type Services } from '@cagnotte/infra';
import { allRoutes, buildApiDocument } from './document';
import { auditExamples, describeFinding } from './example-audit';

const test = suite<{ services: Services; routes: RouteDef[]; doc: OpenApiDocument }>('OpenAPI examples as /docs shows them');

test.before(async (ctx) => {
  ctx.services = await createServices({ ...loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), PORT: 0, HOST: '127.0.0.1' }, { migrate: false });
  ctx.routes = [...probeRoutes(ctx.services, []), ...allRoutes(ctx.services)];
  ctx.doc = buildApiDocument(ctx.services);
});
test.after(async (ctx) => ctx.services.close());

// route.ts (mountRoutes): every route resolves X-Service-Tenant (404 `tenant_not_found` for an unknown slug) unless it ignores its input.
const tenantScoped = (routes: RouteDef[]) => new Set(routes.filter((def) => !def.ignoresInput).map(operationIdOf));

test('every operation: examples on its JSON bodies and answers, valid, realistic; X-Service-Tenant where a tenant is resolved', ({ doc, routes }) => {
  const findings = auditExamples(doc, { tenantScoped: tenantScoped(routes) });
  assert.equal(findings.map(describeFinding), [], `${findings.length} problem(s)`);
});

test('the reservation operations list X-Service-Tenant and show a reservation with decimal amounts and whole units', ({ doc }) => {
  const reservations = Object.entries(doc.paths ?? {}).filter(([path]) => path.startsWith('/api/pools/{id}/reservations'));
  assert.ok(reservations.length >= 6, `${reservations.length} reservation paths`);
  for (const [path, ops] of reservations) {
    for (const [method, o] of Object.entries(ops)) {
      const headers = ((o as { parameters?: Array<{ in: string; name: string }> }).parameters ?? []).filter((p) => p.in === 'header').map((p) => p.name);
      assert.ok(headers.includes('x-service-tenant'), `${method.toUpperCase()} ${path}: ${headers.join(', ')}`);
    }
  }
  type Media = { content: { 'application/json': { example: { data: { lines: Array<{ quantity: number; unitPrice: string }>; amount: string } } } } };
  const reserve = doc.paths!['/api/pools/{id}/reservations']!.post as { responses: Record<string, Media> };
  const example = reserve.responses['201']!.content['application/json'].example;
  assert.ok(example.data.lines[0]!.quantity >= 1, JSON.stringify(example));
  assert.match(example.data.lines[0]!.unitPrice, /^\d+\.\d{2}$/);
  assert.match(example.data.amount, /^\d+\.\d{2}$/);
});

test.run();
