/**
 * Exactly-once under interleavings: live runners, catch-ups and rebuilds of the same projections run at once while
 * events keep arriving, with random delays at the runtime's dangerous points (RuntimeHooks), then every row is
 * compared with a pure fold of the feed. Used by projectors/src/stress.int.spec.ts (bounded, in CI) and by
 * `pnpm bench -- --only soak --seconds N` (minutes). Not used in production.
 */
import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { jsonEqual } from '@cagnotte/domain';
import { eventRegistry, isPoolEvent, parseEvent, type DomainEvent, type PoolDraftFields } from '@cagnotte/event-schemas';
import { comparePositions, readCheckpoints, type EventStore, type Logger, type NewEvent, type Position, type RecordedEvent } from '@cagnotte/infra';
import { POOL_TABLES, foldPool, pickupPointsOf, type PoolDoc } from '@cagnotte/read-models';
import { poolsProjection } from './pools/projection';
import { ProjectorRunner, type HookPoint, type Projection, type RuntimeHooks, type TableMap } from './runtime';

export interface StressOptions {
  knex: Knex;
  store: EventStore;
  logger: Logger;
  /** No new round starts after this many milliseconds. */
  durationMs: number;
  /** At most this many rounds. */
  maxRounds?: number;
  /** Events appended per round (default 120). */
  eventsPerRound?: number;
  /** Live runners per round, each running both projections (default 2). */
  runners?: number;
  /** Largest injected delay in ms (default 8). */
  maxDelayMs?: number;
  seed?: number;
  /** Test-only: a projection applied in place of the counter (to prove that the check notices a broken one). */
  counterOverride?: (base: Projection) => Projection;
  onRound?: (r: { round: number; events: number; violations: number; ms: number }) => void;
}

export interface StressResult {
  seed: number;
  rounds: number;
  events: number;
  rebuilds: number;
  catchUps: number;
  /** How often each hook point was reached. */
  points: Partial<Record<HookPoint, number>>;
  violations: string[];
}

/** mulberry32: a small seeded generator, so that a failing run can be replayed with its seed. */
const prng = (seed: number) => {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const suffix = () => randomUUID().replace(/-/g, '').slice(0, 10);

const poolEvent = (poolId: string, tenantId: string, kind: number, n: number): DomainEvent => {
  const at = new Date(Date.UTC(2025, 0, 1) + n * 60_000).toISOString();
  switch (kind) {
    case 0:
      return { type: 'PoolDraftUpdated', data: { poolId, changes: { title: `Title ${n}` }, updatedAt: at } };
    case 1:
      // Changes the pick-up points (the projection rewrites that table for the pool).
      return {
        type: 'PoolDraftUpdated',
        data: {
          poolId,
          changes: { config: { units: [{ id: 'u1', label: 'Panier', price: '9.00' }], relais: Array.from({ length: n % 3 }, (_, i) => ({ id: `r${n}-${i}`, name: `Relais ${n}.${i}` })) } },
          updatedAt: at,
        },
      };
    case 2:
      return { type: 'PoolPublished', data: { poolId, publishedAt: at } };
    case 3:
      return { type: 'PoolArchived', data: { poolId, archivedAt: at } };
    default:
      return { type: 'PoolUnarchived', data: { poolId, unarchivedAt: at } };
  }
};

const created = (poolId: string, tenantId: string): DomainEvent => {
  const fields: PoolDraftFields = {
    title: `Stress ${poolId.slice(0, 8)}`,
    description: 'stress',
    country: 'FR',
    currency: 'EUR',
    marketplaceVisibility: 'PRIVATE',
    config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], relais: [{ id: 'r0', name: 'Relais 0' }] },
    sellerId: null,
    payoutAccount: null,
    organiserCommissionPercent: null,
    targetAmount: null,
    deadline: null,
  };
  return { type: 'PoolCreated', data: { ...fields, poolId, tenantId, type: 'GROUPS', organiserId: randomUUID(), organiserName: 'Stress', createdAt: '2025-01-01T00:00:00.000Z' } };
};

const toNew = (e: DomainEvent, tenantId: string): NewEvent => ({
  id: randomUUID(),
  type: e.type,
  schemaVersion: eventRegistry.currentVersion(e.type),
  data: e.data,
  metadata: { tenantId, actor: { kind: 'system', id: 'stress' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

/** One row per application, no unique key: a duplicate shows as two rows, a loss as none, the order by seq. */
const counter = (name: string, table: string, streams: Set<string>): Projection => ({
  name,
  tables: [table],
  handles: (type) => type.startsWith('Pool'),
  async apply(trx, event, t) {
    if (streams.has(event.streamId)) await trx(t(table)).insert({ stream_id: event.streamId, revision: event.revision.toString() });
  },
  async applyMany(trx, events, t) {
    const rows = events.filter((e) => streams.has(e.streamId)).map((e) => ({ stream_id: e.streamId, revision: e.revision.toString() }));
    if (rows.length > 0) await trx(t(table)).insert(rows);
  },
});

/** The real pools projection, writing to copies of its tables and only for the stress streams. */
const poolsCopy = (name: string, copies: Record<string, string>, streams: Set<string>): Projection => {
  const via = (table: TableMap): TableMap => (t) => table(copies[t] ?? t);
  return {
    name,
    tables: Object.values(copies),
    handles: poolsProjection.handles,
    apply: async (trx, e, table) => {
      if (streams.has(e.streamId)) await poolsProjection.apply(trx, e, via(table));
    },
    applyMany: async (trx, events, table) => {
      const mine = events.filter((e) => streams.has(e.streamId));
      if (mine.length > 0) await poolsProjection.applyMany!(trx, mine, via(table));
    },
  };
};

/** Every event of the feed, page by page. */
const readFeed = async (store: EventStore, each: (e: RecordedEvent) => void) => {
  let after: Position | null = null;
  for (;;) {
    const page = await store.readAll({ after, maxCount: 5000 });
    if (page.length === 0) return;
    for (const e of page) each(e);
    after = page[page.length - 1]!.position;
  }
};

export const runStress = async (o: StressOptions): Promise<StressResult> => {
  const seed = o.seed ?? Math.floor(Math.random() * 2 ** 31);
  const rand = prng(seed);
  const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
  const { knex, store, logger } = o;
  const id = suffix();
  const counterTable = `stress_count_${id}`;
  const copies = {
    [POOL_TABLES.pools]: `stress_pools_${id}`,
    [POOL_TABLES.members]: `stress_members_${id}`,
    [POOL_TABLES.pickupPoints]: `stress_points_${id}`,
  };
  await knex.raw('CREATE SEQUENCE ??', [`${counterTable}_seq`]);
  await knex.raw(`CREATE TABLE ?? (seq bigint NOT NULL DEFAULT nextval('${counterTable}_seq'), stream_id text NOT NULL, revision bigint NOT NULL)`, [counterTable]);
  for (const [live, copy] of Object.entries(copies)) await knex.raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, live]);

  const streams = new Set<string>();
  const pools: Array<{ poolId: string; tenantId: string; streamId: string }> = [];
  const baseCounter = counter(`stress-count-${id}`, counterTable, streams);
  const projections = [o.counterOverride ? o.counterOverride(baseCounter) : baseCounter, poolsCopy(`stress-pools-${id}`, copies, streams)];
  const names = projections.map((p) => p.name);

  const points: Partial<Record<HookPoint, number>> = {};
  const maxDelay = o.maxDelayMs ?? 8;
  const hooks: RuntimeHooks = {
    async point(name) {
      points[name] = (points[name] ?? 0) + 1;
      const r = rand();
      if (r < 0.35) await sleep(rand() * maxDelay);
      else if (r < 0.5) await new Promise((resolve) => setImmediate(resolve));
    },
  };
  const runner = (batchSize: number) =>
    new ProjectorRunner({ store, knex, projections, logger, hooks, batchSize, maxAttempts: 1000, retryBaseMs: 5, faultPollMs: 50 });

  const result: StressResult = { seed, rounds: 0, events: 0, rebuilds: 0, catchUps: 0, points, violations: [] };
  const started = Date.now();
  let n = 0;
  try {
    while (Date.now() - started < o.durationMs && result.rounds < (o.maxRounds ?? Infinity)) {
      const roundStart = Date.now();
      const before = result.violations.length;
      const lives = Array.from({ length: o.runners ?? 2 }, () => runner(1 + Math.floor(rand() * 20)));
      for (const r of lives) await r.start();
      let writing = true;
      let last: Position | null = null;
      const writer = (async () => {
        try {
          const total = o.eventsPerRound ?? 120;
          for (let i = 0; i < total; ) {
            if (pools.length === 0 || rand() < 0.15) {
              const p = { poolId: randomUUID(), tenantId: randomUUID(), streamId: '' };
              p.streamId = `pool-${p.poolId}`;
              streams.add(p.streamId);
              pools.push(p);
              last = (await store.append(p.streamId, [toNew(created(p.poolId, p.tenantId), p.tenantId)], { expectedRevision: 'no_stream' })).position;
              i++;
              continue;
            }
            const p = pick(pools);
            const k = 1 + Math.floor(rand() * 3);
            const evs = Array.from({ length: k }, () => toNew(poolEvent(p.poolId, p.tenantId, Math.floor(rand() * 5), ++n), p.tenantId));
            last = (await store.append(p.streamId, evs, { expectedRevision: 'any' })).position;
            i += k;
            if (rand() < 0.3) await sleep(rand() * 3);
          }
          result.events += total;
        } finally {
          writing = false;
        }
      })();
      // Catch-ups from another "process" (the CLI), over and over while the writer runs.
      const catchUps = (async () => {
        const c = runner(1 + Math.floor(rand() * 50));
        while (writing) {
          await c.catchUp();
          result.catchUps++;
        }
      })();
      // Rebuilds of either projection, sometimes two of the same at once (they take turns).
      const rebuilds = (async () => {
        await sleep(rand() * 50);
        const jobs: Array<Promise<unknown>> = [];
        const count = 1 + Math.floor(rand() * 3);
        for (let i = 0; i < count; i++) {
          const r = runner(500);
          jobs.push(r.rebuild(pick(names)).then(() => result.rebuilds++));
          if (rand() < 0.5) await jobs[jobs.length - 1];
        }
        await Promise.all(jobs);
      })();
      const settled = await Promise.allSettled([writer, catchUps, rebuilds]);
      for (const s of settled) if (s.status === 'rejected') result.violations.push(`round ${result.rounds}: ${String((s.reason as Error)?.stack ?? s.reason)}`);

      // The live runners reach the last event, then stop.
      const target = last as Position | null;
      const deadline = Date.now() + 60_000;
      for (;;) {
        const cps = (await readCheckpoints(knex)).filter((c) => names.includes(c.name));
        if (target === null || (cps.length === names.length && cps.every((c) => c.position && comparePositions(c.position, target) >= 0))) break;
        if (cps.some((c) => c.state === 'faulted')) {
          result.violations.push(`round ${result.rounds}: faulted ${JSON.stringify(cps.filter((c) => c.state === 'faulted').map((c) => [c.name, c.fault?.error]))}`);
          break;
        }
        if (Date.now() > deadline) {
          result.violations.push(`round ${result.rounds}: live runners did not reach the last event in 60 s`);
          break;
        }
        await sleep(20);
      }
      await Promise.all(lives.map((r) => r.stop()));
      result.violations.push(...(await check()).map((v) => `round ${result.rounds}: ${v}`));
      result.rounds++;
      o.onRound?.({ round: result.rounds, events: result.events, violations: result.violations.length - before, ms: Date.now() - roundStart });
    }
  } finally {
    for (const t of [counterTable, ...Object.values(copies)]) {
      await knex.raw('DROP TABLE IF EXISTS ??', [t]);
      await knex.raw('DROP TABLE IF EXISTS ??', [`${t}__rebuild`]);
    }
    await knex.raw('DROP SEQUENCE IF EXISTS ??', [`${counterTable}_seq`]);
    await knex('projection_checkpoints').whereIn('name', names).delete();
  }
  return result;

  /** Every row against a fold of the whole feed (the stress streams' events). */
  async function check(): Promise<string[]> {
    const v: string[] = [];
    const revisions = new Map<string, bigint[]>();
    const docs = new Map<string, PoolDoc | null>();
    await readFeed(store, (e) => {
      if (!streams.has(e.streamId)) return;
      revisions.set(e.streamId, [...(revisions.get(e.streamId) ?? []), e.revision]);
      const parsed = parseEvent(e);
      if (isPoolEvent(parsed)) docs.set(e.streamId, foldPool(docs.get(e.streamId) ?? null, parsed, e.revision));
    });
    // Counter: each event exactly once, each stream in order.
    const rows = (await knex(counterTable).select('stream_id', 'revision').orderBy('seq')) as Array<{ stream_id: string; revision: string }>;
    const seen = new Map<string, bigint[]>();
    for (const r of rows) seen.set(r.stream_id, [...(seen.get(r.stream_id) ?? []), BigInt(r.revision)]);
    for (const s of streams) {
      const want = (revisions.get(s) ?? []).join(',');
      const got = (seen.get(s) ?? []).join(',');
      if (want !== got) v.push(`counter ${s}: applied [${got}], feed [${want}]`);
    }
    for (const s of seen.keys()) if (!streams.has(s)) v.push(`counter: stray stream ${s}`);
    // Pools: the row, its members and its pick-up points are the fold of the stream.
    const poolRows = new Map(
      ((await knex(copies[POOL_TABLES.pools]!).select('id', 'revision', 'status', 'title', 'doc')) as Array<{ id: string; revision: string; status: string; title: string; doc: unknown }>).map((r) => [r.id, r]),
    );
    const members = (await knex(copies[POOL_TABLES.members]!).select('pool_id')) as Array<{ pool_id: string }>;
    const points = (await knex(copies[POOL_TABLES.pickupPoints]!).select('pool_id', 'point_id', 'sort_order').orderBy(['pool_id', 'sort_order'])) as Array<{ pool_id: string; point_id: string }>;
    for (const p of pools) {
      const doc = docs.get(p.streamId) ?? null;
      const row = poolRows.get(p.poolId);
      if (!doc) {
        if (row) v.push(`pools ${p.poolId}: row without a PoolCreated in the feed`);
        continue;
      }
      if (!row) {
        v.push(`pools ${p.poolId}: missing row (feed revision ${doc.revision})`);
        continue;
      }
      if (BigInt(row.revision) !== doc.revision) v.push(`pools ${p.poolId}: revision ${row.revision}, fold ${doc.revision}`);
      if (row.status !== doc.pool.status || row.title !== doc.pool.fields.title) v.push(`pools ${p.poolId}: ${row.status}/${row.title}, fold ${doc.pool.status}/${doc.pool.fields.title}`);
      if (!jsonEqual(row.doc, JSON.parse(JSON.stringify(doc.pool)))) v.push(`pools ${p.poolId}: doc differs from the fold`);
      const m = members.filter((x) => x.pool_id === p.poolId).length;
      if (m !== 1) v.push(`pools ${p.poolId}: ${m} member rows, want 1`);
      const wantPoints = [...new Map(pickupPointsOf(doc.pool).map((r) => [r.id, r])).keys()].join(',');
      const gotPoints = points.filter((x) => x.pool_id === p.poolId).map((x) => x.point_id).join(',');
      if (wantPoints !== gotPoints) v.push(`pools ${p.poolId}: points [${gotPoints}], fold [${wantPoints}]`);
    }
    if (poolRows.size !== [...docs.values()].filter(Boolean).length) v.push(`pools: ${poolRows.size} rows, fold ${[...docs.values()].filter(Boolean).length}`);
    return v;
  }
};
