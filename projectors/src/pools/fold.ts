import { evolvePool, jsonEqual, type ExistingPool } from '@cagnotte/domain';
import type { DomainEvent, RelaisPoint } from '@cagnotte/event-schemas';

export interface PoolDoc {
  pool: ExistingPool;
  /** Stream revision of the last event folded in: replays at or below it change nothing. */
  revision: bigint;
}

/** Pure and replay-safe: an event already folded (revision ≤ doc.revision) returns the doc unchanged. */
export const foldPoolDoc = (doc: PoolDoc | null, event: DomainEvent, revision: bigint): PoolDoc | null => {
  if (doc && revision <= doc.revision) return doc;
  if (!doc && event.type !== 'PoolCreated') return null;
  const next = evolvePool(doc ? doc.pool : { status: 'none' }, event);
  return next.status === 'none' ? null : { pool: next, revision };
};

/** GROUPS pools show one pick-up point row per `config.relais` entry, in order; FUNDING pools none. */
export const pickupPointsOf = (pool: ExistingPool): RelaisPoint[] => (pool.type === 'GROUPS' ? (pool.fields.config.relais ?? []) : []);

/** Key order does not count: the "before" doc comes back from jsonb, which reorders keys. */
export const relaisChanged = (before: PoolDoc | null, after: PoolDoc): boolean =>
  !jsonEqual(before ? pickupPointsOf(before.pool) : [], pickupPointsOf(after.pool));
