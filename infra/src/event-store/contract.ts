import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { EventStore, NewEvent, RecordedEvent } from './port';
import { DuplicateEventIdError, WrongExpectedRevisionError, comparePositions } from './port';

/** One contract, every adapter: the PostgreSQL store always, EventStoreDB when EVENTSTORE_URL is set. */
export const eventStoreContract = (adapter: string, makeStore: () => Promise<EventStore>): void => {
  const test = suite(`event store contract: ${adapter}`);
  let store: EventStore;
  test.before(async () => {
    store = await makeStore();
  });
  test.after(async () => {
    await store.close();
  });

  const stream = (kind = 'contract') => `${kind}-${randomUUID()}`;
  const ev = (type = 'Thing', data: Record<string, unknown> = { n: 1 }): NewEvent => ({
    id: randomUUID(),
    type,
    schemaVersion: 1,
    data,
    metadata: {
      tenantId: null,
      actor: { kind: 'system', id: 'contract-suite' },
      correlationId: randomUUID(),
      causationId: null,
      occurredAt: new Date().toISOString(),
    },
  });
  const conflict = async (p: Promise<unknown>): Promise<WrongExpectedRevisionError> => {
    try {
      await p;
    } catch (e) {
      if (e instanceof WrongExpectedRevisionError) return e;
      throw e;
    }
    throw new Error('expected a WrongExpectedRevisionError');
  };

  test('revisions are 0-based and an append returns the next expected revision', async () => {
    const s = stream();
    const r1 = await store.append(s, [ev(), ev()], { expectedRevision: 'no_stream' });
    assert.is(r1.nextExpectedRevision, 1n);
    const r2 = await store.append(s, [ev()], { expectedRevision: 1n });
    assert.is(r2.nextExpectedRevision, 2n);
    const read = await store.readStream(s);
    assert.equal(read.map((e) => e.revision), [0n, 1n, 2n]);
    assert.ok(comparePositions(r2.position, r1.position) > 0);
  });

  test('no_stream on an existing stream is a conflict that carries expected and actual', async () => {
    const s = stream();
    await store.append(s, [ev()], { expectedRevision: 'no_stream' });
    const e = await conflict(store.append(s, [ev()], { expectedRevision: 'no_stream' }));
    assert.is(e.expected, 'no_stream');
    assert.is(e.actual, 0n);
    assert.is(e.streamId, s);
  });

  test('stream_exists on a missing stream is a conflict with actual no_stream', async () => {
    const e = await conflict(store.append(stream(), [ev()], { expectedRevision: 'stream_exists' }));
    assert.is(e.actual, 'no_stream');
    assert.is(e.expected, 'stream_exists');
  });

  test('stream_exists on an existing stream appends', async () => {
    const s = stream();
    await store.append(s, [ev()], { expectedRevision: 'no_stream' });
    const r = await store.append(s, [ev()], { expectedRevision: 'stream_exists' });
    assert.is(r.nextExpectedRevision, 1n);
  });

  test('an exact revision must match the current one', async () => {
    const s = stream();
    await store.append(s, [ev(), ev(), ev()], { expectedRevision: 'no_stream' });
    const stale = await conflict(store.append(s, [ev()], { expectedRevision: 1n }));
    assert.is(stale.expected, 1n);
    assert.is(stale.actual, 2n);
    const missing = await conflict(store.append(stream(), [ev()], { expectedRevision: 0n }));
    assert.is(missing.actual, 'no_stream');
    const ok = await store.append(s, [ev()], { expectedRevision: 2n });
    assert.is(ok.nextExpectedRevision, 3n);
  });

  test('any appends whatever the state', async () => {
    const s = stream();
    assert.is((await store.append(s, [ev()], { expectedRevision: 'any' })).nextExpectedRevision, 0n);
    assert.is((await store.append(s, [ev()], { expectedRevision: 'any' })).nextExpectedRevision, 1n);
  });

  test('a rejected batch writes none of its events', async () => {
    const s = stream();
    await store.append(s, [ev()], { expectedRevision: 'no_stream' });
    const batch = [ev('A'), ev('B'), ev('C')];
    await conflict(store.append(s, batch, { expectedRevision: 5n }));
    const read = await store.readStream(s);
    assert.is(read.length, 1);
  });

  test('re-appending the same event ids after a timeout does not duplicate them', async () => {
    const s = stream();
    const batch = [ev('A', { a: 1, b: { c: 2 } }), ev('B')];
    const first = await store.append(s, batch, { expectedRevision: 'no_stream' });
    const again = await store.append(s, batch, { expectedRevision: 'no_stream' });
    assert.is(again.nextExpectedRevision, first.nextExpectedRevision);
    assert.is(comparePositions(again.position, first.position), 0);
    const anyAgain = await store.append(s, batch, { expectedRevision: 'any' });
    assert.is(anyAgain.nextExpectedRevision, first.nextExpectedRevision);
    assert.is((await store.readStream(s)).length, 2);
  });

  test('an event id reused with other content is refused', async () => {
    const s = stream();
    const e = ev('A', { v: 1 });
    await store.append(s, [e], { expectedRevision: 'no_stream' });
    try {
      await store.append(s, [{ ...e, data: { v: 2 } }], { expectedRevision: 'any' });
      assert.unreachable('should have refused');
    } catch (error) {
      assert.ok(error instanceof DuplicateEventIdError || error instanceof WrongExpectedRevisionError, String(error));
    }
    assert.equal((await store.readStream(s)).map((x) => x.data), [{ v: 1 }]);
  });

  test('concurrent writers with the same expected revision: exactly one wins', async () => {
    const s = stream();
    await store.append(s, [ev()], { expectedRevision: 'no_stream' });
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => store.append(s, [ev()], { expectedRevision: 0n })));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof WrongExpectedRevisionError);
    assert.is((await store.readStream(s)).length, 2);
  });

  test('concurrent creators with no_stream: exactly one wins', async () => {
    const s = stream();
    const results = await Promise.allSettled(Array.from({ length: 6 }, () => store.append(s, [ev()], { expectedRevision: 'no_stream' })));
    assert.is(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.is((await store.readStream(s)).length, 1);
  });

  test('reads a stream forwards and backwards from a revision, bounded by maxCount', async () => {
    const s = stream();
    await store.append(s, Array.from({ length: 6 }, (_, i) => ev('N', { i })), { expectedRevision: 'no_stream' });
    const fwd = await store.readStream(s, { fromRevision: 2n, maxCount: 3 });
    assert.equal(fwd.map((e) => (e.data as { i: number }).i), [2, 3, 4]);
    const back = await store.readStream(s, { direction: 'backwards', fromRevision: 3n, maxCount: 2 });
    assert.equal(back.map((e) => e.revision), [3n, 2n]);
    const last = await store.readStream(s, { direction: 'backwards', maxCount: 1 });
    assert.is(last[0]?.revision, 5n);
    assert.equal(await store.readStream(stream()), []);
  });

  test('events keep id, type, version, data and metadata', async () => {
    const s = stream();
    const e = ev('Shaped', { amount: '12.3400000', nested: { list: [1, 'two', null] } });
    await store.append(s, [e], { expectedRevision: 'no_stream' });
    const [read] = await store.readStream(s);
    assert.is(read?.id, e.id);
    assert.is(read?.type, 'Shaped');
    assert.is(read?.schemaVersion, 1);
    assert.equal(read?.data, e.data);
    assert.equal(read?.metadata, e.metadata);
    assert.is(read?.streamId, s);
  });

  test('the global feed reads from a position, exclusive, in order', async () => {
    const s = stream();
    const head = await store.headPosition();
    await store.append(s, [ev('G', { i: 0 }), ev('G', { i: 1 })], { expectedRevision: 'no_stream' });
    await store.append(s, [ev('G', { i: 2 })], { expectedRevision: 1n });
    const seen: RecordedEvent[] = [];
    let after = head;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 2 });
      if (page.length === 0) break;
      seen.push(...page);
      after = page[page.length - 1]!.position;
    }
    const mine = seen.filter((e) => e.streamId === s);
    assert.equal(mine.map((e) => (e.data as { i: number }).i), [0, 1, 2]);
    for (let i = 1; i < seen.length; i++) assert.ok(comparePositions(seen[i - 1]!.position, seen[i]!.position) < 0);
    const newHead = await store.headPosition();
    assert.ok(newHead && comparePositions(newHead, mine[2]!.position) >= 0);
  });

  test('pages of every size: each position strictly after the one before and after the cursor, the same sequence as one read, the head last', async () => {
    const streams = [stream('order'), stream('order')];
    const head = await store.headPosition();
    // Interleaved streams, single events and batches: the positions of one batch are consecutive in the feed.
    for (let i = 0; i < 6; i++) {
      const s = streams[i % 2]!;
      const events = i % 3 === 0 ? [ev('O', { i, j: 0 }), ev('O', { i, j: 1 }), ev('O', { i, j: 2 })] : [ev('O', { i, j: 0 })];
      await store.append(s, events, { expectedRevision: 'any' });
    }
    const key = (e: RecordedEvent) => `${e.position.commit}-${e.position.prepare}`;
    const readPaged = async (size: number): Promise<RecordedEvent[]> => {
      const out: RecordedEvent[] = [];
      let after = head;
      for (;;) {
        const page = await store.readAll({ after, maxCount: size });
        if (page.length === 0) return out;
        assert.ok(page.length <= size, `a page of ${size} has ${page.length}`);
        let prev = after;
        for (const e of page) {
          assert.ok(!prev || comparePositions(prev, e.position) < 0, `page of ${size}: ${key(e)} comes after ${prev ? `${prev.commit}-${prev.prepare}` : 'start'}`);
          assert.ok(typeof e.position.commit === 'bigint' && typeof e.position.prepare === 'bigint', 'positions are numbers');
          prev = e.position;
        }
        out.push(...page);
        after = page[page.length - 1]!.position;
      }
    };
    const whole = (await readPaged(10_000)).filter((e) => streams.includes(e.streamId));
    assert.is(whole.length, 10);
    assert.equal(
      whole.map((e) => (e.data as { i: number }).i),
      [0, 0, 0, 1, 2, 3, 3, 3, 4, 5],
      'append order',
    );
    for (const size of [1, 2, 3, 5]) {
      const paged = (await readPaged(size)).filter((e) => streams.includes(e.streamId));
      assert.equal(paged.map(key), whole.map(key), `page size ${size} gives the same sequence`);
    }
    const newHead = await store.headPosition();
    assert.ok(newHead && comparePositions(newHead, whole[whole.length - 1]!.position) >= 0, 'the head is at or past the last event');
    assert.equal(await store.readAll({ after: newHead, maxCount: 10 }).then((p) => p.filter((e) => streams.includes(e.streamId))), [], 'nothing after the head');
  });

  test('a subscription catches up from a checkpoint, then receives live events', async () => {
    const s = stream();
    await store.append(s, [ev('S', { i: 0 })], { expectedRevision: 'no_stream' });
    const [first] = await store.readStream(s);
    const got: number[] = [];
    let resolveDone!: () => void;
    const done = new Promise<void>((r) => (resolveDone = r));
    const sub = store.subscribeToAll({
      after: first!.position,
      handler: async (batch) => {
        for (const e of batch) if (e.streamId === s) got.push((e.data as { i: number }).i);
        if (got.length >= 2) resolveDone();
      },
    });
    await store.append(s, [ev('S', { i: 1 })], { expectedRevision: 0n });
    const started = Date.now();
    await store.append(s, [ev('S', { i: 2 })], { expectedRevision: 1n });
    await Promise.race([done, new Promise((_, rej) => setTimeout(() => rej(new Error('timed out')), 5000))]);
    await sub.stop();
    assert.equal(got, [1, 2]);
    assert.ok(Date.now() - started < 2000, 'live delivery is fast');
  });

  test('a slow handler holds back the next batch (backpressure)', async () => {
    const s = stream();
    const before = await store.headPosition();
    await store.append(s, Array.from({ length: 10 }, (_, i) => ev('B', { i })), { expectedRevision: 'no_stream' });
    let inFlight = 0;
    let maxInFlight = 0;
    const seen: number[] = [];
    const sub = store.subscribeToAll({
      after: before,
      batchSize: 3,
      handler: async (batch) => {
        inFlight++;
        maxInFlight = Math.max(maxInFlight, inFlight);
        assert.ok(batch.length <= 3);
        await new Promise((r) => setTimeout(r, 5));
        for (const e of batch) if (e.streamId === s) seen.push((e.data as { i: number }).i);
        inFlight--;
      },
    });
    const deadline = Date.now() + 5000;
    while (seen.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    await sub.stop();
    assert.is(maxInFlight, 1);
    assert.equal(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  });

  test('every event is hash-chained to the previous one of its stream and the chain verifies', async () => {
    const s = stream();
    await store.append(s, [ev(), ev()], { expectedRevision: 'no_stream' });
    await store.append(s, [ev()], { expectedRevision: 1n });
    const events = await store.readStream(s);
    assert.is(events[0]?.prevHash, null);
    assert.is(events[1]?.prevHash, events[0]?.hash);
    assert.is(events[2]?.prevHash, events[1]?.hash);
    assert.match(events[2]!.hash, /^[0-9a-f]{64}$/);
    const verdict = await store.verifyStream(s);
    assert.equal(verdict, { ok: true, streamId: s, checked: 3 });
  });

  test.run();
};
