import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ChildServer, freePort } from './child-server';

/**
 * The README's quickstart, as a newcomer pastes it: its shell blocks, taken from README.md as written, run in one bash
 * against a fresh `pnpm start` (scripts/src/start.ts, a child process), with the CLI's sandbox wallet verbs. They
 * must end with a SETTLED pool and the seller paid; a step that fails stops the script with its error.
 */
const root = resolve(__dirname, '../..');

/** The ```sh blocks of the README's quickstart section, in order. */
const quickstartBlocks = (readme: string): string[] => {
  const start = readme.indexOf('\n## Quickstart');
  if (start < 0) return [];
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
};

const runBash = (script: string, env: Record<string, string>, timeoutMs: number) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((res) => {
    const child = spawn('bash', ['-c', script], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += String(d)));
    child.stderr.on('data', (d) => (stderr += String(d)));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      res({ code, stdout, stderr });
    });
  });

const test = suite<{ server: ChildServer }>('e2e: the README quickstart, run as written');

test.before(async (ctx) => {
  ctx.server = new ChildServer(await freePort());
  await ctx.server.start();
});
test.after(async (ctx) => {
  await ctx.server?.kill('SIGTERM');
});

test('the quickstart has ten blocks, each with its step', () => {
  const blocks = quickstartBlocks(readFileSync(resolve(root, 'README.md'), 'utf8'));
  assert.is(blocks.length, 10);
  assert.ok(blocks[0]!.startsWith('set -euo pipefail'), 'the first block stops at the first error');
  assert.ok(blocks.some((b) => b.includes('/api/auth/register/simple')));
  assert.ok(blocks.some((b) => b.includes('cli sandbox wallet link')));
});

test('pasted in order into one shell: the pool is published, paid, closed and SETTLED, the seller holds 62.72', async (ctx) => {
  const script = quickstartBlocks(readFileSync(resolve(root, 'README.md'), 'utf8')).join('\n');
  const run = await runBash(script, { API: ctx.server.url, LOG_LEVEL: 'warn' }, 300_000);
  assert.is(run.code, 0, `the quickstart failed (exit ${run.code}):\n${run.stderr}\n${run.stdout.slice(-3000)}`);
  // The lines a reader sees besides the JSON the CLI prints: each block's commented answer, in order.
  const answers = run.stdout.split('\n').filter((l) => l && !/^[\s{}[\]]/.test(l) && !l.startsWith('"'));
  assert.equal(answers, ['OPEN', 'true', 'LOCKED', 'SETTLED', 'SETTLED', '62.7200000'], run.stdout);
  assert.is(run.stderr.trim(), '', 'nothing on stderr');
});

test.run();
