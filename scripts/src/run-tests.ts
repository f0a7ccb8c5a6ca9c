/**
 * The test runner behind `pnpm test`: a database and a Redis key prefix of this run's own (so two runs on
 * one machine never collide), migrations, then every *.spec.ts file of the workspace through uvu in one
 * process, and a closing `N passed, N failed` line. The run drops its database and keys when it ends;
 * databases left by a run that was killed are swept by the next run once they are an hour old.
 */
import { readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createKnex, deleteKeysWithPrefix, dropDatabase, ensureDatabase, listDatabases, migrate } from '@cagnotte/infra';

const root = resolve(__dirname, '../..');
const folders = ['event-schemas', 'domain', 'read-models', 'infra', 'command-api', 'query-api', 'projectors', 'scripts', 'sdk'];

const findSpecs = (dir: string, out: string[] = []): string[] => {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const full = join(dir, name);
    if (statSync(full).isDirectory()) findSpecs(full, out);
    else if (name.endsWith('.spec.ts')) out.push(full);
  }
  return out;
};

const main = async () => {
  const filter = process.argv[2];
  // A run id that sorts by time: `cagnotte_test_<seconds base36>_<random>`.
  const runId = `${Math.floor(Date.now() / 1000).toString(36)}_${randomBytes(4).toString('hex')}`;
  const ownDatabase = !process.env.DATABASE_URL;
  process.env.DATABASE_URL ??= `postgres://postgres@127.0.0.1:5432/${TEST_DB_PREFIX}${runId}`;
  process.env.REDIS_URL ??= 'redis://127.0.0.1:6379/15';
  process.env.REDIS_KEY_PREFIX ??= `test:${runId}:`;
  process.env.APP_ENV ??= 'sandbox';
  process.env.LOG_LEVEL ??= 'silent';
  // Every spec logs in from 127.0.0.1: the login limit is raised here; the rate-limit spec sets its own.
  process.env.RATE_LIMIT_LOGIN_PER_MINUTE ??= '100000';
  process.env.RATE_LIMIT_CATALOGUE_PER_MINUTE ??= '100000';
  process.env.RATE_LIMIT_SEARCH_PER_MINUTE ??= '100000';
  process.env.RATE_LIMIT_REGISTER_PER_MINUTE ??= '100000';
  process.env.RATE_LIMIT_PASSWORD_RESET_PER_MINUTE ??= '100000';
  process.env.RATE_LIMIT_ORGANISER_PER_MINUTE ??= '100000';
  // Each spec file starts its own service set and keeps it to the end: small pools stay under max_connections.
  process.env.DB_POOL_SIZE ??= '6';
  const url = process.env.DATABASE_URL;
  if (ownDatabase) await sweepStaleDatabases(url).catch((e) => console.warn('could not sweep old test databases:', e));
  await dropDatabase(url);
  await ensureDatabase(url);
  const knex = createKnex(url, 2);
  await migrate(knex, url);
  await knex.destroy();
  await deleteKeysWithPrefix(process.env.REDIS_URL, process.env.REDIS_KEY_PREFIX);

  const specs = folders
    .flatMap((f) => findSpecs(join(root, f)))
    // A filter is one or more path parts separated by commas: a spec runs when its path holds any of them.
    .filter((f) => !filter || filter.split(',').some((part) => part && relative(root, f).includes(part)))
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));

  let totals = '';
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString();
    if (totals || text.includes('Total:')) totals += text;
    return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
  }) as typeof process.stdout.write;

  const g = globalThis as { UVU_DEFER?: number; UVU_QUEUE?: unknown[][]; UVU_INDEX?: number };
  g.UVU_DEFER = 1;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const uvu = require('uvu') as { exec: (bail?: boolean) => Promise<void> };
  specs.forEach((file, idx) => {
    g.UVU_QUEUE!.push([relative(root, file)]);
    g.UVU_INDEX = idx;
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    require(file);
  });
  await uvu.exec(false);

  const closers = (globalThis as { __cagnotteClosers?: Array<() => Promise<void>> }).__cagnotteClosers ?? [];
  for (const close of closers.reverse()) await close().catch(() => undefined);
  if (ownDatabase && !process.env.KEEP_TEST_DATABASE) await dropDatabase(url).catch((e) => console.warn('could not drop', url, e));
  await deleteKeysWithPrefix(process.env.REDIS_URL, process.env.REDIS_KEY_PREFIX).catch((e) => console.warn('could not delete the run\'s Redis keys:', e));

  process.stdout.write = write;
  // eslint-disable-next-line no-control-regex
  const plain = totals.replace(/\u001b\[[0-9;]*m/g, '');
  const num = (label: string) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(plain)?.[1] ?? 0);
  const total = num('Total');
  const passed = num('Passed');
  const skipped = num('Skipped');
  const failed = Math.max(0, total - passed);
  console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(failed > 0 || process.exitCode ? 1 : 0);
};

const TEST_DB_PREFIX = 'cagnotte_test_';

/**
 * Drops the databases of earlier runs that were killed before they could drop their own: only those whose
 * name says they were created over an hour ago (a run in progress is never touched).
 */
const sweepStaleDatabases = async (url: string): Promise<void> => {
  const hourAgo = Date.now() / 1000 - 3600;
  for (const name of await listDatabases(url, TEST_DB_PREFIX)) {
    const m = /^cagnotte_test_([0-9a-z]+)_[0-9a-f]{8}/.exec(name);
    if (!m || parseInt(m[1]!, 36) > hourAgo) continue;
    const stale = new URL(url);
    stale.pathname = `/${name}`;
    await dropDatabase(stale.toString()).catch((e) => console.warn(`could not drop stale ${name}:`, e));
  }
};

/** Unit specs first, then integration, then end-to-end: the fastest failures come first. */
const rank = (f: string) => (f.includes('.unit.') ? 0 : f.includes('.int.') ? 1 : 2);

main().catch((error) => {
  console.error(error);
  console.log('\n0 passed, 1 failed');
  process.exit(1);
});
