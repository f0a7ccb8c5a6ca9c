/**
 * `pnpm cli events tail` as an operator runs it: its own process (scripts/cli.mjs), reading rm_public_events of the test
 * run's database. Rows are inserted as the public-events projection writes them, with its NOTIFY.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { runCli, startApi, type TestApi } from './harness';
import { insertPublicEvent, type InsertedEvent } from './public-events';

interface Ctx {
  api: TestApi;
  a: { id: string; slug: string };
  b: { id: string; slug: string };
  events: InsertedEvent[];
}

const test = suite<Ctx>('cli: events tail');
const root = resolve(__dirname, '../..');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.a = await ctx.api.tenant();
  ctx.b = await ctx.api.tenant();
  ctx.events = [];
  for (const [tenant, type] of [[ctx.a, 'pool.published'], [ctx.b, 'pool.published'], [ctx.a, 'reservation.paid'], [ctx.a, 'payout.settled'], [ctx.b, 'reservation.placed']] as const) {
    ctx.events.push(await insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant: tenant.id, type }));
  }
});

test.after(async (ctx) => ctx.api.stop());

const lines = (out: string) =>
  out
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { cursor: string; id: string; type: string; tenant: string });

test("given --tenant, then that tenant's events as JSON lines in commit order, each with its cursor; --from resumes after a line; --limit", async (ctx) => {
  const all = await runCli('events', 'tail', '--tenant', ctx.a.slug);
  assert.is(all.code, 0, all.err);
  const got = lines(all.out);
  assert.equal(got.map((l) => l.id), ctx.events.filter((e) => e.tenant === ctx.a.id).map((e) => e.id));
  assert.ok(got.every((l) => l.tenant === ctx.a.id && typeof l.cursor === 'string'));
  const rest = await runCli('events', 'tail', '--tenant', ctx.a.slug, '--from', got[0]!.cursor);
  assert.equal(lines(rest.out).map((l) => l.id), got.slice(1).map((l) => l.id));
  const one = await runCli('events', 'tail', '--tenant', ctx.a.slug, '--limit', '1');
  assert.equal(lines(one.out).map((l) => l.id), [got[0]!.id]);
  const typed = await runCli('events', 'tail', '--tenant', ctx.a.slug, '--types', 'reservation.*,payout.settled');
  assert.equal(lines(typed.out).map((l) => l.type), ['reservation.paid', 'payout.settled']);
});

test('given no --tenant, then every tenant, in commit order', async (ctx) => {
  const res = await runCli('events', 'tail');
  assert.is(res.code, 0, res.err);
  const mine = new Set(ctx.events.map((e) => e.id));
  assert.equal(lines(res.out).filter((l) => mine.has(l.id)).map((l) => l.id), ctx.events.map((e) => e.id));
});

test('given bad usage, then exit 2', async (ctx) => {
  assert.is((await runCli('events', 'tail', '--from', 'garbage')).code, 2);
  assert.is((await runCli('events', 'tail', '--tenant', 'no-such-tenant-here')).code, 2);
  assert.is((await runCli('events', 'tail', '--types', 'Not A Type')).code, 2);
  assert.is((await runCli('events', 'tail', '--limit', '0', '--tenant', ctx.a.slug)).code, 2);
});

test('given --follow, then it prints the backlog and then events as they are committed, and stops on SIGTERM', async (ctx) => {
  const child = spawn(process.execPath, ['scripts/cli.mjs', 'events', 'tail', '--follow', '--tenant', ctx.b.slug], { cwd: root, env: { ...process.env, LOG_LEVEL: 'silent' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (err += String(d)));
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const until = async (n: number, what: string) => {
    const deadline = Date.now() + 60_000;
    while (lines(out).length < n) {
      if (Date.now() > deadline || child.exitCode !== null) throw new Error(`${what}: ${out} ${err}`);
      await new Promise((r) => setTimeout(r, 25));
    }
  };
  try {
    const backlog = ctx.events.filter((e) => e.tenant === ctx.b.id).map((e) => e.id);
    await until(backlog.length, 'the backlog');
    // Another tenant's event is not printed; this tenant's is, soon after its commit.
    await insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant: ctx.a.id, type: 'pool.closed' });
    const started = Date.now();
    const live = await insertPublicEvent(ctx.api.services.knex, ctx.api.services.pgPool, { tenant: ctx.b.id, type: 'pool.closed' });
    await until(backlog.length + 1, 'the live event');
    assert.ok(Date.now() - started < 5_000, `printed after ${Date.now() - started} ms`);
    assert.equal(lines(out).map((l) => l.id), [...backlog, live.id]);
  } finally {
    child.kill('SIGTERM');
  }
  assert.is(await exited, 0, err);
});

test.run();
