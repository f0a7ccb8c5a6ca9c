import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventRegistry, type DomainEvent } from '@cagnotte/event-schemas';
import {
  PostgresEventStore,
  comparePositions,
  createKnex,
  createLogger,
  createPgPool,
  dropDatabase,
  ensureDatabase,
  eventHash,
  migrate,
  readCheckpoints,
  type Position,
  type RecordedEvent,
} from '@cagnotte/infra';
import { testDatabaseUrl } from '@cagnotte/infra/src/testing/resources';
import { ProjectorRunner, type Projection } from './runtime';

/**
 * Issue 8, section 1: after catch-up, after a rebuild and after a rebuild beside a live runner, every
 * read-model row equals a fold of the whole log, and every page the runner reads is strictly ascending and
 * after its cursor. The log crosses digit boundaries in both position components (9→10, 99→100, 999→1000,
 * then real ids of six digits or more), in a database of its own so that the history can start with
 * fabricated transaction ids.
 */
const test = suite('projectors: read models equal a fold of the log across digit boundaries');

const HANDLED = ['PoolCreated', 'PoolPublished', 'PoolArchived', 'PoolUnarchived'];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const fmt = (p: Position | null) => (p ? `${p.commit}-${p.prepare}` : 'start');

interface FoldRow {
  id: string;
  n: number;
  last_revision: string;
  types: string;
}

/** The projection under test: per pool, how many events, the last revision and the types in feed order. */
const foldProjection = (name: string, table: string): Projection => ({
  name,
  tables: [table],
  handles: (type) => HANDLED.includes(type),
  async apply(trx, e, t) {
    const poolId = (e.data as { poolId: string }).poolId;
    await trx.raw(
      `INSERT INTO ?? AS f (id, n, last_revision, types) VALUES (?, 1, ?, ?)
       ON CONFLICT (id) DO UPDATE SET n = f.n + 1, last_revision = EXCLUDED.last_revision, types = f.types || ',' || EXCLUDED.types`,
      [t(table), poolId, e.revision.toString(), e.type],
    );
  },
});

/** The same fold, in memory, over a list of events in feed order. */
const fold = (events: RecordedEvent[]): FoldRow[] => {
  const rows = new Map<string, FoldRow>();
  for (const e of events) {
    if (!HANDLED.includes(e.type)) continue;
    const id = (e.data as { poolId: string }).poolId;
    const r = rows.get(id);
    if (r) rows.set(id, { id, n: r.n + 1, last_revision: e.revision.toString(), types: `${r.types},${e.type}` });
    else rows.set(id, { id, n: 1, last_revision: e.revision.toString(), types: e.type });
  }
  return [...rows.values()].sort((a, b) => a.id.localeCompare(b.id));
};

const T = '2025-03-01T09:00:00+01:00';
const poolEvent = (kind: 'created' | 'published' | 'archived' | 'unarchived', poolId: string, tenantId: string): DomainEvent => {
  if (kind === 'created') {
    return {
      type: 'PoolCreated',
      data: {
        title: `Pool ${poolId.slice(0, 8)}`,
        description: 'Commande groupée',
        country: 'FR',
        currency: 'EUR',
        marketplaceVisibility: 'PRIVATE',
        config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }] },
        sellerId: null,
        payoutAccount: null,
        organiserCommissionPercent: null,
        targetAmount: null,
        deadline: null,
        poolId,
        tenantId,
        type: 'GROUPS',
        organiserId: tenantId,
        organiserName: 'Spec Organiser',
        createdAt: T,
      },
    } as DomainEvent;
  }
  if (kind === 'published') return { type: 'PoolPublished', data: { poolId, publishedAt: T } } as DomainEvent;
  if (kind === 'archived') return { type: 'PoolArchived', data: { poolId, archivedAt: T } } as DomainEvent;
  return { type: 'PoolUnarchived', data: { poolId, unarchivedAt: T } } as DomainEvent;
};
const meta = (tenantId: string) => ({
  tenantId,
  actor: { kind: 'system' as const, id: 'fold-spec' },
  correlationId: randomUUID(),
  causationId: null,
  occurredAt: new Date().toISOString(),
});

test('catch-up, rebuild and rebuild beside a live runner: rows equal the fold of the whole log; every page ascends past its cursor', async () => {
  const url = new URL(testDatabaseUrl());
  url.pathname = `${url.pathname}_fold`;
  await dropDatabase(url.toString());
  await ensureDatabase(url.toString());
  const knex = createKnex(url.toString(), 6);
  const pool = createPgPool(url.toString(), 6);
  const store = new PostgresEventStore({ pool, pollMs: 20 });
  const logger = createLogger('silent', 'fold-spec');
  const table = 'spec_fold';
  const projection = foldProjection('spec-fold', table);
  const live = new ProjectorRunner({ store, knex, projections: [projection], logger, batchSize: 3 });
  const admin = new ProjectorRunner({ store, knex, projections: [projection], logger, batchSize: 4 });

  // Every page read by anyone (catch-up, rebuild, live subscription) is checked.
  const violations: string[] = [];
  let pages = 0;
  const read = store.readAll.bind(store);
  store.readAll = async (o = {}) => {
    const page = await read(o);
    if (page.length > 0) pages++;
    let prev = o.after ?? null;
    for (const e of page) {
      if (prev && comparePositions(prev, e.position) >= 0) violations.push(`${fmt(e.position)} after ${fmt(prev)}`);
      prev = e.position;
    }
    return page;
  };
  const wholeLog = async (): Promise<RecordedEvent[]> => {
    const out: RecordedEvent[] = [];
    let after: Position | null = null;
    for (;;) {
      const page = await store.readAll({ after, maxCount: 7 });
      if (page.length === 0) return out;
      out.push(...page);
      after = page[page.length - 1]!.position;
    }
  };
  const rows = async () => (await knex(table).select('id', 'n', knex.raw('last_revision::text AS last_revision'), 'types').orderBy('id')) as unknown as FoldRow[];

  try {
    await migrate(knex, url.toString());
    await knex.raw(`CREATE TABLE ${table} (id text PRIMARY KEY, n int NOT NULL, last_revision bigint NOT NULL, types text NOT NULL)`);

    // A history with fabricated transaction ids: a lower id may hold a higher sequence number (9 → 99 998…).
    const pools = Array.from({ length: 6 }, () => ({ poolId: randomUUID(), tenantId: randomUUID(), revision: -1, lastHash: null as string | null }));
    const steps = (['created', 'published', 'archived', 'unarchived'] as const).flatMap((kind) => pools.map((p) => ({ kind, p })));
    const txns: Array<[number, number[]]> = [
      [9, [99_998, 99_999, 100_000]],
      [10, [8, 9, 10, 11]],
      [99, [97, 98, 99]],
      [100, [100, 101, 997]],
      [999, [998, 999, 1000, 1001]],
      [1000, [9_998, 9_999, 10_000]],
      [1001, [10_001, 99_990, 99_991, 99_992]],
    ];
    let step = 0;
    for (const [commit, prepares] of txns) {
      for (const prepare of prepares) {
        const { kind, p } = steps[step++]!;
        const e = poolEvent(kind, p.poolId, p.tenantId);
        p.revision++;
        // Hash-chained as the store would chain them (projectors check every link they read).
        const id = randomUUID();
        const streamId = `pool-${p.poolId}`;
        const schemaVersion = eventRegistry.currentVersion(e.type);
        const metadata = meta(p.tenantId);
        const data = JSON.parse(JSON.stringify(e.data)) as unknown;
        const hash = eventHash(p.lastHash, { streamId, revision: BigInt(p.revision), id, type: e.type, schemaVersion, data, metadata });
        await pool.query(
          `INSERT INTO es_events (global_position, transaction_id, stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash)
           VALUES ($1, $2::text::xid8, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
          [prepare, String(commit), streamId, p.revision, id, e.type, schemaVersion, JSON.stringify(data), JSON.stringify(metadata), p.lastHash, hash],
        );
        p.lastHash = hash;
      }
    }
    assert.is(step, steps.length);
    for (const p of pools) await pool.query(`INSERT INTO es_streams (stream_id, revision, last_hash) VALUES ($1, $2, $3)`, [`pool-${p.poolId}`, p.revision, p.lastHash]);
    await pool.query(`SELECT setval('es_events_global_position_seq', 100010)`);

    // Real appends on top: their transaction ids have more digits than 1001.
    let toggle = 0;
    const appendReal = async (p: (typeof pools)[number]) => {
      const e = poolEvent(toggle++ % 2 === 0 ? 'archived' : 'unarchived', p.poolId, p.tenantId);
      const r = await store.append(`pool-${p.poolId}`, [{ id: randomUUID(), type: e.type, schemaVersion: eventRegistry.currentVersion(e.type), data: e.data, metadata: meta(p.tenantId) }], { expectedRevision: 'any' });
      return r.position;
    };
    for (const p of pools) await appendReal(p);

    const log = await wholeLog();
    assert.is(log.length, 30);
    for (const p of pools) {
      const revisions = log.filter((e) => e.streamId === `pool-${p.poolId}`).map((e) => Number(e.revision));
      assert.equal(revisions, [0, 1, 2, 3, 4], `pool ${p.poolId.slice(0, 8)}: its revisions in feed order`);
    }

    // 1. Catch-up.
    await admin.catchUp();
    assert.equal(await rows(), fold(await wholeLog()), 'after catch-up');

    // 2. Rebuild over a corrupted table.
    await knex(table).where({ id: pools[0]!.poolId }).delete();
    await knex(table).where({ id: pools[1]!.poolId }).update({ n: 99 });
    await admin.rebuild('spec-fold');
    assert.equal(await rows(), fold(await wholeLog()), 'after rebuild');

    // 3. Rebuild beside a live runner while events keep arriving.
    await live.start();
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing && i < 200; i++) {
        await appendReal(pools[i % pools.length]!);
        await sleep(2);
      }
    })();
    await sleep(20);
    await admin.rebuild('spec-fold');
    writing = false;
    await writer;
    const head = await store.headPosition();
    const deadline = Date.now() + 15_000;
    const reached = async () => {
      const cp = (await readCheckpoints(knex)).find((c) => c.name === 'spec-fold');
      return !!cp?.position && !!head && comparePositions(cp.position, head) >= 0;
    };
    while (!(await reached()) && Date.now() < deadline) await sleep(20);
    assert.ok(await reached(), `the live runner reached the head ${fmt(head)}`);
    await live.stop();
    const finalLog = await wholeLog();
    assert.ok(finalLog.length > 30);
    assert.equal(await rows(), fold(finalLog), 'after a rebuild beside a live runner');

    assert.equal(violations, [], 'every page strictly ascending and after its cursor');
    assert.ok(pages > 10, `${pages} pages checked`);
  } finally {
    await live.stop();
    await store.close();
    await pool.end();
    await knex.destroy();
    await dropDatabase(url.toString());
  }
});

test.run();
