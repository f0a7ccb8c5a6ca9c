import type { HostProfile } from '@cagnotte/event-schemas';
import type { FoldEvent } from '../shared';
import type { RelaisHostFacts } from './hosts-view';

// The community hosts' read model (docs/relais.md), folded from `relais-host-<hostId>`: a document per host and one per
// booking. `revision` is the stream's revision of the last event folded in, so a replayed event changes nothing.

export interface RelaisHostDoc extends RelaisHostFacts {
  approvedBy: string | null;
  rejectionReason: string | null;
  statusReason: string | null;
  revision: bigint;
}

export interface RelaisHostBookingDoc {
  /** `<hostId>:<shipmentId>` */
  id: string;
  hostId: string;
  shipmentId: string;
  poolId: string;
  date: string;
  parcels: number;
  released: boolean;
  bookedAt: string;
  releasedAt: string | null;
  revision: bigint;
}

export const RELAIS_HOST_EVENTS: ReadonlySet<string> = new Set([
  'RelaisHostApplied',
  'RelaisHostApproved',
  'RelaisHostRejected',
  'RelaisHostProfileUpdated',
  'RelaisHostStatusChanged',
  'RelaisHostParcelsBooked',
  'RelaisHostBookingReleased',
]);
const BOOKING_EVENTS: ReadonlySet<string> = new Set(['RelaisHostParcelsBooked', 'RelaisHostBookingReleased']);

export const relaisHostKeyOf = (e: FoldEvent): string | null => (RELAIS_HOST_EVENTS.has(e.type) && !BOOKING_EVENTS.has(e.type) ? (e.data as { hostId: string }).hostId : null);
export const relaisHostBookingKeyOf = (e: FoldEvent): string | null => {
  if (!BOOKING_EVENTS.has(e.type)) return null;
  const d = e.data as { hostId: string; shipmentId: string };
  return `${d.hostId}:${d.shipmentId}`;
};

export const foldRelaisHost = (doc: RelaisHostDoc | null, e: FoldEvent): RelaisHostDoc | null => {
  if (doc !== null && e.revision <= doc.revision) return doc;
  if (e.type === 'RelaisHostApplied') {
    if (doc) return doc;
    const d = e.data;
    return {
      hostId: d.hostId,
      tenantId: d.tenantId,
      userId: d.userId,
      status: 'pending',
      profile: d.profile,
      appliedAt: d.appliedAt,
      approvedAt: null,
      approvedBy: null,
      rejectionReason: null,
      statusReason: null,
      updatedAt: d.appliedAt,
      revision: e.revision,
    };
  }
  if (!doc) return doc;
  switch (e.type) {
    case 'RelaisHostApproved':
      return { ...doc, status: 'active', approvedAt: e.data.approvedAt, approvedBy: e.data.approvedBy, updatedAt: e.data.approvedAt, revision: e.revision };
    case 'RelaisHostRejected':
      return { ...doc, status: 'rejected', rejectionReason: e.data.reason, updatedAt: e.data.rejectedAt, revision: e.revision };
    case 'RelaisHostProfileUpdated':
      return { ...doc, profile: { ...doc.profile, ...e.data.changes } as HostProfile, updatedAt: e.data.updatedAt, revision: e.revision };
    case 'RelaisHostStatusChanged':
      return { ...doc, status: e.data.status, statusReason: e.data.reason, updatedAt: e.data.changedAt, revision: e.revision };
    default:
      return doc;
  }
};

export const foldRelaisHostBooking = (doc: RelaisHostBookingDoc | null, e: FoldEvent): RelaisHostBookingDoc | null => {
  if (doc !== null && e.revision <= doc.revision) return doc;
  if (e.type === 'RelaisHostParcelsBooked') {
    const d = e.data;
    // A booking released and made again (same shipment) is the new one.
    return { id: `${d.hostId}:${d.shipmentId}`, hostId: d.hostId, shipmentId: d.shipmentId, poolId: d.poolId, date: d.date, parcels: d.parcels, released: false, bookedAt: d.bookedAt, releasedAt: null, revision: e.revision };
  }
  if (!doc) return doc;
  if (e.type === 'RelaisHostBookingReleased') return { ...doc, released: true, releasedAt: e.data.releasedAt, revision: e.revision };
  return doc;
};
