import { createHash } from 'node:crypto';

/**
 * JSON with keys sorted at every depth (by UTF-16 code units), so the same content always gives the same bytes.
 * `undefined` members are left out, `undefined` in an array is `null`, a bigint is its decimal string, and an
 * object is its own enumerable keys (no `toJSON`). Written as plain loops: every read of the feed recomputes
 * each event's hash with it (hash-chain.unit.spec.ts pins it to the straightforward definition).
 */
export const canonicalJson = (value: unknown): string => {
  if (value === null || typeof value !== 'object') {
    if (typeof value === 'bigint') return JSON.stringify(value.toString());
    return JSON.stringify(value) ?? 'null';
  }
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      out += (i > 0 ? ',' : '') + (v === undefined ? 'null' : canonicalJson(v));
    }
    return out + ']';
  }
  const obj = value as Record<string, unknown>;
  let out = '{';
  let first = true;
  for (const k of Object.keys(obj).sort()) {
    const v = obj[k];
    if (v === undefined) continue;
    out += (first ? '' : ',') + JSON.stringify(k) + ':' + canonicalJson(v);
    first = false;
  }
  return out + '}';
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
