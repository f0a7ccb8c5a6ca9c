import type pg from 'pg';
import { UnavailableError } from '@cagnotte/domain';
import { parseEvent, type DomainEvent, type EventMetadata } from '@cagnotte/event-schemas';
import { toNewEvents } from './new-events';
import {
  PostgresEventStore,
  WrongExpectedRevisionError,
  type EventStore,
  type IdempotencyClaim,
  type KeyedQueue,
  type NewEvent,
  type Position,
  type RouteAnswer,
} from '@cagnotte/infra';

/** An aggregate's fold over its own event union E (a member of DomainEvent): what runCommand rebuilds the state with. */
export interface Aggregate<S, E extends DomainEvent = DomainEvent> {
  initial: () => S;
  evolve: (state: S, event: E) => S;
}

export interface CommandOutcome<S, E extends DomainEvent = DomainEvent> {
  /** The state after the new events: the state as of this command's own revision. */
  state: S;
  events: E[];
  /** Where the last new event sits in the feed; null when the command changed nothing. */
  position: Position | null;
  /** The stream's revision after the command (its own last event), or the current one when it changed nothing; -1 for no stream. */
  revision: bigint;
}

/** What a command needs from the process: the event store, its connection pool (shared transactions), the per-stream queue. */
export interface CommandRuntime {
  store: EventStore;
  pgPool: pg.Pool;
  commandQueue: KeyedQueue;
}

export interface CommandOptions<S, E extends DomainEvent = DomainEvent> {
  /**
   * Renders the route's answer from the outcome. With an idempotency claim it is computed before the commit and
   * written with the events, so a retry after a crash replays exactly what the first request would have answered.
   */
  respond?: (outcome: CommandOutcome<S, E>) => RouteAnswer;
  /** The request's Idempotency-Key (ctx.idempotency). */
  idempotency?: IdempotencyClaim | null;
  /** How long the command may wait for its turn and retry conflicts with other processes (ms). */
  deadlineMs?: number;
  /**
   * Rows of other tables that must commit or roll back with the events (a new account's credentials), written in
   * the events' transaction right after them. Only the Postgres event store shares a transaction: callers check
   * `sharesTransactions(store)` and do without otherwise (runCommand refuses `within` then).
   */
  within?: (client: pg.ClientBase) => Promise<void>;
}

/** Whether the event store can append inside a transaction of ours (the Postgres store; not EventStoreDB). */
export const sharesTransactions = (store: EventStore): store is PostgresEventStore => store instanceof PostgresEventStore;

/** A stream's events as they read now, parsed (upcast and validated). */
export const readEvents = async (store: EventStore, streamId: string): Promise<DomainEvent[]> => (await store.readStream(streamId)).map((r) => parseEvent(r));

/** An aggregate's state folded from a stream's events (read once, folded by as many aggregates as need them). */
export const foldEvents = <S, E extends DomainEvent>(events: DomainEvent[], aggregate: Aggregate<S, E>): S =>
  // A stream holds only events its aggregates fold (the stream name says which), so the cast is the stream's contract.
  (events as unknown as E[]).reduce(aggregate.evolve, aggregate.initial());

/** The state of an aggregate as its stream says now: read and fold, for what a route must know before it commands. */
export const loadState = async <S, E extends DomainEvent>(store: EventStore, streamId: string, aggregate: Aggregate<S, E>): Promise<S> =>
  foldEvents(await readEvents(store, streamId), aggregate);

/**
 * The last committed state of recently commanded streams, per aggregate: a command reads only the events after it
 * (a hot pool holds thousands of reservations; refolding them on every command would make each cost the history).
 * Only this process's command queue touches an entry (commands on a stream take turns), and an entry is dropped the
 * moment an attempt fails: deciding may not change a state, but folding the new events may update it in place
 * (see domain/src/reservations/holdings.ts), so a state whose events did not commit is never kept.
 */
class StateCache {
  private readonly entries = new Map<string, { revision: bigint; state: unknown }>();
  constructor(private readonly capacity: number) {}
  take<S>(key: string): { revision: bigint; state: S } | undefined {
    const hit = this.entries.get(key);
    // Taken out while a command works on it: nothing else can see a state half-way.
    if (hit) this.entries.delete(key);
    return hit as { revision: bigint; state: S } | undefined;
  }
  put(key: string, revision: bigint, state: unknown): void {
    this.entries.set(key, { revision, state });
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
  }
}
const caches = new WeakMap<object, WeakMap<object, StateCache>>();
const cacheFor = (store: EventStore, aggregate: object): StateCache => {
  let byAggregate = caches.get(store);
  if (!byAggregate) caches.set(store, (byAggregate = new WeakMap()));
  let cache = byAggregate.get(aggregate);
  if (!cache) byAggregate.set(aggregate, (cache = new StateCache(2_000)));
  return cache;
};

/** Queueing and conflict retries together stay under this; then 503, and the client retries (with its key). */
export const COMMAND_DEADLINE_MS = 10_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Full jitter over an exponential ceiling: writers from several processes spread out instead of colliding again. */
const backoff = (attempt: number) => Math.random() * Math.min(250, 10 * 2 ** attempt);

const busy = () => new UnavailableError('concurrent_modification', 'The resource is busy with other changes; retry shortly');

/**
 * Read, fold, decide, append with the expected revision. Commands on one stream take turns in this process, so
 * each is decided on the state its predecessor left and none fails for having raced it. Another process may
 * still append first: then the whole cycle runs again on the fresh stream, after a jittered pause, until the
 * deadline (then 503). With an Idempotency-Key, the events and the answer commit in one transaction.
 */
export const runCommand = async <S, E extends DomainEvent = DomainEvent>(
  runtime: CommandRuntime,
  streamId: string,
  aggregate: Aggregate<S, E>,
  decide: (state: S) => E[],
  metadata: EventMetadata,
  options: CommandOptions<S, E> = {},
): Promise<CommandOutcome<S, E> & { answer: RouteAnswer | null }> => {
  if (options.within && !sharesTransactions(runtime.store)) throw new Error('runCommand: `within` needs an event store that shares transactions');
  const until = Date.now() + (options.deadlineMs ?? COMMAND_DEADLINE_MS);
  const withAnswer = (outcome: CommandOutcome<S, E>) => ({ ...outcome, answer: options.respond ? options.respond(outcome) : null });
  return runtime.commandQueue.run(
    streamId,
    async () => {
      const cache = cacheFor(runtime.store, aggregate);
      for (let attempt = 1; ; attempt++) {
        const cached = cache.take<S>(streamId);
        const recorded = await runtime.store.readStream(streamId, cached ? { fromRevision: cached.revision + 1n } : {});
        // A stream holds only events its aggregates fold (the stream name says which), so the cast is the stream's contract.
        const state = recorded.map((r) => parseEvent(r) as unknown as E).reduce(aggregate.evolve, cached ? cached.state : aggregate.initial());
        const head = recorded.length === 0 ? (cached?.revision ?? -1n) : recorded[recorded.length - 1]!.revision;
        let events: E[];
        try {
          events = decide(state);
        } catch (refusal) {
          // Deciding changes no state: a refused command leaves the committed state as it was.
          cache.put(streamId, head, state);
          throw refusal;
        }
        if (events.length === 0) {
          cache.put(streamId, head, state);
          return withAnswer({ state, events, position: null, revision: head });
        }
        const expectedRevision = head < 0n ? ('no_stream' as const) : head;
        const after = events.reduce(aggregate.evolve, state);
        const newEvents = toNewEvents(events, metadata);
        try {
          const claim = options.idempotency && options.respond ? options.idempotency : null;
          let outcome: CommandOutcome<S, E> & { answer: RouteAnswer | null };
          if ((claim || options.within) && sharesTransactions(runtime.store)) {
            outcome = await appendInTransaction(runtime.pgPool, runtime.store, streamId, newEvents, expectedRevision, { claim, within: options.within }, (position, revision) =>
              withAnswer({ state: after, events, position, revision }),
            );
          } else {
            const result = await runtime.store.append(streamId, newEvents, { expectedRevision });
            outcome = withAnswer({ state: after, events, position: result.position, revision: result.nextExpectedRevision });
          }
          cache.put(streamId, outcome.revision, after);
          return outcome;
        } catch (error) {
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
          if (Date.now() >= until) throw busy();
          await sleep(backoff(attempt));
        }
      }
    },
    { until, timeout: busy },
  );
};

/**
 * One transaction: the events first (appendWithin must be the transaction's first write), then the rows that go
 * with them (`within`), then the request's answer under its Idempotency-Key. All commit or none does; a request
 * with the same key that committed first makes recordWithin throw, and this one rolls back.
 */
const appendInTransaction = async <T extends { answer: RouteAnswer | null }>(
  pool: pg.Pool,
  store: PostgresEventStore,
  streamId: string,
  events: NewEvent[],
  expectedRevision: bigint | 'no_stream',
  also: { claim: IdempotencyClaim | null; within?: ((client: pg.ClientBase) => Promise<void>) | undefined },
  outcomeAt: (position: Position, revision: bigint) => T,
): Promise<T> => {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await store.appendWithin(client, streamId, events, { expectedRevision });
    if (also.within) await also.within(client);
    const outcome = outcomeAt(result.position, result.nextExpectedRevision);
    if (also.claim) await also.claim.recordWithin(client, also.claim.answerOf(outcome.answer!));
    await client.query('COMMIT');
    store.signalAppended();
    also.claim?.committed();
    return outcome;
  } catch (error) {
    // A connection that cannot even roll back is dropped from the pool, not handed to the next request.
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw error;
  } finally {
    client.release(broken);
  }
};
