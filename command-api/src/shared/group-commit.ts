import type pg from 'pg';
import { UnavailableError } from '@cagnotte/domain';
import { parseEvent, type DomainEvent, type EventMetadata } from '@cagnotte/event-schemas';
import {
  IDEMPOTENCY_TTL_SECONDS,
  IdempotencyClaim,
  IdempotencyKeyAnswered,
  IdempotencyKeyTakenError,
  PostgresEventStore,
  WrongExpectedRevisionError,
  type AppendResult,
  type EventStore,
  type KeyedAnswer,
  type NewEvent,
  type RouteAnswer,
} from '@cagnotte/infra';
import { positionHeader } from './context';
import { toNewEvents } from './new-events';
import type { Aggregate, CommandOptions, CommandOutcome, CommandRuntime } from './run-command';

/** What runCommand hands back: the command's outcome and its answer (with X-Event-Position when it wrote). */
export type CommandResult<S, E extends DomainEvent = DomainEvent> = CommandOutcome<S, E> & { answer: RouteAnswer | null };

/** One command waiting on its stream's lane, until a batch takes it. */
export interface QueuedCommand<S = unknown, E extends DomainEvent = DomainEvent> {
  aggregate: Aggregate<S, E>;
  decide: (state: S) => E[];
  metadata: EventMetadata;
  options: CommandOptions<S, E>;
  /** Epoch ms: waiting and conflict retries end here (503). */
  until: number;
  resolve: (result: CommandResult<S, E>) => void;
  reject: (error: unknown) => void;
  timer?: NodeJS.Timeout;
  settled?: boolean;
}

/** The most commands one append carries: one fsync answers all of them. */
export const GROUP_COMMIT_CAP = 100;

export const busy = () => new UnavailableError('concurrent_modification', 'The resource is busy with other changes; retry shortly');

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** Full jitter over an exponential ceiling: writers from several processes spread out instead of colliding again. */
const backoff = (attempt: number) => Math.random() * Math.min(250, 10 * 2 ** attempt);

/**
 * The last committed state of recently commanded streams, per aggregate: a batch reads only the events after it
 * (a hot pool holds thousands of reservations; refolding them on every command would make each cost the history).
 * Only the stream's lane touches an entry (batches on a stream take turns), and an entry is dropped the moment an
 * attempt fails: deciding may not change a state, but folding the new events may update it in place (see
 * domain/src/reservations/holdings.ts), so a state whose events did not commit is never kept.
 */
class StateCache {
  private readonly entries = new Map<string, { revision: bigint; state: unknown }>();
  constructor(private readonly capacity: number) {}
  take<S>(key: string): { revision: bigint; state: S } | undefined {
    const hit = this.entries.get(key);
    // Taken out while a batch works on it: nothing else can see a state half-way.
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

/** A stream's commands waiting in this process, and whether a batch loop is running for them. */
interface Lane {
  waiting: QueuedCommand[];
  draining: boolean;
}
/** Per event store (each its own streams), per stream. */
const lanes = new WeakMap<EventStore, Map<string, Lane>>();

const settle = (command: QueuedCommand, outcome: { ok: true; result: CommandResult<unknown> } | { ok: false; error: unknown }) => {
  if (command.settled) return;
  command.settled = true;
  clearTimeout(command.timer);
  if (outcome.ok) command.resolve(outcome.result);
  else command.reject(outcome.error);
};

/**
 * Queues a command on its stream's lane. While a batch of the stream is being decided and appended, the commands
 * that arrive wait; the next batch takes them together. A command whose deadline passes while it waits leaves
 * the lane with a 503.
 */
export const enqueue = (runtime: CommandRuntime, streamId: string, command: QueuedCommand): void => {
  let byStream = lanes.get(runtime.store);
  if (!byStream) lanes.set(runtime.store, (byStream = new Map()));
  let lane = byStream.get(streamId);
  if (!lane) byStream.set(streamId, (lane = { waiting: [], draining: false }));
  const own = lane;
  command.timer = setTimeout(() => {
    const at = own.waiting.indexOf(command);
    if (at < 0) return; // taken by a batch: the batch's deadline rules now
    own.waiting.splice(at, 1);
    settle(command, { ok: false, error: busy() });
  }, Math.max(0, command.until - Date.now()));
  lane.waiting.push(command);
  if (lane.draining) return;
  lane.draining = true;
  // Batches of a stream take turns with anything else on the process's command queue for that stream.
  runtime.commandQueue.run(streamId, () => drain(runtime, streamId, own, byStream), { until: Date.now() + 24 * 3600_000, timeout: busy }).catch((error: unknown) => {
    own.draining = false;
    for (const c of own.waiting.splice(0)) settle(c, { ok: false, error });
  });
};

/** Batch after batch until no command waits; the lane closes in the same tick as it is found empty. */
const drain = async (runtime: CommandRuntime, streamId: string, lane: Lane, byStream: Map<string, Lane>): Promise<void> => {
  while (lane.waiting.length > 0) await runBatch(runtime, streamId, takeBatch(lane.waiting));
  lane.draining = false;
  if (byStream.get(streamId) === lane) byStream.delete(streamId);
};

/**
 * The oldest waiting command and those behind it that can share its append: the same aggregate (one fold), no
 * `within` (rows of other tables run alone), and no Idempotency-Key twice (one row per key).
 */
const takeBatch = (waiting: QueuedCommand[]): QueuedCommand[] => {
  const first = waiting.shift()!;
  const batch = [first];
  if (first.options.within) return batch;
  const keys = new Set<string>();
  const keyOf = (c: QueuedCommand) => (c.options.idempotency ? `${c.options.idempotency.scope}\n${c.options.idempotency.key}` : null);
  if (keyOf(first)) keys.add(keyOf(first)!);
  while (batch.length < GROUP_COMMIT_CAP && waiting.length > 0) {
    const next = waiting[0]!;
    const key = keyOf(next);
    if (next.aggregate !== first.aggregate || next.options.within || (key && keys.has(key))) break;
    if (key) keys.add(key);
    batch.push(waiting.shift()!);
  }
  return batch;
};

/**
 * Runs a batch; when one of its Idempotency-Keys turns out answered by a request that committed first, runs its
 * commands one at a time instead, so that only that one fails (and its route replays the first answer).
 */
const runBatch = async (runtime: CommandRuntime, streamId: string, batch: QueuedCommand[]): Promise<void> => {
  try {
    await commitBatch(runtime, streamId, batch);
  } catch (error) {
    const open = batch.filter((c) => !c.settled);
    if (error instanceof IdempotencyKeyAnswered && open.length > 1) {
      for (const command of open) await runBatch(runtime, streamId, [command]);
      return;
    }
    for (const command of open) settle(command, { ok: false, error });
  }
};

interface Decided {
  command: QueuedCommand;
  /** null: refused (error) or answered without events; else its events, stamped. */
  written: NewEvent[] | null;
  /** Index of the command's last event in the batch's append. */
  lastEvent: number;
  outcome: CommandOutcome<unknown>;
  answer: RouteAnswer | null;
  error?: unknown;
}

/**
 * Read the tail once, decide each command in arrival order on the state folded so far, append every accepted
 * command's events in one append with one expected revision. A refusal refuses only its command. Another process
 * appending first (WrongExpectedRevision) makes the whole batch decided again on the fresh tail, after a jittered
 * pause, until each command's deadline.
 */
const commitBatch = async (runtime: CommandRuntime, streamId: string, batch: QueuedCommand[]): Promise<void> => {
  const aggregate = batch[0]!.aggregate;
  const cache = cacheFor(runtime.store, aggregate);
  let live = batch.filter((c) => !c.settled);
  for (let attempt = 1; live.length > 0; attempt++) {
    const cached = cache.take<unknown>(streamId);
    const recorded = await runtime.store.readStream(streamId, cached ? { fromRevision: cached.revision + 1n } : {});
    // A stream holds only events its aggregates fold (the stream name says which), so the cast is the stream's contract.
    let state = recorded.map((r) => parseEvent(r)).reduce(aggregate.evolve, cached ? cached.state : aggregate.initial());
    const head = recorded.length === 0 ? (cached?.revision ?? -1n) : recorded[recorded.length - 1]!.revision;
    const decided: Decided[] = [];
    let revision = head;
    let events = 0;
    let foldedWrong: QueuedCommand | null = null;
    for (const command of live) {
      let made: DomainEvent[];
      try {
        made = command.decide(state);
      } catch (refusal) {
        // Deciding changes no state: the next command is decided on the state as it was.
        decided.push({ command, written: null, lastEvent: -1, outcome: { state, events: [], position: null, revision }, answer: null, error: refusal });
        continue;
      }
      let written: NewEvent[] | null = null;
      if (made.length > 0) {
        try {
          written = toNewEvents(made, command.metadata);
        } catch (bug) {
          decided.push({ command, written: null, lastEvent: -1, outcome: { state, events: [], position: null, revision }, answer: null, error: bug });
          continue;
        }
        state = made.reduce(aggregate.evolve, state);
        revision += BigInt(made.length);
        events += made.length;
      }
      const outcome: CommandOutcome<unknown> = { state, events: made, position: null, revision };
      // Answered now: a later command of the batch may update this state in place.
      let answer: RouteAnswer | null;
      try {
        answer = command.options.respond ? command.options.respond(outcome) : null;
      } catch (error) {
        if (written) {
          // Its events are folded already: this command fails, and the batch starts over without it.
          settle(command, { ok: false, error });
          foldedWrong = command;
          break;
        }
        decided.push({ command, written: null, lastEvent: -1, outcome, answer: null, error });
        continue;
      }
      decided.push({ command, written, lastEvent: events - 1, outcome, answer });
    }
    if (foldedWrong) {
      live = live.filter((c) => c !== foldedWrong);
      continue;
    }
    const firstWriter = decided.findIndex((d) => d.written);
    if (firstWriter < 0) {
      cache.put(streamId, head, state);
      for (const d of decided) finish(d);
      return;
    }
    try {
      await appendBatch(runtime, streamId, head, decided);
    } catch (error) {
      if (error instanceof WrongExpectedRevisionError) {
        const now = Date.now();
        for (const c of live) if (c.until <= now) settle(c, { ok: false, error: busy() });
        live = live.filter((c) => !c.settled);
        if (live.length > 0) await sleep(backoff(attempt));
        continue;
      }
      if (error instanceof IdempotencyKeyAnswered && live.length > 1) throw error;
      // Commands decided before the first writer saw only committed state: their answers stand. The others saw
      // events that did not commit, and fail with them.
      decided.forEach((d, i) => (i < firstWriter ? finish(d) : settle(d.command, { ok: false, error })));
      return;
    }
    cache.put(streamId, revision, state);
    for (const d of decided) finish(d);
    return;
  }
};

const finish = (d: Decided) =>
  settle(d.command, 'error' in d ? { ok: false, error: d.error } : { ok: true, result: { ...d.outcome, answer: d.answer } });


/**
 * One append for every accepted command, then each command's position (its last event's; the batch's last when
 * the store reports no more, which is at or after its own) and its answer with X-Event-Position. The keys'
 * answers are written with the events, all or none: in the append's statement (PostgresEventStore's `answers`),
 * or with `within` rows in one transaction of ours.
 */
const appendBatch = async (runtime: CommandRuntime, streamId: string, head: bigint, decided: Decided[]): Promise<void> => {
  const writers = decided.filter((d) => d.written);
  const events = writers.flatMap((d) => d.written!);
  const expectedRevision = head < 0n ? ('no_stream' as const) : head;
  const place = (result: AppendResult) => {
    for (const d of writers) {
      const position = result.positions?.[d.lastEvent] ?? result.position;
      d.outcome = { ...d.outcome, position };
      if (d.answer) d.answer = { ...d.answer, headers: { ...d.answer.headers, ...positionHeader(position) } };
    }
  };
  const claims = writers.filter((d) => d.command.options.idempotency && d.command.options.respond);
  const within = decided.length === 1 ? decided[0]!.command.options.within : undefined;
  const store = runtime.store;
  if (!(store instanceof PostgresEventStore)) {
    // No shared transaction (EventStoreDB): the route keeps each answer right after (docs/idempotency.md, Limits).
    place(await store.append(streamId, events, { expectedRevision }));
    return;
  }
  if (within) {
    // Rows of other tables: one transaction of ours, the events first, then the rows, then the key's answer.
    await inTransaction(runtime.pgPool, async (client) => {
      place(await store.appendWithin(client, streamId, events, { expectedRevision }));
      await within(client);
      await IdempotencyClaim.recordAllWithin(
        client,
        claims.map((d) => ({ claim: d.command.options.idempotency!, answer: d.command.options.idempotency!.answerOf(d.answer!) })),
      );
    });
    store.signalAppended();
    for (const d of claims) d.command.options.idempotency!.committed();
    return;
  }
  // The answers go in the append's own statement; its SQL sets each one's X-Event-Position to its last event's.
  const answers: KeyedAnswer[] = claims.map((d) => {
    const claim = d.command.options.idempotency!;
    const { status, body, headers } = claim.answerOf(d.answer!);
    return { scope: claim.scope, key: claim.key, fingerprint: claim.fingerprint, status, body, headers, ttlSeconds: IDEMPOTENCY_TTL_SECONDS, lastEvent: d.lastEvent };
  });
  try {
    place(await store.append(streamId, events, { expectedRevision, answers }));
  } catch (error) {
    // Nothing of the append was written: the batch's fallback (one at a time) finds which key it was.
    if (error instanceof IdempotencyKeyTakenError) throw new IdempotencyKeyAnswered();
    throw error;
  }
  for (const d of claims) d.command.options.idempotency!.keptWith(d.command.options.idempotency!.answerOf(d.answer!));
};

/** BEGIN, the work, COMMIT; ROLLBACK on any failure (a connection that cannot roll back is dropped from the pool). */
const inTransaction = async (pool: pg.Pool, work: (client: pg.ClientBase) => Promise<void>): Promise<void> => {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    await work(client);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw error;
  } finally {
    client.release(broken);
  }
};
