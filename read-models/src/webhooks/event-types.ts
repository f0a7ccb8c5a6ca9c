/**
 * The names of the public event types a webhook endpoint can subscribe to.
 *
 * Stand-in until the catalogue (read-models/src/webhooks/catalogue.ts, `PUBLIC_EVENT_TYPES`) is merged: then this list
 * becomes `PUBLIC_EVENT_TYPES` itself, so one list decides what exists (STYLE rule 11). The names are the catalogue's.
 */
export const PUBLIC_EVENT_TYPE_NAMES: readonly string[] = [
  'pool.created',
  'pool.updated',
  'pool.published',
  'pool.closed',
  'pool.cancelled',
  'pool.delivered',
  'pool.settled',
  'pool.archived',
  'pool.unarchived',
  'pool.visibility_changed',
  'pool.listed',
  'pool.listing_fee_refunded',
  'escrow.opened',
  'reservation.placed',
  'reservation.signed',
  'reservation.paid',
  'reservation.expired',
  'reservation.cancelled',
  'reservation.late_payment_received',
  'reservation.accepted',
  'reservation.settled',
  'dispute.opened',
  'dispute.contested',
  'dispute.resolved',
  'settlement.prepared',
  'release.settled',
  'payout.settled',
  'refund.settled',
  'stray_payment.received',
  'invoice.issued',
];

/**
 * What an `enabledEvents` entry may be: `*` (every type), `<prefix>.*` (every type of one resource, `reservation.*`)
 * or one known type. Returns why an entry is refused, or null. A prefix must name types that exist today: a typo
 * (`reservaton.*`) would otherwise subscribe to nothing, silently.
 */
export const enabledEventProblem = (entry: string, known: readonly string[] = PUBLIC_EVENT_TYPE_NAMES): string | null => {
  if (entry === '*') return null;
  if (entry.endsWith('.*')) {
    const prefix = entry.slice(0, -1);
    return /^[a-z][a-z_]*\.$/.test(prefix) && known.some((t) => t.startsWith(prefix)) ? null : `no event type starts with '${prefix}'`;
  }
  return known.includes(entry) ? null : `unknown event type '${entry}' (GET /v1/events/types lists them)`;
};
