import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { AppendOrderError, PostgresEventStore } from './postgres';
import type { NewEvent } from './port';
import { comparePositions } from './port';
import { APPEND_LOCK } from '../db/migrations/013-feed-horizon';
import { createPgPool, dropDatabase, ensureDatabase } from '../db/database';
import { testDatabaseUrl, testPgPool } from '../testing/resources';

/**
 * Section 3 of issue 8: the feed waits only for transactions that append events in this database. A write
 * transaction anywhere else (another database of the cluster, a read-model table, a migration) must not hold
 * subscribers back, while an open append still is never skipped (postgres.int.spec.ts proves that part).
 */
const test = suite('postgres event store: the feed depends only on appending transactions');

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'HorizonProbe',
  schemaVersion: 1,
  data: { i },
  metadata: {
    tenantId: null,
    actor: { kind: 'system', id: 'horizon-spec' },
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: new Date().toISOString(),
  },
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const now = () => Number(process.hrtime.bigint()) / 1e6;
const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
};
const otherUrl = (suffix: string) => {
  const u = new URL(testDatabaseUrl());
  u.pathname = `${u.pathname}_${suffix}`;
  return u.toString();
};

test('write transactions held open 10 s in another database and in a read-model table do not delay subscribers (p99 < 100 ms)', async () => {
  const HOLD_MS = 10_000;
  const otherDb = otherUrl('other');
  await ensureDatabase(otherDb);
  const writerPool = testPgPool();
  // The subscriber is another "process": its own pool and store, woken through LISTEN/NOTIFY.
  const readerPool = createPgPool(testDatabaseUrl(), 4);
  const writer = new PostgresEventStore({ pool: writerPool, listen: false });
  const reader = new PostgresEventStore({ pool: readerPool });
  const foreign = new pg.Client({ connectionString: otherDb });
  const foreignAppender = new pg.Client({ connectionString: otherDb });
  const readModel = await writerPool.connect();
  try {
    await foreign.connect();
    await foreignAppender.connect();
    const pidOf = async (c: pg.ClientBase) => (await c.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]!.pid;
    const [foreignPid, foreignAppenderPid] = [await pidOf(foreign), await pidOf(foreignAppender)];
    const start = await writer.headPosition();
    const stream = `horizon-${randomUUID()}`;
    const acked = new Map<string, number>();
    const delivered = new Map<string, number>();
    const order: string[] = [];
    const sub = reader.subscribeToAll({
      after: start,
      handler: async (batch) => {
        const t = now();
        for (const e of batch) {
          if (e.streamId !== stream) continue;
          delivered.set(e.id, t);
          order.push(e.id);
        }
      },
    });

    // Given three write transactions that stay open for 10 s: one in another database, one that looks like an
    // appender of another deployment there (same advisory key, other database), one in a read-model table here…
    await foreign.query('BEGIN');
    await foreign.query('CREATE TABLE IF NOT EXISTS batch_job (id int)');
    await foreign.query('INSERT INTO batch_job VALUES (1)');
    const foreignXid = BigInt((await foreign.query<{ x: string }>('SELECT pg_current_xact_id()::text AS x')).rows[0]!.x);
    await foreignAppender.query('BEGIN');
    await foreignAppender.query('SELECT pg_advisory_xact_lock_shared($1, $2)', [APPEND_LOCK.classid, APPEND_LOCK.objid]);
    await foreignAppender.query('CREATE TABLE IF NOT EXISTS other_events (id int)');
    await foreignAppender.query('INSERT INTO other_events VALUES (1)');
    const readModelPid = await pidOf(readModel);
    await readModel.query('BEGIN');
    await readModel.query(
      `INSERT INTO rm_tenants (id, slug, name, white_label, approved_origins, created_at, revision) VALUES ($1, $2, 'held open', false, '[]', now(), 0)`,
      [randomUUID(), `held-${randomUUID().slice(0, 8)}`],
    );
    const heldFrom = Date.now();

    // …the old rule (events below pg_snapshot_xmin, cluster-wide) would stop at them:
    const xmin = BigInt((await writerPool.query<{ x: string }>('SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS x')).rows[0]!.x);
    assert.ok(xmin <= foreignXid, `the cluster's xmin ${xmin} is held at or below the foreign transaction ${foreignXid}`);

    // When appends go on for as long as they stay open, one every ~20 ms…
    let i = 0;
    while (Date.now() - heldFrom < HOLD_MS) {
      const e = ev(i++);
      await writer.append(stream, [e], { expectedRevision: 'any' });
      acked.set(e.id, now());
      await sleep(20);
    }
    const stillOpen = await writerPool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid = ANY($1::int[]) AND xact_start IS NOT NULL AND backend_xid IS NOT NULL`,
      [[foreignPid, foreignAppenderPid, readModelPid]],
    );
    assert.is(stillOpen.rows[0]!.n, 3, 'the three write transactions were open the whole time');
    const deadline = Date.now() + 10_000;
    while (delivered.size < acked.size && Date.now() < deadline) await sleep(10);
    await sub.stop();

    // …then every event is delivered, in order, and quickly.
    assert.is(delivered.size, acked.size, `delivered ${delivered.size} of ${acked.size} while the foreign transactions were open`);
    assert.equal(order, [...acked.keys()], 'in append order');
    const delays = [...acked].map(([id, t]) => Math.max(0, delivered.get(id)! - t));
    const p50 = quantile(delays, 0.5);
    const p99 = quantile(delays, 0.99);
    console.log(`    feed delivery with 3 foreign write transactions open ${HOLD_MS / 1000} s: ${delays.length} events, p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms, max ${Math.max(...delays).toFixed(1)} ms`);
    assert.ok(delays.length >= 30, `${delays.length} appends in ${HOLD_MS} ms`);
    assert.ok(p99 < 100, `p99 delivery delay ${p99.toFixed(1)} ms < 100 ms`);
  } finally {
    await foreign.query('ROLLBACK').catch(() => undefined);
    await foreignAppender.query('ROLLBACK').catch(() => undefined);
    await readModel.query('ROLLBACK').catch(() => undefined);
    readModel.release();
    await Promise.all([foreign.end().catch(() => undefined), foreignAppender.end().catch(() => undefined)]);
    await Promise.all([writer.close(), reader.close()]);
    await readerPool.end();
    await dropDatabase(otherDb);
  }
});

test('appends that commit out of id order (held open for random times, every path) while foreign writers come and go: a subscriber sees each exactly once, streams in order', async () => {
  const pool = testPgPool();
  const writer = new PostgresEventStore({ pool, listen: false });
  const readerPool = createPgPool(testDatabaseUrl(), 3);
  const reader = new PostgresEventStore({ pool: readerPool, pollMs: 20 });
  const start = await writer.headPosition();
  const prefix = `horizon-mix-${randomUUID()}`;
  const seen = new Map<string, number>();
  const perStream = new Map<string, number[]>();
  const sub = reader.subscribeToAll({
    after: start,
    batchSize: 5,
    handler: async (batch) => {
      for (const e of batch) {
        if (!e.streamId.startsWith(prefix)) continue;
        seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
        perStream.set(e.streamId, [...(perStream.get(e.streamId) ?? []), (e.data as { i: number }).i]);
      }
    },
  });
  let written = 0;
  const ROUNDS = 12;
  const writers = Array.from({ length: 6 }, async (_, w) => {
    const s = `${prefix}-${w}`;
    for (let i = 0; i < ROUNDS; i++) {
      if (w % 3 === 0) {
        // A caller-held transaction that stays open a random while after writing (its id is older than later commits).
        const c = await pool.connect();
        try {
          await c.query('BEGIN');
          await writer.appendWithin(c, s, [ev(i)], { expectedRevision: 'any' });
          await sleep(Math.random() * 30);
          await c.query('COMMIT');
        } finally {
          c.release();
        }
      } else if (w % 3 === 1) {
        await writer.append(s, [ev(i)], { expectedRevision: 'any' }); // warm cache: optimistic
      } else {
        const cold = new PostgresEventStore({ pool, listen: false }); // cold cache: the locking path
        await cold.append(s, [ev(i)], { expectedRevision: 'any' });
        await cold.close();
      }
      written++;
    }
  });
  // A foreign writer in this database that opens and closes write transactions all along.
  let foreignRunning = true;
  const foreignLoop = (async () => {
    const c = await pool.connect();
    try {
      while (foreignRunning) {
        await c.query('BEGIN');
        await c.query(`INSERT INTO projection_checkpoints (name) VALUES ($1)`, [`horizon-mix-${randomUUID()}`]);
        await sleep(Math.random() * 40);
        await c.query('ROLLBACK');
      }
    } finally {
      c.release();
    }
  })();
  await Promise.all(writers);
  foreignRunning = false;
  await foreignLoop;
  writer.signalAppended();
  const deadline = Date.now() + 15_000;
  while (seen.size < written && Date.now() < deadline) await sleep(20);
  await sub.stop();
  await Promise.all([writer.close(), reader.close()]);
  await readerPool.end();
  assert.is(written, 6 * ROUNDS);
  assert.is(seen.size, written, 'every event delivered');
  assert.ok([...seen.values()].every((n) => n === 1), 'exactly once');
  for (const [s, is] of perStream) assert.equal(is, Array.from({ length: ROUNDS }, (_, i) => i), `${s} in order`);
});

test('an open append of this database still holds the feed, and /metrics-facing openAppends reports its age', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const start = await store.headPosition();
  const slow = `horizon-open-${randomUUID()}`;
  const fast = `horizon-fast-${randomUUID()}`;
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const open = await store.appendWithin(client, slow, [ev(0)], { expectedRevision: 'no_stream' });
    await store.append(fast, [ev(1)], { expectedRevision: 'no_stream' });
    // Wait on a condition, not a fixed time: the open append is at least 1 s old.
    const deadline = Date.now() + 15_000;
    let age = 0;
    while (Date.now() < deadline && age < 1) {
      age = (await store.openAppends()).oldestSeconds;
      if (age < 1) await sleep(50);
    }
    const stats = await store.openAppends();
    assert.ok(stats.appends >= 1, 'the open append is counted');
    assert.ok(stats.oldestSeconds >= 1, `oldest open append ${stats.oldestSeconds} s`);
    const seen = await store.readAll({ after: start, maxCount: 10_000 });
    assert.not.ok(seen.some((e) => e.streamId === fast || e.streamId === slow), 'nothing at or after the open append is visible');
    const head = await store.headPosition();
    assert.ok(!head || comparePositions(head, open.position) < 0, 'the head stays below the open append');
    await client.query('COMMIT');
    const after = await store.readAll({ after: start, maxCount: 10_000 });
    const mine = after.filter((e) => e.streamId === fast || e.streamId === slow).map((e) => e.streamId);
    assert.equal(mine, [slow, fast], 'both arrive once it commits, the open one first');
    const done = Date.now() + 5000;
    let left = await store.openAppends();
    while (left.oldestSeconds >= 1 && Date.now() < done) {
      await sleep(20);
      left = await store.openAppends();
    }
    assert.ok(left.oldestSeconds < 1, 'no old append left open');
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    await store.close();
  }
});

test('an appender must join before it writes: appendWithin after another write is a programming error, and the database refuses raw inserts', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const client = await pool.connect();
  try {
    // A transaction that wrote first has an id that readers could not have seen as an appender's.
    await client.query('BEGIN');
    await client.query(`INSERT INTO projection_checkpoints (name) VALUES ($1)`, [`horizon-spec-${randomUUID()}`]);
    try {
      await store.appendWithin(client, `horizon-order-${randomUUID()}`, [ev(0)], { expectedRevision: 'no_stream' });
      assert.unreachable('appendWithin after a write must throw');
    } catch (error) {
      assert.instance(error, AppendOrderError);
      assert.match((error as Error).message, /beginAppend/);
    }
    await client.query('ROLLBACK');

    // The same with a hand-written INSERT: the statement trigger refuses it.
    await client.query('BEGIN');
    await client.query(`INSERT INTO projection_checkpoints (name) VALUES ($1)`, [`horizon-spec-${randomUUID()}`]);
    try {
      await client.query(
        `INSERT INTO es_events (stream_id, stream_revision, event_id, type, schema_version, data, metadata, hash) VALUES ($1, 0, $2, 'X', 1, '{}', '{}', 'h')`,
        [`horizon-raw-${randomUUID()}`, randomUUID()],
      );
      assert.unreachable('the trigger must refuse it');
    } catch (error) {
      assert.match((error as Error).message, /es_begin_append/);
    }
    await client.query('ROLLBACK');

    // beginAppend right after BEGIN: other writes may follow, and the append commits with them.
    await client.query('BEGIN');
    await store.beginAppend(client);
    const name = `horizon-spec-${randomUUID()}`;
    await client.query(`INSERT INTO projection_checkpoints (name) VALUES ($1)`, [name]);
    const s = `horizon-order-${randomUUID()}`;
    await store.appendWithin(client, s, [ev(0)], { expectedRevision: 'no_stream' });
    await store.appendWithin(client, s, [ev(1)], { expectedRevision: 0n });
    await client.query('COMMIT');
    assert.is((await store.readStream(s)).length, 2);
    assert.is((await pool.query('SELECT 1 FROM projection_checkpoints WHERE name = $1', [name])).rowCount, 1);
  } finally {
    await client.query('ROLLBACK').catch(() => undefined);
    client.release();
    await store.close();
  }
});

test('every append path (optimistic, new stream, locking) writes its rows under the append lock', async () => {
  // A probe trigger records, for each row written to the two tables, whether the writing transaction held the
  // append lock at that moment. Run the optimistic path (warm head), the locking path (cold head, conflict) and
  // a new stream; every row must have been written under the lock.
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const probe = `horizon_probe_${randomUUID().replace(/-/g, '').slice(0, 8)}`;
  const s = `horizon-paths-${randomUUID()}`;
  await pool.query(`CREATE TABLE ${probe} (tbl text, locked boolean)`);
  await pool.query(`
    CREATE FUNCTION ${probe}_fn() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF NEW.stream_id = '${s}' THEN
        INSERT INTO ${probe} SELECT TG_TABLE_NAME, EXISTS (
          SELECT 1 FROM pg_locks WHERE pid = pg_backend_pid() AND locktype = 'advisory'
            AND classid = ${APPEND_LOCK.classid} AND objid = ${APPEND_LOCK.objid} AND objsubid = 2);
      END IF;
      RETURN NEW;
    END $$`);
  await pool.query(`CREATE TRIGGER ${probe}_e BEFORE INSERT ON es_events FOR EACH ROW EXECUTE FUNCTION ${probe}_fn()`);
  await pool.query(`CREATE TRIGGER ${probe}_s BEFORE INSERT OR UPDATE ON es_streams FOR EACH ROW EXECUTE FUNCTION ${probe}_fn()`);
  try {
    await store.append(s, [ev(0)], { expectedRevision: 'no_stream' }); // optimistic, new stream
    await store.append(s, [ev(1)], { expectedRevision: 0n }); // optimistic, known head
    const cold = new PostgresEventStore({ pool, listen: false });
    await cold.append(s, [ev(2)], { expectedRevision: 'any' }); // cold cache: the locking path
    await cold.close();
    const rows = (await pool.query<{ tbl: string; locked: boolean }>(`SELECT tbl, locked FROM ${probe}`)).rows;
    assert.ok(rows.filter((r) => r.tbl === 'es_events').length === 3, JSON.stringify(rows));
    assert.ok(rows.every((r) => r.locked), `every row written under the append lock: ${JSON.stringify(rows)}`);
  } finally {
    await pool.query(`DROP TRIGGER ${probe}_e ON es_events; DROP TRIGGER ${probe}_s ON es_streams; DROP FUNCTION ${probe}_fn(); DROP TABLE ${probe}`);
    await store.close();
  }
});

test.run();
