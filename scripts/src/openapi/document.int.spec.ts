/**
 * The OpenAPI document of both apps is good enough to generate SDKs from: a unique operationId on every operation,
 * named components, a request example the route itself accepts, security and error answers stated. Built from the
 * real route definitions (their factories need the services, hence a database).
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createServices, documentedErrorCodes, loadConfig, operationIdOf, V1_ERROR_CODES, type OpenApiDocument, type RouteDef, type Services } from '@cagnotte/infra';
import { allRoutes, buildApiDocument } from './document';

const test = suite<{ services: Services; routes: RouteDef[]; doc: OpenApiDocument }>('OpenAPI document for SDKs');

test.before(async (ctx) => {
  ctx.services = await createServices({ ...loadConfig({ ...process.env, LOG_LEVEL: 'silent' }), PORT: 0, HOST: '127.0.0.1' }, { migrate: false });
  ctx.routes = allRoutes(ctx.services);
  ctx.doc = buildApiDocument(ctx.services);
});
test.after(async (ctx) => ctx.services.close());

type Op = {
  operationId?: string;
  security?: unknown[];
  parameters?: Array<{ name: string; in: string; required?: boolean }>;
  requestBody?: { content: Record<string, { schema: { $ref?: string }; example?: unknown }> };
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string; properties?: { data?: { $ref?: string } } } }> }>;
};
const op = (doc: OpenApiDocument, def: RouteDef) => doc.paths![def.path]![def.method] as unknown as Op;

test('every operation has a camelCase operationId, unique over both apps', ({ doc }) => {
  const ids: string[] = [];
  for (const ops of Object.values(doc.paths ?? {})) for (const o of Object.values(ops)) ids.push((o as Op).operationId ?? '(none)');
  assert.ok(ids.length > 50, `${ids.length} operations`);
  const bad = ids.filter((id) => !/^[a-z][A-Za-z0-9]*$/.test(id));
  assert.equal(bad, [], 'not camelCase');
  const dupes = ids.filter((id, i) => ids.indexOf(id) !== i);
  assert.equal(dupes, [], 'operationIds used twice');
  assert.is(op(doc, { method: 'post', path: '/api/pools/{id}/archive' } as RouteDef).operationId, 'archivePool');
  assert.is(op(doc, { method: 'get', path: '/api/pools' } as RouteDef).operationId, 'listPools');
});

test('every request body has an example that the route’s own zod schema accepts', ({ doc, routes }) => {
  const refused: string[] = [];
  let bodies = 0;
  for (const def of routes) {
    if (!def.body) continue;
    bodies++;
    const media = op(doc, def).requestBody!.content['application/json']!;
    if (media.example === undefined) refused.push(`${operationIdOf(def)}: no example`);
    else {
      const parsed = def.body.safeParse(media.example);
      if (!parsed.success) refused.push(`${operationIdOf(def)}: ${JSON.stringify(media.example)} → ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    }
  }
  assert.ok(bodies > 20, `${bodies} bodies`);
  assert.equal(refused, [], 'examples the routes refuse');
  // Amounts are decimal strings: "12.50", never a number or "string".
  const commission = op(doc, { method: 'post', path: '/api/fees/commission' } as RouteDef).requestBody!.content['application/json']!.example as Record<string, unknown>;
  assert.ok(Object.values(commission).includes('12.50'), JSON.stringify(commission));
});

test('request bodies and success payloads are named components; errors are the Error component with its codes', ({ doc, routes }) => {
  const schemas = doc.components!.schemas!;
  assert.ok(schemas.Error && schemas.Pagination, 'Error and Pagination components');
  const codes = (schemas.Error.properties as { code: { enum: string[] } }).code.enum;
  assert.equal(codes, Object.keys(documentedErrorCodes()));
  for (const code of [...Object.keys(V1_ERROR_CODES), 'pool_not_found', 'validation_failed']) assert.ok(codes.includes(code), `${code} listed`);
  const inline: string[] = [];
  for (const def of routes) {
    const o = op(doc, def);
    const where = `${def.method.toUpperCase()} ${def.path}`;
    if (def.body && !o.requestBody!.content['application/json']!.schema.$ref) inline.push(`${where} body`);
    const success = o.responses[def.success.status]!.content?.['application/json']?.schema;
    if (def.success.schema && !def.success.contentType && !success?.properties?.data?.$ref) inline.push(`${where} payload`);
    for (const [status, response] of Object.entries(o.responses)) {
      if (Number(status) >= 400 && response.content?.['application/json']?.schema.$ref !== '#/components/schemas/Error') inline.push(`${where} ${status}`);
    }
  }
  assert.equal(inline, [], 'not a $ref to a component');
  for (const ref of JSON.stringify(doc).match(/#\/components\/schemas\/[^"]+/g) ?? []) assert.ok(schemas[ref.split('/').pop()!], `${ref} resolves`);
});

test('security: [] on public operations, bearer (JWT or API key) on the rest; the tenant and idempotency headers', ({ doc, routes }) => {
  assert.match(JSON.stringify(doc.components!.securitySchemes), /sk_live_/);
  for (const def of routes) {
    const o = op(doc, def);
    const where = `${def.method.toUpperCase()} ${def.path}`;
    if (def.auth === 'none') assert.equal(o.security, [], `${where} public`);
    else assert.ok(o.security?.some((s) => JSON.stringify(s) === '{"bearerAuth":[]}'), `${where} bearerAuth`);
    const header = (name: string) => o.parameters?.find((p) => p.in === 'header' && p.name === name);
    if (def.tenant) assert.ok(header('x-service-tenant'), `${where} X-Service-Tenant`);
    if (def.method === 'post' && def.path.startsWith('/v1/')) assert.is(header('idempotency-key')?.required, true, `${where} requires Idempotency-Key`);
    else if (def.idempotent) assert.not.ok(header('idempotency-key')?.required, `${where} Idempotency-Key optional`);
  }
});

test.run();
