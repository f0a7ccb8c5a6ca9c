import { closedOn, currentMandate, type DomainEvent, type EventData, type HostProfile, type RelaisHostEvent } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { acceptedMandate, type Mandates } from '../mandates/mandate';

/**
 * A community host (docs/relais.md): a member of the tenant who takes parcels for the buyers of pools, under the RELAIS
 * mandate. Stream `relais-host-<hostId>`. It applies (pending), is approved or rejected by an organiser of the tenant
 * or an operator, keeps its profile, pauses (`temporarily_closed`) or leaves (`retired`, final), and books the parcels
 * of shipments on its days: a day's parcels never exceed `capacity.parcelsPerDay`.
 */
export type HostStatus = 'pending' | 'active' | 'temporarily_closed' | 'retired' | 'rejected';

export interface HostBookingRecord {
  shipmentId: string;
  poolId: string;
  date: string;
  parcels: number;
  released: boolean;
}

export type Host =
  | { status: 'none' }
  | {
      status: HostStatus;
      hostId: string;
      tenantId: string;
      userId: string;
      profile: HostProfile;
      appliedAt: string;
      approvedAt: string | null;
      /** The last application, review, profile or status event's time. */
      updatedAt: string;
      /** By shipment id: a booking is made once per shipment (a second ask answers nothing new). */
      bookings: ReadonlyMap<string, HostBookingRecord>;
    };
export type ExistingHost = Exclude<Host, { status: 'none' }>;

const HOST_EVENT_TYPES: ReadonlySet<string> = new Set<RelaisHostEvent['type']>([
  'RelaisHostApplied',
  'RelaisHostApproved',
  'RelaisHostRejected',
  'RelaisHostProfileUpdated',
  'RelaisHostStatusChanged',
  'RelaisHostParcelsBooked',
  'RelaisHostBookingReleased',
]);
export const isHostEvent = (e: DomainEvent): e is RelaisHostEvent => HOST_EVENT_TYPES.has(e.type);

interface CommandMeta {
  now: string;
}

/** Who decides on an application: an account (its role and tenant as its stream says) or the operator (the CLI). */
export type HostReviewer = { kind: 'user'; userId: string; role: string; tenantId: string } | { kind: 'operator'; id: string };

export type HostCommand =
  | {
      type: 'ApplyHost';
      /** `mandates`: the caller's, as their account stream says now (the RELAIS mandate must stand). */
      data: { hostId: string; tenantId: string; userId: string; profile: HostProfile; mandates: Mandates };
      metadata: CommandMeta;
    }
  | { type: 'ApproveHost'; data: { reviewer: HostReviewer }; metadata: CommandMeta }
  | { type: 'RejectHost'; data: { reviewer: HostReviewer; reason: string | null }; metadata: CommandMeta }
  | { type: 'UpdateHostProfile'; data: { userId: string; changes: Partial<HostProfile> }; metadata: CommandMeta }
  | { type: 'ChangeHostStatus'; data: { userId: string; status: 'active' | 'temporarily_closed' | 'retired'; reason: string | null }; metadata: CommandMeta }
  | { type: 'BookParcels'; data: { shipmentId: string; poolId: string; date: string; parcels: number; weightG: number }; metadata: CommandMeta }
  | { type: 'ReleaseBooking'; data: { shipmentId: string }; metadata: CommandMeta };

export const initialHost = (): Host => ({ status: 'none' });

export const evolveHost = (state: Host, event: RelaisHostEvent): Host => {
  if (event.type === 'RelaisHostApplied') {
    const d = event.data;
    return { status: 'pending', hostId: d.hostId, tenantId: d.tenantId, userId: d.userId, profile: d.profile, appliedAt: d.appliedAt, approvedAt: null, updatedAt: d.appliedAt, bookings: new Map() };
  }
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'RelaisHostApproved':
      return { ...state, status: 'active', approvedAt: event.data.approvedAt, updatedAt: event.data.approvedAt };
    case 'RelaisHostRejected':
      return { ...state, status: 'rejected', updatedAt: event.data.rejectedAt };
    case 'RelaisHostProfileUpdated':
      return { ...state, profile: { ...state.profile, ...event.data.changes }, updatedAt: event.data.updatedAt };
    case 'RelaisHostStatusChanged':
      return { ...state, status: event.data.status, updatedAt: event.data.changedAt };
    case 'RelaisHostParcelsBooked': {
      const d = event.data;
      return { ...state, bookings: new Map(state.bookings).set(d.shipmentId, { shipmentId: d.shipmentId, poolId: d.poolId, date: d.date, parcels: d.parcels, released: false }) };
    }
    case 'RelaisHostBookingReleased': {
      const b = state.bookings.get(event.data.shipmentId);
      return b ? { ...state, bookings: new Map(state.bookings).set(b.shipmentId, { ...b, released: true }) } : state;
    }
    default:
      return assertNever(event);
  }
};

export const hostAggregate = {
  initial: initialHost,
  evolve: (s: Host, e: DomainEvent): Host => (isHostEvent(e) ? evolveHost(s, e) : s),
};

/** The parcels booked (not released) on `date`. */
export const bookedOn = (host: ExistingHost, date: string): number => {
  let sum = 0;
  for (const b of host.bookings.values()) if (!b.released && b.date === date) sum += b.parcels;
  return sum;
};

/** The days with live bookings that `profile` closes (a closure or no opening that weekday): their parcels must go elsewhere. */
export const bookedDaysClosed = (host: ExistingHost, profile: HostProfile): string[] => {
  const days = new Set<string>();
  for (const b of host.bookings.values()) if (!b.released && closedOn({ ...profile, status: 'active' }, b.date)) days.add(b.date);
  return [...days].sort();
};

const requireHost = (state: Host): ExistingHost => {
  if (state.status === 'none') throw new NotFoundError('host');
  return state;
};

/** The host's own commands: another user (of this tenant or not) is told there is no such host. */
const requireSelf = (state: Host, userId: string): ExistingHost => {
  const host = requireHost(state);
  if (host.userId !== userId) throw new NotFoundError('host');
  return host;
};

/** An organiser of the host's tenant, or the operator. The role is decided first; another tenant's organiser finds no host. */
const requireReviewer = (state: Host, reviewer: HostReviewer): ExistingHost => {
  if (reviewer.kind === 'user' && reviewer.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Only an organiser of the tenant reviews hosts');
  const host = requireHost(state);
  if (reviewer.kind === 'user' && reviewer.tenantId !== host.tenantId) throw new NotFoundError('host');
  return host;
};

const reviewerName = (r: HostReviewer) => (r.kind === 'user' ? `user:${r.userId}` : `operator:${r.id}`);

const refuseEnded = (host: ExistingHost) => {
  if (host.status === 'retired') throw new IllegalStateError('host_retired', 'The host has retired: that is final');
  if (host.status === 'rejected') throw new IllegalStateError('host_rejected', 'The application was rejected');
};

const sameValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

export const decideHost = (command: HostCommand, state: Host): RelaisHostEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'ApplyHost': {
      const { mandates, ...d } = command.data;
      if (!acceptedMandate(mandates, 'RELAIS', currentMandate('RELAIS')) || (mandates.status === 'active' && mandates.userId !== d.userId)) {
        throw new ForbiddenError('relais_mandate_required', 'Accept the current RELAIS mandate first (POST /api/mandates {kind: "RELAIS"})');
      }
      if (state.status !== 'none') throw new ConflictError('host_exists', 'This host has applied already');
      return [{ type: 'RelaisHostApplied', data: { ...d, mandate: currentMandate('RELAIS'), appliedAt: now } }];
    }
    case 'ApproveHost': {
      const host = requireReviewer(state, command.data.reviewer);
      if (host.status !== 'pending') {
        if (host.approvedAt !== null && host.status !== 'retired') return [];
        refuseEnded(host);
      }
      return [{ type: 'RelaisHostApproved', data: { hostId: host.hostId, approvedBy: reviewerName(command.data.reviewer), approvedAt: now } }];
    }
    case 'RejectHost': {
      const host = requireReviewer(state, command.data.reviewer);
      if (host.status === 'rejected') return [];
      if (host.status !== 'pending') throw new IllegalStateError('host_not_pending', 'Only a pending application is rejected (an approved host retires)');
      return [{ type: 'RelaisHostRejected', data: { hostId: host.hostId, rejectedBy: reviewerName(command.data.reviewer), reason: command.data.reason, rejectedAt: now } }];
    }
    case 'UpdateHostProfile': {
      const host = requireSelf(state, command.data.userId);
      refuseEnded(host);
      const changes = Object.fromEntries(Object.entries(command.data.changes).filter(([k, v]) => v !== undefined && !sameValue(v, host.profile[k as keyof HostProfile])));
      if (Object.keys(changes).length === 0) return [];
      return [{ type: 'RelaisHostProfileUpdated', data: { hostId: host.hostId, changes, updatedAt: now } }];
    }
    case 'ChangeHostStatus': {
      const host = requireSelf(state, command.data.userId);
      refuseEnded(host);
      if (host.status === 'pending' && command.data.status !== 'retired') throw new IllegalStateError('host_not_approved', 'The application is still pending');
      if (host.status === command.data.status) return [];
      return [{ type: 'RelaisHostStatusChanged', data: { hostId: host.hostId, status: command.data.status, reason: command.data.reason, changedAt: now } }];
    }
    case 'BookParcels': {
      const host = requireHost(state);
      const d = command.data;
      const existing = host.bookings.get(d.shipmentId);
      if (existing && !existing.released) return [];
      if (host.status !== 'active') throw new ConflictError('host_unavailable', `The host is ${host.status.replace('_', ' ')}`);
      if (closedOn({ ...host.profile, status: 'active' }, d.date)) throw new ConflictError('host_unavailable', `The host is closed on ${d.date}`, { date: [`the host is closed on ${d.date}`] });
      if (d.weightG > host.profile.capacity.maxWeightG) {
        throw new ValidationError({ weightG: [`the host takes parcels up to ${host.profile.capacity.maxWeightG} g`] }, 'Too heavy for this host', 'host_too_heavy');
      }
      const left = host.profile.capacity.parcelsPerDay - bookedOn(host, d.date);
      if (d.parcels > left) throw new ConflictError('host_capacity_exceeded', `The host takes ${left} more parcel(s) on ${d.date}`, { parcels: [`${left} left on ${d.date}`] });
      const data: EventData<'RelaisHostParcelsBooked'> = { hostId: host.hostId, shipmentId: d.shipmentId, poolId: d.poolId, date: d.date, parcels: d.parcels, bookedAt: now };
      return [{ type: 'RelaisHostParcelsBooked', data }];
    }
    case 'ReleaseBooking': {
      const host = requireHost(state);
      const b = host.bookings.get(command.data.shipmentId);
      if (!b || b.released) return [];
      return [{ type: 'RelaisHostBookingReleased', data: { hostId: host.hostId, shipmentId: b.shipmentId, releasedAt: now } }];
    }
    default:
      return assertNever(command);
  }
};
