import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { KeyedQueue } from './keyed-queue';

const test = suite('KeyedQueue');

const later = (ms: number) => new Promise((r) => setTimeout(r, ms));
const far = () => Date.now() + 60_000;
const timeout = () => new Error('late');
/** The promise's rejection message (caught at once, so it never counts as unhandled). */
const failure = (p: Promise<unknown>) => p.then(() => 'resolved', (e: Error) => e.message);

test('tasks of one key run one at a time, in arrival order; other keys do not wait', async () => {
  const q = new KeyedQueue();
  const log: string[] = [];
  let running = 0;
  let most = 0;
  const task = (name: string, ms: number) => async () => {
    running++;
    most = Math.max(most, running);
    log.push(`start ${name}`);
    await later(ms);
    log.push(`end ${name}`);
    running--;
    return name;
  };
  const other = q.run('b', async () => log.push('b'), { until: far(), timeout });
  const results = await Promise.all([q.run('a', task('1', 30), { until: far(), timeout }), q.run('a', task('2', 5), { until: far(), timeout }), q.run('a', task('3', 1), { until: far(), timeout })]);
  await other;
  assert.equal(results, ['1', '2', '3']);
  assert.equal(log.filter((l) => l !== 'b'), ['start 1', 'end 1', 'start 2', 'end 2', 'start 3', 'end 3']);
  assert.ok(log.indexOf('b') < log.indexOf('end 1'), 'key b ran without waiting for key a');
  assert.is(most, 1);
  assert.is(q.size, 0, 'no key left behind');
});

test('a failing task does not block the next; a task whose turn does not come in time gives up its place', async () => {
  const q = new KeyedQueue();
  const failed = failure(q.run('a', async () => Promise.reject(new Error('boom')), { until: far(), timeout }));
  const next = q.run('a', async () => 'next', { until: far(), timeout });
  assert.is(await failed, 'boom');
  assert.is(await next, 'next');
  let release!: () => void;
  const slow = q.run('a', () => new Promise<string>((r) => (release = () => r('slow'))), { until: far(), timeout });
  const impatient = failure(q.run('a', async () => 'never', { until: Date.now() + 20, timeout }));
  const patient = q.run('a', async () => 'after', { until: far(), timeout });
  assert.is(await impatient, 'late');
  release();
  assert.is(await slow, 'slow');
  assert.is(await patient, 'after', 'the task behind the one that gave up still runs after the slow one');
  assert.is(q.size, 0);
});

test.run();
