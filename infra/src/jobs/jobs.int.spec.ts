import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createLogger } from '../logger';
import { onTestTeardown } from '../testing/resources';
import { BullJobQueue, jobIdOf } from './bullmq';
import type { JobQueue } from './port';
import { Scheduler } from './scheduler';

const test = suite('jobs port (bullmq)');
const logger = createLogger('silent');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A queue of this spec's own (fresh prefix) so counts and keys start empty. */
const newJobs = (o: { retryBaseMs?: number; attempts?: number } = {}): JobQueue => {
  const jobs = new BullJobQueue({
    url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15',
    keyPrefix: `${process.env.REDIS_KEY_PREFIX ?? 'test:'}jobs-${randomUUID().slice(0, 8)}:`,
    logger,
    retryBaseMs: o.retryBaseMs ?? 20,
    attempts: o.attempts ?? 3,
  });
  onTestTeardown(() => jobs.close());
  return jobs;
};

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
};

test('job ids: keys with `:` or digits only become valid, distinct bullmq ids', () => {
  const keys = ['pool-deadline:abc', 'pool-deadline%3Aabc', '123', '#123', 'a.b'];
  const ids = keys.map(jobIdOf);
  assert.is(new Set(ids).size, keys.length);
  for (const id of ids) {
    assert.not.ok(id.includes(':'));
    assert.is.not(`${parseInt(id, 10)}`, id);
  }
});

test('enqueueMany queues a lot in one call, each key once: keys already known (from enqueue or an earlier lot) are skipped, delays kept', async () => {
  const jobs = newJobs();
  const queue = `bulk-${randomUUID().slice(0, 8)}`;
  await jobs.enqueue(queue, 'k:1', { n: 1 });
  await jobs.enqueueMany(queue, [
    { key: 'k:1', payload: { n: 100 } },
    { key: 'k:2', payload: { n: 2 } },
    { key: 'k:3', payload: { n: 3 }, options: { delayMs: 300 } },
  ]);
  await jobs.enqueueMany(queue, [{ key: 'k:2', payload: { n: 200 } }]);
  const seen: Array<{ key: string; n: number; at: number }> = [];
  const t0 = Date.now();
  const worker = jobs.startWorker<{ n: number }>(queue, async (p, ctx) => void seen.push({ key: ctx.key, n: p.n, at: Date.now() - t0 }), { concurrency: 4 });
  await until('three jobs ran', () => seen.length === 3);
  await sleep(200);
  await worker.close();
  assert.equal(
    seen.map((s) => [s.key, s.n]).sort(),
    [
      ['k:1', 1],
      ['k:2', 2],
      ['k:3', 3],
    ],
  );
  assert.ok(seen.find((s) => s.key === 'k:3')!.at >= 250, 'the delayed one waited');
});

test('a delayed job runs once, at or after its time; the same key scheduled twice runs once', async () => {
  const jobs = newJobs();
  const scheduler = new Scheduler<{ poolId: string }>(jobs, 'deadlines');
  const eventId = randomUUID();
  const runAt = new Date(Date.now() + 600);
  const runs: Array<{ at: number; key: string; poolId: string }> = [];
  await scheduler.at('pool-deadline', eventId, runAt, { poolId: 'p1' });
  await scheduler.at('pool-deadline', eventId, runAt, { poolId: 'p1' }); // a redelivered event schedules again
  const worker = scheduler.run(async (payload, ctx) => void runs.push({ at: Date.now(), key: ctx.key, poolId: payload.poolId }), { concurrency: 2 });
  assert.is((await jobs.counts()).deadlines?.delayed, 1, 'one delayed job for two schedules');
  await until('the job ran', () => runs.length === 1);
  await sleep(400);
  assert.is(runs.length, 1, 'ran once');
  assert.ok(runs[0]!.at >= runAt.getTime() - 5, 'not before its time');
  assert.equal([runs[0]!.key, runs[0]!.poolId], [`pool-deadline:${eventId}`, 'p1']);
  // A redelivery after the job completed is a no-op too: the completed id is kept (removeOnComplete by age).
  await scheduler.at('pool-deadline', eventId, new Date(), { poolId: 'p1' });
  await sleep(300);
  assert.is(runs.length, 1, 'a completed key is not run again');
  await worker.close();
});

test('a failing job is retried with backoff; after its last attempt it stays visible as failed and counted', async () => {
  const jobs = newJobs({ attempts: 3, retryBaseMs: 30 });
  const attempts: number[] = [];
  const worker = jobs.startWorker('flaky', async (_p: object, ctx) => {
    attempts.push(ctx.attempt);
    if (ctx.key === 'always-fails' || ctx.attempt < 2) throw new Error('boom');
  });
  await jobs.enqueue('flaky', 'fails-once', {});
  await until('the flaky job completed', async () => (await jobs.counts()).flaky?.completed === 1);
  await jobs.enqueue('flaky', 'always-fails', {});
  await until('the failing job is failed', async () => (await jobs.counts()).flaky?.failed === 1);
  const counts = (await jobs.counts()).flaky!;
  assert.equal([counts.completed, counts.failed, counts.waiting, counts.active, counts.delayed], [1, 1, 0, 0, 0]);
  await until('every failed attempt is counted', async () => (await jobs.counts()).flaky?.failedAttempts === 4);
  assert.equal(attempts, [1, 2, 1, 2, 3]);
  await worker.close();
});

test('a job whose worker crashed is retried by another worker, and the idempotent handler applies its effect once', async () => {
  const jobs = newJobs();
  const applied = new Set<string>();
  let invocations = 0;
  let crashed!: () => void;
  const started = new Promise<void>((r) => (crashed = r));
  // Worker A applies the effect, then hangs before the queue hears of it; it is then closed by force (a crash).
  const a = jobs.startWorker(
    'crashy',
    async (_p: object, ctx) => {
      invocations++;
      applied.add(ctx.key);
      crashed();
      await new Promise(() => undefined);
    },
    { lockMs: 500, stalledCheckMs: 250 },
  );
  await jobs.enqueue('crashy', 'effect-1', {});
  await started;
  await a.close({ force: true });
  let effects = 0;
  const seen: number[] = [];
  const b = jobs.startWorker(
    'crashy',
    async (_p: object, ctx) => {
      invocations++;
      seen.push(ctx.attempt);
      if (applied.has(ctx.key)) return; // the handler checks its own effect first
      applied.add(ctx.key);
      effects++;
    },
    { lockMs: 500, stalledCheckMs: 250 },
  );
  await until('the crashed job completed elsewhere', async () => (await jobs.counts()).crashy?.completed === 1, 15_000);
  assert.is(invocations, 2, 'run again after the crash');
  assert.is(effects, 0, 'the effect was not applied twice');
  assert.ok(seen[0]! >= 2, 'the rerun knows it is not the first attempt');
  await b.close();
});

test.run();
