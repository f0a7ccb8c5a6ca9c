import pg from 'pg';
import type {
  AppendResult,
  EventStore,
  ExpectedRevision,
  NewEvent,
  Position,
  ReadAllOptions,
  ReadStreamOptions,
  RecordedEvent,
  SubscribeOptions,
  SubscriptionHandle,
  VerifyResult,
} from './port';
import { DuplicateEventIdError, StreamOrderError, WrongExpectedRevisionError } from './port';
import { canonicalJson, eventHash, verifyChain } from './hash-chain';
import { SubscriptionSet, WakeSignal } from './subscription';

const NOTIFY_CHANNEL = 'cagnotte_events';

interface EventRow {
  global_position: string;
  /** The xid8 as text: never sort or compare it; the feed sorts on the xid8 column itself. */
  commit_text: string;
  stream_id: string;
  stream_revision: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: NewEvent['metadata'];
  prev_hash: string | null;
  hash: string;
  recorded_at: Date;
}

const COLUMNS =
  'global_position, transaction_id::text AS commit_text, stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash, recorded_at';

const toRecorded = (r: EventRow): RecordedEvent => ({
  id: r.event_id,
  type: r.type,
  schemaVersion: r.schema_version,
  data: r.data,
  metadata: r.metadata,
  streamId: r.stream_id,
  revision: BigInt(r.stream_revision),
  position: { commit: BigInt(r.commit_text), prepare: BigInt(r.global_position) },
  hash: r.hash,
  prevHash: r.prev_hash,
  recordedAt: r.recorded_at,
});

const sameEvent = (row: EventRow, e: NewEvent): boolean =>
  row.type === e.type && canonicalJson(row.data) === canonicalJson(JSON.parse(JSON.stringify(e.data)));

export interface PostgresEventStoreOptions {
  /** A pool dedicated to the event store. */
  pool: pg.Pool;
  /** Poll interval of subscriptions when no notification arrives (ms). */
  pollMs?: number;
  /** Listen for NOTIFY from other processes (default true). */
  listen?: boolean;
  /** Group commit of concurrent appends (docs/event-store.md). */
  groupCommit?: GroupCommitOptions;
}

export interface GroupCommitOptions {
  /** Append statements running at once; further appends queue for the next one (default 3; 1 is one at a time). */
  inFlight?: number;
  /** Appends one statement carries at most (default 64; 1 turns gathering off). */
  maxAppends?: number;
  /** Events one statement carries at most, unless one append alone has more (default 2,000). */
  maxEvents?: number;
}

/**
 * A command's idempotent answer, written with its events (a row of `idempotency_keys`, as
 * IdempotencyStore.insert writes it): all of an append's answers or none, with its events or without them.
 */
export interface KeyedAnswer {
  scope: string;
  key: string;
  fingerprint: string;
  status: number;
  body: unknown;
  headers: Record<string, string>;
  ttlSeconds: number;
  /** 0-based index in THIS append's events of the command's last event: headers['X-Event-Position'] is set in SQL to
   *  `${commit}-${prepare}` of that event (formatPosition's format), so the stored answer names its own position. */
  lastEvent: number | null;
}

/** The PostgreSQL store's append options: the port's, plus answers written in the same statement as the events. */
export interface PostgresAppendOptions {
  expectedRevision: ExpectedRevision;
  answers?: KeyedAnswer[];
}

/**
 * An append whose answers' keys are held by live rows (another request with the key committed first): nothing
 * of that append was written, neither its events nor its answers. Replay the kept answer.
 */
export class IdempotencyKeyTakenError extends Error {
  readonly code = 'idempotency_key_taken';
  constructor(
    readonly streamId: string,
    /** The keys held by live rows. */
    readonly keys: string[],
  ) {
    super(`stream ${streamId}: idempotency key(s) ${keys.join(', ')} already answered; nothing was appended`);
    this.name = 'IdempotencyKeyTakenError';
  }
}

interface Head {
  revision: bigint;
  hash: string;
}

/** An append on its way to a statement; `head` is what it is hashed onto (null: a new stream). */
interface PendingAppend {
  streamId: string;
  events: NewEvent[];
  expected: ExpectedRevision;
  answers: KeyedAnswer[];
  head: Head | null | undefined;
  /** Retries on a head a conflicting statement returned. */
  tries: number;
  resolve?: (r: AppendResult) => void;
  reject?: (e: unknown) => void;
}

interface BatchRow {
  append_index: number;
  outcome: 'ok' | 'taken' | 'conflict';
  commit_text: string | null;
  positions: string[] | null;
  head_revision: string | null;
  head_hash: string | null;
  taken: string[] | null;
}

/** Whether an append may be hashed onto this head (null: no stream) under its expectation. */
const compatible = (expected: ExpectedRevision, head: Head | null): boolean =>
  expected === 'any' ||
  (expected === 'no_stream' && head === null) ||
  (expected === 'stream_exists' && head !== null) ||
  (typeof expected === 'bigint' && head !== null && head.revision === expected);

const checkAnswers = (streamId: string, events: NewEvent[], answers: KeyedAnswer[]): void => {
  const keys = new Set<string>();
  for (const a of answers) {
    if (a.lastEvent !== null && !(Number.isInteger(a.lastEvent) && a.lastEvent >= 0 && a.lastEvent < events.length)) {
      throw new Error(`append to ${streamId}: answer ${a.key} names event ${a.lastEvent} of ${events.length}`);
    }
    const id = `${a.scope}\u0000${a.key}`;
    if (keys.has(id)) throw new Error(`append to ${streamId}: two answers with the key ${a.key}`);
    keys.add(id);
  }
};

/**
 * The PostgreSQL event store. Appends lock the stream's head row, so revisions are dense and checked;
 * the global feed is read only below the oldest running appender of this database (es_feed_horizon), ordered
 * by (transaction id, sequence), so no reader ever passes an event that commits later. See docs/event-store.md.
 */
export class PostgresEventStore implements EventStore {
  readonly name = 'postgres';
  private readonly pool: pg.Pool;
  private readonly wake = new WakeSignal();
  private readonly pollMs: number;
  private listener: pg.PoolClient | null = null;
  private listening: Promise<void> | null = null;
  private notifyTimer: NodeJS.Timeout | null = null;
  private lastNotifyAt = 0;
  private readonly notifyEveryMs = 10;
  private closed = false;
  private readonly subscriptions = new SubscriptionSet();
  /** Last known head (revision, hash) of recently used streams: lets an append skip the locking transaction. */
  private readonly heads = new Map<string, { revision: bigint; hash: string }>();
  private readonly maxHeads = 50_000;
  /** Statements of es_append_batch sent (group commit: fewer than appends under load). */
  statements = 0;
  private readonly group: Required<GroupCommitOptions>;
  private readonly queue: PendingAppend[] = [];
  private inFlight = 0;
  /** Streams (`s:`) and answer keys (`k:`) of the statements in flight. */
  private readonly busy = new Set<string>();

  constructor(private readonly options: PostgresEventStoreOptions) {
    this.pool = options.pool;
    this.pollMs = options.pollMs ?? 250;
    this.group = { inFlight: 3, maxAppends: 64, maxEvents: 2000, ...options.groupCommit };
  }

  async append(streamId: string, events: NewEvent[], options: PostgresAppendOptions): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const answers = options.answers ?? [];
    checkAnswers(streamId, events, answers);
    const pending: PendingAppend = { streamId, events, expected: options.expectedRevision, answers, head: undefined, tries: 0 };
    const head = this.batchableHead(pending);
    if (head === 'locked') return this.appendLocked(streamId, events, options);
    if (head === 'unknown') {
      const read = await this.readHead(streamId);
      if (!compatible(options.expectedRevision, read)) return this.appendLocked(streamId, events, options);
      pending.head = read;
    } else pending.head = head;
    return this.submit(pending);
  }

  private remember(streamId: string, revision: bigint, hash: string): void {
    this.heads.delete(streamId);
    this.heads.set(streamId, { revision, hash });
    if (this.heads.size > this.maxHeads) this.heads.delete(this.heads.keys().next().value!);
  }

  /**
   * The head an append is hashed onto, from what this process knows: null for a new stream, 'unknown' when
   * the head must be read first, 'locked' when only the locking path can answer (the cached head contradicts
   * the expectation: a conflict or an idempotent retry).
   */
  private batchableHead(p: PendingAppend): Head | null | 'unknown' | 'locked' {
    const known = this.heads.get(p.streamId);
    if (p.expected === 'no_stream') return known ? 'locked' : null;
    if (!known) return 'unknown';
    if (typeof p.expected === 'bigint' && known.revision !== p.expected) return known.revision > p.expected ? 'locked' : 'unknown';
    return known;
  }

  /** The committed head of a stream (one plain read): null when the stream does not exist. */
  private async readHead(streamId: string): Promise<Head | null> {
    const r = await this.pool.query<{ revision: string; last_hash: string }>({
      name: 'es_read_head',
      text: 'SELECT revision, last_hash FROM es_streams WHERE stream_id = $1 AND revision >= 0',
      values: [streamId],
    });
    const row = r.rows[0];
    return row ? { revision: BigInt(row.revision), hash: row.last_hash } : null;
  }

  /** Queues an append for the next statement (group commit): it settles when its statement has answered. */
  private submit(p: PendingAppend): Promise<AppendResult> {
    return new Promise<AppendResult>((resolve, reject) => {
      p.resolve = resolve;
      p.reject = reject;
      this.queue.push(p);
      this.pump();
    });
  }

  /**
   * Group commit. While fewer than `inFlight` statements run, the queued appends go out at once, as many as one
   * statement carries (`maxAppends`, `maxEvents`); otherwise they wait for the next free statement, so under load
   * one fsync commits many appends, and an append alone still costs one statement. Two appends on one stream (or
   * with one answer key) never share a statement, nor run in two at once: the later one waits, and is then
   * hashed onto the head the earlier one left.
   */
  private pump(): void {
    const { inFlight, maxAppends, maxEvents } = this.group;
    while (this.inFlight < inFlight && this.queue.length > 0) {
      const batch: PendingAppend[] = [];
      const holds = new Set<string>();
      let events = 0;
      for (let i = 0; i < this.queue.length && batch.length < maxAppends; ) {
        const p = this.queue[i]!;
        const names = [`s:${p.streamId}`, ...p.answers.map((a) => `k:${a.scope}\u0000${a.key}`)];
        if (names.some((n) => this.busy.has(n) || holds.has(n)) || (batch.length > 0 && events + p.events.length > maxEvents)) {
          i++;
          continue;
        }
        this.queue.splice(i, 1);
        // 'any' and 'stream_exists' chain onto the freshest head known (an earlier append may have moved it).
        const known = this.heads.get(p.streamId);
        if (known && (p.expected === 'any' || p.expected === 'stream_exists')) p.head = known;
        batch.push(p);
        events += p.events.length;
        for (const n of names) holds.add(n);
      }
      if (batch.length === 0) return;
      this.inFlight++;
      for (const n of holds) this.busy.add(n);
      void this.runBatch(batch).finally(() => {
        this.inFlight--;
        for (const n of holds) this.busy.delete(n);
        this.pump();
      });
    }
  }

  /**
   * One statement (es_append_batch, migration 027) for the appends given, each hashed onto its head: in one
   * autocommit transaction, the keys of their answers are claimed, the heads that are still where their
   * append expects are moved, and the events of those appends inserted. Settles every append: ok; taken
   * (IdempotencyKeyTakenError); a conflict retried on the head the statement returned, or left to the locking
   * path. A statement that fails on one append (a re-appended event id, a deadlock) is run again per append.
   */
  private async runBatch(batch: PendingAppend[]): Promise<void> {
    const a = { stream: [] as string[], expected: [] as string[], revision: [] as string[], hash: [] as string[], first: [] as number[], last: [] as number[] };
    const e = { append: [] as number[], revision: [] as string[], id: [] as string[], type: [] as string[], version: [] as number[], data: [] as string[], meta: [] as string[], prev: [] as (string | null)[], hash: [] as string[] };
    const k = { append: [] as number[], scope: [] as string[], key: [] as string[], fingerprint: [] as string[], status: [] as number[], body: [] as string[], headers: [] as string[], ttl: [] as number[], last: [] as (number | null)[] };
    const chained: Array<{ revision: bigint; hash: string }> = [];
    batch.forEach((p, index) => {
      const rows = this.chain(p.streamId, p.events, p.head?.revision ?? -1n, p.head?.hash ?? null);
      const first = e.id.length + 1;
      const n = rows.revisions.length;
      a.stream.push(p.streamId);
      a.expected.push((p.head?.revision ?? -1n).toString());
      a.revision.push(rows.revisions[n - 1]!);
      a.hash.push(rows.hashes[n - 1]!);
      a.first.push(first);
      a.last.push(first + n - 1);
      chained.push({ revision: BigInt(rows.revisions[n - 1]!), hash: rows.hashes[n - 1]! });
      for (let i = 0; i < n; i++) e.append.push(index + 1);
      e.revision.push(...rows.revisions);
      e.id.push(...rows.ids);
      e.type.push(...rows.types);
      e.version.push(...rows.versions);
      e.data.push(...rows.datas);
      e.meta.push(...rows.metas);
      e.prev.push(...rows.prevs);
      e.hash.push(...rows.hashes);
      for (const ans of p.answers) {
        k.append.push(index + 1);
        k.scope.push(ans.scope);
        k.key.push(ans.key);
        k.fingerprint.push(ans.fingerprint);
        k.status.push(ans.status);
        k.body.push(JSON.stringify(ans.body ?? null));
        k.headers.push(JSON.stringify(ans.headers));
        k.ttl.push(ans.ttlSeconds);
        k.last.push(ans.lastEvent === null ? null : first + ans.lastEvent);
      }
    });
    let rows: BatchRow[];
    try {
      this.statements++;
      const r = await this.pool.query<BatchRow>({
        // Named: prepared once per connection, so the plan of this hot statement is not rebuilt per append.
        name: 'es_append_batch',
        text: `SELECT append_index, outcome, commit_text, positions, head_revision, head_hash, taken FROM es_append_batch(
          $1::text[], $2::bigint[], $3::bigint[], $4::text[], $5::int[], $6::int[],
          $7::int[], $8::bigint[], $9::uuid[], $10::text[], $11::int[], $12::jsonb[], $13::jsonb[], $14::text[], $15::text[],
          $16::int[], $17::text[], $18::text[], $19::text[], $20::int[], $21::json[], $22::jsonb[], $23::int[], $24::int[])`,
        values: [
          a.stream, a.expected, a.revision, a.hash, a.first, a.last,
          e.append, e.revision, e.id, e.type, e.version, e.data, e.meta, e.prev, e.hash,
          k.append, k.scope, k.key, k.fingerprint, k.status, k.body, k.headers, k.ttl, k.last,
        ],
      });
      rows = r.rows;
    } catch (error) {
      if (batch.length > 1 && isRetryableAlone(error)) {
        // One append spoiled the statement for all: each runs again in a statement of its own.
        await Promise.all(batch.map((p) => this.runBatch([p])));
        return;
      }
      for (const p of batch) {
        if (isRetryableAlone(error)) this.settleLocked(p);
        else p.reject!(error);
      }
      return;
    }
    let appended = false;
    for (const row of rows) {
      const index = row.append_index - 1;
      const p = batch[index]!;
      if (row.outcome === 'ok') {
        appended = true;
        const head = chained[index]!;
        this.remember(p.streamId, head.revision, head.hash);
        const commit = BigInt(row.commit_text!);
        const positions = row.positions!.map((prepare) => ({ commit, prepare: BigInt(prepare) }));
        p.resolve!({ nextExpectedRevision: head.revision, position: positions[positions.length - 1]!, positions });
      } else if (row.outcome === 'taken') {
        p.reject!(new IdempotencyKeyTakenError(p.streamId, row.taken ?? []));
      } else {
        const current = row.head_revision !== null && BigInt(row.head_revision) >= 0n ? { revision: BigInt(row.head_revision), hash: row.head_hash! } : null;
        if (current) this.remember(p.streamId, current.revision, current.hash);
        else this.heads.delete(p.streamId);
        if (p.tries < 2 && compatible(p.expected, current)) {
          // Someone else appended: hashed onto the head the statement returned, it goes in the next statement.
          p.tries++;
          p.head = current;
          this.queue.unshift(p);
        } else this.settleLocked(p);
      }
    }
    if (appended) this.signalAppended();
  }

  /** Hands an append the statement could not decide to the locking path, which answers precisely. */
  private settleLocked(p: PendingAppend): void {
    this.appendLocked(p.streamId, p.events, { expectedRevision: p.expected, answers: p.answers }).then(p.resolve, p.reject);
  }

  /** Hashes a batch onto a head: the column arrays of the insert. */
  private chain(streamId: string, events: NewEvent[], fromRevision: bigint, fromHash: string | null) {
    let prev = fromHash;
    let revision = fromRevision;
    const out = { revisions: [] as string[], ids: [] as string[], types: [] as string[], versions: [] as number[], datas: [] as string[], metas: [] as string[], prevs: [] as (string | null)[], hashes: [] as string[] };
    for (const e of events) {
      revision++;
      const hash = eventHash(prev, { ...e, streamId, revision });
      out.revisions.push(revision.toString());
      out.ids.push(e.id);
      out.types.push(e.type);
      out.versions.push(e.schemaVersion);
      out.datas.push(JSON.stringify(e.data));
      out.metas.push(JSON.stringify(e.metadata));
      out.prevs.push(prev);
      out.hashes.push(hash);
      prev = hash;
    }
    return out;
  }

  /**
   * The precise path: a transaction that locks the stream head. Also the fallback of the optimistic one. A
   * transaction whose id turned out older than the head's writer (StreamOrderError) wrote nothing and is run again.
   */
  private async appendLocked(streamId: string, events: NewEvent[], options: PostgresAppendOptions): Promise<AppendResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendLockedOnce(streamId, events, options);
      } catch (error) {
        // A deadlock: this path locks the head before the answers' keys, a batch the keys first.
        const again = error instanceof StreamOrderError || isDeadlock(error);
        if (!again || attempt >= 10) throw error;
      }
    }
  }

  private async appendLockedOnce(streamId: string, events: NewEvent[], options: PostgresAppendOptions): Promise<AppendResult> {
    const client = await this.pool.connect();
    try {
      // One round trip: the transaction joins the appenders before anything gives it an id (FOR UPDATE would).
      await client.query('BEGIN; SELECT es_begin_append()');
      const { result, lastHash } = await this.writeWithin(client, streamId, events, options.expectedRevision);
      // An idempotent re-append (lastHash '') wrote nothing: its answers were kept with the first append.
      if (lastHash && options.answers?.length) {
        const taken = await this.writeAnswers(client, options.answers, result.positions!);
        if (taken.length > 0) throw new IdempotencyKeyTakenError(streamId, taken);
      }
      await client.query('COMMIT');
      // Cached only now: a head that a rolled-back transaction wrote must never be chained onto.
      if (lastHash) this.remember(streamId, result.nextExpectedRevision, lastHash);
      this.signalAppended();
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      if (isUniqueViolation(error, 'es_events_event_id_key')) return this.idempotentResult(streamId, events, options.expectedRevision);
      if (isUniqueViolation(error, 'es_events_stream_id_stream_revision_key')) {
        throw new WrongExpectedRevisionError(streamId, options.expectedRevision, await this.currentRevision(streamId));
      }
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * The answers' rows, in the transaction of their events (IdempotencyStore.insert's upsert): X-Event-Position
   * set to the position of each answer's last event. Returns the keys held by live rows (then roll back).
   */
  private async writeAnswers(client: pg.ClientBase, answers: KeyedAnswer[], positions: Position[]): Promise<string[]> {
    const r = await client.query<{ key: string }>({
      name: 'es_write_answers',
      text: `INSERT INTO idempotency_keys (scope, key, fingerprint, status_code, body, headers, expires_at)
             SELECT s, k, f, st, b,
               (CASE WHEN l IS NULL THEN h ELSE h || jsonb_build_object('X-Event-Position', pg_current_xact_id()::text || '-' || ($9::bigint[])[l + 1]) END)::json,
               now() + make_interval(secs => t)
             FROM unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::json[], $6::jsonb[], $7::int[], $8::int[]) AS x(s, k, f, st, b, h, t, l)
             ORDER BY s COLLATE "C", k COLLATE "C"
             ON CONFLICT (scope, key) DO UPDATE
               SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
                   headers = EXCLUDED.headers, created_at = now(), expires_at = EXCLUDED.expires_at
               WHERE idempotency_keys.expires_at <= now()
             RETURNING key`,
      values: [
        answers.map((x) => x.scope), answers.map((x) => x.key), answers.map((x) => x.fingerprint), answers.map((x) => x.status),
        answers.map((x) => JSON.stringify(x.body ?? null)), answers.map((x) => JSON.stringify(x.headers)), answers.map((x) => x.ttlSeconds),
        answers.map((x) => x.lastEvent), positions.map((p) => p.prepare.toString()),
      ],
    });
    const claimed = new Set(r.rows.map((row) => row.key));
    return answers.map((x) => x.key).filter((key) => !claimed.has(key));
  }

  /**
   * Makes the caller's transaction an appender: call it right after BEGIN, before the transaction writes
   * anything else (a write gives the transaction its id, and an appender must be known to readers before
   * that: see docs/event-store.md). Idempotent within a transaction; `appendWithin` calls it too.
   * Throws `AppendOrderError` when the transaction has already written.
   */
  async beginAppend(client: pg.ClientBase): Promise<void> {
    try {
      await client.query('SELECT es_begin_append()');
    } catch (error) {
      if ((error as { code?: string }).code === '55000') throw new AppendOrderError();
      throw error;
    }
  }

  /**
   * Appends inside a transaction the caller holds open (BEGIN already sent), so that other writes of the
   * caller commit or roll back with the events. The caller commits; then call `signalAppended()`.
   * If the caller writes anything else in that transaction, it must call `beginAppend(client)` first.
   */
  async appendWithin(
    client: pg.ClientBase,
    streamId: string,
    events: NewEvent[],
    { expectedRevision }: { expectedRevision: ExpectedRevision },
  ): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    await this.beginAppend(client);
    return (await this.writeWithin(client, streamId, events, expectedRevision)).result;
  }

  private async writeWithin(
    client: pg.ClientBase,
    streamId: string,
    events: NewEvent[],
    expectedRevision: ExpectedRevision,
  ): Promise<{ result: AppendResult; lastHash: string }> {
    const head = await this.lockHead(client, streamId);
    const current = head.revision >= 0n ? head.revision : null;
    if (current !== null) await this.checkStreamOrder(client, streamId, current, expectedRevision);
    const actual = current ?? ('no_stream' as const);
    const ok =
      expectedRevision === 'any' ||
      (expectedRevision === 'no_stream' && current === null) ||
      (expectedRevision === 'stream_exists' && current !== null) ||
      (typeof expectedRevision === 'bigint' && current === expectedRevision);
    if (!ok) {
      // A retried append of events already written is answered as it was the first time.
      const again = await this.findAppended(client, streamId, events);
      if (again) return { result: again, lastHash: '' };
      throw new WrongExpectedRevisionError(streamId, expectedRevision, actual);
    }
    const rows = this.chain(streamId, events, current ?? -1n, head.lastHash);
    const revision = BigInt(rows.revisions[rows.revisions.length - 1]!);
    const prev = rows.hashes[rows.hashes.length - 1]!;
    const inserted = await client.query<{ positions: string[]; commit_text: string }>(
      `WITH ins AS (
         INSERT INTO es_events (stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash)
         SELECT $1, r, i, t, v, d, m, p, h
         FROM unnest($2::bigint[], $3::uuid[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::text[], $9::text[])
           AS x(r, i, t, v, d, m, p, h)
         RETURNING global_position
       ), head AS (
         INSERT INTO es_streams (stream_id, revision, last_hash) VALUES ($1, $10, $11)
         ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, last_hash = EXCLUDED.last_hash, updated_at = now()
       )
       SELECT array_agg(global_position ORDER BY global_position) AS positions, pg_current_xact_id()::text AS commit_text FROM ins`,
      [streamId, rows.revisions, rows.ids, rows.types, rows.versions, rows.datas, rows.metas, rows.prevs, rows.hashes, revision.toString(), prev],
    );
    const row = inserted.rows[0]!;
    const commit = BigInt(row.commit_text);
    const positions = row.positions.map((prepare) => ({ commit, prepare: BigInt(prepare) }));
    return { result: { nextExpectedRevision: revision, position: positions[positions.length - 1]!, positions }, lastHash: prev };
  }

  /**
   * A stream's events must reach the feed in revision order, and the feed is ordered by transaction id. A
   * transaction gets its id at its first write or row lock, possibly before it waits for the head row that
   * another appender holds: after that one commits, the waiter would append the next revision under an OLDER
   * id, and readers would see it first. So, with the head locked: if the head's writer is newer than this
   * transaction, write nothing and let the caller retry in a new transaction (StreamOrderError).
   */
  private async checkStreamOrder(client: pg.ClientBase, streamId: string, head: bigint, expected: ExpectedRevision): Promise<void> {
    const r = await client.query<{ behind: boolean }>({
      name: 'es_stream_order',
      text: 'SELECT transaction_id > pg_current_xact_id() AS behind FROM es_events WHERE stream_id = $1 AND stream_revision = $2',
      values: [streamId, head.toString()],
    });
    if (r.rows[0]?.behind) throw new StreamOrderError(streamId, expected, head);
  }

  /**
   * Locks the stream's head row for the rest of the transaction. A new stream gets a placeholder head
   * (revision -1) first, so that concurrent first appends queue on the same lock instead of racing.
   */
  private async lockHead(client: pg.ClientBase, streamId: string): Promise<{ revision: bigint; lastHash: string | null }> {
    const select = 'SELECT revision, last_hash FROM es_streams WHERE stream_id = $1 FOR UPDATE';
    let rows = (await client.query<{ revision: string; last_hash: string }>(select, [streamId])).rows;
    if (rows.length === 0) {
      await client.query(`INSERT INTO es_streams (stream_id, revision, last_hash) VALUES ($1, -1, '') ON CONFLICT (stream_id) DO NOTHING`, [
        streamId,
      ]);
      rows = (await client.query<{ revision: string; last_hash: string }>(select, [streamId])).rows;
    }
    const row = rows[0]!;
    const revision = BigInt(row.revision);
    return { revision, lastHash: revision >= 0n ? row.last_hash : null };
  }

  /**
   * Tells local subscribers at once, and other processes through NOTIFY at most once per `notifyEveryMs`
   * (a NOTIFY per append would cost a round trip each; a short delay for other processes costs little).
   */
  signalAppended(): void {
    this.wake.bump();
    if (this.notifyTimer || this.closed) return;
    const wait = Math.max(0, this.lastNotifyAt + this.notifyEveryMs - Date.now());
    this.notifyTimer = setTimeout(() => {
      this.notifyTimer = null;
      this.lastNotifyAt = Date.now();
      // Without waiting for its commit record to reach disk: a notification lost in a crash costs one poll
      // interval, while waiting for a flush adds a second fsync to every cross-process delivery.
      if (!this.closed) {
        void this.pool.query(`SELECT set_config('synchronous_commit', 'off', true), pg_notify('${NOTIFY_CHANNEL}', '')`).catch(() => undefined);
      }
    }, wait);
  }

  private async findAppended(client: pg.ClientBase, streamId: string, events: NewEvent[]): Promise<AppendResult | null> {
    const found = await client.query<EventRow>(`SELECT ${COLUMNS} FROM es_events WHERE event_id = ANY($1::uuid[]) ORDER BY global_position`, [
      events.map((e) => e.id),
    ]);
    if (found.rows.length === 0) return null;
    const first = found.rows[0]!;
    const consistent =
      found.rows.length === events.length &&
      found.rows.every(
        (r, i) =>
          r.stream_id === streamId &&
          r.event_id === events[i]!.id &&
          BigInt(r.stream_revision) === BigInt(first.stream_revision) + BigInt(i) &&
          sameEvent(r, events[i]!),
      );
    if (!consistent) throw new DuplicateEventIdError(first.event_id);
    const last = found.rows[found.rows.length - 1]!;
    return {
      nextExpectedRevision: BigInt(last.stream_revision),
      position: { commit: BigInt(last.commit_text), prepare: BigInt(last.global_position) },
    };
  }

  private async idempotentResult(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult> {
    const client = await this.pool.connect();
    try {
      const again = await this.findAppended(client, streamId, events);
      if (again) return again;
      throw new WrongExpectedRevisionError(streamId, expected, await this.currentRevision(streamId));
    } finally {
      client.release();
    }
  }

  private async currentRevision(streamId: string): Promise<bigint | 'no_stream'> {
    const r = await this.pool.query<{ revision: string }>('SELECT revision FROM es_streams WHERE stream_id = $1 AND revision >= 0', [streamId]);
    return r.rows[0] ? BigInt(r.rows[0].revision) : 'no_stream';
  }

  async readStream(streamId: string, options: ReadStreamOptions = {}): Promise<RecordedEvent[]> {
    const backwards = options.direction === 'backwards';
    const from = options.fromRevision ?? (backwards ? 'end' : 'start');
    const max = Math.max(1, Math.min(options.maxCount ?? 1_000_000, 1_000_000));
    const params: unknown[] = [streamId, max];
    let bound = '';
    if (typeof from === 'bigint') {
      params.push(from.toString());
      bound = backwards ? 'AND stream_revision <= $3' : 'AND stream_revision >= $3';
    }
    const r = await this.pool.query<EventRow>({
      name: `es_read_stream_${backwards ? 'b' : 'f'}${bound ? '_from' : ''}`,
      text: `SELECT ${COLUMNS} FROM es_events WHERE stream_id = $1 ${bound}
       ORDER BY stream_revision ${backwards ? 'DESC' : 'ASC'} LIMIT $2`,
      values: params,
    });
    const events = r.rows.map(toRecorded);
    // A read that reached the end of the stream saw its head: remember it for the next append.
    const head = backwards ? (from === 'end' ? events[0] : undefined) : events.length < max ? events[events.length - 1] : undefined;
    if (head) this.remember(streamId, head.revision, head.hash);
    return events;
  }

  async readAll(options: ReadAllOptions = {}): Promise<RecordedEvent[]> {
    const max = Math.max(1, Math.min(options.maxCount ?? 1000, 10_000));
    const after = options.after;
    // es_read_all finds the horizon (the oldest running appender of this database) in one statement and
    // reads the events in a later one: see migration 013-feed-horizon and docs/event-store.md.
    const r = await this.pool.query<EventRow>({
      name: 'es_read_all',
      text: `SELECT ${COLUMNS} FROM es_read_all($1::text::xid8, $2::bigint, $3::int) ORDER BY transaction_id, global_position`,
      values: [after ? after.commit.toString() : null, after ? after.prepare.toString() : null, max],
    });
    return r.rows.map(toRecorded);
  }

  async headPosition(): Promise<Position | null> {
    const r = await this.pool.query<{ global_position: string; commit_text: string }>({
      name: 'es_head_position',
      text: 'SELECT global_position, transaction_id::text AS commit_text FROM es_head_position()',
    });
    const row = r.rows[0];
    return row ? { commit: BigInt(row.commit_text), prepare: BigInt(row.global_position) } : null;
  }

  /** The appending transactions running now in this database: how many, and how long the oldest has been open (s). */
  async openAppends(): Promise<{ appends: number; oldestSeconds: number }> {
    const r = await this.pool.query<{ appends: number; oldest_seconds: number }>('SELECT appends, oldest_seconds FROM es_open_appends()');
    const row = r.rows[0];
    return { appends: row?.appends ?? 0, oldestSeconds: row?.oldest_seconds ?? 0 };
  }

  subscribeToAll(options: SubscribeOptions): SubscriptionHandle {
    if (this.options.listen !== false) this.ensureListening();
    return this.subscriptions.open((after, max) => this.readAll({ after, maxCount: max }), this.wake, options, this.pollMs);
  }

  private ensureListening(): void {
    if (this.listening || this.closed) return;
    this.listening = (async () => {
      try {
        const client = await this.pool.connect();
        if (this.closed) return client.release();
        client.on('notification', () => this.wake.bump());
        client.on('error', () => undefined);
        await client.query(`LISTEN ${NOTIFY_CHANNEL}`);
        this.listener = client;
      } catch {
        // Polling still delivers events; a listener is only a latency optimisation.
        this.listening = null;
      }
    })();
  }

  async verifyStream(streamId: string): Promise<VerifyResult> {
    const events = await this.readStream(streamId);
    return verifyChain(streamId, events);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.notifyTimer) clearTimeout(this.notifyTimer);
    await this.subscriptions.stopAll();
    await this.listening;
    if (this.listener) {
      await this.listener.query(`UNLISTEN ${NOTIFY_CHANNEL}`).catch(() => undefined);
      this.listener.release();
      this.listener = null;
    }
  }
}

/** A caller's transaction wrote before it became an appender (see `beginAppend`): a programming error. */
export class AppendOrderError extends Error {
  readonly code = 'append_order';
  constructor() {
    super('appendWithin/beginAppend: the transaction wrote before it started appending events; call store.beginAppend(client) right after BEGIN');
    this.name = 'AppendOrderError';
  }
}

const codeOf = (error: unknown): string | undefined =>
  typeof error === 'object' && error !== null ? (error as { code?: string }).code : undefined;

const isDeadlock = (error: unknown): boolean => codeOf(error) === '40P01' || codeOf(error) === '40001';

/** A statement of several appends that failed for one of them: each is tried again alone. */
const isRetryableAlone = (error: unknown): boolean =>
  isDeadlock(error) || codeOf(error) === '23505';

const isUniqueViolation = (error: unknown, constraint: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505' && (error as { constraint?: string }).constraint === constraint;
