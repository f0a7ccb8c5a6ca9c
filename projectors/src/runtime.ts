import type { Knex } from 'knex';
import { parseEvent, type ParsedEvent } from '@cagnotte/event-schemas';
import {
  comparePositions,
  projectionLag,
  type CheckpointWaiter,
  type ProjectionLag,
  type EventStore,
  type Logger,
  type Position,
  type RecordedEvent,
  type SubscriptionHandle,
} from '@cagnotte/infra';

/** An event as a projection sees it: parsed (upcast) plus where it sits in its stream and the feed. */
export type ProjectedEvent = ParsedEvent & { streamId: string; revision: bigint; position: Position; recordedAt: Date };

/** Maps a logical table name to the physical one: the live table, or its `__rebuild` twin during a rebuild. */
export type TableMap = (logical: string) => string;

export interface Projection {
  readonly name: string;
  /** The live tables it owns; a rebuild recreates each as `<table>__rebuild` and swaps them in. */
  readonly tables: readonly string[];
  handles(type: string): boolean;
  apply(trx: Knex.Transaction, event: ProjectedEvent, table: TableMap): Promise<void>;
  /** Optional set-based path for a whole batch (same effect as `apply` on each event, in fewer statements). */
  applyMany?(trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap): Promise<void>;
}

/** Applies events through the projection's batch path when it has one. */
const applyEvents = async (trx: Knex.Transaction, projection: Projection, events: ProjectedEvent[], table: TableMap) => {
  if (events.length === 0) return;
  if (projection.applyMany) return projection.applyMany(trx, events, table);
  for (const e of events) await projection.apply(trx, e, table);
};

const live: TableMap = (t) => t;
const rebuildName = (t: string) => `${t}__rebuild`;

const toProjected = (e: RecordedEvent): ProjectedEvent => ({
  ...parseEvent({ type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }),
  streamId: e.streamId,
  revision: e.revision,
  position: e.position,
  recordedAt: e.recordedAt,
});

interface CheckpointRow {
  c: string | null;
  p: string | null;
}

const readCheckpoint = async (trx: Knex | Knex.Transaction, name: string, lock: boolean): Promise<Position | null> => {
  await trx.raw('INSERT INTO projection_checkpoints (name) VALUES (?) ON CONFLICT (name) DO NOTHING', [name]);
  const q = trx('projection_checkpoints').where({ name }).first(trx.raw('commit_position::text AS c'), 'prepare_position AS p');
  const row = (await (lock ? q.forUpdate() : q)) as CheckpointRow | undefined;
  return row && row.c !== null ? { commit: BigInt(row.c), prepare: BigInt(row.p!) } : null;
};

const writeCheckpoint = (trx: Knex.Transaction, name: string, position: Position, applied: number) =>
  trx.raw(
    `UPDATE projection_checkpoints SET commit_position = ?::text::xid8, prepare_position = ?, events_applied = events_applied + ?, updated_at = now() WHERE name = ?`,
    [position.commit.toString(), position.prepare.toString(), applied, name],
  );

/**
 * Applies one batch to one projection in one transaction: rows and checkpoint commit together.
 * The checkpoint row is locked first, so two processes running the same projection take turns, and
 * events at or below the checkpoint are skipped: delivery is at-least-once, the effect exactly-once.
 */
export const applyBatch = async (knex: Knex, projection: Projection, batch: RecordedEvent[], table: TableMap = live): Promise<number> => {
  if (batch.length === 0) return 0;
  return knex.transaction(async (trx) => {
    const checkpoint = await readCheckpoint(trx, projection.name, true);
    const fresh = batch
      .filter((e) => (!checkpoint || comparePositions(e.position, checkpoint) > 0) && projection.handles(e.type))
      .map(toProjected);
    await applyEvents(trx, projection, fresh, table);
    const applied = fresh.length;
    const last = batch[batch.length - 1]!.position;
    if (!checkpoint || comparePositions(last, checkpoint) > 0) await writeCheckpoint(trx, projection.name, last, applied);
    return applied;
  });
};

export interface ProjectorRunnerOptions {
  store: EventStore;
  knex: Knex;
  projections: Projection[];
  logger: Logger;
  waiter?: CheckpointWaiter;
  batchSize?: number;
}

/** Runs named projections, each on its own subscription from its own checkpoint. */
export class ProjectorRunner {
  private subs: SubscriptionHandle[] = [];
  constructor(private readonly o: ProjectorRunnerOptions) {}

  get names(): string[] {
    return this.o.projections.map((p) => p.name);
  }

  async start(): Promise<void> {
    for (const projection of this.o.projections) {
      const after = await readCheckpoint(this.o.knex, projection.name, false);
      this.subs.push(
        this.o.store.subscribeToAll({
          after,
          batchSize: this.o.batchSize ?? 500,
          handler: async (batch) => {
            await applyBatch(this.o.knex, projection, batch);
            this.o.waiter?.notify();
          },
          onError: (err) => this.o.logger.error({ err, projection: projection.name }, 'projection batch failed; retrying'),
        }),
      );
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.subs.map((s) => s.stop()));
    this.subs = [];
  }

  /**
   * Brings every projection up to the head now (the CLI and tests use it; safe beside a running runner).
   * With `until`, keeps going until every projection has passed that position: the feed only shows
   * events below the oldest running append, so a write can take a moment to become visible.
   */
  async catchUp(until?: Position | null, timeoutMs = 15_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (const projection of this.o.projections) {
      let after = await readCheckpoint(this.o.knex, projection.name, false);
      const page = (from: Position | null) => this.o.store.readAll({ after: from, maxCount: this.o.batchSize ?? 2000 });
      let next = page(after);
      for (;;) {
        const batch = await next;
        if (batch.length > 0) {
          // Read ahead: the next page is fetched while this one is applied.
          after = batch[batch.length - 1]!.position;
          next = page(after);
          await applyBatch(this.o.knex, projection, batch);
          continue;
        }
        if (!until || (after && comparePositions(after, until) >= 0)) break;
        if (Date.now() > deadline) throw new Error(`projection ${projection.name} did not reach the position in ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 10));
        after = (await readCheckpoint(this.o.knex, projection.name, false)) ?? after;
        next = page(after);
      }
    }
    this.o.waiter?.notify();
  }

  async status(): Promise<ProjectionLag[]> {
    return projectionLag(this.o.knex, await this.o.store.headPosition(), this.names);
  }

  /**
   * Rebuilds a projection from position 0 into fresh `__rebuild` tables while the live ones keep serving,
   * then swaps them in inside one transaction that holds the checkpoint lock (the live runner waits for it).
   */
  async rebuild(name: string): Promise<{ events: number; position: Position | null }> {
    const projection = this.o.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection ${name}`);
    const { knex, store } = this.o;
    const rebuilt: TableMap = (t) => (projection.tables.includes(t) ? rebuildName(t) : t);
    for (const t of projection.tables) {
      await knex.raw(`DROP TABLE IF EXISTS ?? ; CREATE TABLE ?? (LIKE ?? INCLUDING ALL)`, [rebuildName(t), rebuildName(t), t]);
    }
    let after: Position | null = null;
    let events = 0;
    /** Copies one page of the feed into the rebuild tables; returns how many events it read. */
    const copyPage = async (trx: Knex.Transaction): Promise<number> => {
      const batch = await store.readAll({ after, maxCount: 5000 });
      const handled = batch.filter((e) => projection.handles(e.type)).map(toProjected);
      await applyEvents(trx, projection, handled, rebuilt);
      events += handled.length;
      if (batch.length > 0) after = batch[batch.length - 1]!.position;
      return batch.length;
    };
    // The bulk of the history, in short transactions that do not hold back the feed.
    let drained = false;
    while (!drained) await knex.transaction(async (trx) => void (drained = (await copyPage(trx)) === 0));
    // Swap: hold the checkpoint lock, copy what arrived meanwhile, rename, and move the checkpoint.
    await knex.transaction(async (trx) => {
      await readCheckpoint(trx, projection.name, true);
      // Up to the head as of now: appends arriving meanwhile are the live runner's once the checkpoint moves
      // (the feed does not wait for this transaction, so an unbounded drain could chase a busy writer).
      const until = await store.headPosition();
      while (!(until && after && comparePositions(after, until) >= 0) && (await copyPage(trx)) > 0);
      for (const t of projection.tables) {
        await trx.raw('ALTER TABLE ?? RENAME TO ??', [t, `${t}__old`]);
        await trx.raw('ALTER TABLE ?? RENAME TO ??', [rebuildName(t), t]);
        await trx.raw('DROP TABLE ??', [`${t}__old`]);
      }
      if (after) await writeCheckpoint(trx, projection.name, after, 0);
      else await trx('projection_checkpoints').where({ name }).update({ commit_position: null, prepare_position: null });
      await trx('projection_checkpoints').where({ name }).update({ events_applied: events });
    });
    this.o.waiter?.notify();
    this.o.logger.info({ projection: name, events }, 'projection rebuilt and swapped in');
    return { events, position: after };
  }
}
