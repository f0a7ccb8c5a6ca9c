/**
 * Answers in the same statement: a command's idempotent answer (a row of idempotency_keys) is written with its
 * events, all of an append's answers or none, and names the position of the command's last event.
 */
import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IdempotencyKeyTakenError, PostgresEventStore, type KeyedAnswer } from './postgres';
import { formatPosition, type NewEvent } from './port';
import { testPgPool } from '../testing/resources';

const ev = (i: number): NewEvent => ({
  id: randomUUID(),
  type: 'AnswerProbe',
  schemaVersion: 1,
  data: { i },
  metadata: { tenantId: null, actor: { kind: 'system', id: 'answers-spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

const answer = (key: string, lastEvent: number | null, extra: Partial<KeyedAnswer> = {}): KeyedAnswer => ({
  scope: 'answers-spec',
  key,
  fingerprint: `fp-${key}`,
  status: 201,
  body: { success: true, data: { key, z: 1, a: 2 } },
  headers: { 'X-Request-Kind': 'probe' },
  ttlSeconds: 3600,
  lastEvent,
  ...extra,
});

interface KeyRow {
  key: string;
  status_code: number;
  body: unknown;
  headers: Record<string, string>;
  live: boolean;
}

const rowsOf = async (keys: string[]): Promise<Map<string, KeyRow>> => {
  const r = await testPgPool().query<KeyRow>(
    `SELECT key, status_code, body, headers, expires_at > now() AS live FROM idempotency_keys WHERE scope = 'answers-spec' AND key = ANY($1::text[])`,
    [keys],
  );
  return new Map(r.rows.map((row) => [row.key, row]));
};

const taken = async (p: Promise<unknown>): Promise<IdempotencyKeyTakenError> => {
  try {
    await p;
  } catch (e) {
    if (e instanceof IdempotencyKeyTakenError) return e;
    throw e;
  }
  throw new Error('expected an IdempotencyKeyTakenError');
};

const test = suite('postgres event store: answers in the same statement');

type Append = PostgresEventStore['append'];
/** The statement path (append), or the locking path that a conflict falls back to (called directly). */
const appender = (store: PostgresEventStore, path: string): Append =>
  path.startsWith('one') ? store.append.bind(store) : (store as unknown as { appendLocked: Append }).appendLocked.bind(store);

for (const path of ['one statement', 'locking path'] as const) {
  test(`${path}: the answers are written with the events, each naming its last event's position`, async () => {
    const pool = testPgPool();
    const writer = new PostgresEventStore({ pool, listen: false });
    const stream = `answers-${randomUUID()}`;
    await writer.append(stream, [ev(0)], { expectedRevision: 'no_stream' });
    const store = writer;
    const append = appender(store, path);
    const k1 = `k1-${randomUUID()}`;
    const k2 = `k2-${randomUUID()}`;
    const k3 = `k3-${randomUUID()}`;
    const result = await append(stream, [ev(1), ev(2), ev(3)], {
      expectedRevision: 0n,
      answers: [answer(k1, 0), answer(k2, 2), answer(k3, null)],
    });
    assert.is(result.nextExpectedRevision, 3n);
    assert.is(result.positions?.length, 3);
    const read = await store.readStream(stream);
    assert.equal(result.positions!.map(formatPosition), read.slice(1).map((e) => formatPosition(e.position)));
    assert.equal(formatPosition(result.position), formatPosition(read[3]!.position));
    const rows = await rowsOf([k1, k2, k3]);
    assert.is(rows.get(k1)?.headers['X-Event-Position'], formatPosition(read[1]!.position));
    assert.is(rows.get(k2)?.headers['X-Event-Position'], formatPosition(read[3]!.position));
    assert.is(rows.get(k3)?.headers['X-Event-Position'], undefined, 'no last event: no position header');
    assert.is(rows.get(k1)?.headers['X-Request-Kind'], 'probe');
    assert.is(rows.get(k1)?.status_code, 201);
    assert.equal(rows.get(k1)?.body, { success: true, data: { key: k1, z: 1, a: 2 } });
    assert.ok(rows.get(k1)?.live);
    await store.close();
  });

  test(`${path}: a key held by a live row refuses the whole append: no events, no answers`, async () => {
    const pool = testPgPool();
    const writer = new PostgresEventStore({ pool, listen: false });
    const stream = `answers-${randomUUID()}`;
    const held = `held-${randomUUID()}`;
    await writer.append(stream, [ev(0)], { expectedRevision: 'no_stream', answers: [answer(held, 0)] });
    const store = writer;
    const append = appender(store, path);
    const fresh = `fresh-${randomUUID()}`;
    const e = await taken(append(stream, [ev(1), ev(2)], { expectedRevision: 0n, answers: [answer(fresh, 0), answer(held, 1)] }));
    assert.is(e.streamId, stream);
    assert.equal(e.keys, [held]);
    assert.is((await store.readStream(stream)).length, 1, 'no event written');
    const rows = await rowsOf([held, fresh]);
    assert.not.ok(rows.has(fresh), 'the key it could claim is not kept');
    assert.is(rows.get(held)?.headers['X-Event-Position'] !== undefined, true, 'the live row is untouched');
    // The stream still takes the next append at the same revision.
    const next = await append(stream, [ev(3)], { expectedRevision: 0n, answers: [answer(fresh, 0)] });
    assert.is(next.nextExpectedRevision, 1n);
    await store.close();
  });
}

test('an expired row of the key is replaced', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const key = `expired-${randomUUID()}`;
  await pool.query(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, status_code, body, headers, expires_at)
     VALUES ('answers-spec', $1, 'old', 200, '{}', '{}', now() - interval '1 second')`,
    [key],
  );
  const stream = `answers-${randomUUID()}`;
  const r = await store.append(stream, [ev(0)], { expectedRevision: 'no_stream', answers: [answer(key, 0)] });
  const row = (await rowsOf([key])).get(key)!;
  assert.ok(row.live);
  assert.is(row.status_code, 201);
  assert.is(row.headers['X-Event-Position'], formatPosition(r.position));
  await store.close();
});

test('a re-append of the same events answers as the first time and writes no answer again', async () => {
  const pool = testPgPool();
  const store = new PostgresEventStore({ pool, listen: false });
  const stream = `answers-${randomUUID()}`;
  const events = [ev(0), ev(1)];
  const key = `again-${randomUUID()}`;
  const first = await store.append(stream, events, { expectedRevision: 'no_stream', answers: [answer(key, 1)] });
  // Without its answer (a retry that lost its key): the events are found, nothing is written.
  const again = await store.append(stream, events, { expectedRevision: 'no_stream' });
  assert.is(again.nextExpectedRevision, first.nextExpectedRevision);
  assert.equal(formatPosition(again.position), formatPosition(first.position));
  assert.is((await store.readStream(stream)).length, 2);
  await store.close();
});

test.run();
