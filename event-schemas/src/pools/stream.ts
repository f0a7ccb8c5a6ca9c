import type { PoolLifecycleEvent } from './events';
import { poolEvents } from './events';
import {
  escrowEvents,
  listingEvents,
  reservationEvents,
  type PoolEscrowEvent,
  type PoolListingEvent,
  type ReservationEvent,
} from '../reservations/events';
import { escrowFeatureEvents, type EscrowFeatureEvent } from '../escrow/events';
import { poolRelaisEvents, type PoolRelaisEvent } from '../relais/events';

/** Every event a pool stream (`pool-<id>`) holds, in the order they were published. */
export const poolStreamEvents = [...poolEvents, ...reservationEvents, ...escrowEvents, ...listingEvents, ...escrowFeatureEvents, ...poolRelaisEvents] as const;

/** The events a pool stream holds: what the pool aggregate decides and folds, and the pools read model folds. */
export type PoolEvent = PoolLifecycleEvent | ReservationEvent | PoolEscrowEvent | PoolListingEvent | EscrowFeatureEvent | PoolRelaisEvent;
export type PoolEventType = PoolEvent['type'];

const POOL_EVENT_TYPES: ReadonlySet<string> = new Set(poolStreamEvents.map((d) => d.type));
/** Narrows an event of the feed to a pool event (what a pool stream holds). */
export const isPoolEvent = <E extends { type: string }>(e: E): e is Extract<E, PoolEvent> => POOL_EVENT_TYPES.has(e.type);
