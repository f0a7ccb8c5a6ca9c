import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { escrowJobDeps, startEscrowJobs } from '@cagnotte/command-api';
import { JOB_QUEUES } from '@cagnotte/infra';
import { eventually, ownDatabase, startApi, type TestApi, type TestUser } from './harness';

/**
 * `pnpm cli sandbox clock advance` from another process moves the clock of a running server: its pool-deadline timer
 * (scheduled days ahead by the escrow-timers process manager) runs at once, and decides with the moved time; the
 * server's routes read the moved time too. The server and the CLI share a network, a key prefix and a database of
 * their own, so that the advance touches no other spec's ledger or timers, and no other spec's service applies this
 * one's events (one under the run's key prefix once queued this spec's deadline timer where its workers never look).
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
}

const DAY_MS = 86_400_000;
const passphrase = `Cagnotte sandbox clock e2e ${randomUUID()}`;
const keyPrefix = `${process.env.REDIS_KEY_PREFIX ?? 'test:'}clock-e2e-${randomUUID().slice(0, 8)}:`;
const test = suite<Ctx>('sandbox clock: the CLI moves the running server\'s clock and its timers');

/** The CLI as an operator runs it (`node scripts/cli.mjs …`), on this spec's network and key prefix. */
/** The spec's own database, the server's and the CLI's (set before the first test). */
let database = '';
const cli = async (...args: string[]): Promise<{ code: number; out: string; err: string }> => {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/cli.mjs', ...args], {
      cwd: resolve(__dirname, '../..'),
      env: { ...process.env, LOG_LEVEL: 'silent', STELLAR_NETWORK_PASSPHRASE: passphrase, REDIS_KEY_PREFIX: keyPrefix, DATABASE_URL: database },
    });
    return { code: 0, out: stdout, err: stderr };
  } catch (e) {
    const x = e as { code: number; stdout: string; stderr: string };
    return { code: x.code, out: x.stdout, err: x.stderr };
  }
};

test.before(async (ctx) => {
  database = await ownDatabase('clock');
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: passphrase, REDIS_KEY_PREFIX: keyPrefix, DATABASE_URL: database });
  // The escrow's timer workers, as `pnpm start` runs them beside the API.
  const stopJobs = startEscrowJobs(escrowJobDeps(ctx.api.services));
  const stopApi = ctx.api.stop;
  ctx.api.stop = async () => {
    await stopJobs();
    await stopApi();
  };
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Clock' });
});
test.after(async (ctx) => ctx.api.stop());

const post = (ctx: Ctx, path: string, body: unknown = {}) => ctx.api.call('POST', path, { token: ctx.organiser.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID() } });
const pool = (deadline: string) => ({
  type: 'GROUPS',
  title: 'Fromages du Jura',
  deadline,
  config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 20 }], minimumUnits: 5, release: { after: 'CLOSE' } },
});

test('bad durations and typos: exit 2 with one line, before anything moves', async () => {
  const bad = await cli('sandbox', 'clock', 'advance', '7 days');
  assert.is(bad.code, 2, bad.err);
  assert.match(bad.err, /^error: '7 days' is not a duration: use e\.g\. 90s, 15m, 2h, 7d, 1d12h or ISO 8601 P7D, PT2H$/m);
  const tooFar = await cli('sandbox', 'clock', 'advance', '3651d');
  assert.is(tooFar.code, 2);
  assert.match(tooFar.err, /more than 3650 days/);
  const typo = await cli('sandbox', 'clock', 'advnace', '7d');
  assert.is(typo.code, 2);
  assert.match(typo.err, /did you mean 'sandbox clock advance'\?/);
  const shown = await cli('sandbox', 'clock', 'show');
  assert.is(shown.code, 0, shown.err);
  const clock = JSON.parse(shown.out);
  assert.equal([clock.network, clock.offsetSeconds], [passphrase, 0]);
});

test('a pool whose deadline is two days away closes right after `sandbox clock advance 2d1h`, decided by the moved clock; the routes read it too', async (ctx) => {
  const deadline = new Date(Date.now() + 2 * DAY_MS).toISOString();
  const created = await post(ctx, '/api/pools', pool(deadline));
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  const published = await post(ctx, `/api/pools/${poolId}/publish`);
  assert.is(published.status, 200, published.text);
  // The escrow-timers process manager schedules the deadline from PoolPublished.
  await eventually(async () => ((await ctx.api.services.jobs.counts())[JOB_QUEUES.poolDeadline]?.delayed ?? 0) >= 1, 'the deadline timer is scheduled');
  const status = async () => (await ctx.api.call('GET', `/api/pools/${poolId}`, { token: ctx.organiser.token, tenant: ctx.tenant })).body.data.status as string;
  assert.is(await status(), 'OPEN');

  const moved = await cli('sandbox', 'clock', 'advance', '2d1h');
  assert.is(moved.code, 0, moved.err);
  const out = JSON.parse(moved.out);
  assert.equal([out.network, out.advancedBySeconds, out.offsetSeconds], [passphrase, 176_400, 176_400]);
  assert.ok(out.promotedJobs >= 1, `the deadline timer was brought forward (${moved.out})`);
  assert.ok(Math.abs(Date.parse(out.now) - (Date.now() + 176_400_000)) < 60_000, 'now is the moved time');

  // The server heard of it (no restart): its timer ran and closed the pool below its minimum at the deadline.
  await eventually(async () => (await status()) === 'FAILED', 'the pool failed at its deadline');
  const closed = (await ctx.api.services.store.readStream(`pool-${poolId}`)).find((e) => e.type === 'PoolClosed');
  assert.ok(closed, 'PoolClosed is on the stream');
  assert.ok(Date.parse(closed!.metadata.occurredAt) > Date.parse(deadline), `closed after the deadline by the clock (${closed!.metadata.occurredAt})`);
  assert.ok(Math.abs(ctx.api.services.clock().getTime() - (Date.now() + 176_400_000)) < 5_000, 'the server\'s clock runs 2d1h ahead');

  // A command the server decides now is dated by the moved clock.
  const later = await post(ctx, '/api/pools', pool(new Date(Date.now() + 4 * DAY_MS).toISOString()));
  assert.is(later.status, 201, later.text);
  assert.ok(Date.parse(later.body.data.createdAt) >= Date.now() + 2 * DAY_MS, `created at the moved time (${later.body.data.createdAt})`);

  const shown = JSON.parse((await cli('sandbox', 'clock', 'show')).out);
  assert.is(shown.offsetSeconds, 176_400);
});

test('partners: GET /sandbox/clock and POST /sandbox/clock/advance, with a session; a bad duration is a 400 naming the field', async (ctx) => {
  const as = { token: ctx.organiser.token, tenant: ctx.tenant };
  assert.is((await ctx.api.call('GET', '/sandbox/clock')).status, 401, 'a session is required');
  const before = await ctx.api.call('GET', '/sandbox/clock', as);
  assert.is(before.status, 200, before.text);
  const bad = await ctx.api.call('POST', '/sandbox/clock/advance', { ...as, body: { duration: 'P1Y' } });
  assert.is(bad.status, 400, bad.text);
  assert.match(bad.body.errors.duration[0], /years and months have no fixed length/);
  const moved = await ctx.api.call('POST', '/sandbox/clock/advance', { ...as, body: { duration: 'PT2H' } });
  assert.is(moved.status, 200, moved.text);
  assert.equal([moved.body.data.network, moved.body.data.advancedBySeconds, moved.body.data.offsetSeconds], [passphrase, 7_200, before.body.data.offsetSeconds + 7_200]);
  assert.is(typeof moved.body.data.promotedJobs, 'number');
  const after = await ctx.api.call('GET', '/sandbox/clock', as);
  assert.is(after.body.data.offsetSeconds, before.body.data.offsetSeconds + 7_200);
});

test.run();
