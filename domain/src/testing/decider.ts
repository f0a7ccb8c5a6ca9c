import * as assert from 'uvu/assert';
import { eventRegistry, type DomainEvent } from '@cagnotte/event-schemas';
import type { AppError } from '../errors';

/**
 * given / when / then for a decider, in unit specs: the history is replayed through the aggregate's stream fold
 * (so events of other aggregates in the same stream are skipped, as in production), and every event, given or
 * decided, must pass its published schema: a decider must never produce what the store would refuse.
 */
export interface DeciderUnderTest<S, C, E extends DomainEvent> {
  initial: () => S;
  evolve: (state: S, event: DomainEvent) => S;
  decide: (command: C, state: S) => E[];
}

const metadata = {
  tenantId: '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01',
  actor: { kind: 'system', id: 'spec' },
  correlationId: '11111111-2222-4333-8444-555555555555',
  causationId: null,
  occurredAt: '2026-01-01T09:00:00+01:00',
};

export const assertStorable = (events: DomainEvent[]): void => {
  for (const e of events) {
    try {
      eventRegistry.parse({ type: e.type, schemaVersion: eventRegistry.currentVersion(e.type), data: e.data, metadata });
    } catch (error) {
      assert.unreachable(`${e.type} does not match its schema: ${(error as Error).message} ${JSON.stringify((error as { issues?: unknown }).issues)}`);
    }
  }
};

type ErrorClass<E extends AppError> = new (...args: never[]) => E;

export const deciderSpec = <S, C, E extends DomainEvent>(d: DeciderUnderTest<S, C, E>) => {
  const fold = (events: DomainEvent[]): S => {
    assertStorable(events);
    return events.reduce(d.evolve, d.initial());
  };
  const given = (...history: DomainEvent[]) => ({
    state: () => fold(history),
    when: (command: C) => ({
      then: (expected: E[]): S => {
        const actual = d.decide(command, fold(history));
        assert.equal(actual, expected);
        assertStorable(actual);
        return fold([...history, ...actual]);
      },
      /** Asserts the decision throws an ErrorClass with that code, and hands the error back for more checks. */
      thenThrows: <X extends AppError>(errorClass: ErrorClass<X>, code: string): X => {
        try {
          d.decide(command, fold(history));
        } catch (error) {
          assert.instance(error, errorClass, `expected ${errorClass.name}, got ${String(error)}`);
          assert.is((error as X).code, code);
          return error as X;
        }
        return assert.unreachable(`expected ${errorClass.name} ${code}`) as never;
      },
    }),
  });
  return { given, fold };
};
