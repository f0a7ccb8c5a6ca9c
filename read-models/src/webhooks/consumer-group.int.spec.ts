import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import knexFactory, { type Knex } from 'knex';
import { ConsumerGroup } from './consumer-group';
import { compareFeedPositions, type FeedPosition } from './cursor';
import { PUBLIC_EVENTS_CHANNEL, type PublicEventRow } from './feed-table';
import { positionOfRow } from './feed-reader';

/**
 * Consumer groups over rm_public_events, with rows inserted directly (the projection is another helper's). Each test
 * has its own tenant and group; a group reads every tenant's rows, so handlers keep only their own tenant's.
 */
const test = suite('consumer groups: at-least-once, shared by workers, ordered as numbers');

let knex: Knex;
test.before(() => {
  knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', pool: { min: 0, max: 12 } });
});
test.after(async () => {
  await knex.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(10);
  }
};

/** A prepare position no other test uses: the rows' primary key is (commit, prepare, idx). */
const freshPrepareBase = () => BigInt(Math.floor(Math.random() * 2 ** 40)) * 10_000n;

const insertRows = async (tenantId: string, positions: FeedPosition[]) => {
  const rows = positions.map((p, i) => ({
    commit_position: knex.raw('?::text::xid8', [p.commit.toString()]),
    prepare_position: p.prepare.toString(),
    idx: p.idx,
    id: `evt_${randomUUID().replace(/-/g, '')}`,
    tenant_id: tenantId,
    owner_id: null,
    type: 'pool.published',
    subject: `pool_${i % 7}`,
    sequence: i,
    api_version: '2026-11-01',
    created_at: new Date(),
    data: JSON.stringify({ n: i }),
  }));
  for (let i = 0; i < rows.length; i += 500) await knex('rm_public_events').insert(rows.slice(i, i + 500));
};

/** The last row's position: rows above it are new. */
const headPosition = async (): Promise<FeedPosition | null> => {
  const head = await knex.raw<{ rows: Array<{ c: string; p: string; i: number }> }>(
    'SELECT commit_position::text AS c, prepare_position AS p, idx AS i FROM rm_public_events ORDER BY commit_position DESC, prepare_position DESC, idx DESC LIMIT 1',
  );
  const top = head.rows[0];
  return top ? { commit: BigInt(top.c), prepare: BigInt(top.p), idx: Number(top.i) } : null;
};

/** A row as the handler got it, with its position as numbers. */
type Consumed = PublicEventRow & { position: FeedPosition };
const withPosition = (rows: PublicEventRow[]): Consumed[] => rows.map((r) => ({ ...r, position: positionOfRow(r) }));

const key = (p: FeedPosition) => `${p.commit}.${p.prepare}.${p.idx}`;

test('given 2,000 events and three workers in one group, when one worker throws mid-batch and another loses its connection, then every event is handled, each committed once and in order, the failed batches by another worker, and the position never goes back', async () => {
  const tenant = randomUUID();
  const base = freshPrepareBase();
  // Commits 1..400 with five events each: small numbers crossing 9→10 and 99→100, inserted in shuffled order.
  const positions: FeedPosition[] = [];
  for (let c = 1; c <= 400; c += 1) for (let k = 0; k < 5; k += 1) positions.push({ commit: BigInt(c), prepare: base + BigInt(k % 3), idx: k });
  const shuffled = [...positions].sort(() => Math.random() - 0.5);
  await insertRows(tenant, shuffled);

  const group = new ConsumerGroup(knex, `spec-${randomUUID()}`, { pollMs: 5, maxPollMs: 50 });
  await group.ensure();
  const handledBy = new Map<string, Set<string>>();
  const handledTimes = new Map<string, number>();
  const committed: Consumed[][] = [];
  const failedBatches: Array<{ worker: string; keys: string[] }> = [];
  let batchesA = 0;
  let batchesB = 0;
  const aborts = { A: new AbortController(), B: new AbortController(), C: new AbortController() };

  const handlerOf = (worker: 'A' | 'B' | 'C') => async (rows: PublicEventRow[], trx: Knex.Transaction) => {
    const mine = withPosition(rows).filter((e) => e.tenant_id === tenant);
    for (const e of mine) {
      const k = key(e.position);
      if (!handledBy.has(k)) handledBy.set(k, new Set());
      handledBy.get(k)!.add(worker);
      handledTimes.set(k, (handledTimes.get(k) ?? 0) + 1);
    }
    await sleep(1);
    // Each worker fails on its second batch holding this spec's events: on a full run the feed also holds every other
    // spec's events and a loaded machine can leave a worker few of ours (its fifth once never came).
    if (worker === 'A' && mine.length > 0 && ++batchesA === 2) {
      // Worker A "crashes" mid-batch: its handler throws and it never runs again.
      failedBatches.push({ worker, keys: mine.map((e) => key(e.position)) });
      aborts.A.abort();
      throw new Error('worker A crashed');
    }
    if (worker === 'B' && mine.length > 0 && ++batchesB === 2) {
      // Worker B's connection dies mid-batch: the transaction is aborted by the server.
      failedBatches.push({ worker, keys: mine.map((e) => key(e.position)) });
      await trx.raw('SELECT pg_terminate_backend(pg_backend_pid())');
    }
    return async () => {
      committed.push(mine);
    };
  };

  const samples: Array<FeedPosition | null> = [];
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push(await group.position());
      await sleep(3);
    }
  })();

  const runs = (['A', 'B', 'C'] as const).map((w) => group.run(handlerOf(w), { batchSize: 37, signal: aborts[w].signal }));
  await until('every event is committed', () => committed.reduce((n, b) => n + b.length, 0) >= positions.length, 60_000);
  aborts.B.abort();
  aborts.C.abort();
  await Promise.all(runs);
  sampling = false;
  await sampler;
  // The rows are this spec's own: other specs reading the whole feed (the operator's tail) need not see them.
  await knex('rm_public_events').where({ tenant_id: tenant }).delete();

  // Every event handled at least once.
  assert.is(handledBy.size, positions.length);
  // Committed batches: each event exactly once, and in numeric position order.
  const sequence = committed.flat();
  assert.is(sequence.length, positions.length, 'each event committed exactly once');
  const expected = [...positions].sort(compareFeedPositions).map(key);
  assert.equal(
    sequence.map((e) => key(e.position)),
    expected,
  );
  assert.is(sequence.findIndex((e) => e.position.commit === 10n) > sequence.findIndex((e) => e.position.commit === 9n), true, 'commit 10 after commit 9');
  assert.is(sequence.findIndex((e) => e.position.commit === 100n) > sequence.findIndex((e) => e.position.commit === 99n), true, 'commit 100 after commit 99');
  // The failed batches were handled again, by a worker that did not fail them.
  assert.is(failedBatches.length, 2);
  for (const f of failedBatches) for (const k of f.keys) assert.ok(handledTimes.get(k)! >= 2, `${k} of ${f.worker}'s failed batch handled again`);
  const afterA = failedBatches.find((f) => f.worker === 'A')!;
  for (const k of afterA.keys) assert.ok([...handledBy.get(k)!].some((w) => w !== 'A'), `${k} of A's failed batch handled by B or C`);
  // The position never went back.
  const seen = samples.filter((p): p is FeedPosition => p !== null);
  assert.ok(seen.length > 5, 'the position was sampled while the workers ran');
  for (let i = 1; i < seen.length; i += 1) assert.ok(compareFeedPositions(seen[i]!, seen[i - 1]!) >= 0, `position went back at sample ${i}`);
});

test('given a group after the head and a long poll, when a public event is committed with a NOTIFY, then a worker handles it at once', async () => {
  const tenant = randomUUID();
  const from = await headPosition();
  const group = new ConsumerGroup(knex, `spec-${randomUUID()}`, { pollMs: 10_000, maxPollMs: 10_000 });
  await group.ensure(from);
  const got: Consumed[] = [];
  const stop = new AbortController();
  const run = group.run(async (rows) => void got.push(...withPosition(rows).filter((e) => e.tenant_id === tenant)), { signal: stop.signal });
  await sleep(300); // the worker found nothing and waits on its 10 s poll
  const commit = (from?.commit ?? 0n) + 1_000n;
  const t0 = Date.now();
  await knex.transaction(async (trx) => {
    await trx('rm_public_events').insert({
      commit_position: trx.raw('?::text::xid8', [commit.toString()]),
      prepare_position: '1',
      idx: 0,
      id: `evt_${randomUUID().replace(/-/g, '')}`,
      tenant_id: tenant,
      owner_id: null,
      type: 'pool.published',
      subject: 'pool_x',
      sequence: 1,
      api_version: '2026-11-01',
      created_at: new Date(),
      data: '{}',
    });
    await trx.raw('SELECT pg_notify(?, ?)', [PUBLIC_EVENTS_CHANNEL, tenant]);
  });
  await until('the event is handled', () => got.length === 1, 5_000);
  const latency = Date.now() - t0;
  stop.abort();
  await run;
  // Remove the row: it sits above the store's real positions, where a later spec's group must not find it.
  await knex('rm_public_events').where({ tenant_id: tenant }).delete();
  assert.ok(latency < 2_000, `handled ${latency} ms after its commit, well before the 10 s poll`);
});

test('given no notification at all, when events are committed, then polling alone delivers them', async () => {
  const tenant = randomUUID();
  await insertRows(tenant, [{ commit: 3n, prepare: freshPrepareBase(), idx: 0 }]);
  const group = new ConsumerGroup(knex, `spec-${randomUUID()}`, { pollMs: 20, maxPollMs: 100, listen: false });
  const got: Consumed[] = [];
  const stop = new AbortController();
  const run = group.run(async (rows) => void got.push(...withPosition(rows).filter((e) => e.tenant_id === tenant)), { signal: stop.signal });
  try {
    await until('the first event is handled', () => got.length === 1);
    const top = (await headPosition())!;
    await insertRows(tenant, [{ commit: top.commit + 1n, prepare: 0n, idx: 1 }]);
    await until('the event above the head is handled', () => got.some((e) => e.position.idx === 1));
  } finally {
    stop.abort();
    await run;
    await knex('rm_public_events').where({ tenant_id: tenant }).delete();
  }
});

test.run();
