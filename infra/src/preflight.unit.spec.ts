import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from './config';
import { StartupError, addressOf, checkDatabase, defaultDatabaseAddress, describeStartupError, waitForRedis } from './preflight';

const test = suite('preflight: what a start checks before it opens anything');

const redis = (over: { APP_ENV?: 'sandbox' | 'production'; REDIS_WAIT_SECONDS?: number } = {}) => ({ REDIS_URL: 'redis://127.0.0.1:6390', APP_ENV: 'sandbox' as const, REDIS_WAIT_SECONDS: 60, ...over });

test('given Redis answers, when the start checks, then it goes on without a word', async () => {
  const lines: string[] = [];
  await waitForRedis(redis(), { probe: async () => true, write: (l) => lines.push(l) });
  assert.equal(lines, []);
});

test('given no Redis in production, when the start checks, then one line names REDIS_URL and how to start one, without waiting', async () => {
  let probes = 0;
  const err = await waitForRedis(redis({ APP_ENV: 'production' }), { probe: async () => (probes++, false), sleep: async () => assert.unreachable('waited') }).catch((e: unknown) => e);
  assert.instance(err, StartupError);
  assert.match((err as Error).message, /^no Redis at 127\.0\.0\.1:6390 \(REDIS_URL\): start one \(`redis-server --port 6379`, or `docker run -d -p 6379:6379 redis:7`\)/);
  assert.is(probes, 1);
});

test('given no Redis in sandbox, when it comes up while the start waits, then the start goes on and says so', async () => {
  const lines: string[] = [];
  let probes = 0;
  await waitForRedis(redis(), { probe: async () => ++probes >= 3, write: (l) => lines.push(l), sleep: async () => undefined });
  assert.match(lines[0] ?? '', /no Redis at 127\.0\.0\.1:6390 \(REDIS_URL\): .*; waiting up to 60 s$/);
  assert.match(lines.at(-1) ?? '', /^Redis answers at 127\.0\.0\.1:6390: starting$/);
});

test('given no Redis in sandbox and REDIS_WAIT_SECONDS elapsed, then the start gives up with the line', async () => {
  let now = Date.now();
  const realNow = Date.now;
  Date.now = () => now;
  try {
    const err = await waitForRedis(redis({ REDIS_WAIT_SECONDS: 3 }), { probe: async () => false, write: () => undefined, sleep: async (ms) => void (now += ms) }).catch((e: unknown) => e);
    assert.instance(err, StartupError);
    assert.match((err as Error).message, /after waiting 3 s: start one/);
  } finally {
    Date.now = realNow;
  }
});

test('the default PostgreSQL address is 127.0.0.1:5432, or PGHOST / PGPORT (a socket directory is not an address)', () => {
  assert.equal(defaultDatabaseAddress({}), { host: '127.0.0.1', port: 5432 });
  assert.equal(defaultDatabaseAddress({ PGHOST: 'db.local', PGPORT: '6543' }), { host: 'db.local', port: 6543 });
  assert.equal(defaultDatabaseAddress({ PGHOST: '/var/run/postgresql' }), { host: '127.0.0.1', port: 5432 });
  assert.is(loadConfig({ PGPORT: '6543' }).DATABASE_URL, 'postgres://postgres@127.0.0.1:6543/cagnotte');
  assert.is(loadConfig({ PGPORT: '6543', DATABASE_URL: 'postgres://u@h:1/x' }).DATABASE_URL, 'postgres://u@h:1/x');
  assert.equal(addressOf('redis://cache:6380/2', 6379), { host: 'cache', port: 6380 });
  assert.equal(addressOf('postgres://u@[::1]/x', 5432), { host: '::1', port: 5432 });
});

test('a DATABASE_URL nobody answers at is one line naming it; an unset one says pnpm start would run an embedded one', async () => {
  const set = await checkDatabase('postgres://u@127.0.0.1:5999/x', true, async () => false).catch((e: Error) => e.message);
  assert.match(String(set), /^no PostgreSQL answers at 127\.0\.0\.1:5999 \(DATABASE_URL\)/);
  const unset = await checkDatabase('postgres://u@127.0.0.1:5432/x', false, async () => false).catch((e: Error) => e.message);
  assert.match(String(unset), /DATABASE_URL is unset.*pnpm start/);
});

test('start-up errors a newcomer meets are one expected line; anything else is not hidden', () => {
  const config = { DATABASE_URL: 'postgres://u@db:5432/x', REDIS_URL: 'redis://r:6379' };
  const auth = describeStartupError(Object.assign(new Error('password authentication failed for user "u"'), { code: '28P01' }), config);
  assert.ok(auth.expected);
  assert.match(auth.line, /^PostgreSQL at db:5432 refused the credentials in DATABASE_URL/);
  const bug = describeStartupError(new TypeError('x is not a function'), config);
  assert.not.ok(bug.expected);
});

test.run();
