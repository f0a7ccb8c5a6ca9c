import { comparePositions, type Position } from '../event-store/port';

/**
 * Read-your-writes without waiting on the write path: the furthest feed position the commands of this process wrote,
 * and each session's own last one. A command answers from its own state at once; any later read in this process
 * waits for its projections to reach the process's furthest write (query-api/src/shared/consistency.ts), so a write
 * that answered is seen by every reader served here; across processes, clients send X-Min-Position. Bounded per
 * session: the least recently written sessions are forgotten first.
 */
export class RecentWrites {
  private readonly last = new Map<string, Position>();
  private furthest: Position | null = null;
  constructor(private readonly capacity = 10_000) {}

  /**
   * A command of this process wrote at `position` for `session` (null: a job, a system command): the session's and
   * the process's furthest writes are kept if it is past them (positions compare as numbers).
   */
  record(session: string | null, position: Position): void {
    if (!this.furthest || comparePositions(position, this.furthest) > 0) this.furthest = position;
    if (session === null) return;
    const before = this.last.get(session);
    this.last.delete(session);
    this.last.set(session, before && comparePositions(before, position) > 0 ? before : position);
    if (this.last.size > this.capacity) this.last.delete(this.last.keys().next().value!);
  }

  /**
   * The furthest position any command of this process wrote: a read served here after a command answered waits for
   * it, so every client of this process (not only the writer) reads what an answered command wrote.
   */
  latest(): Position | null {
    return this.furthest;
  }

  /** The last position the session wrote through this process, if it is remembered. */
  lastOf(session: string | null | undefined): Position | null {
    return session ? (this.last.get(session) ?? null) : null;
  }

  get size(): number {
    return this.last.size;
  }
}
