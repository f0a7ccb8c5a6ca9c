import type { Knex } from 'knex';
import { parseEvent, type ParsedEvent } from '@cagnotte/event-schemas';
import {
  clearProjectionFault,
  comparePositions,
  formatPosition,
  projectionLag,
  readFaulted,
  recordProjectionFailure,
  type ProjectionFault,
  type CheckpointWaiter,
  type ProjectionLag,
  type EventStore,
  type Logger,
  type Position,
  type RecordedEvent,
  type SubscriptionHandle,
} from '@cagnotte/infra';
import { ChainChecker } from './chain-check';
import { prepared } from './sql';

/**
 * An event as a projection sees it: parsed (upcast) plus where it sits in its stream and the feed, its hash links, and
 * its content as stored (`stored`: the schema version it was written with, data and metadata before upcasting), which
 * is what its hash covers. Most projections fold the parsed event; the audit keeps the stored one.
 */
export type ProjectedEvent = ParsedEvent & {
  id: string;
  streamId: string;
  revision: bigint;
  position: Position;
  recordedAt: Date;
  hash: string;
  prevHash: string | null;
  stored: { schemaVersion: number; data: unknown; metadata: unknown };
};

/** Maps a logical table name to the physical one: the live table, or its `__rebuild` twin during a rebuild. */
export type TableMap = (logical: string) => string;

export interface Projection {
  readonly name: string;
  /** The live tables it owns; a rebuild recreates each as `<table>__rebuild` and swaps them in. */
  readonly tables: readonly string[];
  /** Whether it applies this event: by type, or by stream (the audit copies every event of the pool streams). */
  handles(type: string, streamId: string): boolean;
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

const parseProjected = (e: RecordedEvent): ProjectedEvent => ({
  ...parseEvent({ type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }),
  id: e.id,
  streamId: e.streamId,
  revision: e.revision,
  position: e.position,
  recordedAt: e.recordedAt,
  hash: e.hash,
  prevHash: e.prevHash,
  stored: { schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata },
});

/** Events parsed ahead of their batch (catch-up parses the next page while the current one is written). */
const parsedAhead = new WeakMap<RecordedEvent, ProjectedEvent>();

const toProjected = (e: RecordedEvent): ProjectedEvent => {
  const parsed = parsedAhead.get(e);
  if (parsed) return parsed;
  return parseProjected(e);
};

/** Parses the events a projection handles, ahead of their batch; an event that will not parse is left for the batch to report. */
const parseAhead = (projection: Projection, batch: RecordedEvent[]): void => {
  for (const e of batch) {
    if (parsedAhead.has(e) || !projection.handles(e.type, e.streamId)) continue;
    try {
      parsedAhead.set(e, parseProjected(e));
    } catch {
      // applyBatch parses it again and names it (ProjectionEventError).
    }
  }
};

/**
 * The points where the runtime can be made to wait, for tests that interleave runners, catch-ups and rebuilds
 * (the stress spec). Unset in production: each point is one `if`.
 */
export type HookPoint =
  /** catch-up: after reading the checkpoint without a lock, before reading the feed from it */
  | 'checkpoint-read'
  /** applyBatch: in the transaction, before locking the checkpoint row */
  | 'before-lock'
  /** applyBatch: checkpoint locked and read, before the rows are written */
  | 'after-lock'
  /** applyBatch: rows and checkpoint written, before commit */
  | 'before-commit'
  /** catch-up and rebuild: between two pages of the feed */
  | 'between-pages'
  /** rebuild: history copied, before the swap transaction */
  | 'before-swap'
  /** rebuild: inside the swap transaction, checkpoint locked, before and between the renames */
  | 'in-swap';

export interface RuntimeHooks {
  point(name: HookPoint, projection: string): Promise<void>;
}

/** A projection failed on this event (its apply threw, or the event would not parse). */
export class ProjectionEventError extends Error {
  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    override readonly cause: unknown,
  ) {
    super(`projection ${projection} failed on event ${event.id} (${event.type}, ${event.streamId}@${event.revision}): ${errorText(cause)}`);
    this.name = 'ProjectionEventError';
  }
}

/** An event whose hash link does not hold: its content does not hash to its hash, or prev_hash is not its predecessor's. */
export class HashChainError extends Error {
  constructor(
    readonly projection: string,
    readonly event: RecordedEvent,
    readonly reason: string,
  ) {
    super(`hash chain broken at event ${event.id} (${event.streamId}@${event.revision}, position ${formatPosition(event.position)}): ${reason}`);
    this.name = 'HashChainError';
  }
}

/** A projection is faulted (stopped): nothing is applied to it until `retry` or `rebuild`. */
export class ProjectionFaultedError extends Error {
  readonly code = 'projection_faulted';
  constructor(readonly faulted: Array<{ name: string; fault: ProjectionFault }>) {
    super(
      faulted
        .map(({ name, fault: f }) => `projection ${name} is faulted${f.eventId ? ` at event ${f.eventId} (${f.type}, ${f.streamId}@${f.revision}, position ${f.position})` : ''}: ${f.error}`)
        .join('; '),
    );
    this.name = 'ProjectionFaultedError';
  }
}

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/** The error as a fault records it (the event is recorded beside it). */
const faultText = (e: unknown) =>
  e instanceof ProjectionEventError ? errorText(e.cause) : e instanceof HashChainError ? `hash chain broken: ${e.reason}` : errorText(e);

interface CheckpointRow {
  c: string | null;
  p: string | null;
  state: string;
}

/**
 * The checkpoint row, created if missing. Locked: one prepared statement whose ON CONFLICT DO UPDATE locks the row as
 * FOR UPDATE would (waiting for a holder, then reading the latest committed version) and returns it.
 */
const readCheckpointRow = async (trx: Knex | Knex.Transaction, name: string, lock: boolean) => {
  let row: CheckpointRow | undefined;
  if (lock) {
    const sql =
      'INSERT INTO projection_checkpoints AS t (name) VALUES (?) ON CONFLICT (name) DO UPDATE SET name = t.name ' +
      'RETURNING t.commit_position::text AS c, t.prepare_position AS p, t.state';
    row = (await prepared<CheckpointRow>(trx, sql, [name])).rows[0];
  } else {
    await trx.raw('INSERT INTO projection_checkpoints (name) VALUES (?) ON CONFLICT (name) DO NOTHING', [name]);
    row = (await trx('projection_checkpoints').where({ name }).first(trx.raw('commit_position::text AS c'), 'prepare_position AS p', 'state')) as CheckpointRow | undefined;
  }
  const position: Position | null = row && row.c !== null ? { commit: BigInt(row.c), prepare: BigInt(row.p!) } : null;
  return { position, faulted: row?.state === 'faulted' };
};

const readCheckpoint = async (trx: Knex | Knex.Transaction, name: string, lock: boolean): Promise<Position | null> =>
  (await readCheckpointRow(trx, name, lock)).position;

/** Moving the checkpoint also forgets a failure it has now passed (attempts and the recorded event). */
const writeCheckpoint = (trx: Knex.Transaction, name: string, position: Position, applied: number) =>
  prepared(
    trx,
    `UPDATE projection_checkpoints SET commit_position = ?::text::xid8, prepare_position = ?, events_applied = events_applied + ?, updated_at = now(),
       attempts = 0, fault_event_id = NULL, fault_stream_id = NULL, fault_revision = NULL, fault_position = NULL, fault_type = NULL, fault_error = NULL
     WHERE name = ?`,
    [position.commit.toString(), position.prepare.toString(), applied, name],
  );

const faultedError = async (knex: Knex, name: string) => new ProjectionFaultedError(await readFaulted(knex, [name]));

/**
 * Applies one batch to one projection in one transaction: rows and checkpoint commit together.
 * The checkpoint row is locked first, so two processes running the same projection take turns, and
 * events at or below the checkpoint are skipped: delivery is at-least-once, the effect exactly-once.
 * A faulted projection is left alone (ProjectionFaultedError). A batch of one event that fails throws
 * ProjectionEventError naming it.
 */
export const applyBatch = async (
  knex: Knex,
  projection: Projection,
  batch: RecordedEvent[],
  table: TableMap = live,
  hooks?: RuntimeHooks,
): Promise<number> => {
  if (batch.length === 0) return 0;
  const applied = await knex.transaction(async (trx) => {
    if (hooks) await hooks.point('before-lock', projection.name);
    const { position: checkpoint, faulted } = await readCheckpointRow(trx, projection.name, true);
    if (faulted) return 'faulted' as const;
    if (hooks) await hooks.point('after-lock', projection.name);
    const pending = batch.filter((e) => (!checkpoint || comparePositions(e.position, checkpoint) > 0) && projection.handles(e.type, e.streamId));
    try {
      await applyEvents(trx, projection, pending.map(toProjected), table);
    } catch (error) {
      throw pending.length === 1 ? new ProjectionEventError(projection.name, pending[0]!, error) : error;
    }
    const last = batch[batch.length - 1]!.position;
    if (!checkpoint || comparePositions(last, checkpoint) > 0) await writeCheckpoint(trx, projection.name, last, pending.length);
    if (hooks) await hooks.point('before-commit', projection.name);
    return pending.length;
  });
  if (applied === 'faulted') throw await faultedError(knex, projection.name);
  return applied;
};

/**
 * applyBatch, and when the batch fails, the same events one at a time (each with its checkpoint), so that those
 * before the culprit are applied and the error names the event (ProjectionEventError).
 */
const applyLocating = async (knex: Knex, projection: Projection, batch: RecordedEvent[], hooks?: RuntimeHooks): Promise<number> => {
  try {
    return await applyBatch(knex, projection, batch, live, hooks);
  } catch (error) {
    if (batch.length === 1 || error instanceof ProjectionFaultedError || error instanceof ProjectionEventError) throw error;
    let n = 0;
    for (const e of batch) n += await applyBatch(knex, projection, [e], live, hooks);
    return n;
  }
};

export interface ProjectorRunnerOptions {
  store: EventStore;
  knex: Knex;
  projections: Projection[];
  logger: Logger;
  waiter?: CheckpointWaiter;
  batchSize?: number;
  /** Failed attempts on one event before the projection stops as faulted (config PROJECTION_MAX_ATTEMPTS). Default 5. */
  maxAttempts?: number;
  /** First retry delay; it doubles per attempt, up to 30 s. Default 200 ms. */
  retryBaseMs?: number;
  /** How often a faulted projection's runner looks whether an operator retried or rebuilt it. Default 1000 ms. */
  faultPollMs?: number;
  /** Check every event's hash link as it is read (catch-up, live, rebuild). Default true. */
  verifyHashes?: boolean;
  /** Test-only injection points (the stress spec); unset in production. */
  hooks?: RuntimeHooks;
}

class RunnerStopping extends Error {
  constructor() {
    super('projector runner stopping');
  }
}

/** Events checked and parsed ahead between two turns of the event loop. */
const PREPARE_SLICE = 200;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs named projections, each on its own subscription from its own checkpoint. */
export class ProjectorRunner {
  private subs: SubscriptionHandle[] = [];
  private stopping = false;
  private readonly wakeStop = new Set<() => void>();
  private readonly checker: ChainChecker | null;
  constructor(private readonly o: ProjectorRunnerOptions) {
    this.checker = o.verifyHashes === false ? null : new ChainChecker(o.store);
  }

  get names(): string[] {
    return this.o.projections.map((p) => p.name);
  }

  private get maxAttempts(): number {
    return this.o.maxAttempts ?? 5;
  }

  /** Sleeps `ms`, or less if the runner stops meanwhile. */
  private pause(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeStop.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeStop.add(done);
    });
  }

  /** Records a failed attempt; throws ProjectionFaultedError once the projection has stopped. Returns the attempts. */
  private async fail(projection: Projection, error: unknown): Promise<number> {
    const event = error instanceof ProjectionEventError || error instanceof HashChainError ? error.event : null;
    if (!event) {
      // Not tied to an event (the database unreachable, a read failing): retried without counting towards a fault.
      this.o.logger.warn({ err: error, projection: projection.name }, 'projection batch failed; retrying');
      return 3;
    }
    const { attempts, faulted } = await recordProjectionFailure(
      this.o.knex,
      projection.name,
      { event, error: faultText(error) },
      this.maxAttempts,
      error instanceof HashChainError,
    );
    const log = { err: error, projection: projection.name, attempts, maxAttempts: this.maxAttempts, eventId: event?.id, eventType: event?.type };
    if (faulted) {
      this.o.logger.error(log, 'projection faulted: stopped until `projections retry` or `projections rebuild`');
      throw await faultedError(this.o.knex, projection.name);
    }
    this.o.logger.warn(log, 'projection batch failed; retrying');
    return attempts;
  }

  /**
   * Checks the hash links of a batch, then applies it, retrying with backoff; a broken link faults at once (after
   * applying the events before it), an event that keeps failing faults after maxAttempts.
   */
  private async process(projection: Projection, batch: RecordedEvent[], live: boolean): Promise<number> {
    for (;;) {
      // A live subscription gives up when the runner stops; a catch-up (which works on a stopped runner too) does not.
      if (live && this.stopping) throw new RunnerStopping();
      try {
        const broken = this.checker ? await this.checker.check(batch) : null;
        if (broken) {
          if (broken.index > 0) await applyLocating(this.o.knex, projection, batch.slice(0, broken.index), this.o.hooks);
          throw new HashChainError(projection.name, broken.event, broken.reason);
        }
        return await applyLocating(this.o.knex, projection, batch, this.o.hooks);
      } catch (error) {
        if (error instanceof ProjectionFaultedError) throw error;
        const attempts = await this.fail(projection, error);
        await this.pause(Math.min((this.o.retryBaseMs ?? 200) * 2 ** (attempts - 1), 30_000));
      }
    }
  }

  /**
   * Checks a page's hash links and parses its events ahead of applying it, a slice at a time, yielding between slices
   * so that the current batch's statements get their answers and go on meanwhile; never fails (process reports what
   * is wrong).
   */
  private async prepare(projection: Projection, batch: RecordedEvent[]): Promise<void> {
    try {
      for (let i = 0; i < batch.length; i += PREPARE_SLICE) {
        const slice = batch.slice(i, i + PREPARE_SLICE);
        if (this.checker && (await this.checker.check(slice))) return;
        parseAhead(projection, slice);
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch {
      // process meets the same failure and reports it.
    }
  }

  /** Waits while the projection is faulted; returns once an operator has retried or rebuilt it, or the runner stops. */
  private async waitWhileFaulted(name: string): Promise<void> {
    while (!this.stopping) {
      await this.pause(this.o.faultPollMs ?? 1000);
      if ((await readFaulted(this.o.knex, [name])).length === 0) return;
    }
  }

  async start(): Promise<void> {
    this.stopping = false;
    for (const projection of this.o.projections) {
      const after = await readCheckpoint(this.o.knex, projection.name, false);
      this.subs.push(
        this.o.store.subscribeToAll({
          after,
          batchSize: this.o.batchSize ?? 500,
          handler: async (batch) => {
            // The handler returns only when the batch is applied (or skipped by the checkpoint): a faulted
            // projection holds its subscription here, and the other projections' subscriptions carry on.
            for (;;) {
              try {
                await this.process(projection, batch, true);
                this.o.waiter?.notify();
                return;
              } catch (error) {
                if (!(error instanceof ProjectionFaultedError)) throw error;
                await this.waitWhileFaulted(projection.name);
                if (this.stopping) throw new RunnerStopping();
                this.o.logger.info({ projection: projection.name }, 'projection no longer faulted: resuming from its checkpoint');
              }
            }
          },
          onError: (err) => {
            if (!(err instanceof RunnerStopping)) this.o.logger.error({ err, projection: projection.name }, 'projection batch failed; retrying');
          },
        }),
      );
    }
  }

  async stop(): Promise<void> {
    this.stopping = true;
    const stops = this.subs.map((s) => s.stop());
    for (const wake of [...this.wakeStop]) wake();
    await Promise.all(stops);
    this.subs = [];
  }

  /**
   * Brings every projection up to the head now (the CLI and tests use it; safe beside a running runner).
   * With `until`, keeps going until every projection has passed that position: the feed only shows
   * events below the oldest running append, so a write can take a moment to become visible.
   * A faulted projection is skipped (the others are still caught up), then ProjectionFaultedError names it.
   */
  async catchUp(until?: Position | null, timeoutMs = 15_000, onProgress?: (step: { projection: string; read: number }) => void): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const faulted: ProjectionFaultedError[] = [];
    const hooks = this.o.hooks;
    for (const projection of this.o.projections) {
      try {
        const first = await readCheckpointRow(this.o.knex, projection.name, false);
        if (first.faulted) throw await faultedError(this.o.knex, projection.name);
        let after = first.position;
        if (hooks) await hooks.point('checkpoint-read', projection.name);
        // Read ahead: the next page is fetched, its hash links checked and its events parsed while this one is written
        // (process checks it again from what the checker remembers, and applyBatch takes the parsed events).
        const page = (from: Position | null) =>
          this.o.store.readAll({ after: from, maxCount: this.o.batchSize ?? 2000 }).then(async (batch) => {
            await this.prepare(projection, batch);
            return batch;
          });
        let next = page(after);
        for (;;) {
          const batch = await next;
          if (batch.length > 0) {
            after = batch[batch.length - 1]!.position;
            next = page(after);
            await this.process(projection, batch, false);
            onProgress?.({ projection: projection.name, read: batch.length });
            if (hooks) await hooks.point('between-pages', projection.name);
            continue;
          }
          if (!until || (after && comparePositions(after, until) >= 0)) break;
          if (Date.now() > deadline) throw new Error(`projection ${projection.name} did not reach the position in ${timeoutMs} ms`);
          await sleep(10);
          after = (await readCheckpoint(this.o.knex, projection.name, false)) ?? after;
          next = page(after);
        }
      } catch (error) {
        if (!(error instanceof ProjectionFaultedError)) throw error;
        faulted.push(error);
      }
    }
    this.o.waiter?.notify();
    if (faulted.length > 0) throw new ProjectionFaultedError(faulted.flatMap((f) => f.faulted));
  }

  async status(): Promise<ProjectionLag[]> {
    return projectionLag(this.o.knex, await this.o.store.headPosition(), this.names);
  }

  /** The operator's retry: clears the fault; runners resume from the checkpoint (attempts start again at 0). */
  async retry(name: string): Promise<{ wasFaulted: boolean }> {
    if (!this.names.includes(name)) throw new Error(`unknown projection ${name}`);
    const wasFaulted = await clearProjectionFault(this.o.knex, name);
    this.o.logger.info({ projection: name, wasFaulted }, 'projection fault cleared; resuming from its checkpoint');
    return { wasFaulted };
  }

  /**
   * Rebuilds a projection from position 0 into fresh `__rebuild` tables while the live ones keep serving,
   * then swaps them in inside one transaction that holds the checkpoint lock (the live runner waits for it).
   * Rebuilds of one projection take turns (an advisory lock held for the whole rebuild). The swap clears a fault.
   * An event that fails, or a broken hash link, stops the rebuild (the live tables stay) and faults the projection.
   */
  async rebuild(name: string, onProgress?: (read: number) => void): Promise<{ events: number; position: Position | null }> {
    const projection = this.o.projections.find((p) => p.name === name);
    if (!projection) throw new Error(`unknown projection ${name}`);
    const { knex } = this.o;
    // The advisory lock lives in a transaction of its own that does nothing else (no xid, no snapshot held).
    return knex.transaction(async (lockTrx) => {
      await lockTrx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`projection-rebuild:${name}`]);
      try {
        return await this.rebuildLocked(projection, onProgress);
      } catch (error) {
        if (error instanceof ProjectionEventError || error instanceof HashChainError) {
          await recordProjectionFailure(knex, name, { event: error.event, error: faultText(error) }, 1, true);
          this.o.logger.error({ err: error, projection: name }, 'rebuild stopped: projection faulted');
          throw await faultedError(knex, name);
        }
        throw error;
      } finally {
        for (const t of projection.tables) await knex.raw('DROP TABLE IF EXISTS ??', [rebuildName(t)]);
      }
    });
  }

  /** `onProgress` hears how many events of the feed were read so far, after each page. */
  private async rebuildLocked(projection: Projection, onProgress?: (read: number) => void): Promise<{ events: number; position: Position | null }> {
    const { knex, store, hooks } = this.o;
    const name = projection.name;
    const rebuilt: TableMap = (t) => (projection.tables.includes(t) ? rebuildName(t) : t);
    for (const t of projection.tables) {
      await knex.raw(`DROP TABLE IF EXISTS ?? ; CREATE TABLE ?? (LIKE ?? INCLUDING ALL)`, [rebuildName(t), rebuildName(t), t]);
    }
    // A checker of its own, from position 0: every event of the feed is checked, every stream from revision 0.
    const checker = this.o.verifyHashes === false ? null : new ChainChecker(store);
    let after: Position | null = null;
    let events = 0;
    let read = 0;
    /** Copies one page of the feed into the rebuild tables; returns how many events it read. */
    const copyPage = async (trx: Knex.Transaction): Promise<number> => {
      const batch = await store.readAll({ after, maxCount: 5000 });
      const broken = checker ? await checker.check(batch) : null;
      if (broken) throw new HashChainError(name, broken.event, broken.reason);
      const handled = batch.filter((e) => projection.handles(e.type, e.streamId));
      try {
        await trx.transaction((sp) => applyEvents(sp, projection, handled.map(toProjected), rebuilt));
      } catch (error) {
        // Find the event: apply them one at a time in a savepoint each (rolled back with the page anyway).
        for (const e of handled) {
          try {
            await trx.transaction((sp) => applyEvents(sp, projection, [toProjected(e)], rebuilt));
          } catch (cause) {
            throw new ProjectionEventError(name, e, cause);
          }
        }
        throw error;
      }
      events += handled.length;
      if (batch.length > 0) after = batch[batch.length - 1]!.position;
      read += batch.length;
      if (batch.length > 0) onProgress?.(read);
      return batch.length;
    };
    // The bulk of the history, in short transactions that do not hold back the feed.
    let drained = false;
    while (!drained) {
      await knex.transaction(async (trx) => void (drained = (await copyPage(trx)) === 0));
      if (hooks && !drained) await hooks.point('between-pages', name);
    }
    if (hooks) await hooks.point('before-swap', name);
    // Swap: hold the checkpoint lock, copy what arrived meanwhile, rename, and move the checkpoint.
    await knex.transaction(async (trx) => {
      await readCheckpoint(trx, name, true);
      if (hooks) await hooks.point('in-swap', name);
      // Up to the head as of now: appends arriving meanwhile are the live runner's once the checkpoint moves
      // (the feed does not wait for this transaction, so an unbounded drain could chase a busy writer).
      const until = await store.headPosition();
      while (!(until && after && comparePositions(after, until) >= 0) && (await copyPage(trx)) > 0) {
        if (hooks) await hooks.point('in-swap', name);
      }
      for (const t of projection.tables) {
        await trx.raw('ALTER TABLE ?? RENAME TO ??', [t, `${t}__old`]);
        if (hooks) await hooks.point('in-swap', name);
        await trx.raw('ALTER TABLE ?? RENAME TO ??', [rebuildName(t), t]);
        await trx.raw('DROP TABLE ??', [`${t}__old`]);
      }
      if (after) await writeCheckpoint(trx, name, after, 0);
      else await trx('projection_checkpoints').where({ name }).update({ commit_position: null, prepare_position: null });
      await trx('projection_checkpoints').where({ name }).update({
        events_applied: events,
        state: 'running',
        attempts: 0,
        fault_event_id: null,
        fault_stream_id: null,
        fault_revision: null,
        fault_position: null,
        fault_type: null,
        fault_error: null,
        faulted_at: null,
      });
    });
    this.o.waiter?.notify();
    this.o.logger.info({ projection: name, events }, 'projection rebuilt and swapped in');
    return { events, position: after };
  }
}
