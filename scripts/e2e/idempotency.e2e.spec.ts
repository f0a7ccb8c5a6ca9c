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
  // Again: the answer comes from PostgreSQL (no cache in front), byte for byte as the first time.
  const fromPostgres = await post(ctx, key, groupsPool({ title: 'Once only' }));
  assert.is(fromPostgres.headers.get('idempotent-replayed'), 'true');
  assert.is(fromPostgres.text, first.text);
  assert.is(fromPostgres.headers.get('x-event-position'), first.headers.get('x-event-position'));
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

test('concurrent duplicates: exactly one pool, and every duplicate answers it', async (ctx) => {
  const key = `race-${randomUUID()}`;
  const title = `Raced ${key}`;
  const results = await Promise.all(Array.from({ length: 5 }, () => post(ctx, key, groupsPool({ title }))));
  for (const r of results) assert.is(r.status, 201, r.text);
  assert.is(new Set(results.map((r) => r.body.data.id)).size, 1);
  assert.is(results.filter((r) => r.headers.get('idempotent-replayed') === 'true').length, 4, 'one ran, four replayed');
  assert.is(await createdWithTitle(ctx, title), 1);
});

const createdWithTitle = async (ctx: { api: TestApi }, title: string) =>
  Number((await ctx.api.services.knex('es_events').where({ type: 'PoolCreated' }).whereRaw("data->>'title' = ?", [title]).count<{ n: string }[]>({ n: '*' }))[0]!.n);

test('concurrent duplicate PATCHes and archives: one event each, the same answer for all', async (ctx) => {
  const created = await post(ctx, `p-${randomUUID()}`, groupsPool());
  const id = created.body.data.id as string;
  const call = (method: string, path: string, key: string, body?: unknown) =>
    ctx.api.call(method, path, { token: ctx.organiser.token, tenant: ctx.organiser.tenant, body, headers: { 'idempotency-key': key } });
  const patchKey = `patch-${randomUUID()}`;
  const patches = await Promise.all(Array.from({ length: 6 }, () => call('PATCH', `/api/pools/${id}`, patchKey, { title: 'Patched once' })));
  for (const r of patches) assert.is(r.status, 200, r.text);
  assert.is(new Set(patches.map((r) => JSON.stringify(r.body))).size, 1);
  const archiveKey = `archive-${randomUUID()}`;
  const archives = await Promise.all(Array.from({ length: 6 }, () => call('POST', `/api/pools/${id}/archive`, archiveKey)));
  for (const r of archives) assert.is(r.status, 200, `a retried archive replays instead of "already archived": ${r.text}`);
  const again = await call('POST', `/api/pools/${id}/archive`, archiveKey);
  assert.is(again.status, 200);
  assert.is(again.headers.get('idempotent-replayed'), 'true');
  const events = await ctx.api.services.store.readStream(`pool-${id}`);
  assert.equal(events.map((e) => e.type), ['PoolCreated', 'PoolDraftUpdated', 'PoolArchived']);
  const withoutKey = await ctx.api.call('POST', `/api/pools/${id}/archive`, { token: ctx.organiser.token, tenant: ctx.organiser.tenant });
  assert.is(withoutKey.status, 400, 'without a key the command runs again and is refused');
});

/** A transaction of "another request" that holds the key, the way a request does between its append and its commit. */
const holdKey = async (ctx: { api: TestApi; organiser: TestUser }, key: string, fingerprint: string, expires = "now() + interval '1 day'") => {
  const client = await ctx.api.services.pgPool.connect();
  await client.query('BEGIN');
  await client.query(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, status_code, body, headers, expires_at) VALUES ($1, $2, $3, 201, '{"success":true,"data":{}}', '{}', ${expires})`,
    [`u:${ctx.organiser.id}`, key, fingerprint],
  );
  return client;
};

test('a duplicate waits for a request still running with its key: if that one dies (rolls back) it runs, never a stale "pending"', async (ctx) => {
  const key = `held-${randomUUID()}`;
  const title = `Held ${key}`;
  const holder = await holdKey(ctx, key, 'whatever');
  let answered = false;
  const pending = post(ctx, key, groupsPool({ title })).finally(() => (answered = true));
  await new Promise((r) => setTimeout(r, 500));
  assert.is(answered, false, 'it waits while the other transaction is open');
  await holder.query('ROLLBACK');
  holder.release();
  const res = await pending;
  assert.is(res.status, 201, res.text);
  assert.is(res.headers.get('idempotent-replayed'), null);
  assert.is(await createdWithTitle(ctx, title), 1);
});

test('if the request holding the key commits first, the duplicate rolls its own events back and answers from that key', async (ctx) => {
  const key = `held-${randomUUID()}`;
  const title = `Loser ${key}`;
  const holder = await holdKey(ctx, key, 'another request');
  const pending = post(ctx, key, groupsPool({ title }));
  await new Promise((r) => setTimeout(r, 300));
  await holder.query('COMMIT');
  holder.release();
  const res = await pending;
  assert.is(res.status, 409, res.text);
  assert.is(res.body.code, 'idempotency_key_reused');
  assert.is(await createdWithTitle(ctx, title), 0, 'the key exists only with the events of the request that kept it');
});

test('an expired key is a new key; expired rows are purged', async (ctx) => {
  const key = `old-${randomUUID()}`;
  const holder = await holdKey(ctx, key, 'yesterday', "now() - interval '1 second'");
  await holder.query('COMMIT');
  holder.release();
  const res = await post(ctx, key, groupsPool({ title: 'After expiry' }));
  assert.is(res.status, 201, res.text);
  assert.is(res.headers.get('idempotent-replayed'), null);
  const stale = await holdKey(ctx, `gone-${randomUUID()}`, 'x', "now() - interval '1 second'");
  await stale.query('COMMIT');
  stale.release();
  assert.ok((await ctx.api.services.idempotency.purgeExpired()) >= 1);
  const left = await ctx.api.services.knex('idempotency_keys').where('expires_at', '<=', ctx.api.services.knex.fn.now()).count<{ n: string }[]>({ n: '*' });
  assert.is(Number(left[0]!.n), 0);
});

test.run();
