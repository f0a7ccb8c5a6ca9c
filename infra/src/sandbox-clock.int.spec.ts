import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SandboxLedger } from '@cagnotte/sandbox-ledger';
import { createLogger } from './logger';
import { createRedis } from './redis';
import { BullJobQueue } from './jobs/bullmq';
import { SandboxClock } from './sandbox-clock';
import { onTestTeardown, testKnex } from './testing/resources';

const test = suite('sandbox clock: one offset for every process, and the timers it makes due');
const logger = createLogger('silent');
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15';
const DAY_MS = 86_400_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A "process": its own ledger object, Redis client and clock, on a network (passphrase) and key prefix given. */
const openClock = async (passphrase: string, keyPrefix: string, refreshMs = 60_000) => {
  const redis = createRedis(REDIS_URL, keyPrefix);
  const clock = await SandboxClock.open({ ledger: new SandboxLedger(testKnex(), { passphrase, assetCode: 'EURC' }), redis, keyPrefix, logger, refreshMs });
  onTestTeardown(async () => {
    await clock.close();
    await redis.quit();
  });
  return clock;
};

const fresh = () => ({ passphrase: `Cagnotte sandbox clock spec ${randomUUID()}`, prefix: `${process.env.REDIS_KEY_PREFIX ?? 'test:'}clock-${randomUUID().slice(0, 8)}:` });

const until = async (what: string, check: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting until ${what}`);
    await sleep(20);
  }
};

test('an advance in one process reaches another at once through Redis (its periodic re-read is a minute away), and the ledger agrees', async () => {
  const { passphrase, prefix } = fresh();
  const cli = await openClock(passphrase, prefix);
  const server = await openClock(passphrase, prefix);
  const otherNetwork = await openClock(`${passphrase} other`, prefix);
  assert.is(server.offset, 0);
  const jobs = new BullJobQueue({ url: REDIS_URL, keyPrefix: prefix, logger });
  onTestTeardown(() => jobs.close());

  const moved = await cli.advance(2 * 86_400, jobs);
  assert.equal([moved.network, moved.advancedBySeconds, moved.offsetSeconds], [passphrase, 172_800, 172_800]);
  const t0 = Date.now();
  await until('the other process hears of it', () => server.offset === 172_800, 2_000);
  assert.ok(Date.now() - t0 < 1_000, `heard within a second (${Date.now() - t0} ms)`);
  assert.ok(Math.abs(server.now().getTime() - (Date.now() + 2 * DAY_MS)) < 1_000, 'its now() runs two days ahead');
  const ledgerTime = await new SandboxLedger(testKnex(), { passphrase, assetCode: 'EURC' }).networkTime();
  assert.ok(Math.abs(ledgerTime.getTime() - server.now().getTime()) < 2_000, 'the ledger and the clock read one time');
  await sleep(200);
  assert.is(otherNetwork.offset, 0, 'another network on the same Redis does not move');
  assert.is(await server.refresh(), 172_800, 'the persisted offset is the one heard');
});

test('the periodic re-read catches an advance made on the ledger directly (no message)', async () => {
  const { passphrase, prefix } = fresh();
  const clock = await openClock(passphrase, prefix, 100);
  await new SandboxLedger(testKnex(), { passphrase, assetCode: 'EURC' }).advanceTime(3_600);
  await until('the re-read picks it up', () => clock.offset === 3_600, 3_000);
});

test('a delayed job due in 2 days runs right after advancing 2 days; one due in 5 days and one delayed by a duration do not, until their time', async () => {
  const { passphrase, prefix } = fresh();
  const clock = await openClock(passphrase, prefix);
  const jobs = new BullJobQueue({ url: REDIS_URL, keyPrefix: prefix, logger, clock: clock.now });
  onTestTeardown(() => jobs.close());
  const queue = `timers-${randomUUID().slice(0, 8)}`;
  const ran: string[] = [];
  jobs.startWorker<{ name: string }>(queue, async (p) => void ran.push(p.name), { concurrency: 4 });

  await jobs.enqueue(queue, 'in-2-days', { name: 'in-2-days' }, { runAt: new Date(clock.now().getTime() + 2 * DAY_MS) });
  await jobs.enqueue(queue, 'in-5-days', { name: 'in-5-days' }, { runAt: new Date(clock.now().getTime() + 5 * DAY_MS) });
  await jobs.enqueue(queue, 'retry-like', { name: 'retry-like' }, { delayMs: 2 * DAY_MS });
  await sleep(300);
  assert.equal(ran, [], 'nothing is due yet');

  const first = await clock.advance(2 * 86_400, jobs);
  assert.is(first.promotedJobs, 1);
  await until('the 2-day job ran', () => ran.includes('in-2-days'), 5_000);
  await sleep(500);
  assert.equal(ran, ['in-2-days'], 'the 5-day job and the delayed-by-duration job wait');

  // The 5-day job was re-timed: three more days bring it, and it alone.
  const second = await clock.advance(3 * 86_400, jobs);
  assert.is(second.promotedJobs, 1);
  await until('the 5-day job ran', () => ran.includes('in-5-days'), 5_000);
  await sleep(300);
  assert.equal(ran.sort(), ['in-2-days', 'in-5-days']);
  assert.is((await jobs.counts())[queue]?.delayed, 1, 'the job delayed by a duration keeps its real-time delay');
});

test('a job enqueued after an advance is delayed by the clock, not by the system time', async () => {
  const { passphrase, prefix } = fresh();
  const clock = await openClock(passphrase, prefix);
  const jobs = new BullJobQueue({ url: REDIS_URL, keyPrefix: prefix, logger, clock: clock.now });
  onTestTeardown(() => jobs.close());
  await clock.advance(5 * 86_400, jobs);
  const queue = `after-${randomUUID().slice(0, 8)}`;
  const ran: string[] = [];
  jobs.startWorker<{ name: string }>(queue, async (p) => void ran.push(p.name));
  // By the system time both are days in the past; by the clock one is an hour away and the other half a second.
  await jobs.enqueue(queue, 'in-an-hour', { name: 'in-an-hour' }, { runAt: new Date(clock.now().getTime() + 3_600_000) });
  await jobs.enqueue(queue, 'soon', { name: 'soon' }, { runAt: new Date(clock.now().getTime() + 500) });
  await until('the near one ran', () => ran.includes('soon'), 5_000);
  await sleep(300);
  assert.equal(ran, ['soon']);
  assert.is((await jobs.counts())[queue]?.delayed, 1);
});

test.run();
