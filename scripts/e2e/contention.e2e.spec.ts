/**
 * Issue 8 §5: commands on one stream queue instead of failing, and each answer shows the pool as of its
 * own event (its revision), never a later writer's state.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { isPoolEvent, parseEvent } from '@cagnotte/event-schemas';
import { foldPool, groupBuyOf, type PoolDoc, type PoolDocument } from '@cagnotte/read-models';
import { call, groupsPool, startApi, startSecondCommandApi, type ApiResponse, type TestApi, type TestUser } from './harness';

const test = suite<{ api: TestApi; organiser: TestUser; secondUrl: string }>('e2e: commands under contention');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(tenant, { role: 'organiser' });
  // A second command-api (its own services, hence its own per-stream queue) on the same database: another process.
  ctx.secondUrl = (await startSecondCommandApi()).url;
});

test.after(async (ctx) => ctx.api.stop());

/** The pool as the pools read model folds its stream up to (and including) `revision`. */
const foldAt = async (api: TestApi, poolId: string, revision: number): Promise<PoolDocument> => {
  const recorded = await api.services.store.readStream(`pool-${poolId}`);
  const doc = recorded
    .filter((r) => r.revision <= BigInt(revision))
    .reduce<PoolDoc | null>((d, r) => {
      const e = parseEvent(r);
      return isPoolEvent(e) ? foldPool(d, e, r.revision) : d;
    }, null);
  assert.ok(doc !== null);
  return doc!.pool;
};

test('50 concurrent PATCHes of one pool all succeed, each answering the pool as of its own revision', async (ctx) => {
  const { api, organiser } = ctx;
  const created = await api.call('POST', '/api/pools', { token: organiser.token, tenant: organiser.tenant, body: groupsPool({ title: 'Contended' }) });
  assert.is(created.status, 201, created.text);
  const id = created.body.data.id as string;
  const n = 50;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      api.call('PATCH', `/api/pools/${id}`, { token: organiser.token, tenant: organiser.tenant, body: { title: `Writer ${i}`, description: `written by ${i}` } }),
    ),
  );
  await expectOwnAnswers(api, organiser, id, results, `${n} concurrent PATCHes`);
});

/** All 200, distinct revisions, each answer its own write and exactly the fold of the stream at its revision. */
const expectOwnAnswers = async (api: TestApi, organiser: TestUser, id: string, results: ApiResponse<any>[], what: string) => {
  const n = results.length;
  const failures = results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body?.code}`);
  const byFailure = Object.entries(failures.reduce<Record<string, number>>((m, f) => ({ ...m, [f]: (m[f] ?? 0) + 1 }), {}));
  console.log(`    ${what}: ${n - failures.length} × 200${byFailure.map(([f, c]) => `, ${c} × ${f}`).join('')}`);
  assert.equal(failures, [], 'every PATCH succeeds');
  const revisions = results.map((r) => r.body.data.revision as number);
  assert.is(new Set(revisions).size, n, 'each answer has a revision of its own');
  let foreign = 0;
  for (const [i, r] of results.entries()) {
    const body = r.body.data;
    if (body.title !== `Writer ${i}` || body.description !== `written by ${i}`) foreign++;
    const pool = await foldAt(api, id, body.revision);
    const { refund, ...view } = body;
    assert.is(refund, null);
    assert.equal(view, groupBuyOf(pool, BigInt(body.revision), { userId: organiser.id }), `answer ${i} is the fold at its revision ${body.revision}`);
  }
  assert.is(foreign, 0, 'no answer shows another writer\'s state');
  const stream = await api.services.store.readStream(`pool-${id}`);
  assert.is(stream.length, n + 1, 'one event per PATCH after the creation');
};

test('two command-api processes PATCH one pool at once: conflicts between them are retried, all succeed', async (ctx) => {
  const { api, organiser } = ctx;
  const created = await api.call('POST', '/api/pools', { token: organiser.token, tenant: organiser.tenant, body: groupsPool({ title: 'Contended twice' }) });
  const id = created.body.data.id as string;
  const n = 30;
  const results = await Promise.all(
    Array.from({ length: n }, (_, i) =>
      call(i % 2 === 0 ? api.url : ctx.secondUrl, 'PATCH', `/api/pools/${id}`, {
        token: organiser.token,
        tenant: organiser.tenant,
        body: { title: `Writer ${i}`, description: `written by ${i}` },
        ...(i % 3 === 0 ? { headers: { 'idempotency-key': `two-${id}-${i}` } } : {}),
      }),
    ),
  );
  await expectOwnAnswers(api, organiser, id, results, `${n} PATCHes through two processes`);
});

test('concurrent archive and unarchive calls queue: each is decided on the state its predecessor left', async (ctx) => {
  const { api, organiser } = ctx;
  const created = await api.call('POST', '/api/pools', { token: organiser.token, tenant: organiser.tenant, body: groupsPool({ title: 'Archived once' }) });
  const id = created.body.data.id as string;
  const archives = await Promise.all(Array.from({ length: 10 }, () => api.call('POST', `/api/pools/${id}/archive`, { token: organiser.token, tenant: organiser.tenant })));
  const statuses = archives.map((r) => `${r.status}${r.status === 400 ? ` ${r.body.code}` : ''}`).sort();
  assert.equal(statuses, ['200', ...Array.from({ length: 9 }, () => '400 pool_already_archived')], 'one archive wins; the others are refused by the decision, not by a conflict');
});

test.run();
