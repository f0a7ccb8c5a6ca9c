import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventStoreContract } from './contract';
import { PostgresEventStore } from './postgres';
import type { NewEvent, RecordedEvent } from './port';
import { WrongExpectedRevisionError, comparePositions } from './port';
import { testPgPool } from '../testing/resources';

eventStoreContract('postgres', async () => new PostgresEventStore({ pool: testPgPool(), pollMs: 100 }));

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'GapProbe',
  schemaVersion: 1,
  data: { i },
  metadata: {
    tenantId: null,
    actor: { kind: 'system', id: 'gap-spec' },
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: new Date().toISOString(),
  },
});

const test = suite('postgres event store: gap safety and tamper evidence');

test('a subscriber never skips an append whose transaction commits after later ones', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, pollMs: 20 });
  const start = await store.headPosition();
  const slowStream = `gap-slow-${randomUUID()}`;
  const fastStream = `gap-fast-${randomUUID()}`;

  // Given a transaction that takes its position first and stays open…
  const slow = await pool.connect();
  await slow.query('BEGIN');
  const slowResult = await store.appendWithin(slow, slowStream, [ev(0)], { expectedRevision: 'no_stream' });

  // …when later appends commit and a subscriber is live…
  const received: RecordedEvent[] = [];
  const sub = store.subscribeToAll({
    after: start,
    handler: async (batch) => {
      received.push(...batch.filter((e) => e.streamId === slowStream || e.streamId === fastStream));
    },
  });
  for (let i = 1; i <= 5; i++) await store.append(fastStream, [ev(i)], { expectedRevision: 'any' });
  const fastPositions = (await store.readStream(fastStream)).map((e) => e.position);
  assert.ok(fastPositions.every((p) => p.prepare > slowResult.position.prepare), 'the slow event holds the lowest sequence number');
  await new Promise((r) => setTimeout(r, 300));

  // …then the subscriber has not moved past the open transaction…
  assert.is(received.length, 0, 'nothing is delivered while an earlier transaction is open');
  const direct = await store.readAll({ after: start, maxCount: 10_000 });
  assert.not.ok(direct.some((e) => e.streamId === fastStream), 'readAll stops below the open transaction too');

  // …and once it commits, every event arrives, the slow one included, in feed order.
  await slow.query('COMMIT');
  slow.release();
  store.signalAppended();
  const deadline = Date.now() + 5000;
  while (received.length < 6 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  await sub.stop();
  await store.close();
  assert.is(received.length, 6);
  assert.is(received[0]?.streamId, slowStream, 'the slow event comes first: its transaction started first');
  for (let i = 1; i < received.length; i++) assert.ok(comparePositions(received[i - 1]!.position, received[i]!.position) < 0);
});

test('many concurrent writers: a reader paging the feed sees every event exactly once', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, pollMs: 10 });
  const start = await store.headPosition();
  const prefix = `gap-many-${randomUUID()}`;
  const seen = new Map<string, number>();
  const sub = store.subscribeToAll({
    after: start,
    batchSize: 7,
    handler: async (batch) => {
      for (const e of batch) if (e.streamId.startsWith(prefix)) seen.set(e.id, (seen.get(e.id) ?? 0) + 1);
    },
  });
  const writers = Array.from({ length: 12 }, async (_, w) => {
    for (let i = 0; i < 15; i++) await store.append(`${prefix}-${w % 4}`, [ev(i), ev(i)], { expectedRevision: 'any' });
  });
  await Promise.all(writers);
  const deadline = Date.now() + 10_000;
  while (seen.size < 360 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  await sub.stop();
  await store.close();
  assert.is(seen.size, 360);
  assert.ok([...seen.values()].every((n) => n === 1));
});

test('the log refuses updates, and verify names the first tampered link', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool });
  const s = `tamper-${randomUUID()}`;
  await store.append(s, [ev(0), ev(1), ev(2)], { expectedRevision: 'no_stream' });
  try {
    await pool.query(`UPDATE es_events SET data = '{"i": 99}' WHERE stream_id = $1 AND stream_revision = 1`, [s]);
    assert.unreachable('update should be refused');
  } catch (e) {
    assert.match(String(e), /append-only/);
  }
  // An attacker with superuser rights bypasses the trigger: the chain still exposes the edit.
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SET LOCAL session_replication_role = replica');
    await client.query(`UPDATE es_events SET data = '{"i": 99}' WHERE stream_id = $1 AND stream_revision = 1`, [s]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  try {
    const verdict = await store.verifyStream(s);
    assert.is(verdict.ok, false);
    if (!verdict.ok) {
      assert.is(verdict.brokenAt, 1n);
      assert.match(verdict.reason, /content/);
    }
  } finally {
    // Put the event back: the database is shared by every spec file, and projectors stop (faulted) at a broken link.
    const restore = await pool.connect();
    try {
      await restore.query('BEGIN');
      await restore.query('SET LOCAL session_replication_role = replica');
      await restore.query(`UPDATE es_events SET data = '{"i": 1}' WHERE stream_id = $1 AND stream_revision = 1`, [s]);
      await restore.query('COMMIT');
    } finally {
      restore.release();
    }
    await store.close();
  }
  assert.is((await new PostgresEventStore({ pool, listen: false }).verifyStream(s)).ok, true, 'restored');
});

test('two processes with stale head caches interleave appends: revisions stay dense and the chain verifies', async () => {
  const a = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const b = new PostgresEventStore({ pool: testPgPool(), listen: false });
  const s = `heads-${randomUUID()}`;
  await a.append(s, [ev(0)], { expectedRevision: 'no_stream' });
  await b.readStream(s); // b caches revision 0
  for (let i = 1; i <= 6; i++) await (i % 2 ? a : b).append(s, [ev(i)], { expectedRevision: 'any' });
  // b's cache says revision 5 (its own last write); a appends twice more, then b with a stale exact revision.
  await a.append(s, [ev(7)], { expectedRevision: 'any' });
  try {
    await b.append(s, [ev(8)], { expectedRevision: 6n });
    assert.unreachable('stale exact revision must conflict');
  } catch (e) {
    assert.ok(e instanceof WrongExpectedRevisionError);
    assert.is((e as WrongExpectedRevisionError).actual, 7n);
  }
  const events = await a.readStream(s);
  assert.equal(events.map((e) => e.revision), [0n, 1n, 2n, 3n, 4n, 5n, 6n, 7n]);
  assert.is((await a.verifyStream(s)).ok, true);
  await Promise.all([a.close(), b.close()]);
});

test('a rolled-back appendWithin never becomes the head a later append chains onto', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const s = `rollback-${randomUUID()}`;
  await store.append(s, [ev(0)], { expectedRevision: 'no_stream' });
  const client = await pool.connect();
  await client.query('BEGIN');
  await store.appendWithin(client, s, [ev(1)], { expectedRevision: 0n });
  await client.query('ROLLBACK');
  client.release();
  await store.append(s, [ev(2)], { expectedRevision: 'any' });
  await store.append(s, [ev(3)], { expectedRevision: 1n });
  const events = await store.readStream(s);
  assert.equal(events.map((e) => (e.data as { i: number }).i), [0, 2, 3]);
  assert.is((await store.verifyStream(s)).ok, true);
  await store.close();
});

test('warm caches racing on one exact revision: exactly one append wins', async () => {
  const stores = Array.from({ length: 4 }, () => new PostgresEventStore({ pool: testPgPool(), listen: false }));
  const s = `race-${randomUUID()}`;
  await stores[0]!.append(s, [ev(0)], { expectedRevision: 'no_stream' });
  for (const st of stores) await st.readStream(s);
  const results = await Promise.allSettled(stores.flatMap((st) => [st.append(s, [ev(1)], { expectedRevision: 0n }), st.append(s, [ev(1)], { expectedRevision: 0n })]));
  assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
  assert.is((await stores[0]!.readStream(s)).length, 2);
  assert.is((await stores[0]!.verifyStream(s)).ok, true);
  await Promise.all(stores.map((st) => st.close()));
});

test.run();
