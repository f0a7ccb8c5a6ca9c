import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { buildOpenApiDocument } from './openapi';
import { defineRoute, type RouteDef } from './route';

const test = suite('OpenAPI document: operationIds, components, examples');
const INFO = { title: 'spec', version: '1', description: 'spec' };

const route = (over: Partial<RouteDef>): RouteDef =>
  defineRoute({
    method: 'get',
    path: '/api/things',
    summary: 'things',
    tags: ['Things'],
    auth: 'required',
    success: { status: 200, description: 'ok', schema: z.object({ id: z.string() }) },
    errors: [401],
    handler: async () => ({ data: null }),
    ...over,
  } as RouteDef);

test('two routes of one derived operationId: the builder names both and asks for an operationId; one of their own resolves it', () => {
  const twins = [route({ path: '/api/things/{id}/archive', method: 'post' }), route({ path: '/v1/things/{id}/archive', method: 'post' })];
  assert.throws(() => buildOpenApiDocument(twins, INFO), (e: Error) => /archiveThing/.test(e.message) && /operationId/.test(e.message));
  const doc = buildOpenApiDocument([twins[0]!, { ...twins[1]!, operationId: 'archiveV1Thing' }], INFO);
  assert.equal(
    [doc.paths!['/api/things/{id}/archive']!.post!.operationId, doc.paths!['/v1/things/{id}/archive']!.post!.operationId],
    ['archiveThing', 'archiveV1Thing'],
  );
});

test('a body gets a named component and an example its schema accepts; a route’s own example wins; a schema with an id keeps its name', () => {
  const Body = z.object({ email: z.email(), amount: z.string().regex(/^\d+(\.\d{1,2})?$/), units: z.number().int().min(1).max(9) }).strict();
  const Shared = z.object({ id: z.string() }).meta({ id: 'Thing' });
  const doc = buildOpenApiDocument(
    [
      route({ method: 'post', path: '/api/things', body: Body, success: { status: 201, description: 'made', schema: Shared } }),
      route({ method: 'patch', path: '/api/things/{id}', body: Body, example: { email: 'a@b.fr', amount: '3', units: 2 } }),
    ],
    INFO,
  );
  const create = doc.paths!['/api/things']!.post as { requestBody: { content: Record<string, { schema: unknown; example: unknown }> }; responses: Record<string, { content: Record<string, { schema: unknown }> }> };
  const media = create.requestBody.content['application/json']!;
  assert.equal(media.schema, { $ref: '#/components/schemas/CreateThingRequest' });
  assert.equal(media.example, { email: 'jane.doe@example.com', amount: '12.50', units: 9 });
  assert.ok(Body.safeParse(media.example).success);
  assert.match(JSON.stringify(create.responses['201']), '#/components/schemas/Thing"');
  assert.equal((doc.paths!['/api/things/{id}']!.patch as typeof create).requestBody.content['application/json']!.example, { email: 'a@b.fr', amount: '3', units: 2 });
});

test('security [] on a public route; Idempotency-Key required on POST /v1, optional on other idempotent routes; errors are the Error component', () => {
  const doc = buildOpenApiDocument(
    [route({ auth: 'none' }), route({ method: 'post', path: '/v1/things', idempotent: true }), route({ method: 'post', path: '/api/things', idempotent: true, operationId: 'createApiThing' })],
    INFO,
  );
  type Op = { security: unknown[]; parameters: Array<{ name: string; required?: boolean }>; responses: Record<string, unknown> };
  const op = (path: string, method: string) => doc.paths![path]![method] as Op;
  assert.equal(op('/api/things', 'get').security, []);
  assert.equal(op('/v1/things', 'post').security, [{ bearerAuth: [] }, { cookieAuth: [] }]);
  const key = (o: Op) => o.parameters.find((p) => p.name === 'idempotency-key');
  assert.is(key(op('/v1/things', 'post'))?.required, true);
  assert.not.ok(key(op('/api/things', 'post'))?.required);
  assert.match(JSON.stringify(op('/v1/things', 'post').responses['409']), '#/components/schemas/Error"');
});

test.run();
