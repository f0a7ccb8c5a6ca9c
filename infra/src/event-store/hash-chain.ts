import { createHash } from 'node:crypto';

/** JSON with keys sorted at every depth, so the same content always gives the same bytes. */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
};

export interface HashedContent {
  streamId: string;
  revision: bigint;
  id: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
}

/**
 * hash = sha256(prevHash ‖ canonical content). The first event of a stream chains on the empty string.
 * Documented in docs/event-store.md so that auditors can recompute it from an export.
 */
export const eventHash = (prevHash: string | null, e: HashedContent): string =>
  createHash('sha256')
    .update(prevHash ?? '')
    .update('\n')
    .update(
      canonicalJson({
        streamId: e.streamId,
        revision: e.revision.toString(),
        id: e.id,
        type: e.type,
        schemaVersion: e.schemaVersion,
        data: e.data,
        metadata: e.metadata,
      }),
    )
    .digest('hex');

/** Walks a stream's events in order and reports the first link whose stored hashes do not match. */
export const verifyChain = (
  streamId: string,
  events: Array<HashedContent & { hash: string; prevHash: string | null }>,
):
  | { ok: true; streamId: string; checked: number }
  | { ok: false; streamId: string; checked: number; brokenAt: bigint; reason: string } => {
  let prev: string | null = null;
  let expectedRevision = 0n;
  for (const [i, e] of events.entries()) {
    if (e.revision !== expectedRevision) {
      return { ok: false, streamId, checked: i, brokenAt: e.revision, reason: `revision gap: expected ${expectedRevision}` };
    }
    if (e.prevHash !== prev) return { ok: false, streamId, checked: i, brokenAt: e.revision, reason: 'previous hash does not match' };
    if (eventHash(prev, e) !== e.hash) return { ok: false, streamId, checked: i, brokenAt: e.revision, reason: 'content does not match its hash' };
    prev = e.hash;
    expectedRevision++;
  }
  return { ok: true, streamId, checked: events.length };
};
