/** Shared fixtures of the projector specs that interleave runners (faults, stress): pool events and a strict counter. */
import { randomUUID } from 'node:crypto';
import { eventRegistry, type DomainEvent, type PoolDraftFields } from '@cagnotte/event-schemas';
import { PostgresEventStore, comparePositions, createLogger, readCheckpoints, type NewEvent, type Position } from '@cagnotte/infra';
import { onTestTeardown, testKnex, testPgPool } from '@cagnotte/infra/src/testing/resources';
import type { ProjectedEvent, Projection } from './runtime';

let storeInstance: PostgresEventStore | null = null;
export const specStore = (): PostgresEventStore => {
  if (!storeInstance) {
    const s = new PostgresEventStore({ pool: testPgPool(), pollMs: 20 });
    storeInstance = s;
    onTestTeardown(() => s.close());
  }
  return storeInstance;
};
export const specKnex = () => testKnex();
export const silent = createLogger('silent', 'projectors-spec');

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
export const uniq = (prefix: string) => `${prefix}_${randomUUID().replace(/-/g, '').slice(0, 12)}`;

/** Polls `check` until it holds or `timeoutMs` passes; returns whether it held. */
export const eventually = async (check: () => Promise<boolean>, timeoutMs = 15_000, everyMs = 25): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= deadline) return false;
    await sleep(everyMs);
  }
};

export const maxPosition = (ps: Position[]): Position => ps.reduce((a, b) => (comparePositions(a, b) >= 0 ? a : b));
export const checkpointOf = async (name: string) => (await readCheckpoints(specKnex())).find((c) => c.name === name);

/** A GROUPS pool on stream `pool-<uuid>` and its lifecycle events (schema-valid). */
export const newPool = () => {
  const poolId = randomUUID();
  const tenantId = randomUUID();
  const fields: PoolDraftFields = {
    title: `Pool ${poolId.slice(0, 8)}`,
    description: 'Commande groupée',
    country: 'FR',
    currency: 'EUR',
    marketplaceVisibility: 'PRIVATE',
    config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], relais: [{ id: 'r-a', name: 'Épicerie du coin' }] },
    sellerId: null,
    payoutAccount: null,
    organiserCommissionPercent: null,
    targetAmount: null,
    deadline: null,
  };
  const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 9, minute)).toISOString();
  return {
    poolId,
    tenantId,
    streamId: `pool-${poolId}`,
    created: (): DomainEvent => ({
      type: 'PoolCreated',
      data: { ...fields, poolId, tenantId, type: 'GROUPS', organiserId: randomUUID(), organiserName: 'Spec Organiser', createdAt: at(0) },
    }),
    renamed: (title: string, minute = 1): DomainEvent => ({ type: 'PoolDraftUpdated', data: { poolId, changes: { title }, updatedAt: at(minute) } }),
    published: (minute = 2): DomainEvent => ({ type: 'PoolPublished', data: { poolId, publishedAt: at(minute) } }),
    archived: (minute = 3): DomainEvent => ({ type: 'PoolArchived', data: { poolId, archivedAt: at(minute) } }),
    unarchived: (minute = 4): DomainEvent => ({ type: 'PoolUnarchived', data: { poolId, unarchivedAt: at(minute) } }),
  };
};
export type PoolFixture = ReturnType<typeof newPool>;

export const toNew = (e: DomainEvent, tenantId: string): NewEvent => ({
  id: randomUUID(),
  type: e.type,
  schemaVersion: eventRegistry.currentVersion(e.type),
  data: e.data,
  metadata: { tenantId, actor: { kind: 'system', id: 'spec' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() },
});

export const appendTo = (p: PoolFixture, ...events: DomainEvent[]) =>
  specStore().append(p.streamId, events.map((e) => toNew(e, p.tenantId)), { expectedRevision: 'any' });

export interface CounterOptions {
  name: string;
  table: string;
  /** Only events of these streams are counted (the database is shared with other specs). */
  streams: Set<string>;
  /** Mutable: apply throws (after writing its row) while this says so. */
  failWhen?: ((e: ProjectedEvent) => boolean) | null;
  /** Called on every apply (counts calls, injects delays). */
  onApply?: (e: ProjectedEvent) => Promise<void> | void;
}

/**
 * One row per application (no unique key), so an event applied twice shows up as two rows, a lost one as a missing
 * row, and the row's seq (a sequence) shows the order in which events were applied.
 */
export const counterProjection = (o: CounterOptions): Projection => ({
  name: o.name,
  tables: [o.table],
  handles: (type) => type.startsWith('Pool'),
  async apply(trx, event, table) {
    if (!o.streams.has(event.streamId)) return;
    await trx(table(o.table)).insert({ stream_id: event.streamId, revision: event.revision.toString(), event_id: event.id });
    if (o.onApply) await o.onApply(event);
    if (o.failWhen?.(event)) throw new Error(`spec: refusing ${event.type} ${event.id}`);
  },
});

/** seq comes from a sequence of its own (not owned by the table, so a rebuild's swap can drop the old table). */
export const createCounterTable = async (t: string) => {
  await specKnex().raw('CREATE SEQUENCE IF NOT EXISTS ??', [`${t}_seq`]);
  await specKnex().raw(`CREATE TABLE ?? (seq bigint NOT NULL DEFAULT nextval('${t}_seq'), stream_id text NOT NULL, revision bigint NOT NULL, event_id text NOT NULL)`, [t]);
};

/** The counter's rows as `stream@revision`, in the order they were applied. */
export const counterRows = async (t: string): Promise<string[]> =>
  ((await specKnex()(t).select('stream_id', 'revision').orderBy('seq')) as Array<{ stream_id: string; revision: string }>).map((r) => `${r.stream_id}@${r.revision}`);

export const dropTables = async (...ts: string[]) => {
  for (const t of ts) await specKnex().raw('DROP TABLE IF EXISTS ??', [t]);
  for (const t of ts) await specKnex().raw('DROP SEQUENCE IF EXISTS ??', [`${t}_seq`]);
};
