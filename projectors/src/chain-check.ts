import { eventHash, type EventStore, type RecordedEvent } from '@cagnotte/infra';

export interface ChainBreak {
  /** Index of the first broken event in the batch checked. */
  index: number;
  event: RecordedEvent;
  reason: string;
}

const key = (streamId: string, revision: bigint) => `${streamId}\u0000${revision}`;

/**
 * Checks the hash link of every event a projector reads: its hash recomputes from its content and its prev_hash is
 * the hash of the previous event of its stream (null for revision 0). Hashes it has checked are remembered (bounded),
 * so a stream read in feed order costs one sha256 per event; the first event seen of a stream whose predecessor is
 * not remembered (a catch-up that starts mid-stream) looks the predecessor up in the store.
 */
export class ChainChecker {
  private readonly verified = new Map<string, string>();

  constructor(
    private readonly store: EventStore,
    private readonly capacity = 100_000,
  ) {}

  private remember(streamId: string, revision: bigint, hash: string): void {
    const k = key(streamId, revision);
    this.verified.delete(k);
    this.verified.set(k, hash);
    if (this.verified.size > this.capacity) this.verified.delete(this.verified.keys().next().value!);
  }

  /** The stored hash of (stream, revision), or undefined when the store has no such event. */
  private async lookup(streamId: string, revision: bigint): Promise<string | undefined> {
    const [e] = await this.store.readStream(streamId, { fromRevision: revision, maxCount: 1 });
    return e && e.revision === revision ? e.hash : undefined;
  }

  /** The first broken link in `batch` (feed order), or null when every event checks out. */
  async check(batch: RecordedEvent[]): Promise<ChainBreak | null> {
    // Predecessors neither remembered nor earlier in this batch: look them up together, a few at a time. (Within a
    // stream the feed is normally in revision order, but two appends racing on one stream can commit under
    // transaction ids in the other order; then the predecessor comes later in the feed, or was read long ago.)
    const earlier = new Set<string>();
    const missing = new Map<string, { streamId: string; revision: bigint }>();
    for (const e of batch) {
      const k = key(e.streamId, e.revision);
      if (e.revision > 0n && this.verified.get(k) !== e.hash) {
        const p = key(e.streamId, e.revision - 1n);
        if (!this.verified.has(p) && !earlier.has(p)) missing.set(p, { streamId: e.streamId, revision: e.revision - 1n });
      }
      earlier.add(k);
    }
    const fetched = new Map<string, string | undefined>();
    const todo = [...missing.entries()];
    for (let i = 0; i < todo.length; i += 8) {
      await Promise.all(todo.slice(i, i + 8).map(async ([k, m]) => fetched.set(k, await this.lookup(m.streamId, m.revision))));
    }
    for (const [index, e] of batch.entries()) {
      if (this.verified.get(key(e.streamId, e.revision)) === e.hash) continue;
      if (eventHash(e.prevHash, e) !== e.hash) return { index, event: e, reason: 'content does not match its hash' };
      let prev: string | null | undefined = null;
      if (e.revision > 0n) {
        const p = key(e.streamId, e.revision - 1n);
        prev = this.verified.has(p) ? this.verified.get(p) : fetched.has(p) ? fetched.get(p) : await this.lookup(e.streamId, e.revision - 1n);
        if (prev === undefined) return { index, event: e, reason: `previous event (revision ${e.revision - 1n}) is missing` };
      }
      if (e.prevHash !== prev) return { index, event: e, reason: 'previous hash does not match' };
      this.remember(e.streamId, e.revision, e.hash);
    }
    return null;
  }
}
