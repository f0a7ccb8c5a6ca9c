/**
 * Each stream reaches the global feed in revision order. The feed is ordered by transaction id, and a
 * transaction gets its id at its first write or row lock, which can be before it waits for the stream's head
 * row: the waiter would then append the next revision under an older id than the head's, and readers would see
 * revision n+1 before n. The store refuses that append (StreamOrderError) and its own locking path retries.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PostgresEventStore } from './postgres';
import { StreamOrderError, WrongExpectedRevisionError, type NewEvent, type RecordedEvent } from './port';
import { testPgPool } from '../testing/resources';

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'OrderProbe',
  schemaVersion: 1,
  data: { i },
  metadata: { tenantId: null, actor: { kind: 'system', id: 'order-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

const readStreamFromFeed = async (store: PostgresEventStore, streamId: string, after: RecordedEvent['position'] | null): Promise<RecordedEvent[]> => {
  const out: RecordedEvent[] = [];
  let cursor = after;
  for (;;) {
    const page = await store.readAll({ after: cursor ?? undefined, maxCount: 500 });
    if (page.length === 0) return out;
    out.push(...page.filter((e) => e.streamId === streamId));
    cursor = page[page.length - 1]!.position;
  }
};

const test = suite('postgres event store: each stream in revision order on the feed');

test('an appender whose transaction id predates the head writer is refused, writes nothing, and a retry lands in order', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const start = await store.headPosition();
  const stream = `order-${randomUUID()}`;
  await store.append(stream, [ev(0)], { expectedRevision: 'no_stream' });

  // Given a transaction that became an appender and got its id (as a row lock wait would give it one)…
  const late = await pool.connect();
  try {
    await late.query('BEGIN');
    await store.beginAppend(late);
    await late.query('SELECT pg_current_xact_id()');
    // …when another append on the same stream commits first, under a newer id…
    await store.append(stream, [ev(1)], { expectedRevision: 'any' });
    // …then the older transaction's append is refused rather than written as revision 2 under its older id.
    const refused = await store.appendWithin(late, stream, [ev(2)], { expectedRevision: 'any' }).then(
      () => null,
      (e: unknown) => e,
    );
    assert.instance(refused, StreamOrderError);
    assert.instance(refused, WrongExpectedRevisionError, 'command handlers retry it like any moved head');
    await late.query('ROLLBACK');
  } finally {
    late.release();
  }
  // A retry in a new transaction lands, and the feed shows the stream in revision order.
  await store.append(stream, [ev(2)], { expectedRevision: 1n });
  const fromFeed = await readStreamFromFeed(store, stream, start);
  assert.equal(fromFeed.map((e) => e.revision), [0n, 1n, 2n]);
});

test('racing appends on a few streams, all paths: the feed shows every stream in revision order, each event once', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const start = await store.headPosition();
  const streams = Array.from({ length: 3 }, () => `order-race-${randomUUID()}`);
  // Writers with stores of their own (as separate processes: no shared head cache), both append paths.
  const writers = Array.from({ length: 8 }, () => new PostgresEventStore({ pool, listen: false }));
  await Promise.all(
    writers.map(async (w, k) => {
      for (let i = 0; i < 15; i++) {
        const stream = streams[(k + i) % streams.length]!;
        if (i % 3 === 0) {
          // A caller-held transaction, as command handlers append.
          for (;;) {
            const client = await pool.connect();
            try {
              await client.query('BEGIN');
              await w.appendWithin(client, stream, [ev(i)], { expectedRevision: 'any' });
              await client.query('COMMIT');
              break;
            } catch (e) {
              await client.query('ROLLBACK');
              if (!(e instanceof WrongExpectedRevisionError)) throw e;
            } finally {
              client.release();
            }
          }
        } else {
          await w.append(stream, [ev(i)], { expectedRevision: 'any' });
        }
      }
    }),
  );
  const page = [] as RecordedEvent[];
  for (const s of streams) page.push(...(await readStreamFromFeed(store, s, start)));
  assert.is(page.length, 8 * 15, 'every event once');
  for (const s of streams) {
    const revisions = page.filter((e) => e.streamId === s).map((e) => e.revision);
    assert.equal(revisions, revisions.map((_, i) => BigInt(i)), `${s} in revision order`);
  }
});

test.run();
