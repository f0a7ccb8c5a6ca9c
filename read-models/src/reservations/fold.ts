import type { PoolEvent, ReservationEvent } from '@cagnotte/event-schemas';
import type { ReservationFacts } from './view';
import { factsOfRow, type ReservationRow } from './tables';

/**
 * The reservations read model's document of one reservation: the facts a view renders, the tenant it belongs to
 * (from the event's metadata: reservation events do not carry it), and the pool stream revision of the last event
 * folded in.
 */
export interface ReservationDoc {
  facts: ReservationFacts;
  tenantId: string;
  revision: bigint;
}

const RESERVATION_TYPES: ReadonlySet<string> = new Set<ReservationEvent['type']>([
  'ReservationPlaced',
  'ReservationSigned',
  'ReservationPaid',
  'ReservationExpired',
  'ReservationCancelled',
  'ReservationLatePaymentReceived',
]);

/** Narrows a pool event (or any event of the feed) to a reservation event. */
export const isReservationEvent = <E extends { type: string }>(e: E): e is Extract<E, ReservationEvent> => RESERVATION_TYPES.has(e.type);

const iso = (s: string) => new Date(s).toISOString();

/** `never`: the switch below is exhaustive over ReservationEvent. */
const unknownEvent = (_event: never, facts: ReservationFacts): ReservationFacts => facts;

const evolve = (r: ReservationFacts, event: ReservationEvent): ReservationFacts => {
  switch (event.type) {
    case 'ReservationPlaced':
      return r;
    case 'ReservationSigned': {
      const { terms, escrowAccount, reclaimAfter, source } = event.data;
      return { ...r, signed: { terms: { version: terms.version, hash: terms.hash }, escrowAccount, reclaimAfter: iso(reclaimAfter), source } };
    }
    case 'ReservationPaid': {
      const { txHash, ledger, balanceId, amount, via, paidAt } = event.data;
      return { ...r, status: 'PAID', payment: { txHash, ledger, balanceId, amount, paidAt: iso(paidAt), via } };
    }
    // As the pool's aggregate folds them (domain/src/reservations/evolve.ts): the last end recorded wins.
    case 'ReservationExpired':
      return { ...r, status: 'EXPIRED', endedAt: iso(event.data.expiredAt) };
    case 'ReservationCancelled':
      return { ...r, status: 'CANCELLED', endedAt: iso(event.data.cancelledAt) };
    case 'ReservationLatePaymentReceived': {
      const { txHash, ledger, balanceId, amount, receivedAt } = event.data;
      return { ...r, latePayments: [...r.latePayments, { txHash, ledger, balanceId, amount, receivedAt: iso(receivedAt) }] };
    }
    default:
      return unknownEvent(event, r);
  }
};

const placed = (event: Extract<ReservationEvent, { type: 'ReservationPlaced' }>): ReservationFacts => {
  const d = event.data;
  return {
    id: d.reservationId,
    poolId: d.poolId,
    buyerId: d.buyerId,
    buyerName: d.buyerName,
    status: 'PENDING',
    lines: d.lines.map((l) => ({ unitId: l.unitId, quantity: l.quantity, unitPrice: l.unitPrice })),
    pledge: d.pledge,
    amount: d.amount,
    relaisId: d.relaisId,
    placedAt: iso(d.placedAt),
    expiresAt: iso(d.expiresAt),
    signed: null,
    payment: null,
    latePayments: [],
    endedAt: null,
  };
};

/**
 * Pure and replay-safe: an event at or below the document's revision (the pool stream's) returns it unchanged;
 * other pool events return it unchanged; before ReservationPlaced there is no document. Timestamps are kept as
 * ISO-8601 UTC, what the row gives back, so a document folded in memory equals one read from the table.
 */
export const foldReservation = (doc: ReservationDoc | null, event: PoolEvent, revision: bigint, tenantId: string | null): ReservationDoc | null => {
  if (!isReservationEvent(event)) return doc;
  if (doc && revision <= doc.revision) return doc;
  // Reservations are always placed in a tenant (the command side records it in the metadata); without one there is no row.
  if (event.type === 'ReservationPlaced') return doc ?? (tenantId === null ? null : { facts: placed(event), tenantId, revision });
  if (!doc) return null;
  return { facts: evolve(doc.facts, event), tenantId: doc.tenantId, revision };
};

/** The row values the projection writes for a document (jsonb columns as JSON text). */
export const reservationRowValues = ({ facts: r, tenantId, revision }: ReservationDoc) => ({
  id: r.id,
  pool_id: r.poolId,
  tenant_id: tenantId,
  buyer_id: r.buyerId,
  buyer_name: r.buyerName,
  status: r.status,
  lines: JSON.stringify(r.lines),
  pledge: r.pledge,
  amount: r.amount,
  relais_id: r.relaisId,
  placed_at: r.placedAt,
  expires_at: r.expiresAt,
  signed: r.signed === null ? null : JSON.stringify(r.signed),
  payment: r.payment === null ? null : JSON.stringify(r.payment),
  late_payments: JSON.stringify(r.latePayments),
  ended_at: r.endedAt,
  revision: revision.toString(),
});

/** A document from a row read back (what the projection folds the next events into). */
export const docOfRow = (row: ReservationRow): ReservationDoc => ({ facts: factsOfRow(row), tenantId: row.tenant_id, revision: BigInt(row.revision) });
