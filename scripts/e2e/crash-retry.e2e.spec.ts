/**
 * Issue 8 §4: an Idempotency-Key survives a crash. The API runs as a child process (`pnpm start`) under a
 * steady load of creates and PATCHes, each with a key of its own, and is killed with SIGKILL at random moments
 * several times; every request is retried with its key until it gets a definite answer. Then: exactly one pool
 * per create key, exactly one event per acknowledged PATCH at the revision its answer names, and a final retry
 * of every request replays its answer without appending anything.
 *
 * Bounded for CI: CRASH_KILLS (default 5) kills, a few seconds of load between them.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { call, groupsPool, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { ChildServer, freePort } from './child-server';

const KILLS = Number(process.env.CRASH_KILLS ?? 5);
const WORKERS = 10;
const POOLS = 3;
const OP_DEADLINE_MS = 240_000;

const test = suite<{ api: TestApi; organiser: TestUser; buyer: TestUser }>('e2e: Idempotency-Key across kill -9 of the server');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(tenant, { role: 'organiser' });
  ctx.buyer = await ctx.api.user(tenant, { name: 'Crash Buyer' });
});

test.after(async (ctx) => ctx.api.stop());

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));


interface Op {
  kind: 'create' | 'patch' | 'reserve';
  key: string;
  title: string;
  method: string;
  path: string;
  body: unknown;
  /** The definite answer, once there is one. */
  answer?: ApiResponse<any>;
  attempts: number;
  replayed: boolean;
}

test('kill -9 mid-write, retry every request with its key: no duplicate pool, no reverted update, no reservation held twice', async (ctx) => {
  const { api, organiser, buyer } = ctx;
  const run = randomUUID().slice(0, 8);
  const pools: string[] = [];
  for (let i = 0; i < POOLS; i++) {
    const res = await api.call('POST', '/api/pools', { token: organiser.token, tenant: organiser.tenant, body: groupsPool({ title: `crash-${run}-pool-${i}` }) });
    assert.is(res.status, 201, res.text);
    pools.push(res.body.data.id);
  }
  // A published pool that buyers reserve in (unlimited stock): each reserve key must hold units once.
  const open = await api.call('POST', '/api/pools', { token: organiser.token, tenant: organiser.tenant, body: groupsPool({ title: `crash-${run}-open` }) });
  const openPool = open.body.data.id as string;
  assert.is((await api.call('POST', `/api/pools/${openPool}/publish`, { token: organiser.token, tenant: organiser.tenant })).status, 200);
  const server = new ChildServer(await freePort(), { DEFAULT_TENANT: `crash-${run}` });
  const send = (op: Op) =>
    call(server.url, op.method, op.path, { token: op.kind === 'reserve' ? buyer.token : organiser.token, tenant: organiser.tenant, body: op.body, headers: { 'idempotency-key': op.key } });

  /** Sends until the answer is definite: a 2xx or a 4xx. Connection errors and 5xx (the server died under it) are retried. */
  const settle = async (op: Op) => {
    const deadline = Date.now() + OP_DEADLINE_MS;
    while (Date.now() < deadline) {
      op.attempts++;
      const res = await send(op).catch(() => null);
      // A key still "in flight" is not an answer either: a well-behaved client waits and retries.
      if (res && res.status < 500 && res.body?.code !== 'idempotency_key_in_flight') {
        op.answer = res;
        op.replayed = res.headers.get('idempotent-replayed') === 'true';
        return;
      }
      await sleep(100 + Math.random() * 200);
    }
    throw new Error(`no definite answer for ${op.method} ${op.path} (${op.key}) within ${OP_DEADLINE_MS} ms`);
  };

  const ops: Op[] = [];
  let seq = 0;
  const nextOp = (): Op => {
    const n = seq++;
    const key = `crash-${run}-${n}`;
    if (n % 3 === 0) {
      const title = `crash-${run}-create-${n}`;
      return { kind: 'create', key, title, method: 'POST', path: '/api/pools', body: groupsPool({ title }), attempts: 0, replayed: false };
    }
    if (n % 3 === 1) {
      const body = { lines: [{ unitId: 'panier-m', quantity: 1 }], relaisId: 'r1' };
      return { kind: 'reserve', key, title: '', method: 'POST', path: `/api/pools/${openPool}/reservations`, body, attempts: 0, replayed: false };
    }
    const title = `crash-${run}-op-${n}`;
    const pool = pools[n % POOLS]!;
    return { kind: 'patch', key, title, method: 'PATCH', path: `/api/pools/${pool}`, body: { title }, attempts: 0, replayed: false };
  };

  let loading = true;
  const worker = async () => {
    while (loading) {
      const op = nextOp();
      ops.push(op);
      await settle(op);
    }
  };

  let kills = 0;
  try {
    await server.start();
    const workers = Array.from({ length: WORKERS }, worker);
    // Each life of the server gets some load, then dies at a random moment while requests are being written.
    for (let k = 0; k < KILLS; k++) {
      const answeredBefore = ops.filter((o) => o.answer).length;
      const lifeDeadline = Date.now() + 30_000;
      while (ops.filter((o) => o.answer).length < answeredBefore + 5 && Date.now() < lifeDeadline) await sleep(50);
      await sleep(100 + Math.random() * 600);
      await server.kill();
      kills++;
      await server.start();
    }
    await sleep(300);
    loading = false;
    await Promise.all(workers);

    // Every request once more with its key: the first answer again, and nothing appended.
    const before = await api.services.knex('es_events').count<{ count: string }[]>({ count: '*' });
    const again = await Promise.all(ops.map((op) => send(op)));
    const after = await api.services.knex('es_events').count<{ count: string }[]>({ count: '*' });
    let notReplayed = 0;
    for (const [i, res] of again.entries()) {
      const op = ops[i]!;
      if (res.status !== op.answer!.status || res.headers.get('idempotent-replayed') !== 'true' || JSON.stringify(res.body) !== JSON.stringify(op.answer!.body)) notReplayed++;
    }
    const appendedByRetries = Number(after[0]!.count) - Number(before[0]!.count);

    // Creates: exactly one pool per key, and it is the one the answer named.
    const creates = ops.filter((o) => o.kind === 'create');
    const created = await api.services.knex('es_events').where({ type: 'PoolCreated' }).whereRaw("data->>'title' LIKE ?", [`crash-${run}-create-%`]).select(api.services.knex.raw("data->>'title' AS title"), api.services.knex.raw("data->>'poolId' AS id"));
    const poolsByTitle = new Map<string, string[]>();
    for (const r of created as { title: string; id: string }[]) poolsByTitle.set(r.title, [...(poolsByTitle.get(r.title) ?? []), r.id]);
    let duplicatePools = 0;
    let missingPools = 0;
    for (const op of creates) {
      const ids = poolsByTitle.get(op.title) ?? [];
      if (ids.length > 1) duplicatePools += ids.length - 1;
      if (op.answer!.status === 201 && (ids.length !== 1 || ids[0] !== op.answer!.body.data.id)) missingPools++;
    }

    // PATCHes: one event per acknowledged update, at the revision its answer shows; no update re-applied later.
    const patches = ops.filter((o) => o.kind === 'patch');
    const updates = (await api.services.knex('es_events')
      .where({ type: 'PoolDraftUpdated' })
      .whereIn('stream_id', pools.map((p) => `pool-${p}`))
      .select('stream_id', 'stream_revision', api.services.knex.raw("data->'changes'->>'title' AS title"))) as { stream_id: string; stream_revision: string; title: string }[];
    const eventsByTitle = new Map<string, { stream_id: string; stream_revision: string }[]>();
    for (const u of updates) eventsByTitle.set(u.title, [...(eventsByTitle.get(u.title) ?? []), u]);
    let duplicateUpdates = 0;
    let revertedUpdates = 0;
    for (const op of patches) {
      const events = eventsByTitle.get(op.title) ?? [];
      if (events.length > 1) duplicateUpdates += events.length - 1;
      if (op.answer!.status === 200 && (events.length !== 1 || Number(events[0]!.stream_revision) !== op.answer!.body.data.revision)) revertedUpdates++;
    }
    // Each pool's stream ends with the update acknowledged at the highest revision.
    let wrongFinal = 0;
    for (const pool of pools) {
      const acked = patches.filter((o) => o.path.endsWith(pool) && o.answer!.status === 200).sort((a, b) => b.answer!.body.data.revision - a.answer!.body.data.revision);
      const last = updates.filter((u) => u.stream_id === `pool-${pool}`).sort((a, b) => Number(b.stream_revision) - Number(a.stream_revision))[0];
      if (acked[0] && last?.title !== acked[0].title) wrongFinal++;
    }

    // Reservations: one ReservationPlaced per acknowledged key, the one its answer names; none without an answer.
    const reserves = ops.filter((o) => o.kind === 'reserve');
    const placed = (await api.services.knex('es_events').where({ type: 'ReservationPlaced', stream_id: `pool-${openPool}` }).select(api.services.knex.raw("data->>'reservationId' AS id"))) as { id: string }[];
    const placedIds = placed.map((p) => p.id);
    const answeredIds = reserves.filter((o) => o.answer!.status === 201).map((o) => o.answer!.body.data.id as string);
    const heldTwice = placedIds.length - new Set(answeredIds).size;
    const unanswered = answeredIds.filter((id) => !placedIds.includes(id)).length;

    const failed = ops.filter((o) => o.answer!.status >= 300).map((o) => `${o.method} ${o.answer!.status} ${o.answer!.body?.code}`);
    const retried = ops.filter((o) => o.attempts > 1).length;
    const replayedAfterCrash = ops.filter((o) => o.replayed).length;
    console.log(
      `    kill -9 × ${kills} (${server.starts} starts): ${ops.length} requests (${creates.length} creates, ${patches.length} PATCHes), ` +
        `${retried} retried, ${replayedAfterCrash} answered by replay; duplicates: ${duplicatePools} pools, ${duplicateUpdates} updates, ${heldTwice} reservations (${reserves.length} reserves); ` +
        `reverted updates: ${revertedUpdates}; final retry: ${notReplayed} not replayed, ${appendedByRetries} events appended`,
    );
    assert.ok(kills >= KILLS, 'the server was killed as planned');
    assert.equal(failed, [], 'every request ends in success');
    assert.is(duplicatePools, 0, 'one pool per create key');
    assert.is(missingPools, 0, 'each create answer names the one pool of its key');
    assert.is(duplicateUpdates, 0, 'one event per PATCH key');
    assert.is(revertedUpdates, 0, 'each acknowledged PATCH is the event at its revision, never re-applied later');
    assert.is(wrongFinal, 0, 'each pool shows its latest acknowledged update');
    assert.ok(reserves.length > 0, 'reservations were made under the kills');
    assert.is(heldTwice, 0, 'one held reservation per reserve key (an acknowledged one is never placed again)');
    assert.is(unanswered, 0, 'each reserve answer names a reservation on the pool’s stream');
    assert.is(notReplayed, 0, 'a retry replays the first answer');
    assert.is(appendedByRetries, 0, 'a retry never appends');
  } finally {
    loading = false;
    await server.kill('SIGTERM');
  }
});

test.run();
