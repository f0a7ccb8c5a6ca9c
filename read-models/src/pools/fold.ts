import type { EventData, PoolDraftFields, PoolEvent, PoolStatus, PoolType, RelaisPoint } from '@cagnotte/event-schemas';
import type { MemberRow, PickupPointRow } from './tables';

/**
 * The pools read model's own document of a pool (rm_pools.doc), folded from the pool's events alone: what the
 * views render. It is not the aggregate's state (no listing fee, nothing the command side decides with); its JSON
 * keeps the keys rows written before it had, so old rows read as documents and no rebuild is needed.
 */
export interface PoolDocument {
  status: PoolStatus;
  id: string;
  tenantId: string;
  type: PoolType;
  organiserId: string;
  organiserName: string;
  fields: PoolDraftFields;
  /** The mode it was created in (PoolCreated v4); absent on older pools: the deployment's mode (`livemodeOfDoc`). */
  livemode?: boolean;
  archivedAt: string | null;
  publishedAt: string | null;
  /** The escrow account publishing opened (absent on pools published before escrows, and on drafts). */
  escrow?: { accountId: string; reclaimAfter: string } | null;
  /** How the pool closed (absent before it did): docs/escrow.md. */
  closing?: PoolClosingDoc | null;
  cancelledAt?: string | null;
  /** When the last settlement merged the escrow back (nothing left in escrow). */
  settledAt?: string | null;
  /** Its pick-up points that can no longer take its parcels (PickupPointUnavailable), by point id; absent: none. */
  unavailablePoints?: Record<string, { reason: string; detail: string | null; at: string }>;
  createdAt: string;
  updatedAt: string;
}

export interface PoolClosingDoc {
  outcome: 'SUCCEEDED' | 'FAILED';
  reason: 'DEADLINE' | 'ORGANISER';
  closedAt: string;
  paidUnits: number;
  paidAmount: string;
  finalPrices: Array<{ unitId: string; price: string }>;
  release: EventData<'PoolClosed'>['release'];
  deliveredAt: string | null;
  inspectionEndsAt: string | null;
}

export interface PoolDoc {
  pool: PoolDocument;
  /** Stream revision of the last event folded in: replays at or below it change nothing. */
  revision: bigint;
}

const created = (data: EventData<'PoolCreated'>): PoolDocument => {
  const { poolId, tenantId, type, organiserId, organiserName, createdAt, livemode, ...fields } = data;
  return {
    status: 'DRAFT',
    id: poolId,
    tenantId,
    type,
    organiserId,
    organiserName,
    fields,
    ...(livemode === undefined ? {} : { livemode }),
    archivedAt: null,
    publishedAt: null,
    createdAt,
    updatedAt: createdAt,
  };
};

/** `never`: the switch below is exhaustive over PoolEvent. */
const unknownEvent = (_event: never, doc: PoolDocument): PoolDocument => doc;

const evolve = (doc: PoolDocument, event: PoolEvent): PoolDocument => {
  switch (event.type) {
    case 'PoolCreated':
      return created(event.data);
    case 'PoolDraftUpdated':
      return { ...doc, fields: { ...doc.fields, ...event.data.changes }, updatedAt: event.data.updatedAt };
    case 'PoolPublished':
      return { ...doc, status: 'OPEN', publishedAt: event.data.publishedAt, updatedAt: event.data.publishedAt };
    case 'PoolVisibilityChanged':
      return { ...doc, fields: { ...doc.fields, marketplaceVisibility: event.data.to }, updatedAt: event.data.changedAt };
    case 'PoolCountryChanged':
      return { ...doc, fields: { ...doc.fields, country: event.data.to }, updatedAt: event.data.changedAt };
    case 'PoolArchived':
      return { ...doc, archivedAt: event.data.archivedAt, updatedAt: event.data.archivedAt };
    case 'PoolUnarchived':
      return { ...doc, archivedAt: null, updatedAt: event.data.unarchivedAt };
    case 'PoolListed':
      return { ...doc, fields: { ...doc.fields, marketplaceVisibility: event.data.tier }, updatedAt: event.data.listedAt };
    case 'PoolEscrowOpened':
      return { ...doc, escrow: { accountId: event.data.accountId, reclaimAfter: event.data.reclaimAfter } };
    case 'PoolClosed': {
      const { poolId: _p, outcome, reason, closedAt, paidUnits, paidAmount, finalPrices, release } = event.data;
      return {
        ...doc,
        status: outcome === 'SUCCEEDED' ? 'LOCKED' : 'FAILED',
        closing: { outcome, reason, closedAt, paidUnits, paidAmount, finalPrices, release, deliveredAt: null, inspectionEndsAt: null },
        updatedAt: closedAt,
      };
    }
    case 'PoolCancelled':
      return { ...doc, status: 'CANCELLED', cancelledAt: event.data.cancelledAt, updatedAt: event.data.cancelledAt };
    case 'PoolDelivered':
      return doc.closing ? { ...doc, closing: { ...doc.closing, deliveredAt: event.data.deliveredAt, inspectionEndsAt: event.data.inspectionEndsAt }, updatedAt: event.data.deliveredAt } : doc;
    case 'PoolSettled':
      return { ...doc, status: doc.status === 'LOCKED' ? 'SETTLED' : doc.status, settledAt: event.data.settledAt, updatedAt: event.data.settledAt };
    // A point's unavailability shows on the pool's pick-up points (the pool itself did not change: updatedAt stays).
    case 'PickupPointUnavailable': {
      const { pointId, reason, detail, detectedAt } = event.data;
      return { ...doc, unavailablePoints: { ...doc.unavailablePoints, [pointId]: { reason, detail, at: detectedAt } } };
    }
    // The reservations have their own read model (../reservations), the escrow's settlement its own (../escrow); the
    // listing's bookkeeping changes nothing shown here. Parcels have the relais read model (../relais); a buyer's
    // point is the reservations read model's.
    case 'ReservationReceiptConfirmed':
    case 'ReservationAutoAccepted':
    case 'DisputeOpened':
    case 'DisputeContested':
    case 'DisputeResolved':
    case 'EscrowSettlementPrepared':
    case 'EscrowRoundSettled':
    case 'EscrowPayoutSettled':
    case 'ReservationSettled':
    case 'EscrowStrayPaymentRecorded':
    case 'EscrowStrayPaymentReturned':
    case 'PoolCommissionMandateAccepted':
    case 'ReservationPickupPointChanged':
    case 'PoolShipmentCreated':
    case 'PoolShipmentStatusChanged':
    case 'RelaisParcelCollected':
    case 'ReservationPlaced':
    case 'ReservationSigned':
    case 'ReservationPaid':
    case 'ReservationExpired':
    case 'ReservationCancelled':
    case 'ReservationLatePaymentReceived':
    case 'PoolListingPrepared':
    case 'PoolListingFeeRefunded':
      return doc;
    default:
      return unknownEvent(event, doc);
  }
};

/**
 * Pure and replay-safe: an event already folded (revision ≤ doc.revision) returns the doc unchanged; before
 * PoolCreated there is no document. The projector and the command answers fold with it alike.
 */
export const foldPool = (doc: PoolDoc | null, event: PoolEvent, revision: bigint): PoolDoc | null => {
  if (doc && revision <= doc.revision) return doc;
  if (event.type === 'PoolCreated') return { pool: created(event.data), revision };
  if (!doc) return null;
  return { pool: evolve(doc.pool, event), revision };
};

/** GROUPS pools show one pick-up point per `config.relais` entry, in order; FUNDING pools none. */
export const pickupPointsOf = (pool: PoolDocument): RelaisPoint[] => (pool.type === 'GROUPS' ? (pool.fields.config.relais ?? []) : []);

/**
 * The pick-up point rows a pool shows: one per `config.relais` entry, in order (ids are unique by rule; should an
 * old event break it, the last point of an id wins). The projector writes exactly these rows, so a view rendered
 * from the fold equals the one read from the read model.
 */
export const pickupPointRowsOf = (pool: PoolDocument): PickupPointRow[] =>
  [...new Map(pickupPointsOf(pool).map((r) => [r.id, r])).values()].map((r, i) => ({
    pool_id: pool.id,
    point_id: r.id,
    sort_order: i,
    name: r.name,
    address: r.address ?? null,
    postal_code: r.postalCode ?? null,
    city: r.city ?? null,
    country: r.country ?? null,
    lat: r.lat ?? null,
    lng: r.lng ?? null,
    opening_hours: r.openingHours ?? null,
    available: !pool.unavailablePoints?.[r.id],
    unavailable_reason: pool.unavailablePoints?.[r.id]?.reason ?? null,
  }));

/** The member a pool starts with: its organiser, recorded by the projection at PoolCreated. */
export const organiserMemberOf = (pool: PoolDocument): MemberRow => ({
  pool_id: pool.id,
  user_id: pool.organiserId,
  display_name: pool.organiserName,
  role: 'organiser',
  joined_at: new Date(pool.createdAt),
});

/** Structural equality of JSON values; key order does not count (a document read back from jsonb has its keys reordered). */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bs = b as unknown[];
    return a.length === bs.length && a.every((v, i) => sameJson(v, bs[i]));
  }
  const ak = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const bk = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  return ak.length === bk.length && ak.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
};

/** Whether the pick-up points must be rewritten: only when the relais a pool shows, or their availability, changed. */
export const relaisChanged = (before: PoolDoc | null, after: PoolDoc): boolean =>
  !sameJson(before ? pickupPointsOf(before.pool) : [], pickupPointsOf(after.pool)) || !sameJson(before?.pool.unavailablePoints ?? {}, after.pool.unavailablePoints ?? {});
