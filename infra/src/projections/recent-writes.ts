import { comparePositions, type Position } from '../event-store/port';

/**
 * Read-your-writes without waiting on the write path: the last feed position each session wrote through this
 * process. A command answers from its own state at once; the same session's next read in this process waits for
 * its projections to reach that position (query-api/src/shared/consistency.ts). Bounded: the least recently
 * written sessions are forgotten first (they then read as any other client: with X-Min-Position).
 */
export class RecentWrites {
  private readonly last = new Map<string, Position>();
  constructor(private readonly capacity = 10_000) {}

  /** The session wrote at `position`: kept if it is past what it wrote before (positions compare as numbers). */
  record(session: string, position: Position): void {
    const before = this.last.get(session);
    this.last.delete(session);
    this.last.set(session, before && comparePositions(before, position) > 0 ? before : position);
    if (this.last.size > this.capacity) this.last.delete(this.last.keys().next().value!);
  }

  /** The last position the session wrote through this process, if it is remembered. */
  lastOf(session: string | null | undefined): Position | null {
    return session ? (this.last.get(session) ?? null) : null;
  }

  get size(): number {
    return this.last.size;
  }
}
