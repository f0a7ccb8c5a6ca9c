import { connect } from 'node:net';
import type { Config } from './config';

/**
 * What a process checks before it opens its adapters: that PostgreSQL and Redis answer at all. A newcomer without
 * them reads one line that names the setting and how to get the service, never a stack trace of ECONNREFUSED.
 */

export interface Address {
  host: string;
  port: number;
}

/** host:port of a URL (PostgreSQL's or Redis's), with the scheme's default port; null for a socket path. */
export const addressOf = (url: string, defaultPort: number): Address | null => {
  const parsed = new URL(url);
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) return null;
  return { host, port: parsed.port ? Number(parsed.port) : defaultPort };
};

export const formatAddress = ({ host, port }: Address): string => (host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`);

/** Whether something accepts a TCP connection at the address within `timeoutMs`. */
export const answers = (address: Address, timeoutMs = 1000): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = connect({ host: address.host, port: address.port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });

/** A start-up problem that is the environment's, not a bug: printed as its one line, and the process exits 1. */
export class StartupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
  }
}

/** The default PostgreSQL address when DATABASE_URL is unset: 127.0.0.1:5432, or libpq's PGHOST / PGPORT. */
export const defaultDatabaseAddress = (env: NodeJS.ProcessEnv = process.env): Address => ({
  host: env.PGHOST && !env.PGHOST.startsWith('/') ? env.PGHOST : '127.0.0.1',
  port: env.PGPORT && /^\d{1,5}$/.test(env.PGPORT) ? Number(env.PGPORT) : 5432,
});

const REDIS_HOW_TO = 'start one (`redis-server --port 6379`, or `docker run -d -p 6379:6379 redis:7`) or set REDIS_URL to yours';

export interface RedisWaitOptions {
  /** Where the lines go (stderr). */
  write?: (line: string) => void;
  /** Rewrites one line in place (a terminal) instead of printing a line every 10 s. */
  tty?: boolean;
  probe?: (address: Address) => Promise<boolean>;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * Returns once Redis answers at REDIS_URL. In production, a missing Redis is one line and a StartupError at once; in
 * sandbox the process waits up to REDIS_WAIT_SECONDS with a visible countdown (so `pnpm start` may be typed
 * before `redis-server`), then gives up with the same line.
 */
export const waitForRedis = async (config: Pick<Config, 'REDIS_URL' | 'APP_ENV' | 'REDIS_WAIT_SECONDS'>, options: RedisWaitOptions = {}): Promise<void> => {
  const address = addressOf(config.REDIS_URL, 6379);
  const probe = options.probe ?? answers;
  if (!address || (await probe(address))) return;
  const write = options.write ?? ((line: string) => process.stderr.write(`${line}\n`));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const where = `no Redis at ${formatAddress(address)} (REDIS_URL)`;
  const bound = config.APP_ENV === 'sandbox' ? config.REDIS_WAIT_SECONDS : 0;
  if (bound === 0) throw new StartupError(`${where}: ${REDIS_HOW_TO}`);
  write(`${where}: ${REDIS_HOW_TO}; waiting up to ${bound} s`);
  const started = Date.now();
  let lastLine = started;
  for (;;) {
    const left = Math.ceil(bound - (Date.now() - started) / 1000);
    if (left <= 0) {
      if (options.tty) write('');
      throw new StartupError(`${where} after waiting ${bound} s: ${REDIS_HOW_TO}`);
    }
    if (options.tty) process.stderr.write(`\rwaiting for Redis at ${formatAddress(address)}: ${left} s left `);
    else if (Date.now() - lastLine >= 10_000) {
      write(`waiting for Redis at ${formatAddress(address)}: ${left} s left`);
      lastLine = Date.now();
    }
    await sleep(1000);
    if (await probe(address)) {
      if (options.tty) write('');
      write(`Redis answers at ${formatAddress(address)}: starting`);
      return;
    }
  }
};

/**
 * Checks that PostgreSQL answers at DATABASE_URL. `configured` says whether DATABASE_URL was set: the hint differs
 * (an unset one means the default address, where `pnpm start` would have run an embedded PostgreSQL).
 */
export const checkDatabase = async (url: string, configured: boolean, probe: (a: Address) => Promise<boolean> = answers): Promise<void> => {
  const address = addressOf(url, 5432);
  if (!address || (await probe(address))) return;
  throw new StartupError(
    configured
      ? `no PostgreSQL answers at ${formatAddress(address)} (DATABASE_URL): start it, or correct DATABASE_URL`
      : `no PostgreSQL at ${formatAddress(address)} (DATABASE_URL is unset): set DATABASE_URL to yours, or run \`pnpm start\`, which starts an embedded one in sandbox`,
  );
};

/** One line for an error met while starting: the connection and authentication failures a newcomer meets, named. */
export const describeStartupError = (e: unknown, config: Pick<Config, 'DATABASE_URL' | 'REDIS_URL'>): { line: string; expected: boolean } => {
  if (e instanceof StartupError) return { line: e.message, expected: true };
  const err = e as { code?: string; message?: string; address?: string; port?: number };
  const db = addressOf(config.DATABASE_URL, 5432);
  const dbName = db ? formatAddress(db) : 'its socket';
  if (err.code === '28P01' || err.code === '28000') return { line: `PostgreSQL at ${dbName} refused the credentials in DATABASE_URL: ${err.message}`, expected: true };
  if (err.code === '3D000') return { line: `PostgreSQL at ${dbName}: ${err.message} (DATABASE_URL)`, expected: true };
  if (err.code === 'ECONNREFUSED' || err.code === 'ENOTFOUND' || err.code === 'ETIMEDOUT' || err.code === 'EHOSTUNREACH') {
    const target = err.address ? `${err.address}${err.port ? `:${err.port}` : ''}` : 'a dependency';
    return { line: `could not reach ${target} (${err.code}): check DATABASE_URL and REDIS_URL`, expected: true };
  }
  return { line: `could not start: ${err.message ?? String(e)}`, expected: false };
};
