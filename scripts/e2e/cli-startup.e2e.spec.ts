import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';

/**
 * `pnpm cli ledger info` answers fast enough for scripts calling it in a loop (under 1.5 s on a quiet machine): it
 * runs compiled (scripts/cli.mjs) and loads neither the services nor the Stellar SDK nor any database driver. What a
 * loaded CI machine cannot make flaky is asserted: which modules the process loads, and the CPU time it spends (wall
 * time grows with the load, CPU time hardly). Its Horizon URL is the service's: /sandbox/horizon on PORT.
 */
const ROOT = resolve(__dirname, '../..');
const test = suite('cli: ledger info starts light');

/** A preload that reports, at exit, every module the process required and the CPU time it used. */
const probe = join(mkdtempSync(join(tmpdir(), 'cli-probe-')), 'probe.cjs');
writeFileSync(
  probe,
  `const Module = require('module'); const seen = new Set(); const load = Module._load;
Module._load = function (request, ...rest) { seen.add(request); return load.call(this, request, ...rest); };
process.on('exit', () => { const c = process.cpuUsage(); process.stderr.write('\\nPROBE ' + JSON.stringify({ modules: [...seen], cpuMs: (c.user + c.system) / 1000 }) + '\\n'); });`,
);

const ledgerInfo = async (env: Record<string, string> = {}) => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--require', probe, 'scripts/cli.mjs', 'ledger', 'info'], { cwd: ROOT, env: { ...process.env, ...env } });
  const line = stderr.split('\n').find((l) => l.startsWith('PROBE '))!;
  return { info: JSON.parse(stdout), ...(JSON.parse(line.slice('PROBE '.length)) as { modules: string[]; cpuMs: number }) };
};

test.before(async () => {
  await ledgerInfo(); // builds scripts/dist/cli.cjs when it is missing or stale: not what is measured below
});

test('ledger info loads no service, no Stellar SDK, no database or queue driver, and spends well under 1.5 s of CPU', async () => {
  const { info, modules, cpuMs } = await ledgerInfo();
  assert.is(info.mode, 'sandbox');
  const heavy = modules.filter((m) => /@stellar|knex|[\\/]pg[\\/]|ioredis|bullmq|express|argon2|pdf-lib|@eventstore|@opensearch|tsx|esbuild/.test(m) || m.endsWith('.ts'));
  assert.equal(heavy, [], `modules loaded: ${modules.join(', ')}`);
  assert.ok(cpuMs < 1500, `ledger info used ${cpuMs} ms of CPU`);
});

test('ledger info prints the Horizon URL on the PORT the service listens on', async () => {
  const { info } = await ledgerInfo({ PORT: '4567', HOST: '' });
  assert.is(info.horizonUrl, 'http://localhost:4567/sandbox/horizon');
});

test.run();
