import os from 'node:os';
import { createKnex, createPgPool, dropDatabase, ensureDatabase, migrate } from '@cagnotte/infra';

/** The pg pool type, named through infra (the scripts package does not depend on pg directly). */
export type PgPool = ReturnType<typeof createPgPool>;

/** One line of the final summary. `pass` is null when the row has no target. */
export interface SummaryRow {
  part: 'appends' | 'projector' | 'http' | 'soak' | 'webhooks';
  metric: string;
  measured: string;
  baseline: string;
  target: string;
  pass: boolean | null;
  /** The raw figures behind the row, for the JSON file. */
  raw: Record<string, unknown>;
}

export const DEFAULT_BENCH_URL = 'postgres://postgres@127.0.0.1:5432/cagnotte_bench';

export const benchDatabaseUrl = (): string => {
  const url = process.env.BENCH_DATABASE_URL || DEFAULT_BENCH_URL;
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  // The bench drops this database: never let a mistyped variable point it at real data.
  if (!/bench/i.test(name)) throw new Error(`BENCH_DATABASE_URL must name a database containing "bench" (it is dropped); got "${name}"`);
  return url;
};

/**
 * Drops, recreates and migrates the bench database: every part starts from an empty store. Then a
 * CHECKPOINT, so that the dirty pages of the part before are not flushed while this one measures.
 */
export const freshDatabase = async (url: string): Promise<void> => {
  await dropDatabase(url);
  await ensureDatabase(url);
  const knex = createKnex(url, 2);
  try {
    await migrate(knex, url);
    await knex.raw('CHECKPOINT').catch(() => undefined); // needs superuser or pg_checkpoint: best effort
  } finally {
    await knex.destroy();
  }
};

export interface Machine {
  cpuModel: string;
  cpuCount: number;
  totalMemoryGiB: number;
  node: string;
  platform: string;
  postgres: string;
  postgresSettings: Record<string, string>;
  /** Lateness of a 1 ms timer in an idle Node process over 1 s: the floor under every latency below. */
  timerJitterMs: { p50: number; p99: number; max: number };
}

const timerJitter = async (): Promise<{ p50: number; p99: number; max: number }> => {
  const samples: number[] = [];
  const end = nowMs() + 1000;
  while (nowMs() < end) {
    const t = nowMs();
    await new Promise((r) => setTimeout(r, 1));
    samples.push(Math.max(0, nowMs() - t - 1));
  }
  const l = latency(samples);
  return { p50: l.p50, p99: l.p99, max: l.max };
};

/** Busy share of all CPUs between two calls (from os.cpus() tick counters). */
export const machineCpu = () => {
  const ticks = () => os.cpus().reduce((a, c) => ({ busy: a.busy + c.times.user + c.times.nice + c.times.sys + c.times.irq, total: a.total + c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle }), { busy: 0, total: 0 });
  const start = ticks();
  const startOwn = process.cpuUsage();
  const startAt = nowMs();
  return () => {
    const end = ticks();
    const own = process.cpuUsage(startOwn);
    return {
      machineBusyPercent: Math.round((100 * (end.busy - start.busy)) / Math.max(1, end.total - start.total)),
      /** This process (the load generator), in % of one core. */
      selfPercent: Math.round(((own.user + own.system) / 1000 / (nowMs() - startAt)) * 100),
    };
  };
};

export const describeMachine = async (url: string): Promise<Machine> => {
  const pool = createPgPool(url, 1);
  try {
    const version = (await pool.query<{ v: string }>("SELECT current_setting('server_version') AS v")).rows[0]!.v;
    const settings: Record<string, string> = {};
    for (const name of ['synchronous_commit', 'fsync', 'shared_buffers', 'max_connections']) {
      settings[name] = (await pool.query<Record<string, string>>(`SHOW ${name}`)).rows[0]![name]!;
    }
    const cpus = os.cpus();
    return {
      cpuModel: cpus[0]?.model.trim() ?? 'unknown',
      cpuCount: cpus.length,
      totalMemoryGiB: Math.round((os.totalmem() / 1024 ** 3) * 10) / 10,
      node: process.version,
      platform: `${os.type()} ${os.release()} ${os.arch()}`,
      postgres: version,
      postgresSettings: settings,
      timerJitterMs: await timerJitter(),
    };
  } finally {
    await pool.end();
  }
};

/** Latency figures in milliseconds. */
export interface Latency {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

export const latency = (samplesMs: number[]): Latency => {
  if (samplesMs.length === 0) return { count: 0, p50: NaN, p99: NaN, max: NaN };
  const s = Float64Array.from(samplesMs).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
  return { count: s.length, p50: at(0.5), p99: at(0.99), max: s[s.length - 1]! };
};

export const nowMs = (): number => Number(process.hrtime.bigint()) / 1e6;

/**
 * Runs `workers` loops for `seconds`; each call of `step` returns how many items it did.
 * Returns items per second and per-step latency.
 */
export const runFor = async (
  workers: number,
  seconds: number,
  step: (worker: number) => Promise<number>,
): Promise<{ items: number; seconds: number; perSecond: number; latency: Latency }> => {
  const samples: number[] = [];
  let items = 0;
  const started = nowMs();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: workers }, async (_, w) => {
      while (nowMs() < deadline) {
        const t = nowMs();
        const done = await step(w); // not `items += await …`: that reads `items` before the await
        items += done;
        samples.push(nowMs() - t);
      }
    }),
  );
  const elapsed = (nowMs() - started) / 1000;
  return { items, seconds: elapsed, perSecond: items / elapsed, latency: latency(samples) };
};

export const fmtRate = (n: number, unit = '/s'): string =>
  Number.isFinite(n) ? `${Math.round(n).toLocaleString('en-US')}${unit}` : 'n/a';
export const fmtMs = (n: number): string => (Number.isFinite(n) ? `${n < 10 ? n.toFixed(2) : n.toFixed(1)} ms` : 'n/a');
export const ratio = (a: number, b: number): string => (b > 0 && Number.isFinite(a) ? `${(a / b).toFixed(2)}×` : 'n/a');

/** A plain text table with padded columns. */
export const table = (header: string[], rows: string[][]): string => {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join(' | ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('-|-'), ...rows.map(line)].join('\n');
};

export const verdict = (pass: boolean | null): string => (pass === null ? '' : pass ? 'PASS' : 'FAIL');
