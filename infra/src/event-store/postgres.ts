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
}

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

  constructor(private readonly options: PostgresEventStoreOptions) {
    this.pool = options.pool;
    this.pollMs = options.pollMs ?? 250;
  }

  async append(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    if (events.length === 0) throw new Error('append needs at least one event');
    const fast = await this.appendOptimistic(streamId, events, options.expectedRevision);
    if (fast) {
      this.signalAppended();
      return fast;
    }
    return this.appendLocked(streamId, events, options);
  }

  private remember(streamId: string, revision: bigint, hash: string): void {
    this.heads.delete(streamId);
    this.heads.set(streamId, { revision, hash });
    if (this.heads.size > this.maxHeads) this.heads.delete(this.heads.keys().next().value!);
  }

  /**
   * One autocommit statement, when the head is known: move the head only if it is still where we think,
   * and insert the events only if the head moved. Returns null when that cannot be decided here (unknown
   * head, stale cache, a conflict, a retried append): the locking path then answers precisely.
   */
  private async appendOptimistic(streamId: string, events: NewEvent[], expected: ExpectedRevision): Promise<AppendResult | null> {
    let head: { revision: bigint; hash: string } | null;
    if (expected === 'no_stream') head = null;
    else {
      const known = this.heads.get(streamId);
      if (!known || (typeof expected === 'bigint' && known.revision !== expected)) return null;
      head = known;
    }
    const rows = this.chain(streamId, events, head?.revision ?? -1n, head?.hash ?? null);
    const last = rows.revisions.length - 1;
    const moveHead = head
      ? `UPDATE es_streams SET revision = $10, last_hash = $11, updated_at = now() WHERE stream_id = $1 AND revision = $12 RETURNING 1`
      : `INSERT INTO es_streams (stream_id, revision, last_hash) VALUES ($1, $10, $11) ON CONFLICT (stream_id) DO NOTHING RETURNING 1`;
    let result;
    try {
      result = await this.pool.query<{ global_position: string | null; commit_text: string }>({
        // Named: prepared once per connection, so the plan of this hot statement is not rebuilt per append.
        name: head ? 'es_append_existing' : 'es_append_new',
        text: `WITH head AS (${moveHead}), ins AS (
           INSERT INTO es_events (stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash)
           SELECT $1, r, i, t, v, d, m, p, h
           FROM unnest($2::bigint[], $3::uuid[], $4::text[], $5::int[], $6::jsonb[], $7::jsonb[], $8::text[], $9::text[]) AS x(r, i, t, v, d, m, p, h)
           WHERE EXISTS (SELECT 1 FROM head)
           RETURNING global_position
         )
         SELECT max(global_position)::text AS global_position, pg_current_xact_id()::text AS commit_text FROM ins`,
        values: [
          streamId, rows.revisions, rows.ids, rows.types, rows.versions, rows.datas, rows.metas, rows.prevs, rows.hashes,
          rows.revisions[last], rows.hashes[last], ...(head ? [head.revision.toString()] : []),
        ],
      });
    } catch (error) {
      if (isUniqueViolation(error, 'es_events_event_id_key')) return null;
      throw error;
    }
    const row = result.rows[0];
    if (!row || row.global_position === null) {
      this.heads.delete(streamId);
      return null;
    }
    const revision = BigInt(rows.revisions[last]!);
    this.remember(streamId, revision, rows.hashes[last]!);
    return { nextExpectedRevision: revision, position: { commit: BigInt(row.commit_text), prepare: BigInt(row.global_position) } };
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
  private async appendLocked(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.appendLockedOnce(streamId, events, options);
      } catch (error) {
        if (!(error instanceof StreamOrderError) || attempt >= 10) throw error;
      }
    }
  }

  private async appendLockedOnce(streamId: string, events: NewEvent[], options: { expectedRevision: ExpectedRevision }): Promise<AppendResult> {
    const client = await this.pool.connect();
    try {
      // One round trip: the transaction joins the appenders before anything gives it an id (FOR UPDATE would).
      await client.query('BEGIN; SELECT es_begin_append()');
      const { result, lastHash } = await this.writeWithin(client, streamId, events, options.expectedRevision);
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
    const inserted = await client.query<{ global_position: string; commit_text: string }>(
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
       SELECT max(global_position)::text AS global_position, pg_current_xact_id()::text AS commit_text FROM ins`,
      [streamId, rows.revisions, rows.ids, rows.types, rows.versions, rows.datas, rows.metas, rows.prevs, rows.hashes, revision.toString(), prev],
    );
    const row = inserted.rows[0]!;
    return { result: { nextExpectedRevision: revision, position: { commit: BigInt(row.commit_text), prepare: BigInt(row.global_position) } }, lastHash: prev };
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

const isUniqueViolation = (error: unknown, constraint: string): boolean =>
  typeof error === 'object' && error !== null && (error as { code?: string }).code === '23505' && (error as { constraint?: string }).constraint === constraint;
