import type { Knex } from 'knex';
import { comparePositions, type Position } from '../event-store/port';
import { WakeSignal } from '../event-store/subscription';

export interface Checkpoint {
  name: string;
  position: Position | null;
  eventsApplied: number;
  updatedAt: Date;
}

export const readCheckpoints = async (knex: Knex): Promise<Checkpoint[]> => {
  const rows = await knex('projection_checkpoints').select(
    'name',
    knex.raw('commit_position::text AS commit_position'),
    'prepare_position',
    'events_applied',
    'updated_at',
  );
  return rows.map((r: { name: string; commit_position: string | null; prepare_position: string | null; events_applied: string; updated_at: Date }) => ({
    name: r.name,
    position: r.commit_position === null ? null : { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position!) },
    eventsApplied: Number(r.events_applied),
    updatedAt: r.updated_at,
  }));
};

/**
 * Read-your-writes: waits until the named projections have passed a position, bounded by a timeout.
 * Wakes at once when a projector in this process commits (notify), else polls the checkpoint table.
 */
export class CheckpointWaiter {
  private readonly signal = new WakeSignal();
  constructor(
    private readonly knex: Knex,
    private readonly pollMs = 15,
  ) {}

  notify(): void {
    this.signal.bump();
  }

  async reached(names: string[], position: Position): Promise<boolean> {
    const rows = await this.knex('projection_checkpoints')
      .whereIn('name', names)
      .select('name', this.knex.raw('commit_position::text AS c'), 'prepare_position AS p');
    if (rows.length < names.length) return false;
    return rows.every((r: { c: string | null; p: string | null }) =>
      r.c !== null && comparePositions({ commit: BigInt(r.c), prepare: BigInt(r.p!) }, position) >= 0,
    );
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
    };
  });
};
