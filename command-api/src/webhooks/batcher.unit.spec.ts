import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { MicroBatcher } from './batcher';

const test = suite('webhook micro-batcher');
const tick = () => new Promise((r) => setImmediate(r));

test('given items added in one tick, then they go in one call and each caller gets its own answer', async () => {
  const calls: number[][] = [];
  const b = new MicroBatcher<number, number>(async (xs) => (calls.push(xs), xs.map((x) => x * 10)), { maxBatch: 100, maxInFlight: 1 });
  const answers = await Promise.all([1, 2, 3].map((x) => b.add(x)));
  assert.equal(answers, [10, 20, 30]);
  assert.equal(calls, [[1, 2, 3]]);
});

test('given more than maxBatch items, then they are split into calls of at most maxBatch', async () => {
  const calls: number[][] = [];
  const b = new MicroBatcher<number, number>(async (xs) => (calls.push(xs), xs), { maxBatch: 2, maxInFlight: 4 });
  assert.equal(await Promise.all([1, 2, 3, 4, 5].map((x) => b.add(x))), [1, 2, 3, 4, 5]);
  assert.equal(calls, [[1, 2], [3, 4], [5]]);
});

test('given a call in flight and maxInFlight 1, then items added meanwhile wait for it and go together in the next call', async () => {
  const calls: number[][] = [];
  let release: () => void = () => undefined;
  const gate = new Promise<void>((r) => (release = r));
  const b = new MicroBatcher<number, number>(
    async (xs) => {
      calls.push(xs);
      if (calls.length === 1) await gate;
      return xs;
    },
    { maxBatch: 100, maxInFlight: 1 },
  );
  const first = b.add(1);
  await tick();
  const later = [b.add(2), b.add(3)];
  await tick();
  assert.equal(calls, [[1]]);
  release();
  assert.equal(await Promise.all([first, ...later]), [1, 2, 3]);
  assert.equal(calls, [[1], [2, 3]]);
});

test('given a call that fails, then each item is tried alone: the poisoned one fails, the others get their answers', async () => {
  const calls: number[][] = [];
  const b = new MicroBatcher<number, number>(
    async (xs) => {
      calls.push(xs);
      if (xs.includes(2)) throw new Error(`poison in ${xs.join(',')}`);
      return xs;
    },
    { maxBatch: 100, maxInFlight: 1 },
  );
  const results = await Promise.allSettled([1, 2, 3].map((x) => b.add(x)));
  assert.equal(results.map((r) => r.status), ['fulfilled', 'rejected', 'fulfilled']);
  assert.equal((results[1] as PromiseRejectedResult).reason.message, 'poison in 2');
  assert.equal(calls, [[1, 2, 3], [1], [2], [3]]);
});

test('given a call that answers fewer results than items, then the batch fails rather than answer the wrong item', async () => {
  const b = new MicroBatcher<number, number>(async (xs) => xs.slice(1), { maxBatch: 100, maxInFlight: 1 });
  const results = await Promise.allSettled([1, 2].map((x) => b.add(x)));
  assert.ok(results.every((r) => r.status === 'rejected'));
});

test.run();
