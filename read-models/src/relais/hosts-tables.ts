import type { HostProfile } from '@cagnotte/event-schemas';
import type { RelaisHostBookingDoc, RelaisHostDoc } from './hosts-fold';
import type { RelaisHostStatus } from './hosts-view';

export const RELAIS_HOSTS_TABLE = 'rm_relais_hosts';
export const RELAIS_HOST_BOOKINGS_TABLE = 'rm_relais_host_bookings';

export interface RelaisHostRow {
  id: string;
  seq: string;
  tenant_id: string;
  user_id: string;
  status: RelaisHostStatus;
  name: string;
  postal_code: string;
  city: string;
  country: string;
  lat: number;
  lng: number;
  parcels_per_day: number;
  max_weight_g: number;
  profile: HostProfile;
  applied_at: Date | string;
  approved_at: Date | string | null;
  approved_by: string | null;
  rejection_reason: string | null;
  status_reason: string | null;
  updated_at: Date | string;
  revision: string;
}

export interface RelaisHostBookingRow {
  id: string;
  host_id: string;
  shipment_id: string;
  pool_id: string;
  date: Date | string;
  parcels: number;
  released: boolean;
  booked_at: Date | string;
  released_at: Date | string | null;
  revision: string;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null) => (d === null ? null : iso(d));
/** A `date` column as node-pg hands it (a local midnight Date) or as text, back to YYYY-MM-DD. */
export const calendarDateOf = (d: Date | string): string =>
  typeof d === 'string' ? d.slice(0, 10) : `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

export const relaisHostRowOf = (d: RelaisHostDoc) => ({
  id: d.hostId,
  tenant_id: d.tenantId,
  user_id: d.userId,
  status: d.status,
  name: d.profile.name,
  postal_code: d.profile.address.postalCode,
  city: d.profile.address.city,
  country: d.profile.address.country,
  lat: d.profile.geo.lat,
  lng: d.profile.geo.lng,
  parcels_per_day: d.profile.capacity.parcelsPerDay,
  max_weight_g: d.profile.capacity.maxWeightG,
  profile: JSON.stringify(d.profile),
  applied_at: d.appliedAt,
  approved_at: d.approvedAt,
  approved_by: d.approvedBy,
  rejection_reason: d.rejectionReason,
  status_reason: d.statusReason,
  updated_at: d.updatedAt,
  revision: d.revision.toString(),
});

export const relaisHostDocOf = (r: RelaisHostRow): RelaisHostDoc => ({
  hostId: r.id,
  tenantId: r.tenant_id,
  userId: r.user_id,
  status: r.status,
  profile: r.profile,
  appliedAt: iso(r.applied_at),
  approvedAt: isoOrNull(r.approved_at),
  approvedBy: r.approved_by,
  rejectionReason: r.rejection_reason,
  statusReason: r.status_reason,
  updatedAt: iso(r.updated_at),
  revision: BigInt(r.revision),
});

export const relaisHostBookingRowOf = (d: RelaisHostBookingDoc) => ({
  id: d.id,
  host_id: d.hostId,
  shipment_id: d.shipmentId,
  pool_id: d.poolId,
  date: d.date,
  parcels: d.parcels,
  released: d.released,
  booked_at: d.bookedAt,
  released_at: d.releasedAt,
  revision: d.revision.toString(),
});

export const relaisHostBookingDocOf = (r: RelaisHostBookingRow): RelaisHostBookingDoc => ({
  id: r.id,
  hostId: r.host_id,
  shipmentId: r.shipment_id,
  poolId: r.pool_id,
  date: calendarDateOf(r.date),
  parcels: r.parcels,
  released: r.released,
  bookedAt: iso(r.booked_at),
  releasedAt: isoOrNull(r.released_at),
  revision: BigInt(r.revision),
});
