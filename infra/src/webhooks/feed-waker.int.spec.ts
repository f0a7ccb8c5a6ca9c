import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimitedError } from '../http/errors';
import { testDatabaseUrl, testPgPool } from '../testing/resources';
import { ALL_TENANTS, FeedWaker, notifyPublicEvents } from './feed-waker';

/** FeedWaker on real PostgreSQL: NOTIFY public_events from another connection wakes the tenant's waiters. */
const test = suite('webhooks: FeedWaker (LISTEN public_events)');

const wakers: FeedWaker[] = [];
const newWaker = (o: { max?: number; recheckMs?: number } = {}) => {
  const w = new FeedWaker({
    connect: async () => {
      const c = new pg.Client({ connectionString: testDatabaseUrl(), application_name: 'feed-waker-spec' });
      await c.connect();
      return c;
    },
    maxWaitersPerTenant: o.max,
    recheckMs: o.recheckMs ?? 20_000,
  });
  wakers.push(w);
  return w;
};
test.after(async () => {
  for (const w of wakers) await w.close();
});

const until = async (probe: () => boolean, what: string) => {
  const deadline = Date.now() + 10_000;
  while (!probe()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
};

test("given waiters of two tenants, when one tenant's events are notified, then only its waiter wakes, at once", async () => {
  const waker = newWaker();
  const a = randomUUID();
  const b = randomUUID();
  const la = waker.enter(a);
  const lb = waker.enter(b);
  await until(() => waker.listening, 'the LISTEN connection');
  // Starting to listen woke them once (what was committed meanwhile is read again).
  assert.equal([await la.next(0), await lb.next(0)], ['notified', 'notified']);
  const started = Date.now();
  const wa = la.next(15_000);
  const wb = lb.next(1_500);
  await notifyPublicEvents(testPgPool(), [a]);
  assert.is(await wa, 'notified');
  assert.ok(Date.now() - started < 1_500, `woken in ${Date.now() - started} ms, not by a timer`);
  assert.is(await wb, 'recheck', 'the other tenant sleeps on');
  la.release();
  lb.release();
});

test("given a waiter for every tenant (ALL_TENANTS), then any tenant's notification wakes it", async () => {
  const waker = newWaker();
  const all = waker.enter(ALL_TENANTS);
  await until(() => waker.listening, 'the LISTEN connection');
  await all.next(0);
  const w = all.next(15_000);
  await notifyPublicEvents(testPgPool(), [randomUUID()]);
  assert.is(await w, 'notified');
  all.release();
});

test('given an empty payload, then every waiter wakes', async () => {
  const waker = newWaker();
  const leases = [waker.enter(randomUUID()), waker.enter(randomUUID())];
  await until(() => waker.listening, 'the LISTEN connection');
  const waits = leases.map((l) => l.next(15_000));
  await testPgPool().query("SELECT pg_notify('public_events', '')");
  assert.equal(await Promise.all(waits), ['notified', 'notified']);
  for (const l of leases) l.release();
});

test('given a notification while the holder is not waiting (reading the table), then its next wait returns at once', async () => {
  const waker = newWaker();
  const t = randomUUID();
  const lease = waker.enter(t);
  const other = waker.enter(randomUUID());
  await until(() => waker.listening, 'the LISTEN connection');
  await lease.next(0);
  await other.next(0);
  waker.wake([t]);
  assert.is(await lease.next(15_000), 'notified');
  assert.is(await other.next(50), 'recheck', 'not for another tenant');
  assert.is(await lease.next(50), 'recheck', 'seen once');
  lease.release();
  other.release();
});

test('given the bound of waiters per tenant, then one more is a 429 until a place is released; other tenants are not affected', async () => {
  const waker = newWaker({ max: 2 });
  const t = randomUUID();
  const one = waker.enter(t);
  waker.enter(t);
  assert.throws(() => waker.enter(t), (e: unknown) => e instanceof RateLimitedError);
  assert.is(waker.waiting(t), 2);
  waker.enter(randomUUID()).release();
  one.release();
  one.release();
  assert.is(waker.waiting(t), 1, 'releasing twice frees one place');
  waker.enter(t);
});

test('given no notification, then a waiter wakes after recheckMs to read again (a lost NOTIFY costs that long)', async () => {
  const waker = newWaker({ recheckMs: 100 });
  const lease = waker.enter(randomUUID());
  // Once listening (starting to listen wakes every waiter: what was committed meanwhile is read again).
  await until(() => waker.listening, 'the LISTEN connection');
  await lease.next(0);
  const started = Date.now();
  assert.is(await lease.next(10_000), 'recheck');
  assert.ok(Date.now() - started < 2_000);
  lease.release();
});

test('given the LISTEN connection is killed, then the waker listens again and later notifications wake', async () => {
  const waker = newWaker({ recheckMs: 200 });
  const t = randomUUID();
  const lease = waker.enter(t);
  await until(() => waker.listening, 'the LISTEN connection');
  await testPgPool().query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'feed-waker-spec' AND query LIKE 'LISTEN%'");
  await until(() => !waker.listening, 'the loss to be seen');
  await until(() => waker.listening, 'listening again');
  let woke: string | null = null;
  for (let i = 0; i < 50 && woke !== 'notified'; i++) {
    const w = lease.next(5_000);
    await notifyPublicEvents(testPgPool(), [t]);
    woke = await w;
  }
  assert.is(woke, 'notified');
  lease.release();
});

test('given a waiter, when it is aborted or the waker closes, then it returns at once; after close every wait is closed', async () => {
  const waker = newWaker();
  const lease = waker.enter(randomUUID());
  const ac = new AbortController();
  const w = lease.next(15_000, ac.signal);
  ac.abort();
  assert.is(await w, 'aborted');
  const pending = lease.next(15_000);
  await waker.close();
  assert.is(await pending, 'closed');
  assert.is(await lease.next(15_000), 'closed');
  assert.is(waker.listening, false);
});

test.run();
