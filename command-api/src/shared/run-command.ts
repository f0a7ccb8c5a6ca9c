import { ConflictError } from '@cagnotte/domain';
import { parseEvent, type DomainEvent, type EventMetadata } from '@cagnotte/event-schemas';
import { toNewEvents } from './new-events';
import { WrongExpectedRevisionError, type EventStore, type Position } from '@cagnotte/infra';

export interface Aggregate<S> {
  initial: () => S;
  evolve: (state: S, event: DomainEvent) => S;
}

export interface CommandOutcome<S> {
  /** The state after the new events. */
  state: S;
  events: DomainEvent[];
  /** Where the last new event sits in the feed; null when the command changed nothing. */
  position: Position | null;
}

/**
 * Read, fold, decide, append with the expected revision. A concurrent writer makes the append fail:
 * the whole cycle runs again on the fresh stream, a few times, then the caller gets a 409.
 */
export const runCommand = async <S>(
  store: EventStore,
  streamId: string,
  aggregate: Aggregate<S>,
  decide: (state: S) => DomainEvent[],
  metadata: EventMetadata,
  attempts = 4,
): Promise<CommandOutcome<S>> => {
  for (let attempt = 1; ; attempt++) {
    const recorded = await store.readStream(streamId);
    const state = recorded.map((r) => parseEvent(r) as DomainEvent).reduce(aggregate.evolve, aggregate.initial());
    const events = decide(state);
    if (events.length === 0) return { state, events, position: null };
    const expectedRevision = recorded.length === 0 ? ('no_stream' as const) : recorded[recorded.length - 1]!.revision;
    try {
      const result = await store.append(streamId, toNewEvents(events, metadata), { expectedRevision });
      return { state: events.reduce(aggregate.evolve, state), events, position: result.position };
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= attempts) throw new ConflictError('concurrent_modification', 'The resource was changed concurrently; retry');
    }
  }
};
