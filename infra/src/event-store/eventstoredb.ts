import { BACKWARDS, END, ErrorType, EventStoreDBClient, FORWARDS, NO_STREAM, START, excludeSystemEvents, jsonEvent } from '@eventstore/db-client';
import { StreamNotFoundError, WrongExpectedVersionError } from '@eventstore/db-client';
import type { AllStreamSubscription, JSONType, ReadStreamOptions as EsReadStreamOptions, ResolvedEvent } from '@eventstore/db-client';
import type { EventMetadata } from '@cagnotte/event-schemas';
import type { AppendResult, EventStore, ExpectedRevision, NewEvent, Position, ReadAllOptions, ReadStreamOptions } from './port';
import type { RecordedEvent, SubscribeOptions, SubscriptionHandle, VerifyResult } from './port';
import { DuplicateEventIdError, WrongExpectedRevisionError, comparePositions } from './port';
import { canonicalJson, eventHash, verifyChain } from './hash-chain';
import { SubscriptionSet, WakeSignal } from './subscription';

type EsEvent = NonNullable<ResolvedEvent['event']>;

/** What we keep next to the caller's metadata; stripped on read so `metadata` round-trips exactly (EventMetadata is strict). */
interface CagnotteMeta {
  schemaVersion: number;
  hash: string;
  prevHash: string | null;
}

const OWN_KEY = '$cagnotte';
/** Retries of the read-then-append for `any` / `stream_exists`, whose callers accept any head. */
const MAX_ATTEMPTS = 5;
/** Servers before 22.6 send uint64 max instead of a log position on stream reads. */
const NO_POSITION = 2n ** 64n - 1n;

const ownMeta = (e: EsEvent): { metadata: EventMetadata; own: CagnotteMeta } | null => {
  const m = e.metadata;
  if (!e.isJson || typeof m !== 'object' || m === null || Array.isArray(m) || m instanceof Uint8Array) return null;
  const { [OWN_KEY]: own, ...metadata } = m as Record<string, unknown>;
  if (typeof own !== 'object' || own === null || typeof (own as CagnotteMeta).hash !== 'string') return null;
  return { metadata: metadata as EventMetadata, own: own as CagnotteMeta };
};

const isSystem = (e: EsEvent): boolean => e.type.startsWith('$') || e.streamId.startsWith('$');

const positionOf = (e: EsEvent): Position => {
  const p = e.position;
  if (!p || p.commit === NO_POSITION || p.commit < 0n) throw new Error(`event ${e.id} has no log position: EventStoreDB 22.6+ is required`);
  return { commit: p.commit, prepare: p.prepare };
};

/**
 * Events written by someone else (no `$cagnotte` metadata) are still returned by stream reads, with an empty
 * hash, so that verifyStream reports them instead of hiding them.
 */
const toRecorded = (e: EsEvent): RecordedEvent => {
  const mine = ownMeta(e);
  return {
    id: e.id,
    type: e.type,
    schemaVersion: mine?.own.schemaVersion ?? 0,
    data: e.data,
    metadata: mine?.metadata ?? (e.metadata as EventMetadata),
    streamId: e.streamId,
    revision: e.revision,
    position: positionOf(e),
    hash: mine?.own.hash ?? '',
    prevHash: mine?.own.prevHash ?? null,
    recordedAt: e.created,
  };
};

const sameEvent = (stored: EsEvent, e: NewEvent): boolean =>
  stored.type === e.type && canonicalJson(stored.data) === canonicalJson(JSON.parse(JSON.stringify(e.data)));

const matches = (expected: ExpectedRevision, current: bigint | null): boolean =>
  expected === 'any' ||
  (expected === 'no_stream' && current === null) ||
  (expected === 'stream_exists' && current !== null) ||
  (typeof expected === 'bigint' && current === expected);

const actualOf = (v: unknown): bigint | 'no_stream' => (typeof v === 'bigint' && v >= 0n ? v : 'no_stream');

const isStreamNotFound = (error: unknown): boolean =>
  error instanceof StreamNotFoundError || (error as { type?: unknown } | null)?.type === ErrorType.STREAM_NOT_FOUND;

const isWrongExpectedVersion = (error: unknown): error is WrongExpectedVersionError =>
  error instanceof WrongExpectedVersionError || (error as { type?: unknown } | null)?.type === ErrorType.WRONG_EXPECTED_VERSION;

/**
 * The EventStoreDB event store. ESDB has no conditional "append after my last hash", so an append reads the
 * stream head, chains the hashes on it, and appends with that exact head as ESDB's expected revision: a
 * concurrent writer then fails ESDB's check instead of forking the chain. The feed is $all without system
 * events; subscriptions are the same pull loop as PostgreSQL's, woken by a live ESDB subscription.
 */
export class EventStoreDbEventStore implements EventStore {
  readonly name = 'eventstoredb';
  private readonly wake = new WakeSignal();
  private readonly pollMs: number;
  private readonly subscriptions = new SubscriptionSet();
  private live: AllStreamSubscription | null = null;
  private liveRetry: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly client: EventStoreDBClient,
    options: { pollMs?: number } = {},
  ) {
    this.pollMs = options.pollMs ?? 250;
  }

  static fromConnectionString(url: string): EventStoreDbEventStore {
    return new EventStoreDbEventStore(EventStoreDBClient.connectionString(url));
  }

  async append(streamId: string, events: NewEvent[], { expectedRevision }: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const loose = expectedRevision === 'any' || expectedRevision === 'stream_exists';
    for (let attempt = 1; ; attempt++) {
      const last = await this.head(streamId);
      const current = last?.revision ?? null;
      if (!matches(expectedRevision, current)) return this.conflict(streamId, events, expectedRevision, current ?? 'no_stream');
      // A loose expectation never conflicts, so a retried append would land twice: look for it first.
      if (loose && current !== null) {
        const again = await this.findAppended(streamId, events);
        if (again) return again;
      }

      let prev = last ? (ownMeta(last)?.own.hash ?? null) : null;
      let revision = current ?? -1n;
      const proposed = events.map((e) => {
        revision++;
        const hash = eventHash(prev, { ...e, streamId, revision });
        const own: CagnotteMeta = { schemaVersion: e.schemaVersion, hash, prevHash: prev };
        prev = hash;
        return jsonEvent({ id: e.id, type: e.type, data: e.data as JSONType, metadata: { ...e.metadata, [OWN_KEY]: own } });
      });

      let written: bigint | null = null;
      let actual: bigint | 'no_stream' = 'no_stream';
      try {
        const res = await this.client.appendToStream(streamId, proposed, { expectedRevision: current ?? NO_STREAM });
        if (res.success) written = res.nextExpectedRevision;
        // throwOnAppendFailure=false (connection string) reports a conflict as success: false, and the client's
        // batch-append path then garbles the current revision, so ask the stream itself.
        else actual = actualOf((await this.head(streamId))?.revision);
      } catch (error) {
        if (!isWrongExpectedVersion(error)) throw error;
        actual = actualOf(error.actualVersion);
      }
      if (written === null) {
        if (loose && attempt < MAX_ATTEMPTS) {
          await new Promise((r) => setTimeout(r, Math.random() * 10 * attempt));
          continue;
        }
        return this.conflict(streamId, events, expectedRevision, actual);
      }
      this.wake.bump();

      // Read the last event back: its stored position is what an idempotent retry will report (the append
      // response does not carry the last event's own position), and ESDB dedupes on ids alone, so a matching
      // hash proves our content was written rather than someone else's with the same ids.
      const [stored] = await this.readRaw(streamId, { direction: FORWARDS, fromRevision: written, maxCount: 1 });
      const lastEvent = events[events.length - 1]!;
      if (!stored || stored.id !== lastEvent.id || ownMeta(stored)?.own.hash !== prev) throw new DuplicateEventIdError(lastEvent.id);
      return { nextExpectedRevision: written, position: positionOf(stored) };
    }
  }

  /** A retried append of events already written is answered as it was the first time; otherwise a conflict. */
  private async conflict(streamId: string, events: NewEvent[], expected: ExpectedRevision, actual: bigint | 'no_stream'): Promise<AppendResult> {
    const again = actual === 'no_stream' ? null : await this.findAppended(streamId, events);
    if (again) return again;
    throw new WrongExpectedRevisionError(streamId, expected, actual);
  }

  /** ESDB cannot look events up by id, so this scans the stream; only conflicts and loose appends pay for it. */
  private async findAppended(streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const ids = new Set(events.map((e) => e.id));
    const found = (await this.readRaw(streamId, { direction: FORWARDS, fromRevision: START })).filter((e) => ids.has(e.id));
    if (found.length === 0) return null;
    const first = found[0]!;
    const consistent =
      found.length === events.length &&
      found.every((r, i) => r.id === events[i]!.id && r.revision === first.revision + BigInt(i) && sameEvent(r, events[i]!));
    if (!consistent) throw new DuplicateEventIdError(first.id);
    const last = found[found.length - 1]!;
    return { nextExpectedRevision: last.revision, position: positionOf(last) };
  }

  private async head(streamId: string): Promise<EsEvent | undefined> {
    return (await this.readRaw(streamId, { direction: BACKWARDS, fromRevision: END, maxCount: 1 }))[0];
  }

  private async readRaw(streamId: string, options: EsReadStreamOptions): Promise<EsEvent[]> {
    const out: EsEvent[] = [];
    try {
      for await (const resolved of this.client.readStream(streamId, options)) if (resolved.event) out.push(resolved.event);
    } catch (error) {
      if (isStreamNotFound(error)) return [];
      throw error;
    }
    return out;
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    const raw = await this.readRaw(streamId, {
      direction: backwards ? BACKWARDS : FORWARDS,
      fromRevision: from === 'start' ? START : from === 'end' ? END : from,
      ...(options.maxCount !== undefined ? { maxCount: Math.max(1, options.maxCount) } : {}),
    });
    return raw.map(toRecorded);
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const max = Math.max(1, Math.min(options.maxCount ?? 1000, 10_000));
    const out: RecordedEvent[] = [];
    let cursor = options.after ?? null;
    // ESDB's fromPosition is inclusive and system events are dropped here, so keep paging until the page is full
    // or $all is exhausted: a short page would look like the end of the feed to the pull loop.
    for (;;) {
      const want = max - out.length + 1;
      let seen = 0;
      let progressed = false;
      for await (const resolved of this.client.readAll({ direction: FORWARDS, fromPosition: cursor ?? START, maxCount: want })) {
        seen++;
        const e = resolved.event;
        if (!e || (cursor && comparePositions(e.position, cursor) <= 0)) continue;
        progressed = true;
        cursor = e.position;
        // Only our events: other writers' events (without the hash chain) are not part of this ledger's feed.
        if (!isSystem(e) && ownMeta(e)) out.push(toRecorded(e));
      }
      if (out.length >= max || seen < want || !progressed) return out.slice(0, max);
    }
  }

  async headPosition(): Promise<Position | null> {
    const page = 100;
    let cursor: Position | null = null;
    for (;;) {
      let seen = 0;
      let progressed = false;
      for await (const resolved of this.client.readAll({ direction: BACKWARDS, fromPosition: cursor ?? END, maxCount: page })) {
        seen++;
        const e = resolved.event;
        if (!e || (cursor && comparePositions(e.position, cursor) >= 0)) continue;
        progressed = true;
        const at: Position = { commit: e.position.commit, prepare: e.position.prepare };
        cursor = at;
        if (!isSystem(e) && ownMeta(e)) return at;
      }
      if (seen < page || !progressed) return null;
    }
  }

  subscribeToAll(options: SubscribeOptions): SubscriptionHandle {
    this.ensureLive();
    return this.subscriptions.open((after, max) => this.readAll({ after, maxCount: max }), this.wake, options, this.pollMs);
  }

  /** Wakes the pull loops on other processes' appends. Polling still delivers events, so this is only latency. */
  private ensureLive(): void {
    if (this.live || this.closed) return;
    if (this.liveRetry) clearTimeout(this.liveRetry);
    this.liveRetry = null;
    const live = this.client.subscribeToAll({ fromPosition: END, filter: excludeSystemEvents() });
    this.live = live;
    live.on('data', () => this.wake.bump());
    const dropped = () => {
      if (this.live !== live) return;
      this.live = null;
      void live.unsubscribe().catch(() => undefined);
      if (this.closed || this.subscriptions.size === 0 || this.liveRetry) return;
      this.liveRetry = setTimeout(() => {
        this.liveRetry = null;
        if (this.subscriptions.size > 0) this.ensureLive();
      }, 1000);
      this.liveRetry.unref();
    };
    live.on('error', dropped);
    live.on('close', dropped);
  }

  async verifyStream(streamId: string): Promise<VerifyResult> {
    return verifyChain(streamId, await this.readStream(streamId));
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.liveRetry) clearTimeout(this.liveRetry);
    this.liveRetry = null;
    await this.subscriptions.stopAll();
    const live = this.live;
    this.live = null;
    if (live) await live.unsubscribe().catch(() => undefined);
    await this.client.dispose();
  }
}
