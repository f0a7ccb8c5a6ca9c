import type pg from 'pg';
import { parseEvent, type DomainEvent, type EventMetadata } from '@cagnotte/event-schemas';
import { PostgresEventStore, type EventStore, type IdempotencyClaim, type KeyedQueue, type Position, type RouteAnswer } from '@cagnotte/infra';
import { enqueue, type CommandResult, type QueuedCommand } from './group-commit';

/** An aggregate's fold over its own event union E (a member of DomainEvent): what runCommand rebuilds the state with. */
export interface Aggregate<S, E extends DomainEvent = DomainEvent> {
  initial: () => S;
  evolve: (state: S, event: E) => S;
}

export interface CommandOutcome<S, E extends DomainEvent = DomainEvent> {
  /**
   * The state after the new events: the state as of this command's own revision when `respond` sees it. Commands
   * decided after it in the same group commit may update it in place, so render the answer in `respond`.
   */
  state: S;
  events: E[];
  /**
   * Where the command's last event sits in the feed (at or after it: the batch's last when the store does not say
   * more); null when the command changed nothing, and always null in `respond` (the engine adds X-Event-Position
   * to the answer of a command that wrote).
   */
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
   * Renders the route's answer from the outcome, right after the command's events are folded (before the append:
   * `position` is null). The engine adds `X-Event-Position` once the events are appended. With an idempotency
   * claim the answer is written with the events, so a retry after a crash replays exactly what the first request
   * would have answered.
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

/** Queueing and conflict retries together stay under this; then 503, and the client retries (with its key). */
export const COMMAND_DEADLINE_MS = 10_000;

/**
 * Read, fold, decide, append with the expected revision, by group commit (./group-commit.ts). Commands on one
 * stream queue in this process; while one append is in flight the commands behind it gather, and the next batch
 * takes them together (up to GROUP_COMMIT_CAP): the tail is read once, each is decided in arrival order on the
 * state its predecessors left (a refusal refuses only its command), answered by `respond` right then, and all
 * their events go in one append, one fsync. Each command still gets its own revision, position and answer, and
 * with an Idempotency-Key its own row, in the events' transaction. Another process may still append first: then
 * the whole batch is decided again on the fresh stream, after a jittered pause, until the deadline (then 503). A
 * command with `within` runs alone.
 */
export const runCommand = <S, E extends DomainEvent = DomainEvent>(
  runtime: CommandRuntime,
  streamId: string,
  aggregate: Aggregate<S, E>,
  decide: (state: S) => E[],
  metadata: EventMetadata,
  options: CommandOptions<S, E> = {},
): Promise<CommandResult<S, E>> => {
  if (options.within && !sharesTransactions(runtime.store)) return Promise.reject(new Error('runCommand: `within` needs an event store that shares transactions'));
  const until = Date.now() + (options.deadlineMs ?? COMMAND_DEADLINE_MS);
  return new Promise<CommandResult<S, E>>((resolve, reject) => {
    const command: QueuedCommand<S, E> = { aggregate, decide, metadata, options, until, resolve, reject };
    // The lane holds commands of any aggregate; a batch folds only commands of one (takeBatch).
    enqueue(runtime, streamId, command as unknown as QueuedCommand);
  });
};
