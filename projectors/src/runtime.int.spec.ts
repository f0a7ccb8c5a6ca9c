import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventRegistry, type DomainEvent, type PoolDraftFields, type PoolType, type RelaisPoint } from '@cagnotte/event-schemas';
import {
  CheckpointWaiter,
  PostgresEventStore,
  comparePositions,
  createLogger,
  readCheckpoints,
  type NewEvent,
  type Position,
  type RecordedEvent,
} from '@cagnotte/infra';
import { onTestTeardown, testKnex, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { POOL_TABLES, type MemberRow, type PickupPointRow, type PoolRow } from '@cagnotte/read-models';
import { applyBatch, ProjectorRunner, type ProjectedEvent, type Projection } from './runtime';
import { poolsProjection } from './pools/projection';

// ---------------------------------------------------------------------------------------------
// Shared resources. The database is shared by every spec file: fresh ids and names per test,
// assertions only on our own rows.
// ---------------------------------------------------------------------------------------------

let storeInstance: PostgresEventStore | null = null;
const store = (): PostgresEventStore => {
  if (!storeInstance) {
    const s = new PostgresEventStore({ pool: testPgPool(), pollMs: 20 });
    storeInstance = s;
    onTestTeardown(() => s.close());
  }
  return storeInstance;
};
const knex = () => testKnex();
const logger = createLogger('silent', 'projectors-spec');

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const uniq = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** Polls `check` until it holds or `timeoutMs` passes; returns whether it held. */
const eventually = async (check: () => Promise<boolean>, timeoutMs = 5000, everyMs = 20): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
};

const maxPosition = (ps: Position[]): Position => ps.reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));

const checkpointOf = async (name: string) => (await readCheckpoints(knex())).find((c) => c.name === name);

/**
 * The feed only shows events below the oldest running transaction of the whole cluster (gap safety), so an
 * append is not always readable at once (other databases on the server count too): catch up until it is.
 */
const catchUpTo = async (r: ProjectorRunner, name: string, position: Position, timeoutMs = 5000): Promise<void> => {
  const reached = await eventually(async () => {
    await r.catchUp();
    const cp = await checkpointOf(name);
    return !!cp?.position && comparePositions(cp.position, position) >= 0;
  }, timeoutMs);
  assert.ok(reached, `${name} caught up to ${position.commit}-${position.prepare}`);
};

// ---------------------------------------------------------------------------------------------
// Fixtures: real, schema-valid pool events on `pool-<uuid>` streams
// ---------------------------------------------------------------------------------------------

const T0 = '2025-03-01T09:00:00+01:00';
const T1 = '2025-03-02T10:30:00+01:00';
const T2 = '2025-03-03T11:45:00+01:00';
const T3 = '2025-03-04T12:00:00+01:00';
const T4 = '2025-03-05T08:15:00+01:00';

const RELAIS_A: RelaisPoint = { id: 'r-a', name: 'Épicerie du coin', address: '1 rue de la Paix', postalCode: '75002', city: 'Paris', country: 'FR' };
const RELAIS_B: RelaisPoint = { id: 'r-b', name: 'Boulangerie Martin', lat: 48.8566, lng: 2.3522, openingHours: 'Mo-Fr 08:00-19:00' };
const RELAIS_C: RelaisPoint = { id: 'r-c', name: 'Mairie annexe' };

const newPool = (type: PoolType = 'GROUPS', relais?: RelaisPoint[]) => {
  const poolId = randomUUID();
  const tenantId = randomUUID();
  const organiserId = randomUUID();
  const fields: PoolDraftFields = {
    title: `Pool ${poolId.slice(0, 8)}`,
    description: 'Commande groupée',
    country: 'FR',
    currency: 'EUR',
    marketplaceVisibility: 'PRIVATE',
    config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], ...(relais ? { relais } : {}) },
    sellerId: null,
    payoutAccount: null,
    organiserCommissionPercent: null,
    targetAmount: type === 'FUNDING' ? '250.00' : null,
    deadline: null,
  };
  return {
    poolId,
    tenantId,
    organiserId,
    type,
    fields,
    streamId: `pool-${poolId}`,
    created: (): DomainEvent => ({
      type: 'PoolCreated',
      data: { ...fields, poolId, tenantId, type, organiserId, organiserName: 'Spec Organiser', createdAt: T0 },
    }),
    updated: (changes: Partial<PoolDraftFields>, at = T1): DomainEvent => ({ type: 'PoolDraftUpdated', data: { poolId, changes, updatedAt: at } }),
    published: (at = T2): DomainEvent => ({ type: 'PoolPublished', data: { poolId, publishedAt: at } }),
    archived: (at = T3): DomainEvent => ({ type: 'PoolArchived', data: { poolId, archivedAt: at } }),
    unarchived: (at = T4): DomainEvent => ({ type: 'PoolUnarchived', data: { poolId, unarchivedAt: at } }),
  };
};
type PoolFixture = ReturnType<typeof newPool>;

const toNew = (e: DomainEvent, tenantId: string): NewEvent => ({
  id: randomUUID(),
  type: e.type,
  schemaVersion: eventRegistry.currentVersion(e.type),
  data: e.data,
  metadata: {
    tenantId,
    actor: { kind: 'system', id: 'spec' },
    correlationId: randomUUID(),
    causationId: null,
    occurredAt: new Date().toISOString(),
  },
});

const append = (p: PoolFixture, ...events: DomainEvent[]) =>
  store().append(
    p.streamId,
    events.map((e) => toNew(e, p.tenantId)),
    { expectedRevision: 'any' },
  );

const recorded = (p: PoolFixture): Promise<RecordedEvent[]> => store().readStream(p.streamId);

// ---------------------------------------------------------------------------------------------
// A custom projection: one row per application, in a table of its own. No unique key, so an event
// applied twice shows up as two rows instead of being hidden by a constraint.
// ---------------------------------------------------------------------------------------------

interface CounterOptions {
  name: string;
  table: string;
  pools: Set<string>;
  types?: string[];
  /** Mutable: apply throws (after writing its row) while this says so. */
  failWhen?: ((e: ProjectedEvent) => boolean) | null;
  delayMs?: number;
  tag?: string;
}

const counterProjection = (o: CounterOptions): Projection => ({
  name: o.name,
  tables: [o.table],
  handles: (type) => (o.types ?? ['PoolCreated', 'PoolPublished']).includes(type),
  async apply(trx, event, table) {
    const poolId = (event.data as { poolId?: string }).poolId;
    if (!poolId || !o.pools.has(poolId)) return;
    await trx(table(o.table)).insert({ event_key: `${event.streamId}@${event.revision}`, pool_id: poolId, type: event.type, tag: o.tag ?? null });
    if (o.delayMs) await sleep(o.delayMs);
    if (o.failWhen?.(event)) throw new Error(`spec: refusing ${event.type} of ${poolId}`);
  },
});

const createCounterTable = (t: string) =>
  knex().raw('CREATE TABLE ?? (event_key text NOT NULL, pool_id uuid NOT NULL, type text NOT NULL, tag text)', [t]);

const counterRows = async (t: string) =>
  (await knex()(t).select('event_key', 'pool_id', 'type', 'tag').orderBy('event_key')) as Array<{ event_key: string; pool_id: string; type: string; tag: string | null }>;

const dropTables = (...ts: string[]) => Promise.all(ts.map((t) => knex().raw('DROP TABLE IF EXISTS ??', [t])));

// ---------------------------------------------------------------------------------------------
// applyBatch
// ---------------------------------------------------------------------------------------------

const batch = suite('projectors runtime: applyBatch');

batch('given a projection whose apply throws, when the batch is applied, then neither its rows nor its checkpoint move', async () => {
  const table = uniq('spec_counter');
  await createCounterTable(table);
  try {
    const a = newPool();
    const b = newPool();
    await append(a, a.created(), a.published());
    await append(b, b.created(), b.published());
    const eventsA = await recorded(a);
    const eventsB = await recorded(b);
    const o: CounterOptions = { name: uniq('spec-tx'), table, pools: new Set([a.poolId, b.poolId]) };
    o.failWhen = (e) => e.type === 'PoolPublished' && (e.data as { poolId: string }).poolId === b.poolId;
    const projection = counterProjection(o);

    // A good batch first: two rows, checkpoint at its last event.
    assert.is(await applyBatch(knex(), projection, eventsA), 2);
    const before = await checkpointOf(o.name);
    assert.ok(before?.position);
    assert.is(comparePositions(before!.position!, eventsA[1]!.position), 0);
    assert.is(before!.eventsApplied, 2);

    // B's PoolCreated is written, then its PoolPublished throws: the whole batch rolls back.
    try {
      await applyBatch(knex(), projection, eventsB);
      assert.unreachable('applyBatch should have thrown');
    } catch (error) {
      assert.match((error as Error).message, /spec: refusing PoolPublished/);
    }
    const rows = await counterRows(table);
    assert.is(rows.length, 2, 'B rows rolled back');
    assert.ok(rows.every((r) => r.pool_id === a.poolId));
    const after = await checkpointOf(o.name);
    assert.is(comparePositions(after!.position!, before!.position!), 0, 'checkpoint did not move');
    assert.is(after!.eventsApplied, 2);

    // A projection that never committed anything: no checkpoint row at all after the failure.
    const fresh = counterProjection({ ...o, name: uniq('spec-tx-fresh') });
    let threw = false;
    await applyBatch(knex(), fresh, eventsB).catch(() => (threw = true));
    assert.ok(threw);
    assert.is(await checkpointOf(fresh.name), undefined, 'the checkpoint row insert was rolled back too');
    assert.is((await counterRows(table)).length, 2);

    // The failure clears: the same batch goes through once.
    o.failWhen = null;
    assert.is(await applyBatch(knex(), projection, eventsB), 2);
    const rowsAfter = await counterRows(table);
    assert.is(rowsAfter.length, 4);
    assert.is(rowsAfter.filter((r) => r.pool_id === b.poolId).length, 2);
    const cp = await checkpointOf(o.name);
    assert.is(comparePositions(cp!.position!, eventsB[1]!.position), 0);
    assert.is(cp!.eventsApplied, 4);
  } finally {
    await dropTables(table);
  }
});

batch('given a batch already applied, when it is delivered again (whole or overlapping), then it is applied once', async () => {
  const table = uniq('spec_counter');
  await createCounterTable(table);
  try {
    const a = newPool();
    const b = newPool();
    await append(a, a.created(), a.updated({ title: 'Renamed' }), a.published());
    await append(b, b.created(), b.published());
    const eventsA = await recorded(a);
    const eventsB = await recorded(b);
    const o: CounterOptions = { name: uniq('spec-replay'), table, pools: new Set([a.poolId, b.poolId]) };
    const projection = counterProjection(o);

    // PoolDraftUpdated is not handled: skipped, but the checkpoint still moves past it.
    assert.is(await applyBatch(knex(), projection, eventsA), 2);
    const first = await checkpointOf(o.name);
    const rows1 = await counterRows(table);
    assert.is(rows1.length, 2);
    assert.is(comparePositions(first!.position!, eventsA[2]!.position), 0);

    assert.is(await applyBatch(knex(), projection, eventsA), 0, 'second delivery applies nothing');
    const second = await checkpointOf(o.name);
    assert.equal(await counterRows(table), rows1);
    assert.is(second!.eventsApplied, 2, 'events_applied counts once');
    assert.is(comparePositions(second!.position!, first!.position!), 0);
    assert.is(second!.updatedAt.getTime(), first!.updatedAt.getTime(), 'the checkpoint is not rewritten');

    // An overlapping redelivery (old tail + new events): only the new ones apply.
    assert.is(await applyBatch(knex(), projection, [...eventsA.slice(1), ...eventsB]), 2);
    const rows3 = await counterRows(table);
    assert.is(rows3.length, 4);
    assert.is(new Set(rows3.map((r) => r.event_key)).size, 4);
    assert.is((await checkpointOf(o.name))!.eventsApplied, 4);
    assert.is(await applyBatch(knex(), projection, [...eventsA, ...eventsB]), 0);
    assert.is((await counterRows(table)).length, 4);
  } finally {
    await dropTables(table);
  }
});

batch.run();

// ---------------------------------------------------------------------------------------------
// The real pools projection
// ---------------------------------------------------------------------------------------------

const pools = suite('projectors runtime: poolsProjection');

/** The pools projection under a checkpoint name of its own (it still writes the shared rm_ tables). */
const poolsAs = (name = uniq('spec-pools')): Projection => ({ ...poolsProjection, name });

const poolRow = async (id: string) => (await knex()<PoolRow>(POOL_TABLES.pools).where({ id }).first()) ?? null;
const members = async (id: string) => (await knex()<MemberRow>(POOL_TABLES.members).where({ pool_id: id }).orderBy('user_id')) as MemberRow[];
const points = async (id: string) => (await knex()<PickupPointRow>(POOL_TABLES.pickupPoints).where({ pool_id: id }).orderBy('sort_order')) as PickupPointRow[];
const snapshot = async (id: string) => ({ row: await poolRow(id), members: await members(id), points: await points(id) });

pools('PoolCreated: a DRAFT rm_pools row with its doc, the organiser as member, and the relais as pick-up points in order', async () => {
  const p = newPool('GROUPS', [RELAIS_B, RELAIS_C, RELAIS_A]);
  await append(p, p.created());
  assert.is(await applyBatch(knex(), poolsAs(), await recorded(p)), 1);

  const row = await poolRow(p.poolId);
  assert.ok(row, 'rm_pools row');
  assert.is(row!.tenant_id, p.tenantId);
  assert.is(row!.organiser_id, p.organiserId);
  assert.is(row!.type, 'GROUPS');
  assert.is(row!.status, 'DRAFT');
  assert.is(row!.marketplace_visibility, 'PRIVATE');
  assert.is(row!.archived_at, null);
  assert.is(row!.country, 'FR');
  assert.is(row!.title, p.fields.title);
  assert.is(String(row!.revision), '0');
  assert.is(new Date(row!.created_at).toISOString(), new Date(T0).toISOString());
  assert.is(row!.doc.status, 'DRAFT');
  assert.is(row!.doc.id, p.poolId);
  assert.is(row!.doc.organiserName, 'Spec Organiser');
  assert.equal(row!.doc.fields, p.fields);

  const m = await members(p.poolId);
  assert.is(m.length, 1);
  assert.is(m[0]!.user_id, p.organiserId);
  assert.is(m[0]!.role, 'organiser');
  assert.is(m[0]!.display_name, 'Spec Organiser');
  assert.is(new Date(m[0]!.joined_at).toISOString(), new Date(T0).toISOString());

  const pts = await points(p.poolId);
  assert.equal(
    pts.map((r) => [r.sort_order, r.point_id, r.name]),
    [
      [0, 'r-b', RELAIS_B.name],
      [1, 'r-c', RELAIS_C.name],
      [2, 'r-a', RELAIS_A.name],
    ],
  );
  const b = pts[0]!;
  assert.is(b.lat, RELAIS_B.lat);
  assert.is(b.lng, RELAIS_B.lng);
  assert.is(b.opening_hours, RELAIS_B.openingHours);
  assert.is(b.address, null);
  const a = pts[2]!;
  assert.equal([a.address, a.postal_code, a.city, a.country], ['1 rue de la Paix', '75002', 'Paris', 'FR']);
});

pools('PoolCreated of a FUNDING pool: no pick-up points, even with relais in its config', async () => {
  const p = newPool('FUNDING', [RELAIS_A]);
  await append(p, p.created());
  await applyBatch(knex(), poolsAs(), await recorded(p));
  assert.is((await poolRow(p.poolId))?.type, 'FUNDING');
  assert.is((await members(p.poolId)).length, 1);
  assert.equal(await points(p.poolId), []);
});

pools('PoolDraftUpdated changing config.relais re-syncs the pick-up points; other edits leave them as they are', async () => {
  const p = newPool('GROUPS', [RELAIS_A, RELAIS_B]);
  const name = uniq('spec-pools');
  await append(p, p.created());
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  assert.equal((await points(p.poolId)).map((r) => r.point_id), ['r-a', 'r-b']);

  const renamedA = { ...RELAIS_A, name: 'Épicerie (nouvelle adresse)', address: '2 rue Neuve' };
  await append(p, p.updated({ config: { ...p.fields.config, relais: [RELAIS_C, renamedA] } }));
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  const pts = await points(p.poolId);
  assert.equal(
    pts.map((r) => [r.sort_order, r.point_id, r.name, r.address]),
    [
      [0, 'r-c', RELAIS_C.name, null],
      [1, 'r-a', renamedA.name, '2 rue Neuve'],
    ],
    'r-b removed, r-c added first, r-a updated',
  );
  const row = await poolRow(p.poolId);
  assert.is(String(row!.revision), '1');
  assert.equal(row!.doc.fields.config.relais, [RELAIS_C, renamedA]);

  await append(p, p.updated({ title: 'Nouveau titre' }, T2));
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  const row2 = await poolRow(p.poolId);
  assert.is(row2!.title, 'Nouveau titre');
  assert.is(String(row2!.revision), '2');
  assert.equal(await points(p.poolId), pts, 'a title edit keeps the points');

  await append(p, p.updated({ config: { units: p.fields.config.units } }, T3));
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  assert.equal(await points(p.poolId), [], 'relais removed from config: no pick-up points');
});

pools('PoolPublished opens the pool; PoolArchived and PoolUnarchived set and clear archived_at', async () => {
  const p = newPool('GROUPS', [RELAIS_A]);
  const name = uniq('spec-pools');
  await append(p, p.created(), p.published());
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  let row = await poolRow(p.poolId);
  assert.is(row!.status, 'OPEN');
  assert.is(row!.doc.publishedAt, T2);
  assert.is(row!.archived_at, null);
  assert.is(new Date(row!.updated_at).toISOString(), new Date(T2).toISOString());

  await append(p, p.archived());
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  row = await poolRow(p.poolId);
  assert.ok(row!.archived_at);
  assert.is(new Date(row!.archived_at!).toISOString(), new Date(T3).toISOString());
  assert.is(row!.doc.archivedAt, T3);
  assert.is(row!.status, 'OPEN');

  await append(p, p.unarchived());
  await applyBatch(knex(), poolsAs(name), await recorded(p));
  row = await poolRow(p.poolId);
  assert.is(row!.archived_at, null);
  assert.is(row!.doc.archivedAt, null);
  assert.is(String(row!.revision), '3');
  assert.is(new Date(row!.updated_at).toISOString(), new Date(T4).toISOString());
  assert.equal((await points(p.poolId)).map((r) => r.point_id), ['r-a']);
});

pools('replaying the same pool events twice (same checkpoint, or a fresh one) yields the same row, members and pick-up points', async () => {
  const p = newPool('GROUPS', [RELAIS_A, RELAIS_B]);
  await append(p, p.created(), p.updated({ config: { ...p.fields.config, relais: [RELAIS_B, RELAIS_C] } }), p.published(), p.archived(), p.unarchived());
  const events = await recorded(p);
  const name = uniq('spec-pools');
  assert.is(await applyBatch(knex(), poolsAs(name), events), 5);
  const once = await snapshot(p.poolId);
  assert.is(once.row!.status, 'OPEN');
  assert.equal(once.points.map((r) => r.point_id), ['r-b', 'r-c']);

  // Same checkpoint: skipped wholesale.
  assert.is(await applyBatch(knex(), poolsAs(name), events), 0);
  assert.equal(await snapshot(p.poolId), once);
  assert.is((await checkpointOf(name))!.eventsApplied, 5);

  // A fresh checkpoint (another process, or a reset): the projection itself must be idempotent.
  await applyBatch(knex(), poolsAs(), events);
  assert.equal(await snapshot(p.poolId), once, 'full replay changes nothing');
  await applyBatch(knex(), poolsAs(), [events[0]!, events[1]!]);
  assert.equal(await snapshot(p.poolId), once, 'replaying old events does not roll the row back');
});

pools.run();

// ---------------------------------------------------------------------------------------------
// ProjectorRunner
// ---------------------------------------------------------------------------------------------

const runner = suite('projectors runtime: ProjectorRunner');

runner('live: after start(), the read model follows appends within a bounded time, and the waiter sees the position', async () => {
  const name = uniq('spec-pools-live');
  const waiter = new CheckpointWaiter(knex(), 10);
  const r = new ProjectorRunner({ store: store(), knex: knex(), projections: [poolsAs(name)], logger, waiter });
  await r.start();
  try {
    const p = newPool('GROUPS', [RELAIS_A]);
    const { position: created } = await append(p, p.created());
    assert.ok(await waiter.waitFor([name], created, 5000), 'checkpoint reaches the PoolCreated position');
    assert.is((await poolRow(p.poolId))?.status, 'DRAFT', 'the row is visible once the waiter says so');
    assert.equal((await points(p.poolId)).map((x) => x.point_id), ['r-a']);

    const { position: published } = await append(p, p.published());
    assert.ok(await eventually(async () => (await poolRow(p.poolId))?.status === 'OPEN', 5000), 'OPEN within 5 s');
    assert.ok(await waiter.waitFor([name], published, 5000));
    const cp = await checkpointOf(name);
    assert.ok(comparePositions(cp!.position!, published) >= 0);
  } finally {
    await r.stop();
  }
});

runner('CheckpointWaiter: false on timeout while nothing projects; true once a catch-up passes the position', async () => {
  const name = uniq('spec-pools-waiter');
  const waiter = new CheckpointWaiter(knex(), 10);
  const r = new ProjectorRunner({ store: store(), knex: knex(), projections: [poolsAs(name)], logger, waiter });
  const p = newPool();
  const { position } = await append(p, p.created());
  const t0 = Date.now();
  assert.is(await waiter.waitFor([name], position, 150), false);
  assert.ok(Date.now() - t0 >= 140, 'it waited its timeout');
  // The waiter wakes up as soon as a catch-up passes the position.
  const [reached] = await Promise.all([waiter.waitFor([name], position, 5000), catchUpTo(r, name, position)]);
  assert.is(reached, true);
  assert.is(await waiter.waitFor([name, uniq('never-ran')], position, 50), false, 'every named projection must have passed');
  assert.is((await poolRow(p.poolId))?.status, 'DRAFT');
});

runner('status(): lag 0 when caught up, > 0 while stopped and events are appended, back to 0 once running', async () => {
  const table = uniq('spec_counter');
  await createCounterTable(table);
  const o: CounterOptions = { name: uniq('spec-status'), table, pools: new Set() };
  const r = new ProjectorRunner({ store: store(), knex: knex(), projections: [counterProjection(o)], logger });
  try {
    assert.ok(await eventually(async () => (await r.catchUp(), (await r.status())[0]!.lagEvents === 0), 5000), 'caught up');
    const [caughtUp] = await r.status();
    assert.is(caughtUp!.name, o.name);
    assert.is(caughtUp!.lagEvents, 0);
    assert.is(caughtUp!.lagSeconds, 0);
    assert.ok(caughtUp!.head && caughtUp!.position);
    assert.is(comparePositions(caughtUp!.position!, caughtUp!.head!), 0);

    const p = newPool();
    o.pools.add(p.poolId);
    await append(p, p.created());
    await append(p, p.published());
    const { position } = await append(p, p.archived());
    // The head moves once the appends are visible in the feed (at once unless another transaction is open).
    assert.ok(await eventually(async () => (await r.status())[0]!.lagEvents > 0, 5000), 'lag shows while stopped');
    const [behind] = await r.status();
    assert.ok(behind!.lagEvents > 0, `lagEvents ${behind!.lagEvents}`);
    assert.ok(comparePositions(behind!.head!, position) >= 0);
    assert.ok(comparePositions(behind!.position!, behind!.head!) < 0);

    await r.start();
    assert.ok(await eventually(async () => (await r.status())[0]!.lagEvents === 0, 5000), 'caught up again');
    assert.equal((await counterRows(table)).map((x) => x.type), ['PoolCreated', 'PoolPublished']);
  } finally {
    await r.stop();
    await dropTables(table);
  }
});

runner('a runner retries a failing batch and applies it once the failure clears', async () => {
  const table = uniq('spec_counter');
  await createCounterTable(table);
  const p = newPool();
  const o: CounterOptions = { name: uniq('spec-retry'), table, pools: new Set([p.poolId]), failWhen: () => true };
  const r = new ProjectorRunner({ store: store(), knex: knex(), projections: [counterProjection(o)], logger, batchSize: 50 });
  try {
    await r.start();
    const { position } = await append(p, p.created(), p.published());
    await sleep(250);
    assert.is((await counterRows(table)).length, 0, 'nothing committed while apply throws');
    const cp = await checkpointOf(o.name);
    assert.ok(!cp?.position || comparePositions(cp.position, position) < 0, 'checkpoint held back');
    o.failWhen = null;
    const waiter = new CheckpointWaiter(knex(), 10);
    assert.ok(await waiter.waitFor([o.name], position, 8000), 'applied after the failure cleared');
    assert.equal((await counterRows(table)).map((x) => x.type), ['PoolCreated', 'PoolPublished']);
  } finally {
    await r.stop();
    await dropTables(table);
  }
});

runner('two runners of the same projection, both started, never apply an event twice', async () => {
  const table = uniq('spec_counter');
  await createCounterTable(table);
  const fixtures = Array.from({ length: 15 }, () => newPool());
  const ids = new Set(fixtures.map((f) => f.poolId));
  const name = uniq('spec-twins');
  const runners = ['one', 'two'].map(
    (tag) =>
      new ProjectorRunner({
        store: store(),
        knex: knex(),
        projections: [counterProjection({ name, table, pools: ids, tag, delayMs: 2 })],
        logger,
        batchSize: 3,
      }),
  );
  try {
    await Promise.all(runners.map((r) => r.start()));
    const results = await Promise.all(fixtures.map((f) => append(f, f.created(), f.published())));
    const last = maxPosition(results.map((x) => x.position));
    const waiter = new CheckpointWaiter(knex(), 10);
    assert.ok(await waiter.waitFor([name], last, 15_000), 'both runners together reach the head');
    await Promise.all(runners.map((r) => r.stop()));
    const rows = await counterRows(table);
    const keys = rows.map((x) => x.event_key);
    const dupes = keys.filter((k, i) => keys.indexOf(k) !== i);
    assert.equal(dupes, [], 'no event applied twice');
    assert.is(rows.length, 30);
    assert.equal(new Set(rows.map((x) => x.pool_id)), ids);
    // events_applied counts every handled event of the feed (other tests' pools too), each once.
    const cp = (await checkpointOf(name))!;
    const handled = (await knex().raw(
      `SELECT count(*)::int AS n FROM es_events WHERE type IN ('PoolCreated', 'PoolPublished') AND (transaction_id, global_position) <= (?::text::xid8, ?::bigint)`,
      [cp.position!.commit.toString(), cp.position!.prepare.toString()],
    )) as { rows: Array<{ n: number }> };
    assert.is(cp.eventsApplied, handled.rows[0]!.n, 'events_applied counts each handled event once');
  } finally {
    await Promise.all(runners.map((r) => r.stop()));
    await dropTables(table);
  }
});

runner.run();

// ---------------------------------------------------------------------------------------------
// rebuild
// ---------------------------------------------------------------------------------------------

const rebuild = suite('projectors runtime: rebuild');

/** Counts events per pool: id = pool id, n = how many of its handled events were applied. Not idempotent on its own. */
const tallyProjection = (name: string, table: string, pools: Set<string>): Projection => ({
  name,
  tables: [table],
  handles: (type) => type === 'PoolCreated' || type === 'PoolPublished' || type === 'PoolArchived',
  async apply(trx, event, t) {
    const poolId = (event.data as { poolId: string }).poolId;
    if (!pools.has(poolId)) return;
    await trx.raw('INSERT INTO ?? (id, n) VALUES (?, 1) ON CONFLICT (id) DO UPDATE SET n = ??.n + 1', [t(table), poolId, t(table)]);
  },
});

const tally = async (table: string) =>
  Object.fromEntries(((await knex()(table).select('id', 'n')) as Array<{ id: string; n: number }>).map((r) => [r.id, r.n]));

const tableExists = async (t: string) => ((await knex().raw('SELECT to_regclass(?) AS r', [t])) as { rows: Array<{ r: string | null }> }).rows[0]!.r !== null;

rebuild('rebuild replaces corrupted live rows with the ones rebuilt from position 0, while reads keep working', async () => {
  const table = uniq('spec_rebuild');
  await knex().raw('CREATE TABLE ?? (id text PRIMARY KEY, n int NOT NULL)', [table]);
  const name = uniq('spec-rebuild');
  const fixtures = Array.from({ length: 6 }, () => newPool());
  const ids = new Set(fixtures.map((f) => f.poolId));
  const r = new ProjectorRunner({ store: store(), knex: knex(), projections: [tallyProjection(name, table, ids)], logger });
  try {
    const positions: Position[] = [];
    for (const [i, f] of fixtures.entries()) {
      const evs = i % 2 === 0 ? [f.created(), f.published(), f.archived()] : [f.created(), f.published()];
      positions.push((await append(f, ...evs)).position);
    }
    const expected = Object.fromEntries(fixtures.map((f, i) => [f.poolId, i % 2 === 0 ? 3 : 2]));
    await catchUpTo(r, name, maxPosition(positions));
    assert.equal(await tally(table), expected, 'catch-up built the table');

    // Corrupt the live table: rows lost, a wrong count, a stray row.
    await knex()(table).whereIn('id', [fixtures[0]!.poolId, fixtures[1]!.poolId]).delete();
    await knex()(table).where({ id: fixtures[2]!.poolId }).update({ n: 99 });
    await knex()(table).insert({ id: 'stray', n: 7 });
    assert.not.equal(await tally(table), expected);

    // Read the live table continuously while the rebuild runs and swaps.
    let rebuilding = true;
    let reads = 0;
    const readErrors: string[] = [];
    const reader = (async () => {
      while (rebuilding) {
        try {
          await knex()(table).select('id', 'n');
          reads++;
        } catch (error) {
          readErrors.push((error as Error).message);
        }
        await sleep(1);
      }
    })();
    const result = await r.rebuild(name).finally(() => (rebuilding = false));
    await reader;

    assert.equal(readErrors, [], 'no read of the live table failed');
    assert.ok(reads > 0, 'the table was read during the rebuild');
    assert.equal(await tally(table), expected, 'exactly the rows rebuilt from the feed');
    assert.ok(result.position && comparePositions(result.position, maxPosition(positions)) >= 0);
    const cp = await checkpointOf(name);
    assert.ok(comparePositions(cp!.position!, maxPosition(positions)) >= 0, 'checkpoint at least at the last event');
    assert.is(cp!.eventsApplied, result.events);
    assert.ok(result.events >= 15, `counted ${result.events} handled events`);
    assert.is(await tableExists(`${table}__rebuild`), false);
    assert.is(await tableExists(`${table}__old`), false);

    // The swapped-in table is the live one from now on: new events land there exactly once…
    const g = fixtures[1]!;
    const { position } = await append(g, g.archived());
    await catchUpTo(r, name, position);
    expected[g.poolId] = 3;
    assert.equal(await tally(table), expected);

    // …and a second rebuild (over a table that was itself a rebuild) gives the same rows again.
    await knex()(table).delete();
    await r.rebuild(name);
    assert.equal(await tally(table), expected);
  } finally {
    await r.stop();
    await dropTables(table, `${table}__rebuild`, `${table}__old`);
  }
});

rebuild('rebuild beside a live runner while events keep arriving: nothing lost, nothing counted twice', async () => {
  const table = uniq('spec_rebuild');
  await knex().raw('CREATE TABLE ?? (id text PRIMARY KEY, n int NOT NULL)', [table]);
  const name = uniq('spec-rebuild-live');
  const fixtures = Array.from({ length: 12 }, () => newPool());
  const ids = new Set(fixtures.map((f) => f.poolId));
  const projection = tallyProjection(name, table, ids);
  const live = new ProjectorRunner({ store: store(), knex: knex(), projections: [projection], logger, batchSize: 4 });
  const admin = new ProjectorRunner({ store: store(), knex: knex(), projections: [projection], logger });
  try {
    // Half the pools exist before; the live runner projects them.
    const positions: Position[] = [];
    for (const f of fixtures.slice(0, 6)) positions.push((await append(f, f.created(), f.published())).position);
    await live.start();
    const waiter = new CheckpointWaiter(knex(), 10);
    assert.ok(await waiter.waitFor([name], maxPosition(positions), 30_000), 'the live runner caught up (generous: the machine may be loaded)');

    // The other half arrives one event at a time while the rebuild runs.
    const writer = (async () => {
      for (const f of fixtures.slice(6)) {
        positions.push((await append(f, f.created())).position);
        await sleep(3);
        positions.push((await append(f, f.published())).position);
      }
    })();
    await sleep(5);
    await admin.rebuild(name);
    await writer;
    assert.ok(await waiter.waitFor([name], maxPosition(positions), 30_000), 'the live runner carries on after the swap');
    const expected = Object.fromEntries(fixtures.map((f) => [f.poolId, 2]));
    assert.equal(await tally(table), expected);
  } finally {
    await live.stop();
    await dropTables(table, `${table}__rebuild`, `${table}__old`);
  }
});

rebuild('rebuild of an unknown projection is refused', async () => {
  const r = new ProjectorRunner({ store: store(), knex: knex(), projections: [], logger });
  try {
    await r.rebuild('no-such-projection');
    assert.unreachable('should throw');
  } catch (error) {
    assert.match((error as Error).message, /unknown projection no-such-projection/);
  }
});

rebuild.run();
