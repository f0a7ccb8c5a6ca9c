/**
 * Issue 24, start anywhere: `scripts/src/start.ts` (what `pnpm start` runs) as a child process, in an environment where
 * nothing answers on the PostgreSQL or Redis address (the probe's default address is moved to a closed port with
 * PGPORT, REDIS_URL names a closed port). Without PostgreSQL it runs an embedded one, says so in one line and serves;
 * without Redis, or with a DATABASE_URL nobody answers, it prints one line naming the setting and exits 1, no stack.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ChildServer, freePort } from './child-server';
import { runCliWith } from './harness';

const ROOT = resolve(__dirname, '../..');
const test = suite<{ dir: string }>('e2e: pnpm start with nothing on the PostgreSQL and Redis addresses');

/** Runs the start command to its exit (bounded) and returns what it printed and its exit code. */
const startToExit = (env: Record<string, string>, timeoutMs = 120_000): Promise<{ code: number | null; output: string }> =>
  new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/src/start.ts'], {
      cwd: ROOT,
      env: { ...process.env, HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      rej(new Error(`the start did not exit within ${timeoutMs} ms: ${output}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      res({ code, output });
    });
  });

const lines = (output: string) => output.split('\n').filter((l) => l.trim() !== '');
const noStack = (output: string) => assert.not.match(output, /^\s+at /m, `a stack trace was printed:\n${output}`);

test.before((ctx) => {
  ctx.dir = mkdtempSync(join(tmpdir(), 'cagnotte-embedded-'));
  chmodSync(ctx.dir, 0o755); // as root, the embedded PostgreSQL runs as `postgres` and must reach its data directory
});

test.after((ctx) => rmSync(ctx.dir, { recursive: true, force: true }));

test('no DATABASE_URL and nothing on the default address: an embedded PostgreSQL, one line, /health answers, stopped on SIGTERM', async (ctx) => {
  const closedPgPort = await freePort();
  const dataDir = join(ctx.dir, 'pg');
  const server = new ChildServer(await freePort(), { DATABASE_URL: '', PGHOST: '127.0.0.1', PGPORT: String(closedPgPort), EMBEDDED_POSTGRES_DIR: dataDir });
  try {
    await server.start();
    const said = lines(server.log).filter((l) => l.includes('embedded'));
    assert.is(said.length, 1, server.log);
    assert.match(said[0] ?? "", new RegExp(`^no PostgreSQL on 127\\.0\\.0\\.1:${closedPgPort}: started an embedded one \\(new data in .*pg, port \\d+\\); set DATABASE_URL to use your own$`));
    const health = await fetch(`${server.url}/health`);
    assert.is(health.status, 200);
    assert.is(((await health.json()) as { data: { postgres: string } }).data.postgres, 'ok');
    assert.ok(existsSync(join(dataDir, 'PG_VERSION')), 'the cluster lives in EMBEDDED_POSTGRES_DIR');
    assert.ok(existsSync(join(dataDir, 'postmaster.pid')), 'the cluster runs');
    // The CLI, with the same environment, finds the running embedded PostgreSQL (the default tenant of this start).
    const listed = await runCliWith({ DATABASE_URL: '', PGHOST: '127.0.0.1', PGPORT: String(closedPgPort), EMBEDDED_POSTGRES_DIR: dataDir }, 'tenant', 'list');
    assert.is(listed.code, 0, listed.err);
    assert.equal((JSON.parse(listed.out) as { items: Array<{ slug: string }> }).items.map((t) => t.slug), ['default']);
  } finally {
    await server.kill('SIGTERM');
  }
  assert.is(server.child!.exitCode, 0, server.log);
  // PostgreSQL removes its pid file when it has shut down: stopped with the service, not left behind.
  assert.not.ok(existsSync(join(dataDir, 'postmaster.pid')), 'the embedded PostgreSQL was stopped on exit');

  // A second start reuses the data directory (no initdb): the line no longer says "new".
  const again = new ChildServer(await freePort(), { DATABASE_URL: '', PGHOST: '127.0.0.1', PGPORT: String(closedPgPort), EMBEDDED_POSTGRES_DIR: dataDir });
  try {
    await again.start();
    assert.match(again.log, /started an embedded one \(data in /);
  } finally {
    await again.kill('SIGTERM');
  }
  assert.is(again.child!.exitCode, 0, again.log);
});

test('no Redis (production-like: no waiting): one line naming REDIS_URL and how to start one, exit 1, no stack', async () => {
  const { code, output } = await startToExit({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_WAIT_SECONDS: '0', PORT: String(await freePort()) });
  assert.is(code, 1, output);
  const said = lines(output);
  assert.is(said.length, 1, output);
  assert.match(said[0] ?? "", /no Redis at 127\.0\.0\.1:\d+ \(REDIS_URL\): start one \(`redis-server --port 6379`/);
  noStack(output);
});

test('no Redis in sandbox: it waits with a countdown, then gives up after REDIS_WAIT_SECONDS with the same line', async () => {
  const started = Date.now();
  const { code, output } = await startToExit({ REDIS_URL: `redis://127.0.0.1:${await freePort()}`, REDIS_WAIT_SECONDS: '2', PORT: String(await freePort()) });
  assert.is(code, 1, output);
  assert.ok(Date.now() - started >= 2000, 'it waited');
  const said = lines(output);
  assert.match(said[0] ?? "", /no Redis at .* \(REDIS_URL\): .*; waiting up to 2 s$/);
  assert.match(said.at(-1)!, /no Redis at .* \(REDIS_URL\) after waiting 2 s: start one/);
  noStack(output);
});

test('DATABASE_URL set but nothing answers there: one line naming DATABASE_URL, exit 1, no stack, no embedded PostgreSQL', async () => {
  const { code, output } = await startToExit({ DATABASE_URL: `postgres://postgres@127.0.0.1:${await freePort()}/cagnotte`, PORT: String(await freePort()) });
  assert.is(code, 1, output);
  const said = lines(output);
  assert.is(said.length, 1, output);
  assert.match(said[0] ?? "", /no PostgreSQL answers at 127\.0\.0\.1:\d+ \(DATABASE_URL\)/);
  noStack(output);
});

test.run();
