import type { DisputeEvent, PoolEvent, ReceiptEvent, ReservationEvent } from '@cagnotte/event-schemas';
import type { ReservationFacts } from './view';
import { factsOfRow, type ReservationRow } from './tables';
import type { ReservationEscrowFacts } from './escrow-facts';

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

/** The events of one reservation: its own, and what the escrow did with it (receipt, dispute, settlement). */
export type ReservationFoldEvent =
  | ReservationEvent
  | ReceiptEvent
  | DisputeEvent
  | Extract<PoolEvent, { type: 'ReservationSettled' }>
  | Extract<PoolEvent, { type: 'ReservationPickupPointChanged' }>;

/** A point of the pool became unavailable: an event of every reservation of the pool that chose the point. */
export type PointUnavailableEvent = Extract<PoolEvent, { type: 'PickupPointUnavailable' }>;
export const isPointUnavailableEvent = <E extends { type: string }>(e: E): e is Extract<E, PointUnavailableEvent> => e.type === 'PickupPointUnavailable';

const RESERVATION_TYPES: ReadonlySet<string> = new Set<ReservationFoldEvent['type']>([
  'ReservationPlaced',
  'ReservationSigned',
  'ReservationPaid',
  'ReservationExpired',
  'ReservationCancelled',
  'ReservationLatePaymentReceived',
  'ReservationReceiptConfirmed',
  'ReservationAutoAccepted',
  'DisputeOpened',
  'DisputeContested',
  'DisputeResolved',
  'ReservationSettled',
  'ReservationPickupPointChanged',
]);

/** Narrows a pool event (or any event of the feed) to an event of one reservation (each carries its `reservationId`). */
export const isReservationEvent = <E extends { type: string }>(e: E): e is Extract<E, ReservationFoldEvent> => RESERVATION_TYPES.has(e.type);

const iso = (s: string) => new Date(s).toISOString();

/** `never`: the switch below is exhaustive over ReservationFoldEvent. */
const unknownEvent = (_event: never, facts: ReservationFacts): ReservationFacts => facts;

const evolve = (r: ReservationFacts, event: ReservationFoldEvent): ReservationFacts => {
  switch (event.type) {
    case 'ReservationPlaced':
      return r;
    case 'ReservationSigned': {
      const { terms, escrowAccount, reclaimAfter, source } = event.data;
      return { ...r, signed: { terms: { version: terms.version, hash: terms.hash }, escrowAccount, reclaimAfter: iso(reclaimAfter), source } };
    }
    case 'ReservationPaid': {
      const { txHash, ledger, balanceId, amount, via, paidAt } = event.data;
      // endedAt: null, as the aggregate: a deposit that landed in time pays a reservation expired since.
      return { ...r, status: 'PAID', endedAt: null, payment: { txHash, ledger, balanceId, amount, paidAt: iso(paidAt), via } };
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
    // The buyer chose again: an available point of the pool (the decider refuses any other).
    case 'ReservationPickupPointChanged': {
      const { pickupPointUnavailable: _was, ...rest } = r;
      return { ...rest, relaisId: event.data.to };
    }
    default:
      return evolveEscrow(r, event);
  }
};

/** As the pool's aggregate folds them (domain/src/escrow/state.ts): a contest or an end applies to a dispute opened before. */
const evolveEscrow = (r: ReservationFacts, event: Exclude<ReservationFoldEvent, ReservationEvent | { type: 'ReservationPickupPointChanged' }>): ReservationFacts => {
  switch (event.type) {
    case 'ReservationReceiptConfirmed':
      return { ...r, acceptance: { by: 'BUYER', at: iso(event.data.confirmedAt) } };
    case 'ReservationAutoAccepted':
      return { ...r, acceptance: { by: 'AUTO', at: iso(event.data.acceptedAt) } };
    case 'DisputeOpened': {
      const d = event.data;
      const dispute = { disputeId: d.disputeId, status: 'OPEN' as const, reason: d.reason, details: d.details, evidence: [...d.evidence], amount: d.amount };
      return { ...r, dispute: { ...dispute, respondBy: iso(d.respondBy), lapsesAt: null, refund: null, openedAt: iso(d.openedAt), resolvedAt: null } };
    }
    case 'DisputeContested':
      return r.dispute ? { ...r, dispute: { ...r.dispute, status: 'CONTESTED', lapsesAt: iso(event.data.lapsesAt) } } : r;
    case 'DisputeResolved': {
      const { outcome, refund, resolvedAt } = event.data;
      return r.dispute ? { ...r, dispute: { ...r.dispute, status: outcome, refund, resolvedAt: iso(resolvedAt) } } : r;
    }
    case 'ReservationSettled': {
      const { balanceId, kind, settlementId, path, released, refunded, txHash, settledAt } = event.data;
      // One line per balance, in the order of the aggregate's map (a balance settles once; were it recorded again, in place).
      const line = { balanceId, kind, settlementId, path, released, refunded, txHash, settledAt: iso(settledAt) };
      const at = r.settlements.findIndex((s) => s.balanceId === balanceId);
      return { ...r, settlements: at === -1 ? [...r.settlements, line] : r.settlements.map((s, i) => (i === at ? line : s)) };
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
    depositFee: d.depositFee ?? '0.00',
    relaisId: d.relaisId,
    placedAt: iso(d.placedAt),
    expiresAt: iso(d.expiresAt),
    signed: null,
    payment: null,
    latePayments: [],
    endedAt: null,
    acceptance: null,
    dispute: null,
    settlements: [],
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

/**
 * A point of the pool became unavailable: a reservation of that pool whose point it is (whatever its status: its
 * view tells a live one to choose again) records why, as the aggregate's rule says (the pool's unavailable points).
 * Replay-safe like foldReservation: at or below the document's revision nothing changes.
 */
export const foldPointUnavailable = (doc: ReservationDoc, event: PointUnavailableEvent, revision: bigint): ReservationDoc => {
  const d = event.data;
  if (revision <= doc.revision || doc.facts.poolId !== d.poolId || doc.facts.relaisId !== d.pointId) return doc;
  return { facts: { ...doc.facts, pickupPointUnavailable: { reason: d.reason } }, tenantId: doc.tenantId, revision };
};

/** rm_reservations.escrow: null until the escrow did something with the reservation (old rows read the same). */
const escrowColumnOf = ({ acceptance, dispute, settlements }: ReservationEscrowFacts): string | null =>
  acceptance === null && dispute === null && settlements.length === 0 ? null : JSON.stringify({ acceptance, dispute, settlements });

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
  deposit_fee: r.depositFee,
  relais_id: r.relaisId,
  pickup_point_unavailable: r.pickupPointUnavailable ? JSON.stringify({ reason: r.pickupPointUnavailable.reason }) : null,
  placed_at: r.placedAt,
  expires_at: r.expiresAt,
  signed: r.signed === null ? null : JSON.stringify(r.signed),
  payment: r.payment === null ? null : JSON.stringify(r.payment),
  late_payments: JSON.stringify(r.latePayments),
  ended_at: r.endedAt,
  escrow: escrowColumnOf(r),
  revision: revision.toString(),
});

/** A document from a row read back (what the projection folds the next events into). */
export const docOfRow = (row: ReservationRow): ReservationDoc => ({ facts: factsOfRow(row), tenantId: row.tenant_id, revision: BigInt(row.revision) });
