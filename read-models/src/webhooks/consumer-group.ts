import type { Knex } from 'knex';
import type { FeedPosition } from './cursor';
import { PUBLIC_EVENTS_CHANNEL, PUBLIC_EVENTS_TABLE, type PublicEventRow } from './feed-table';
import { FEED_COLUMNS, positionOfRow, whereAfter } from './feed-reader';

/**
 * Consumer groups of the public feed (`rm_public_events`): named, checkpointed, at-least-once, shared by several
 * workers (processes). docs/webhooks.md, "Consumer groups".
 *
 * A batch is one transaction: the worker claims the group's row `FOR UPDATE SKIP LOCKED` (a worker that finds it
 * locked waits and tries again: one batch of a group runs at a time, in feed order), reads the next events after
 * the group's position, calls the handler with the transaction, moves the position to the batch's last event and
 * commits. A handler that throws, or a worker that dies mid-batch (its connection drops, the transaction aborts),
 * leaves the position where it was: the next worker gets the same batch. What the handler writes through the
 * transaction is therefore applied exactly once; what it does outside it, at least once.
 *
 * Positions are compared as numbers: (commit xid8, prepare bigint, idx smallint), in SQL row comparisons on the
 * columns themselves, and in JavaScript as bigints; the xid8 travels as text only under a name of its own.
 *
 * Rows of `rm_public_events` are written by one projection, in feed order, under its checkpoint lock
 * (docs/projections.md), so a row never commits below one already visible: the group skips nothing.
 */

export const CONSUMER_GROUPS_TABLE = 'event_consumer_groups';

/**
 * Handles one batch inside the group's transaction. It may answer a function to run once the batch is committed
 * (work that must see the batch's writes, such as queueing jobs that read them); that one runs at most once per
 * committed batch and may be lost with the process, so it must be re-doable from the committed rows.
 */
export type BatchHandler = (events: PublicEventRow[], trx: Knex.Transaction) => Promise<void | (() => Promise<void>)>;

export interface RunOptions {
  batchSize?: number;
  signal?: AbortSignal;
  /** Called when a batch fails (the handler threw, the transaction aborted); the batch is tried again. */
  onError?: (error: unknown) => void;
}

export interface ConsumerGroupOptions {
  /** First wait when the feed has nothing new (ms, default 50); it doubles up to maxPollMs. */
  pollMs?: number;
  /** Longest wait between two reads without a notification (ms, default 2 000). */
  maxPollMs?: number;
  /** LISTEN on PUBLIC_EVENTS_CHANNEL to wake at once (default true); polling alone still delivers everything. */
  listen?: boolean;
}

/** A batch tried by `runOnce`: `locked` when another worker of the group holds it. */
export type BatchResult = { kind: 'handled'; count: number; last: FeedPosition } | { kind: 'empty' } | { kind: 'locked' };

const sleep = (ms: number, signal?: AbortSignal, wake?: { promise: Promise<void> }) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    void wake?.promise.then(done);
  });

export class ConsumerGroup {
  private wake = this.newWake();
  private listener: Promise<{ release: () => Promise<void> } | null> | null = null;
  private listeners = 0;

  constructor(
    private readonly knex: Knex,
    readonly name: string,
    private readonly options: ConsumerGroupOptions = {},
  ) {}

  /** Creates the group if it does not exist: from the start of the feed, or after `from`. An existing group keeps its position. */
  async ensure(from: FeedPosition | null = null): Promise<void> {
    await this.knex.raw(
      `INSERT INTO ${CONSUMER_GROUPS_TABLE} (name, commit_position, prepare_position, idx)
       VALUES (?, ?::text::xid8, ?::bigint, ?::smallint) ON CONFLICT (name) DO NOTHING`,
      [this.name, from ? from.commit.toString() : null, from ? from.prepare.toString() : null, from ? from.idx : null],
    );
  }

  /** The group's position (null: nothing handled yet). */
  async position(): Promise<FeedPosition | null> {
    const r = await this.knex.raw<{ rows: Array<{ commit_text: string | null; prepare_position: string | null; idx: number | null }> }>(
      `SELECT commit_position::text AS commit_text, prepare_position, idx FROM ${CONSUMER_GROUPS_TABLE} WHERE name = ?`,
      [this.name],
    );
    const row = r.rows[0];
    if (!row || row.commit_text === null) return null;
    return { commit: BigInt(row.commit_text), prepare: BigInt(row.prepare_position ?? 0), idx: Number(row.idx ?? 0) };
  }

  /** One batch: claim the group, read, handle, advance, commit. */
  async runOnce(handler: BatchHandler, batchSize = 100): Promise<BatchResult> {
    let after: (() => Promise<void>) | void = undefined;
    const result = await this.knex.transaction(async (trx): Promise<BatchResult> => {
      const claimed = await trx.raw<{ rows: Array<{ commit_text: string | null; prepare_position: string | null; idx: number | null }> }>(
        `SELECT commit_position::text AS commit_text, prepare_position, idx FROM ${CONSUMER_GROUPS_TABLE} WHERE name = ? FOR UPDATE SKIP LOCKED`,
        [this.name],
      );
      const group = claimed.rows[0];
      if (!group) return { kind: 'locked' };
      // The position read under the lock is the latest committed one; the batch follows it, in feed order.
      const position = group.commit_text === null ? null : positionOfRow({ commit_text: group.commit_text, prepare_position: group.prepare_position ?? '0', idx: group.idx ?? 0 });
      const events: PublicEventRow[] = await whereAfter(trx(PUBLIC_EVENTS_TABLE).select(trx.raw(FEED_COLUMNS)), position)
        .orderBy([{ column: 'commit_position' }, { column: 'prepare_position' }, { column: 'idx' }])
        .limit(batchSize);
      if (events.length === 0) return { kind: 'empty' };
      after = await handler(events, trx);
      const last = positionOfRow(events[events.length - 1]!);
      await trx.raw(
        `UPDATE ${CONSUMER_GROUPS_TABLE}
            SET commit_position = ?::text::xid8, prepare_position = ?::bigint, idx = ?::smallint,
                events_handled = events_handled + ?, updated_at = now()
          WHERE name = ?`,
        [last.commit.toString(), last.prepare.toString(), last.idx, events.length, this.name],
      );
      return { kind: 'handled', count: events.length, last };
    });
    if (result.kind === 'handled' && typeof after === 'function') await (after as () => Promise<void>)();
    return result;
  }

  /**
   * Runs batches until `signal` aborts: at once while there is more, else waits for a notification or the poll
   * (doubling from pollMs to maxPollMs). A failed batch is tried again after a pause.
   */
  async run(handler: BatchHandler, options: RunOptions = {}): Promise<void> {
    const { batchSize = 100, signal } = options;
    const pollMs = this.options.pollMs ?? 50;
    const maxPollMs = this.options.maxPollMs ?? 2_000;
    await this.ensure();
    const listening = this.options.listen !== false;
    if (listening) await this.listen();
    let wait = pollMs;
    try {
      while (!signal?.aborted) {
        const wake = this.wake;
        try {
          const r = await this.runOnce(handler, batchSize);
          if (r.kind === 'handled') {
            wait = pollMs;
            continue;
          }
          if (r.kind === 'locked') {
            // Another worker has the batch: try again soon, without growing the wait (it may finish any moment).
            await sleep(pollMs, signal, wake);
            continue;
          }
        } catch (e) {
          options.onError?.(e);
        }
        await sleep(wait, signal, wake);
        wait = Math.min(wait * 2, maxPollMs);
      }
    } finally {
      if (listening) await this.unlisten();
    }
  }

  private newWake() {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  private bump = () => {
    const w = this.wake;
    this.wake = this.newWake();
    w.resolve();
  };

  /** One LISTEN connection per ConsumerGroup object, shared by its runs; a failure leaves polling alone. */
  private async listen(): Promise<void> {
    this.listeners += 1;
    this.listener ??= this.openListener();
    await this.listener;
  }

  private async openListener(): Promise<{ release: () => Promise<void> } | null> {
    try {
      const client = this.knex.client as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
      const conn = await client.acquireConnection();
      conn.on('notification', this.bump);
      await conn.query(`LISTEN ${PUBLIC_EVENTS_CHANNEL}`);
      return {
        release: async () => {
          conn.removeListener('notification', this.bump);
          await conn.query(`UNLISTEN ${PUBLIC_EVENTS_CHANNEL}`).catch(() => undefined);
          await client.releaseConnection(conn);
        },
      };
    } catch {
      return null;
    }
  }

  private async unlisten(): Promise<void> {
    this.listeners -= 1;
    if (this.listeners > 0 || !this.listener) return;
    const l = this.listener;
    this.listener = null;
    await (await l)?.release();
  }
}

interface PgConnection {
  on(event: 'notification', fn: () => void): void;
  removeListener(event: 'notification', fn: () => void): void;
  query(sql: string): Promise<unknown>;
}
