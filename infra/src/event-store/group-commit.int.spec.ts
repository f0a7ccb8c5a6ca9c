/**
 * Group commit: concurrent appends on independent streams share one statement (es_append_batch), one fsync for
 * all; each append in it succeeds or fails on its own, and the statement is atomic.
 */
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IdempotencyKeyTakenError, PostgresEventStore, type KeyedAnswer } from './postgres';
import { WrongExpectedRevisionError, comparePositions, formatPosition, type AppendResult, type NewEvent, type RecordedEvent } from './port';
import { testPgPool } from '../testing/resources';

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'GroupProbe',
  schemaVersion: 1,
  data: { i },
  metadata: { tenantId: null, actor: { kind: 'system', id: 'group-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

const answer = (key: string, lastEvent: number | null): KeyedAnswer => ({
  scope: 'group-spec', key, fingerprint: `fp-${key}`, status: 201, body: { key }, headers: {}, ttlSeconds: 3600, lastEvent,
});

const outcome = async <T>(p: Promise<T>): Promise<T | Error> => p.catch((e: Error) => e);

/** Holds a stream's head row locked from another transaction: an append statement touching it waits. */
const holdHead = async (pool: pg.Pool, streamId: string): Promise<pg.PoolClient> => {
  const client = await pool.connect();
  await client.query('BEGIN');
  await client.query('SELECT 1 FROM es_streams WHERE stream_id = $1 FOR UPDATE', [streamId]);
  return client;
};

const waitForBlockedAppend = async (pool: pg.Pool): Promise<number> => {
  for (let i = 0; i < 500; i++) {
    const r = await pool.query<{ pid: number }>(
      `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%es_append_batch(%' AND pid <> pg_backend_pid()`,
    );
    if (r.rows[0]) return r.rows[0].pid;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no append statement waited for the held head');
};

const feedOf = async (store: PostgresEventStore, after: RecordedEvent['position'] | null, streams: Set<string>): Promise<RecordedEvent[]> => {
  const out: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor, maxCount: 1000 });
    if (page.length === 0) return out;
    out.push(...page.filter((e) => streams.has(e.streamId)));
    cursor = page[page.length - 1]!.position;
  }
};

const test = suite('postgres event store: group commit across streams');

test('concurrent appends on many streams share statements; revisions dense, chains valid, the feed in revision order', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const start = await store.headPosition();
  const streams = Array.from({ length: 40 }, (_, i) => `group-${i}-${randomUUID()}`);
  const before = store.statements;
  const perStream = 5;
  await Promise.all(
    streams.map(async (s, i) => {
      let expected: bigint | 'no_stream' = 'no_stream';
      for (let n = 0; n < perStream; n++) {
        const r = await store.append(s, [ev(n), ev(n + 1)].slice(0, 1 + ((i + n) % 2)), { expectedRevision: expected });
        expected = r.nextExpectedRevision;
      }
    }),
  );
  const statements = store.statements - before;
  const appends = streams.length * perStream;
  assert.ok(statements < appends / 2, `${appends} appends in ${statements} statements`);
  for (const s of streams) {
    const events = await store.readStream(s);
    assert.equal(events.map((e) => e.revision), events.map((_, i) => BigInt(i)), 'dense revisions');
    const verified = await store.verifyStream(s);
    assert.ok(verified.ok, `hash chain of ${s}`);
  }
  const feed = await feedOf(store, start, new Set(streams));
  assert.is(feed.length, (await Promise.all(streams.map((s) => store.readStream(s)))).reduce((n, e) => n + e.length, 0));
  const last = new Map<string, bigint>();
  for (let i = 0; i < feed.length; i++) {
    const e = feed[i]!;
    if (i > 0) assert.ok(comparePositions(feed[i - 1]!.position, e.position) < 0);
    assert.is(e.revision, (last.get(e.streamId) ?? -1n) + 1n, 'each stream reaches the feed in revision order');
    last.set(e.streamId, e.revision);
  }
  await store.close();
});

test('a stale head in a batch refuses only that append; the others commit in the same statement', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false, groupCommit: { inFlight: 1 } });
  const other = new PostgresEventStore({ pool, listen: false });
  const blocker = `group-block-${randomUUID()}`;
  const stale = `group-stale-${randomUUID()}`;
  const staleAny = `group-stale-any-${randomUUID()}`;
  await store.append(blocker, [ev(0)], { expectedRevision: 'no_stream' });
  await store.append(stale, [ev(0)], { expectedRevision: 'no_stream' });
  await store.append(staleAny, [ev(0)], { expectedRevision: 'no_stream' });
  // Another process moves two heads: this store's cache is stale for both.
  const moved = await other.append(stale, [ev(1)], { expectedRevision: 0n });
  await other.append(staleAny, [ev(1)], { expectedRevision: 0n });

  const held = await holdHead(pool, blocker);
  const first = store.append(blocker, [ev(1)], { expectedRevision: 0n });
  await waitForBlockedAppend(pool);
  const before = store.statements;
  const fresh = Array.from({ length: 5 }, () => `group-fresh-${randomUUID()}`);
  const gathered = [
    outcome(store.append(stale, [ev(2)], { expectedRevision: 0n })),
    outcome(store.append(staleAny, [ev(2)], { expectedRevision: 'any' })),
    ...fresh.map((s) => outcome(store.append(s, [ev(0), ev(1)], { expectedRevision: 'no_stream' }))),
  ];
  await held.query('COMMIT');
  held.release();
  await first;
  const [staleResult, anyResult, ...freshResults] = await Promise.all(gathered);

  assert.instance(staleResult, WrongExpectedRevisionError, 'the stale exact revision is refused (by the locking path)');
  assert.is((staleResult as WrongExpectedRevisionError).actual, moved.nextExpectedRevision);
  assert.not.instance(anyResult, Error, "'any' on a stale head is hashed onto the returned head and appended");
  for (const r of freshResults) assert.not.instance(r, Error);
  assert.is(store.statements - before, 2, 'one statement for the seven gathered appends, one for the retry of the stale any');
  assert.is((await store.readStream(stale)).length, 2);
  const anyEvents = await store.readStream(staleAny);
  assert.equal(anyEvents.map((e) => e.revision), [0n, 1n, 2n]);
  assert.ok((await store.verifyStream(staleAny)).ok);
  for (const s of fresh) assert.ok((await store.verifyStream(s)).ok);
  await other.close();
  await store.close();
});

test('answers in a batch: a taken key refuses its append alone (no events, no rows); the others commit with theirs', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false, groupCommit: { inFlight: 1 } });
  const blocker = `group-block-${randomUUID()}`;
  await store.append(blocker, [ev(0)], { expectedRevision: 'no_stream' });
  const heldKey = `held-${randomUUID()}`;
  await store.append(`group-owner-${randomUUID()}`, [ev(0)], { expectedRevision: 'no_stream', answers: [answer(heldKey, 0)] });

  const held = await holdHead(pool, blocker);
  const first = store.append(blocker, [ev(1)], { expectedRevision: 0n });
  await waitForBlockedAppend(pool);
  const before = store.statements;
  const [okStream, takenStream, plainStream] = [`group-ok-${randomUUID()}`, `group-taken-${randomUUID()}`, `group-plain-${randomUUID()}`];
  const [k1, k2, k3] = [`k1-${randomUUID()}`, `k2-${randomUUID()}`, `k3-${randomUUID()}`];
  const results = [
    outcome(store.append(okStream, [ev(0), ev(1)], { expectedRevision: 'no_stream', answers: [answer(k1, 0), answer(k2, 1)] })),
    outcome(store.append(takenStream, [ev(0)], { expectedRevision: 'no_stream', answers: [answer(k3, 0), answer(heldKey, 0)] })),
    outcome(store.append(plainStream, [ev(0)], { expectedRevision: 'no_stream' })),
  ];
  await held.query('COMMIT');
  held.release();
  await first;
  const [okResult, takenResult, plainResult] = await Promise.all(results);
  assert.is(store.statements - before, 1, 'the three appends went in one statement');

  assert.instance(takenResult, IdempotencyKeyTakenError);
  assert.equal((takenResult as IdempotencyKeyTakenError).keys, [heldKey]);
  assert.is((takenResult as IdempotencyKeyTakenError).streamId, takenStream);
  assert.is((await store.readStream(takenStream)).length, 0, 'no event of the refused append');
  assert.not.instance(plainResult, Error);
  assert.not.instance(okResult, Error);
  const ok = okResult as AppendResult;
  const rows = await pool.query<{ key: string; headers: Record<string, string> }>(
    `SELECT key, headers FROM idempotency_keys WHERE scope = 'group-spec' AND key = ANY($1::text[])`,
    [[k1, k2, k3]],
  );
  const byKey = new Map(rows.rows.map((r) => [r.key, r.headers]));
  assert.not.ok(byKey.has(k3), 'the refused append keeps none of its keys');
  assert.is(byKey.get(k1)?.['X-Event-Position'], formatPosition(ok.positions![0]!));
  assert.is(byKey.get(k2)?.['X-Event-Position'], formatPosition(ok.positions![1]!));
  const stored = await store.readStream(okStream);
  assert.equal(ok.positions!.map(formatPosition), stored.map((e) => formatPosition(e.position)));
  await store.close();
});

test('a statement that dies between gathering and commit leaves nothing half-written', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false, groupCommit: { inFlight: 1 } });
  const gate = `group-gate-${randomUUID()}`;
  const last = `zz-group-last-${randomUUID()}`;
  await store.append(gate, [ev(0)], { expectedRevision: 'no_stream' });
  await store.append(last, [ev(0)], { expectedRevision: 'no_stream' });
  const existing = `aa-group-existing-${randomUUID()}`;
  await store.append(existing, [ev(0)], { expectedRevision: 'no_stream' });

  // The first statement waits at the gate while three appends queue behind it…
  const gateHeld = await holdHead(pool, gate);
  const first = store.append(gate, [ev(1)], { expectedRevision: 0n });
  await waitForBlockedAppend(pool);
  const fresh = `aa-group-fresh-${randomUUID()}`;
  const key = `crash-${randomUUID()}`;
  // …the statement that carries them will claim the key and move the two `aa-` heads, then wait on `zz-`.
  const lastHeld = await holdHead(pool, last);
  const gathered = [
    outcome(store.append(fresh, [ev(0)], { expectedRevision: 'no_stream', answers: [answer(key, 0)] })),
    outcome(store.append(existing, [ev(1)], { expectedRevision: 0n })),
    outcome(store.append(last, [ev(1)], { expectedRevision: 0n })),
  ];
  await gateHeld.query('COMMIT');
  gateHeld.release();
  await first;
  const pid = await waitForBlockedAppend(pool);
  await pool.query('SELECT pg_terminate_backend($1)', [pid]);
  const results = await Promise.all(gathered);
  await lastHeld.query('ROLLBACK');
  lastHeld.release();

  for (const r of results) assert.instance(r, Error, 'every append of the dead statement fails');
  assert.is((await store.readStream(fresh)).length, 0);
  assert.is((await store.readStream(existing)).length, 1);
  assert.is((await store.readStream(last)).length, 1);
  const heads = await pool.query<{ stream_id: string; revision: string }>('SELECT stream_id, revision FROM es_streams WHERE stream_id = ANY($1::text[])', [[fresh, existing, last]]);
  assert.equal(new Map(heads.rows.map((h) => [h.stream_id, h.revision])), new Map([[existing, '0'], [last, '0']]), 'no head moved');
  const keys = await pool.query('SELECT 1 FROM idempotency_keys WHERE scope = $1 AND key = $2', ['group-spec', key]);
  assert.is(keys.rowCount, 0, 'no answer kept');
  // The store goes on: the same appends now succeed.
  const again = await store.append(existing, [ev(1)], { expectedRevision: 0n });
  assert.is(again.nextExpectedRevision, 1n);
  await store.close();
});

test.run();
