import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PUBLIC_EVENTS_TABLE, PUBLIC_EVENT_TYPES, toPublicEvent, type PublicEventRow } from '@cagnotte/read-models';
import { groupsPool, startApi, type TestApi } from './harness';

/**
 * GET /v1/events/types: the catalogue served is the published one (docs/public-events.json), public, documented in
 * the OpenAPI document; and the public events a pool's first steps produce have the shape its schemas describe.
 */
const test = suite<{ api: TestApi }>('GET /v1/events/types');

test.before(async (ctx) => {
  ctx.api = await startApi();
});
test.after(async (ctx) => ctx.api.stop());

interface TypeItem {
  type: string;
  description: string;
  schema: { properties: { type: { const: string }; data: { properties: Record<string, unknown>; required: string[] } } };
}

test('given no credentials, when the catalogue is read, then every public type comes with its description and the published schema', async ({ api }) => {
  const res = await api.call<{ data: { apiVersion: string; items: TypeItem[] } }>('GET', '/v1/events/types');
  assert.is(res.status, 200, res.text);
  assert.is(res.headers.get('cache-control'), 'public, max-age=300');
  const { apiVersion, items } = res.body.data;
  assert.is(apiVersion, '2026-11-01');
  assert.equal(items.map((i) => i.type), PUBLIC_EVENT_TYPES);
  const published = JSON.parse(readFileSync(resolve(__dirname, '../../docs/public-events.json'), 'utf8')) as { types: Record<string, { schema: unknown }> };
  for (const item of items) {
    assert.ok(item.description.length > 0, item.type);
    assert.is(item.schema.properties.type.const, item.type);
    if (published.types[item.type]) assert.equal(item.schema, published.types[item.type]!.schema, `${item.type} is served as published`);
  }
  const doc = (await api.call('GET', '/openapi.json')).body;
  assert.ok(doc.paths['/v1/events/types']?.get?.responses['200'], 'documented in the OpenAPI document');
});

test('given an organiser who creates and publishes a pool, when the projection has run, then its public events match the served schemas and belong to the organiser', async ({ api }) => {
  const tenant = await api.tenant();
  const organiser = await api.user(tenant.slug, { role: 'organiser' });
  const created = await api.call('POST', '/api/pools', { token: organiser.token, tenant: tenant.slug, body: groupsPool() });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await api.call('POST', `/api/pools/${poolId}/publish`, { token: organiser.token, tenant: tenant.slug })).status, 200);
  await api.runner.catchUp(await api.services.store.headPosition());

  const rows = (await api.services.knex(PUBLIC_EVENTS_TABLE).where({ tenant_id: tenant.id }).orderBy(['commit_position', 'prepare_position', 'idx'])) as PublicEventRow[];
  const events = rows.map(toPublicEvent);
  assert.equal(events.map((e) => e.type), ['pool.created', 'group_buy.created', 'pool.published', 'group_buy.published', 'escrow.opened']);
  assert.ok(rows.every((r) => r.owner_id === organiser.id));
  const types = new Map(((await api.call('GET', '/v1/events/types')).body.data.items as TypeItem[]).map((i) => [i.type, i.schema]));
  for (const e of events) {
    const schema = types.get(e.type)!.properties.data;
    for (const key of schema.required) assert.ok(key in e.data, `${e.type}: ${key} is required`);
    for (const key of Object.keys(e.data)) assert.ok(key in schema.properties, `${e.type}: ${key} is described`);
    assert.equal([e.subject, e.tenant, e.apiVersion], [poolId, tenant.id, '2026-11-01']);
  }
  assert.not.ok(JSON.stringify(events).includes('+33600000000'), 'the seller’s phone (config) is not in any event');
});

test.run();
