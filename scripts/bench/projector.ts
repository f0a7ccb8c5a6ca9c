import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { isPoolEvent, parseEvent } from '@cagnotte/event-schemas';
import { createKnex, createLogger, createPgPool, PostgresEventStore, type Position, type RecordedEvent } from '@cagnotte/infra';
import { poolsProjection, ProjectorRunner } from '@cagnotte/projectors';
import { foldPool, type PoolDoc } from '@cagnotte/read-models';
import { fmtRate, freshDatabase, nowMs, ratio, table, type SummaryRow } from './lib';
import { assertValid, poolHistory } from './pool-events';
import { timeKnex } from './query-timer';

const TARGET = 10_000;
const EVENTS_PER_POOL = 10;
const POOLS_PER_TRANSACTION = 20;
const SEED_CONCURRENCY = 8;

export interface ProjectorOptions {
  url: string;
  events: number;
}

/**
 * Seeds `pools × 10` real pool events: every pool is PoolCreated + draft updates + PoolPublished,
 * every second one then PoolArchived, every fifth one FUNDING. Streams are appended with the store's
 * own `appendWithin`, 20 pools per transaction, so the seed is fast and the rows are what `append` writes.
 */
const seed = async (store: PostgresEventStore, pool: ReturnType<typeof createPgPool>, pools: number): Promise<number> => {
  const tenantId = randomUUID();
  const organisers = Array.from({ length: 50 }, () => randomUUID());
  const startMs = Date.parse('2025-01-01T00:00:00Z');
  const histories = Array.from({ length: pools }, (_, i) =>
    poolHistory({ tenantId, organiserId: organisers[i % organisers.length]!, length: EVENTS_PER_POOL, archived: i % 2 === 0, funding: i % 5 === 4, startMs: startMs + i * 1000 }),
  );
  assertValid(histories.slice(0, 10).flatMap((h) => h.events));
  let next = 0;
  await Promise.all(
    Array.from({ length: SEED_CONCURRENCY }, async () => {
      while (next < histories.length) {
        const group = histories.slice(next, next + POOLS_PER_TRANSACTION);
        next += POOLS_PER_TRANSACTION;
        const client = await pool.connect();
        try {
          await client.query('BEGIN');
          for (const h of group) await store.appendWithin(client, `pool-${h.poolId}`, h.events, { expectedRevision: 'no_stream' });
          await client.query('COMMIT');
        } catch (e) {
          await client.query('ROLLBACK').catch(() => undefined);
          throw e;
        } finally {
          client.release();
        }
      }
    }),
  );
  return histories.reduce((n, h) => n + h.events.length, 0);
};

/** Reads the whole feed in pages of 1000 (the catch-up's page size); `each` sees every page. */
const readFeed = async (store: PostgresEventStore, each: (page: RecordedEvent[]) => void = () => undefined): Promise<number> => {
  let after: Position | null = null;
  let n = 0;
  for (;;) {
    const page = await store.readAll({ after, maxCount: 1000 });
    if (page.length === 0) return n;
    each(page);
    n += page.length;
    after = page[page.length - 1]!.position;
  }
};

const timed = async <T>(fn: () => Promise<T>): Promise<{ value: T; seconds: number }> => {
  const t = nowMs();
  const value = await fn();
  return { value, seconds: (nowMs() - t) / 1000 };
};

/** Writes 10,000 rows shaped like rm_pools (copied from it) with multi-row INSERTs of 1000. */
const bulkInsert = async (knex: Knex): Promise<{ rows: number; seconds: number }> => {
  await knex.raw('CREATE TABLE bench_bulk_pools (LIKE rm_pools INCLUDING ALL)');
  const source = await knex('rm_pools').select('*').limit(10_000);
  const rows = source.map((r: Record<string, unknown>) => ({ ...r, doc: JSON.stringify(r.doc) }));
  const { seconds } = await timed(async () => {
    for (let i = 0; i < rows.length; i += 1000) await knex('bench_bulk_pools').insert(rows.slice(i, i + 1000));
  });
  return { rows: rows.length, seconds };
};

export const runProjector = async (o: ProjectorOptions): Promise<{ rows: SummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const pool = createPgPool(o.url, 20);
  const knex = createKnex(o.url, 10);
  const store = new PostgresEventStore({ pool, listen: false });
  try {
    const pools = Math.max(1, Math.round(o.events / EVENTS_PER_POOL));
    const seeded = await timed(() => seed(store, pool, pools));
    const events = seeded.value;
    await knex.raw('VACUUM ANALYZE es_events');

    // Baseline 1: the feed alone, no writes. In the same pass, apart: the shared parser + the pure fold in
    // memory (what the projection does before it writes), timed inside the page callback.
    const docs = new Map<string, PoolDoc | null>();
    let cpuMs = 0;
    const readPass = await timed(() =>
      readFeed(store, (page) => {
        const t = nowMs();
        for (const e of page) {
          const parsed = parseEvent(e);
          if (!isPoolEvent(parsed)) continue;
          const id = parsed.data.poolId;
          docs.set(id, foldPool(docs.get(id) ?? null, parsed, e.revision));
        }
        cpuMs += nowMs() - t;
      }),
    );
    const readOnly = { value: readPass.value, seconds: readPass.seconds - cpuMs / 1000 };
    const inMemory = { value: readPass.value, seconds: readPass.seconds };

    // The measurement: pools projection alone, from an empty checkpoint.
    const statements = timeKnex(knex);
    const runner = new ProjectorRunner({ store, knex, projections: [poolsProjection], logger: createLogger('silent') });
    const cpuBefore = process.cpuUsage();
    const catchUp = await timed(() => runner.catchUp());
    const cpu = process.cpuUsage(cpuBefore);
    statements.stop();
    const nodeCpuSeconds = (cpu.user + cpu.system) / 1e6;
    const queries = Object.values(statements.byLabel).reduce((n, v) => n + v.calls, 0);
    const applied = Number((await knex('projection_checkpoints').where({ name: 'pools' }).first('events_applied')).events_applied);
    const poolRows = Number((await knex('rm_pools').count<{ c: string }[]>({ c: '*' }))[0]!.c);

    // Baseline 2: a bulk INSERT of 10,000 rows of the same shape.
    const bulk = await bulkInsert(knex);

    const rate = events / catchUp.seconds;
    const readRate = readOnly.value / readOnly.seconds;
    const bulkRate = bulk.rows / bulk.seconds;
    const details = {
      events,
      pools,
      seed: { seconds: seeded.seconds, eventsPerSecond: events / seeded.seconds },
      catchUp: { seconds: catchUp.seconds, eventsPerSecond: rate, applied, poolRows, sqlStatements: queries, statementsPerEvent: queries / events, nodeCpuSeconds, statements: statements.byLabel },
      readAllOnly: { seconds: readOnly.seconds, eventsPerSecond: readRate },
      readParseFoldInMemory: { seconds: inMemory.seconds, eventsPerSecond: inMemory.value / inMemory.seconds },
      bulkInsert: { rows: bulk.rows, seconds: bulk.seconds, rowsPerSecond: bulkRate },
    };
    console.log('\n## 2. Projector catch-up (pools projection)');
    console.log(`Seeded ${events.toLocaleString('en-US')} events on ${pools.toLocaleString('en-US')} pool streams in ${seeded.seconds.toFixed(1)} s (${fmtRate(events / seeded.seconds, ' ev/s')}).`);
    console.log(
      table(
        ['run', 'items', 'seconds', 'rate', 'vs catch-up'],
        [
          ['catchUp() pools, from checkpoint 0', `${events} events (${applied} applied)`, catchUp.seconds.toFixed(2), fmtRate(rate, ' ev/s'), '1.00×'],
          ['readAll pages of 1000, no writes', `${readOnly.value} events`, readOnly.seconds.toFixed(2), fmtRate(readRate, ' ev/s'), ratio(readRate, rate)],
          ['readAll + parseEvent + fold in memory', `${inMemory.value} events`, inMemory.seconds.toFixed(2), fmtRate(inMemory.value / inMemory.seconds, ' ev/s'), ratio(inMemory.value / inMemory.seconds, rate)],
          ['bulk INSERT rm_pools-shaped rows (1000/stmt)', `${bulk.rows} rows`, bulk.seconds.toFixed(2), fmtRate(bulkRate, ' rows/s'), ratio(bulkRate, rate)],
        ],
      ),
    );
    console.log(
      `Catch-up sent ${queries.toLocaleString('en-US')} SQL statements through knex (${(queries / events).toFixed(2)} per event); ` +
        `this Node process was on CPU ${nodeCpuSeconds.toFixed(1)} s of the ${catchUp.seconds.toFixed(1)} s (${Math.round((100 * nodeCpuSeconds) / catchUp.seconds)}%).`,
    );
    console.log(
      table(
        ['statement (knex)', 'per event', 'mean ms (query → response)', 'total s'],
        Object.entries(statements.byLabel)
          .sort(([, a], [, b]) => b.ms - a.ms)
          .map(([k, v]) => [k, (v.calls / events).toFixed(3), v.timed ? (v.ms / v.timed).toFixed(3) : 'n/a', (v.ms / 1000).toFixed(2)]),
      ),
    );
    const rows: SummaryRow[] = [
      {
        part: 'projector',
        metric: `projector catch-up, pools, ${events.toLocaleString('en-US')} events`,
        measured: fmtRate(rate, ' ev/s'),
        baseline: `readAll ${fmtRate(readRate, ' ev/s')}; bulk INSERT ${fmtRate(bulkRate, ' rows/s')}`,
        target: `≥ ${fmtRate(TARGET, ' ev/s')}`,
        pass: rate >= TARGET,
        raw: details,
      },
    ];
    return { rows, details };
  } finally {
    await store.close();
    await knex.destroy();
    await pool.end();
  }
};
