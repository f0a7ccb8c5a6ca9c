import { randomUUID } from 'node:crypto';
import { createPgPool, PostgresEventStore, type ExpectedRevision, type NewEvent } from '@cagnotte/infra';
import { fmtMs, fmtRate, freshDatabase, latency, nowMs, ratio, runFor, table, type Latency, type PgPool, type SummaryRow } from './lib';
import { sampleEvent } from './pool-events';
import { timeQueries, type QueryTimes } from './query-timer';

const TARGET = 5_000;

/** BENCH_APPEND_IN_FLIGHT tunes the store's group commit (statements in flight); the store's default otherwise. */
const groupCommit = () => (process.env.BENCH_APPEND_IN_FLIGHT ? { inFlight: Number(process.env.BENCH_APPEND_IN_FLIGHT) } : undefined);
type Mode = 'any' | 'exact' | 'new-stream';

export interface AppendsOptions {
  url: string;
  seconds: number;
}

const TENANT = randomUUID();
const USER = randomUUID();
const POOL = randomUUID();
const batchOf = (size: number, n: number): NewEvent[] => Array.from({ length: size }, (_, i) => sampleEvent(TENANT, USER, POOL, n + i));

/** Each writer appends to a stream of its own; `new-stream` starts a new stream per append (the create path). */
const storeStep = (store: PostgresEventStore, run: string, batch: number, mode: Mode) => {
  const revisions = new Map<number, bigint>();
  const counters = new Map<number, number>();
  return async (w: number): Promise<number> => {
    const n = (counters.get(w) ?? 0) + 1;
    counters.set(w, n);
    const stream = mode === 'new-stream' ? `bench-${run}-${w}-${n}` : `bench-${run}-${w}`;
    const current = revisions.get(w);
    const expectedRevision: ExpectedRevision = mode === 'any' ? 'any' : mode === 'new-stream' || current === undefined ? 'no_stream' : current;
    const result = await store.append(stream, batchOf(batch, n * batch), { expectedRevision });
    revisions.set(w, result.nextExpectedRevision);
    return batch;
  };
};

/** The baseline: the same payloads as plain INSERTs (autocommit, one statement per append) into a jsonb table. */
const plainStep = (pool: PgPool, run: string, batch: number) => async (w: number): Promise<number> => {
  const events = batchOf(batch, 0).map((e) => JSON.stringify(e));
  if (batch === 1) await pool.query('INSERT INTO bench_plain (stream_id, body) VALUES ($1, $2)', [`plain-${run}-${w}`, events[0]]);
  else await pool.query('INSERT INTO bench_plain (stream_id, body) SELECT $1, b FROM unnest($2::jsonb[]) AS b', [`plain-${run}-${w}`, events]);
  return batch;
};

interface AppendRun {
  writers: number;
  batch: number;
  mode: Mode;
  eventsPerSecond: number;
  appendsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** es_append_batch statements per append (group commit: below 1 under load); 1 for the plain INSERT. */
  statementsPerAppend: number;
}

export const runAppends = async (o: AppendsOptions): Promise<{ rows: SummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const pool = createPgPool(o.url, 20);
  await pool.query('CREATE TABLE bench_plain (id bigserial PRIMARY KEY, stream_id text NOT NULL, body jsonb NOT NULL)');
  const store = new PostgresEventStore({ pool, listen: false, groupCommit: groupCommit() });
  const rows: SummaryRow[] = [];
  const runs: AppendRun[] = [];
  const baselines: AppendRun[] = [];
  try {
    // Warm-up: connections opened, plans cached.
    await runFor(16, 0.5, storeStep(store, randomUUID().slice(0, 8), 1, 'exact'));
    await runFor(16, 0.5, plainStep(pool, 'warm', 1));

    const shapes: Array<{ writers: number; batch: number }> = [
      { writers: 1, batch: 1 },
      { writers: 1, batch: 10 },
      { writers: 16, batch: 1 },
      { writers: 16, batch: 10 },
    ];
    for (const { writers, batch } of shapes) {
      const plain = await runFor(writers, o.seconds, plainStep(pool, randomUUID().slice(0, 8), batch));
      const base: AppendRun = { writers, batch, mode: 'any', eventsPerSecond: plain.perSecond, appendsPerSecond: plain.perSecond / batch, p50Ms: plain.latency.p50, p99Ms: plain.latency.p99, statementsPerAppend: 1 };
      baselines.push(base);
      const modes: Mode[] = writers === 16 ? ['any', 'exact', 'new-stream'] : ['any', 'exact'];
      for (const mode of modes) {
        const statements = store.statements;
        const r = await runFor(writers, o.seconds, storeStep(store, randomUUID().slice(0, 8), batch, mode));
        const statementsPerAppend = (store.statements - statements) / (r.items / batch);
        const run: AppendRun = { writers, batch, mode, eventsPerSecond: r.perSecond, appendsPerSecond: r.perSecond / batch, p50Ms: r.latency.p50, p99Ms: r.latency.p99, statementsPerAppend };
        runs.push(run);
        const target = writers === 16;
        rows.push({
          part: 'appends',
          metric: `append ${writers}w ${batch === 1 ? 'single' : `batch ${batch}`} (${mode === 'exact' ? 'expectedRevision exact' : mode === 'any' ? "expectedRevision 'any'" : 'new stream, no_stream'})`,
          measured: `${fmtRate(r.perSecond, ' ev/s')} (p99 ${fmtMs(r.latency.p99)}, ${statementsPerAppend.toFixed(2)} statements/append)`,
          baseline: `${fmtRate(plain.perSecond, ' rows/s')} plain INSERT (${ratio(r.perSecond, plain.perSecond)})`,
          target: target ? `≥ ${fmtRate(TARGET, ' ev/s')}` : '',
          pass: target ? r.perSecond >= TARGET : null,
          raw: { ...run, baselineRowsPerSecond: plain.perSecond, baselineP99Ms: plain.latency.p99 },
        });
      }
    }

    const feed = await feedReads(store, pool);
    for (const [what, l] of Object.entries(feed.idle)) {
      rows.push({ part: 'appends', metric: `feed read, idle: ${what}`, measured: `p50 ${fmtMs(l.p50)}, p99 ${fmtMs(l.p99)}`, baseline: '', target: '', pass: null, raw: { ...l } });
    }
    for (const [what, l] of Object.entries(feed.underLoad)) {
      rows.push({ part: 'appends', metric: `feed read, 16 writers appending: ${what}`, measured: `p50 ${fmtMs(l.p50)}, p99 ${fmtMs(l.p99)}`, baseline: '', target: '', pass: null, raw: { ...l } });
    }

    const breakdown = {
      oneWriter: await breakdownRun(o.url, 1, Math.min(2, o.seconds)),
      sixteenWriters: await breakdownRun(o.url, 16, Math.min(2, o.seconds)),
    };
    printAppends(runs, baselines, breakdown);
    return { rows, details: { runs, baselines, breakdown, feed } };
  } finally {
    await store.close();
    await pool.end();
  }
};

/** Where an append's time goes: each statement of the append path, timed on the client side. */
const breakdownRun = async (url: string, writers: number, seconds: number) => {
  const pool = createPgPool(url, 20);
  const times: QueryTimes = timeQueries(pool);
  const store = new PostgresEventStore({ pool, listen: false, groupCommit: groupCommit() });
  try {
    await runFor(writers, 0.3, storeStep(store, randomUUID().slice(0, 8), 1, 'exact'));
    times.reset();
    const r = await runFor(writers, seconds, storeStep(store, randomUUID().slice(0, 8), 1, 'exact'));
    const appends = r.items;
    const perAppend = Object.fromEntries(Object.entries(times.byLabel).map(([k, v]) => [k, { calls: v.calls / appends, ms: v.ms / v.calls }]));
    const inTxMs = Object.entries(times.byLabel).filter(([k]) => !k.startsWith('notify')).reduce((s, [, v]) => s + v.ms, 0) / appends;
    return { writers, appends, meanAppendMs: (r.seconds * 1000 * writers) / appends, statementsMsPerAppend: inTxMs, perAppend };
  } finally {
    await store.close();
    await pool.end();
  }
};

const printAppends = (runs: AppendRun[], baselines: AppendRun[], breakdown: Record<string, Awaited<ReturnType<typeof breakdownRun>>>) => {
  console.log('\n## 1. Event store appends');
  const base = (w: number, b: number) => baselines.find((x) => x.writers === w && x.batch === b)!;
  console.log(
    table(
      ['writers', 'batch', 'expectedRevision', 'events/s', 'appends/s', 'p50', 'p99', 'statements/append', 'plain INSERT rows/s', 'plain p99', 'vs plain'],
      runs.map((r) => {
        const p = base(r.writers, r.batch);
        return [String(r.writers), String(r.batch), r.mode, fmtRate(r.eventsPerSecond, ''), fmtRate(r.appendsPerSecond, ''), fmtMs(r.p50Ms), fmtMs(r.p99Ms), r.statementsPerAppend.toFixed(2), fmtRate(p.eventsPerSecond, ''), fmtMs(p.p99Ms), ratio(r.eventsPerSecond, p.eventsPerSecond)];
      }),
    ),
  );
  for (const b of Object.values(breakdown)) {
    console.log(`\nAppend path, ${b.writers} writer(s), single events, exact revision: ${b.appends} appends, mean ${fmtMs(b.meanAppendMs)} per append, ${fmtMs(b.statementsMsPerAppend)} of it in SQL round-trips`);
    console.log(table(['statement', 'calls/append', 'mean ms/call'], Object.entries(b.perAppend).map(([k, v]) => [k, v.calls.toFixed(2), v.ms.toFixed(3)])));
  }
};

/**
 * What a feed reader pays per call: a page of 500 from the middle of the log, the tail read of a live
 * subscriber following the head, and headPosition; idle, then while 16 writers append.
 */
const feedReads = async (store: PostgresEventStore, pool: PgPool) => {
  const n = await pool.query<{ n: string }>('SELECT count(*)::text AS n FROM es_events');
  const middle = await store.readAll({ maxCount: Math.max(1, Math.floor(Number(n.rows[0]!.n) / 2)) });
  const from = middle[middle.length - 1]?.position ?? null;
  const time = async (calls: number, fn: () => Promise<unknown>): Promise<Latency> => {
    const samples: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = nowMs();
      await fn();
      samples.push(nowMs() - t);
    }
    return latency(samples);
  };
  const measure = async () => ({
    'readAll page of 500': await time(100, () => store.readAll({ after: from, maxCount: 500 })),
    'readAll following the head (a live subscriber)': await (async () => {
      let after = await store.headPosition();
      return time(300, async () => {
        const page = await store.readAll({ after, maxCount: 500 });
        after = page[page.length - 1]?.position ?? after;
      });
    })(),
    headPosition: await time(300, () => store.headPosition()),
  });
  const idle = await measure();
  let stop = false;
  const load = Promise.all(
    Array.from({ length: 16 }, async (_, w) => {
      const stream = `bench-feed-${randomUUID().slice(0, 8)}-${w}`;
      for (let i = 0; !stop; i++) await store.append(stream, batchOf(1, i), { expectedRevision: 'any' });
    }),
  );
  const underLoad = await measure().finally(() => (stop = true));
  await load;
  console.log('\n## 1b. Feed reads (p50 / p99)');
  console.log(
    table(
      ['read', 'idle p50', 'idle p99', '16 writers p50', '16 writers p99'],
      Object.keys(idle).map((k) => {
        const a = idle[k as keyof typeof idle];
        const b = underLoad[k as keyof typeof underLoad];
        return [k, fmtMs(a.p50), fmtMs(a.p99), fmtMs(b.p50), fmtMs(b.p99)];
      }),
    ),
  );
  return { idle, underLoad };
};
