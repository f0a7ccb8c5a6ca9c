/**
 * The breaking-change check (`pnpm openapi:diff`) on small documents: each breaking rule once, and an unchanged or
 * only additive document passes. Runs the real `redocly diff` with the repository's redocly.yaml (a child process).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { breakingChanges, describePointer } from './breaking';

const test = suite<{ dir: string }>('openapi:diff: breaking changes');
test.before((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'breaking-spec-'));
});
test.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

type Doc = Record<string, any>;
const json = (schema: Doc) => ({ 'application/json': { schema } });
/** Two resources that each mutation below changes in one way; `/keep` is never touched. */
const base = (): Doc => ({
  openapi: '3.1.0',
  info: { title: 'spec', version: '1' },
  paths: {
    '/gone': { get: { operationId: 'getGone', responses: { 200: { description: 'ok' } } } },
    '/things': {
      get: {
        operationId: 'listThings',
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer' } },
          { name: 'page', in: 'query', required: false, schema: { type: 'integer' } },
        ],
        responses: { 200: { description: 'ok', content: json({ $ref: '#/components/schemas/Thing' }) }, 404: { description: 'none' } },
      },
      post: {
        operationId: 'createThing',
        requestBody: { required: true, content: json({ $ref: '#/components/schemas/CreateThingRequest' }) },
        responses: { 201: { description: 'ok' } },
      },
      delete: { operationId: 'deleteThings', responses: { 204: { description: 'ok' } } },
    },
    '/keep': { get: { operationId: 'getKeep', responses: { 200: { description: 'ok' } } } },
  },
  components: {
    schemas: {
      Thing: {
        type: 'object',
        properties: { id: { type: 'string' }, status: { type: 'string', enum: ['open', 'closed'] }, note: { type: 'string' } },
        required: ['id', 'status'],
      },
      CreateThingRequest: {
        type: 'object',
        properties: { name: { type: 'string' }, kind: { type: 'string', enum: ['a', 'b'] } },
        required: ['name'],
      },
    },
  },
});

const compare = async (dir: string, name: string, change: (d: Doc) => void) => {
  const revision = base();
  change(revision);
  writeFileSync(join(dir, 'base.json'), JSON.stringify(base()));
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(revision));
  return breakingChanges(join(dir, 'base.json'), join(dir, `${name}.json`));
};

test('an unchanged document, and one with only additive changes, pass', async ({ dir }) => {
  assert.equal(await compare(dir, 'same', () => undefined), []);
  const additive = await compare(dir, 'additive', (d) => {
    d.paths['/new'] = { get: { operationId: 'getNew', responses: { 200: { description: 'ok' } } } };
    d.paths['/things'].get.parameters.push({ name: 'q', in: 'query', required: false, schema: { type: 'string' } });
    d.paths['/things'].get.responses[429] = { description: 'slow down' };
    d.components.schemas.CreateThingRequest.properties.note = { type: 'string' };
    d.components.schemas.CreateThingRequest.properties.kind.enum.push('c');
    d.components.schemas.Thing.properties.extra = { type: 'string' };
    // A response enum gaining a value (Error.code gains codes): minor in redocly.yaml.
    d.components.schemas.Thing.properties.status.enum.push('archived');
  });
  assert.equal(additive, []);
});

test('each breaking change is reported with its rule and place', async ({ dir }) => {
  const found = await compare(dir, 'breaking', (d) => {
    delete d.paths['/gone'];
    delete d.paths['/things'].delete;
    delete d.paths['/things'].get.responses[404];
    d.paths['/things'].get.parameters[0].required = true;
    d.paths['/things'].get.parameters.splice(1, 1);
    d.components.schemas.CreateThingRequest.properties.size = { type: 'integer' };
    d.components.schemas.CreateThingRequest.required.push('size');
    d.components.schemas.CreateThingRequest.properties.kind.enum = ['a'];
    delete d.components.schemas.Thing.properties.note;
    d.components.schemas.Thing.properties.id.type = 'integer';
    d.paths['/keep'].get.operationId = 'getKept';
  });
  const got = found.map((b) => `${b.rule} ${describePointer(b.pointer)}`).sort();
  // A change inside a component is reported at the component (every operation using it is affected).
  assert.equal(got, [
    'enum-values-removed components/schemas/CreateThingRequest/properties/kind/enum',
    'operation-id-changed GET /keep operationId',
    'operation-removed DELETE /things',
    'parameter-became-required GET /things parameters/0/required',
    'parameter-removed GET /things parameters/1',
    'path-removed /gone',
    'property-removed components/schemas/Thing/properties/note',
    'required-properties-added components/schemas/CreateThingRequest/required',
    'response-removed GET /things responses/404',
    'schema-type-changed components/schemas/Thing/properties/id/type',
  ]);
  assert.ok(found.every((b) => b.message.length > 0));
});

test.run();
