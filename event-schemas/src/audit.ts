import { escrowFeatureEvents } from './escrow/events';

/**
 * The event types an escrow's history is made of (GET /api/pools/{id}/escrow/history, `pnpm cli pool history
 * --escrow`): how the escrow was opened and every deposit it received. A set of names and not a union: the history
 * is read from stored events, whatever their schema, so a type added here needs no other change to be listed.
 */
export const ESCROW_HISTORY_TYPES: ReadonlySet<string> = new Set([
  'PoolPublished',
  'PoolEscrowOpened',
  'ReservationPaid',
  'ReservationLatePaymentReceived',
  // Closing, receipts, disputes and every settlement step (event-schemas/src/escrow/events.ts).
  ...escrowFeatureEvents.map((d) => d.type),
]);
