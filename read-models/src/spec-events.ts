/** Fixtures of the fold specs: events as a fold sees them, on the streams the command side writes. */
import type { DomainEvent } from '@cagnotte/event-schemas';
import type { FoldEvent } from './shared';

export const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
export const USER = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
export const OTHER_USER = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 9, minute)).toISOString();

/** The event `e` at `revision` of `streamId`. */
export const on = (streamId: string, revision: number, e: DomainEvent): FoldEvent =>
  ({
    ...e,
    schemaVersion: 1,
    metadata: { tenantId: TENANT, actor: { kind: 'user', id: USER }, correlationId: USER, causationId: null, occurredAt: at(0) },
    streamId,
    revision: BigInt(revision),
  }) as FoldEvent;

export const accountStream = (userId = USER) => `account-${userId}`;

/** Folds `events` in order from `start`. */
export const foldAll = <D>(fold: (d: D | null, e: FoldEvent) => D | null, events: FoldEvent[], start: D | null = null): D | null => events.reduce(fold, start);
