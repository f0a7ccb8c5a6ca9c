import type { EventMetadata } from '@cagnotte/event-schemas';

/**
 * A position in the global feed. Ordered by (commit, prepare), like EventStoreDB's log position.
 * In PostgreSQL, commit is the appending transaction id and prepare the event's sequence number:
 * see docs/event-store.md for why that makes the feed gap-safe.
 */
export interface Position {
  readonly commit: bigint;
  readonly prepare: bigint;
}

/** `any`: no check; `no_stream`: must not exist; `stream_exists`: must exist; bigint: the exact current revision (0-based). */
export type ExpectedRevision = 'any' | 'no_stream' | 'stream_exists' | bigint;

export interface NewEvent {
  id: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: EventMetadata;
}

export interface RecordedEvent extends NewEvent {
  streamId: string;
  /** 0-based revision within the stream. */
  revision: bigint;
  position: Position;
  /** sha256 over the previous event's hash and this event's canonical content. */
  hash: string;
  prevHash: string | null;
  recordedAt: Date;
}

export interface AppendResult {
  /** The stream's revision after the append: pass it as the expected revision of the next append. */
  nextExpectedRevision: bigint;
  /** The global position of the last event written. */
  position: Position;
  /** The position of each event, in order (the PostgreSQL store fills it; an idempotent re-append may not). */
  positions?: Position[];
}

export interface ReadStreamOptions {
  direction?: 'forwards' | 'backwards';
  /** Inclusive. Defaults to the start (forwards) or the end (backwards). */
  fromRevision?: bigint | 'start' | 'end';
  maxCount?: number;
}

export interface ReadAllOptions {
  /** Exclusive: events strictly after this position. Omit or null to read from the start. */
  after?: Position | null;
  maxCount?: number;
}

export interface SubscriptionHandle {
  /** Resolves once the handler has returned for the last batch and the loop has stopped. */
  stop(): Promise<void>;
  /** The position of the last event handed to the handler and acknowledged. */
  readonly position: Position | null;
}

export interface SubscribeOptions {
  after?: Position | null;
  /** Largest batch handed to the handler at once. The next batch is read only after the handler resolves (backpressure). */
  batchSize?: number;
  handler: (events: RecordedEvent[]) => Promise<void>;
  /** Called when the handler or a read throws; the subscription retries the same batch after a delay. */
  onError?: (error: unknown) => void;
}

export type VerifyResult =
  | { ok: true; streamId: string; checked: number }
  | { ok: false; streamId: string; checked: number; brokenAt: bigint; reason: string };

export interface EventStore {
  readonly name: string;
  append(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult>;
  readStream(streamId: string, options?: ReadStreamOptions): Promise<RecordedEvent[]>;
  readAll(options?: ReadAllOptions): Promise<RecordedEvent[]>;
  /** The position of the newest event a reader of the feed can see now, or null when the store is empty. */
  headPosition(): Promise<Position | null>;
  subscribeToAll(options: SubscribeOptions): SubscriptionHandle;
  /** Recomputes the hash chain of a stream and reports the first broken link. */
  verifyStream(streamId: string): Promise<VerifyResult>;
  close(): Promise<void>;
}

export class WrongExpectedRevisionError extends Error {
  readonly code = 'wrong_expected_revision';
  constructor(
    readonly streamId: string,
    readonly expected: ExpectedRevision,
    /** The stream's current revision, or 'no_stream'. */
    readonly actual: bigint | 'no_stream',
  ) {
    super(`stream ${streamId}: expected revision ${String(expected)}, actual ${String(actual)}`);
    this.name = 'WrongExpectedRevisionError';
  }
}

/**
 * The appending transaction's id is older than the one that wrote the stream's head: its events would reach the
 * global feed (ordered by transaction id) before the head they follow. Nothing was written; retry in a new
 * transaction (a new id is always newer). A `WrongExpectedRevisionError`, so command handlers re-read, re-decide
 * and retry as they do for any moved head.
 */
export class StreamOrderError extends WrongExpectedRevisionError {
  constructor(streamId: string, expected: ExpectedRevision, head: bigint) {
    super(streamId, expected, head);
    this.message = `stream ${streamId}: this transaction began before the one that wrote revision ${head}; retry in a new transaction`;
    this.name = 'StreamOrderError';
  }
}

export class DuplicateEventIdError extends Error {
  readonly code = 'duplicate_event_id';
  constructor(readonly eventId: string) {
    super(`event id ${eventId} was already appended with different content or to another position`);
    this.name = 'DuplicateEventIdError';
  }
}

export const comparePositions = (a: Position, b: Position): number =>
  a.commit < b.commit ? -1 : a.commit > b.commit ? 1 : a.prepare < b.prepare ? -1 : a.prepare > b.prepare ? 1 : 0;

/** `"commit-prepare"`: the form a position takes in HTTP headers and checkpoints shown to people. */
export const formatPosition = (p: Position): string => `${p.commit}-${p.prepare}`;
export const parsePosition = (s: string): Position | null => {
  const m = /^(\d{1,20})-(\d{1,20})$/.exec(s.trim());
  return m ? { commit: BigInt(m[1]!), prepare: BigInt(m[2]!) } : null;
};
