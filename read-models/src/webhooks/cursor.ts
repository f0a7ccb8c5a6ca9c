/**
 * The feed's cursor (docs/events-feed.md): an opaque string naming a place in rm_public_events, the public event's
 * position `(commit, prepare, idx)`: its internal event's store position (commit = the appending transaction's xid8,
 * prepare = the global position) plus its index among the public events that internal event gives. base64url of
 * `"<commit>.<prepare>.<idx>"`. Positions are compared as numbers (here as bigints, in SQL as a row of
 * xid8/bigint/smallint), never as text: commit 10 is after commit 9.
 *
 * The SSE `id:` of an event is this same cursor, so `Last-Event-ID` resumes the stream.
 */
export interface FeedPosition {
  commit: bigint;
  prepare: bigint;
  idx: number;
}

const XID8_MAX = 2n ** 64n - 1n;
const BIGINT_MAX = 2n ** 63n - 1n;
const SMALLINT_MAX = 32_767;
/** A decimal without a leading zero (one canonical text per position). */
const DECIMAL = /^(0|[1-9]\d{0,19})$/;

export const encodeCursor = (p: FeedPosition): string => Buffer.from(`${p.commit}.${p.prepare}.${p.idx}`, 'utf8').toString('base64url');

/** The position a cursor names, or null for anything that is not a cursor this service gave (answered 400). */
export const decodeCursor = (cursor: string): FeedPosition | null => {
  if (cursor.length === 0 || cursor.length > 80 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  // base64url decoding ignores stray bits: only the canonical encoding counts.
  if (Buffer.from(text, 'utf8').toString('base64url') !== cursor) return null;
  const parts = text.split('.');
  if (parts.length !== 3 || !parts.every((p) => DECIMAL.test(p))) return null;
  const commit = BigInt(parts[0]!);
  const prepare = BigInt(parts[1]!);
  const idx = Number(parts[2]!);
  if (commit > XID8_MAX || prepare > BIGINT_MAX || idx > SMALLINT_MAX) return null;
  return { commit, prepare, idx };
};

/** Orders two positions as numbers: negative when `a` comes first. */
export const compareFeedPositions = (a: FeedPosition, b: FeedPosition): number => {
  if (a.commit !== b.commit) return a.commit < b.commit ? -1 : 1;
  if (a.prepare !== b.prepare) return a.prepare < b.prepare ? -1 : 1;
  return a.idx - b.idx;
};
