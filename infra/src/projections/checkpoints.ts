import type { Knex } from 'knex';
import { comparePositions, formatPosition, type Position } from '../event-store/port';
import { WakeSignal } from '../event-store/subscription';

/** `running`: applying events; `faulted`: stopped on an event after too many failed attempts (or a broken hash link). */
export type ProjectionState = 'running' | 'faulted';

/** The last failure of a projection: the event it failed on and the error. Kept until the checkpoint moves past it. */
export interface ProjectionFault {
  /** Consecutive failed attempts on this event. */
  attempts: number;
  eventId: string | null;
  streamId: string | null;
  revision: bigint | null;
  /** `commit-prepare`, as elsewhere for people. */
  position: string | null;
  type: string | null;
  error: string;
  /** When the projection stopped (null while it is still retrying). */
  faultedAt: Date | null;
}

export interface Checkpoint {
  name: string;
  position: Position | null;
  eventsApplied: number;
  updatedAt: Date;
  state: ProjectionState;
  /** The last failure, if the checkpoint has not moved since. */
  fault: ProjectionFault | null;
}

interface CheckpointRowFull {
  name: string;
  commit_position: string | null;
  prepare_position: string | null;
  events_applied: string;
  updated_at: Date;
  state: ProjectionState;
  attempts: number;
  fault_event_id: string | null;
  fault_stream_id: string | null;
  fault_revision: string | null;
  fault_position: string | null;
  fault_type: string | null;
  fault_error: string | null;
  faulted_at: Date | null;
}

const FAULT_COLUMNS = ['state', 'attempts', 'fault_event_id', 'fault_stream_id', 'fault_revision', 'fault_position', 'fault_type', 'fault_error', 'faulted_at'];

const toCheckpoint = (r: CheckpointRowFull): Checkpoint => ({
  name: r.name,
  position: r.commit_position === null ? null : { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position!) },
  eventsApplied: Number(r.events_applied),
  updatedAt: r.updated_at,
  state: r.state,
  fault:
    r.fault_error === null
      ? null
      : {
          attempts: r.attempts,
          eventId: r.fault_event_id,
          streamId: r.fault_stream_id,
          revision: r.fault_revision === null ? null : BigInt(r.fault_revision),
          position: r.fault_position,
          type: r.fault_type,
          error: r.fault_error,
          faultedAt: r.faulted_at,
        },
});

export const readCheckpoints = async (knex: Knex): Promise<Checkpoint[]> => {
  const rows = await knex('projection_checkpoints').select(
    'name',
    knex.raw('commit_position::text AS commit_position'),
    'prepare_position',
    'events_applied',
    'updated_at',
    ...FAULT_COLUMNS,
  );
  return (rows as CheckpointRowFull[]).map(toCheckpoint);
};

/** The projections among `names` that are faulted (stopped), with their fault. */
export const readFaulted = async (knex: Knex, names: string[]): Promise<Array<{ name: string; fault: ProjectionFault }>> =>
  (await readCheckpoints(knex))
    .filter((c) => names.includes(c.name) && c.state === 'faulted')
    .map((c) => ({ name: c.name, fault: c.fault ?? { attempts: 0, eventId: null, streamId: null, revision: null, position: null, type: null, error: 'faulted', faultedAt: null } }));

export interface FailureRecord {
  event: { id: string; streamId: string; revision: bigint; position: Position; type: string } | null;
  error: string;
}

/**
 * Counts one failed attempt of a projection on an event (consecutive failures on the same event add up, across
 * processes); at `maxAttempts`, or at once when `immediate` (a broken hash link will not heal), the projection
 * stops as faulted. Returns the attempts so far and whether it is now faulted.
 */
export const recordProjectionFailure = async (
  knex: Knex,
  name: string,
  failure: FailureRecord,
  maxAttempts: number,
  immediate = false,
): Promise<{ attempts: number; faulted: boolean }> => {
  const e = failure.event;
  await knex.raw('INSERT INTO projection_checkpoints (name) VALUES (?) ON CONFLICT (name) DO NOTHING', [name]);
  const r = await knex.raw<{ rows: Array<{ attempts: number; state: ProjectionState }> }>(
    `UPDATE projection_checkpoints SET
       attempts = CASE WHEN fault_event_id IS NOT DISTINCT FROM :eventId THEN attempts + 1 ELSE 1 END,
       fault_event_id = :eventId, fault_stream_id = :streamId, fault_revision = :revision, fault_position = :position,
       fault_type = :type, fault_error = :error
     WHERE name = :name
     RETURNING attempts, state`,
    {
      name,
      eventId: e?.id ?? null,
      streamId: e?.streamId ?? null,
      revision: e ? e.revision.toString() : null,
      position: e ? formatPosition(e.position) : null,
      type: e?.type ?? null,
      error: failure.error.slice(0, 2000),
    },
  );
  const attempts = r.rows[0]!.attempts;
  if (r.rows[0]!.state === 'faulted') return { attempts, faulted: true };
  if (!immediate && attempts < maxAttempts) return { attempts, faulted: false };
  await knex('projection_checkpoints').where({ name }).update({ state: 'faulted', faulted_at: knex.fn.now() });
  return { attempts, faulted: true };
};

/** Sets a projection running again (the operator's retry): it resumes from its checkpoint. True if it was faulted. */
export const clearProjectionFault = async (knex: Knex, name: string): Promise<boolean> => {
  const r = await knex.raw<{ rows: Array<{ was: ProjectionState }> }>(
    `UPDATE projection_checkpoints c SET state = 'running', attempts = 0, fault_event_id = NULL, fault_stream_id = NULL,
       fault_revision = NULL, fault_position = NULL, fault_type = NULL, fault_error = NULL, faulted_at = NULL
     FROM (SELECT name, state FROM projection_checkpoints WHERE name = ? FOR UPDATE) old
     WHERE c.name = old.name
     RETURNING old.state AS was`,
    [name],
  );
  return r.rows[0]?.was === 'faulted';
};

/**
 * Read-your-writes: waits until the named projections have passed a position, bounded by a timeout.
 * Wakes at once when a projector in this process commits (notify), else polls the checkpoint table.
 */
export class CheckpointWaiter {
  private readonly signal = new WakeSignal();
  /** The furthest position each projection was seen to have passed: checkpoints only move forward. */
  private readonly passed = new Map<string, Position>();
  constructor(
    private readonly knex: Knex,
    private readonly pollMs = 15,
  ) {}

  notify(): void {
    this.signal.bump();
  }

  async reached(names: string[], position: Position): Promise<boolean> {
    // Known without a query when every projection was already seen past the position.
    if (names.every((n) => { const p = this.passed.get(n); return p !== undefined && comparePositions(p, position) >= 0; })) return true;
    const rows = await this.knex('projection_checkpoints')
      .whereIn('name', names)
      .select('name', this.knex.raw('commit_position::text AS c'), 'prepare_position AS p');
    if (rows.length < names.length) return false;
    return rows.every((r: { name: string; c: string | null; p: string | null }) => {
      if (r.c === null) return false;
      const at = { commit: BigInt(r.c), prepare: BigInt(r.p!) };
      const before = this.passed.get(r.name);
      if (!before || comparePositions(at, before) > 0) this.passed.set(r.name, at);
      return comparePositions(at, position) >= 0;
    });
  }

  /** False for a position whose transaction id has not been handed out yet (so nothing could have written it). */
  async isReachable(position: Position): Promise<boolean> {
    const r = await this.knex.raw<{ rows: { xmax: string }[] }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS xmax');
    return position.commit < BigInt(r.rows[0]!.xmax);
  }

  /** True when reached in time; false after `timeoutMs` (the caller answers anyway, possibly stale). */
  async waitFor(names: string[], position: Position, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const seen = this.signal.current;
      if (await this.reached(names, position)) return true;
      const left = deadline - Date.now();
      if (left <= 0) return false;
      await this.signal.wait(seen, Math.min(this.pollMs, left));
    }
  }
}

export interface ProjectionLag {
  name: string;
  position: Position | null;
  head: Position | null;
  /** Approximate number of events behind the head (distance in sequence numbers). */
  lagEvents: number;
  /** Seconds since the checkpoint last moved, while behind; 0 when caught up. */
  lagSeconds: number;
  state: ProjectionState;
  /** The last failure while the checkpoint has not moved past it (set when faulted, or while retrying). */
  fault: ProjectionFault | null;
}

/** How far each named projection is behind the feed's head. */
export const projectionLag = async (knex: Knex, head: Position | null, names: string[]): Promise<ProjectionLag[]> => {
  const rows = await readCheckpoints(knex);
  return names.map((name) => {
    const row = rows.find((r) => r.name === name);
    const position = row?.position ?? null;
    const behind = head !== null && (position === null || comparePositions(position, head) < 0);
    return {
      name,
      position,
      head,
      lagEvents: behind ? Math.max(1, Number(head.prepare - (position?.prepare ?? 0n))) : 0,
      lagSeconds: behind && row ? Math.max(0, (Date.now() - new Date(row.updatedAt).getTime()) / 1000) : 0,
      state: row?.state ?? 'running',
      fault: row?.fault ?? null,
    };
  });
};
