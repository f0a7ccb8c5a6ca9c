import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { groupsPool, startApi, type TestApi, type TestUser } from './harness';

const test = suite<{ api: TestApi; organiser: TestUser }>('Idempotency-Key on commands');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(tenant, { role: 'organiser' });
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

const post = (ctx: { api: TestApi; organiser: TestUser }, key: string, body: unknown) =>
  ctx.api.call('POST', '/api/pools', { token: ctx.organiser.token, tenant: ctx.organiser.tenant, body, headers: { 'idempotency-key': key } });

test('a retried create with the same key answers the first result and creates one pool', async (ctx) => {
  const key = `create-${randomUUID()}`;
  const first = await post(ctx, key, groupsPool({ title: 'Once only' }));
  assert.is(first.status, 201, first.text);
  const again = await post(ctx, key, groupsPool({ title: 'Once only' }));
  assert.is(again.status, 201);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  assert.equal(again.body, first.body);
  const mine = await ctx.api.call('GET', '/api/merchant/pools', { token: ctx.organiser.token, tenant: ctx.organiser.tenant });
  assert.is(mine.body.data.items.filter((p: { title: string }) => p.title === 'Once only').length, 1);
});

test('the same key with another body is a 409; a bad key is a 400; a failed request can be retried', async (ctx) => {
  const key = `reuse-${randomUUID()}`;
  assert.is((await post(ctx, key, groupsPool({ title: 'A' }))).status, 201);
  const reused = await post(ctx, key, groupsPool({ title: 'B' }));
  assert.is(reused.status, 409);
  assert.is(reused.body.code, 'idempotency_key_reused');
  const bad = await post(ctx, 'short', groupsPool());
  assert.is(bad.status, 400);
  assert.ok(bad.body.errors['Idempotency-Key']);
  const failKey = `fail-${randomUUID()}`;
  assert.is((await post(ctx, failKey, { type: 'GROUPS' })).status, 400);
  assert.is((await post(ctx, failKey, { type: 'GROUPS' })).status, 400, 'failures are not kept: the retry runs again');
});

test('concurrent duplicates: exactly one pool, the others replay or are told to retry', async (ctx) => {
  const key = `race-${randomUUID()}`;
  const results = await Promise.all(Array.from({ length: 5 }, () => post(ctx, key, groupsPool({ title: 'Raced' }))));
  for (const r of results) assert.ok(r.status === 201 || (r.status === 409 && r.body.code === 'idempotency_key_in_flight'), r.text);
  const ids = new Set(results.filter((r) => r.status === 201).map((r) => r.body.data.id));
  assert.is(ids.size, 1);
});

test.run();
