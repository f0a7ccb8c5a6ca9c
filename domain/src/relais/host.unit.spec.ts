import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { currentMandate, type DomainEvent, type HostProfile } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import type { Mandates } from '../mandates/mandate';
import { bookedDaysClosed, bookedOn, decideHost, hostAggregate, type ExistingHost, type Host, type HostCommand, type HostReviewer } from './host';

const HOST = '4c1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const OTHER_TENANT = '1b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const USER = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const OTHER = '8e1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const ORGANISER = '9f1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL = 'a01f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const S1 = 'b11f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const S2 = 'b21f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const T0 = '2026-03-01T09:00:00.000Z';
const T1 = '2026-03-01T10:00:00.000Z';
const meta = { now: T1 };
// 2026-03-02 is a Monday; 2026-03-08 a Sunday.
const MONDAY = '2026-03-02';
const TUESDAY = '2026-03-03';
const SUNDAY = '2026-03-08';

const profile: HostProfile = {
  name: 'Chez Louise',
  address: { line1: '3 rue des Lilas', postalCode: '75011', city: 'Paris', country: 'FR' },
  geo: { lat: 48.857, lng: 2.38 },
  openingHours: Object.fromEntries(['1', '2', '3', '4', '5', '6'].map((d) => [d, [{ open: '09:00', close: '19:00' }]])),
  closures: [],
  capacity: { parcelsPerDay: 5, maxWeightG: 5000 },
  photoUrl: null,
};
const relais = currentMandate('RELAIS');
const mandates = (kind: 'RELAIS' | 'FEE' = 'RELAIS', status: 'ACCEPTED' | 'REVOKED' = 'ACCEPTED', text = relais): Mandates => ({
  status: 'active',
  userId: USER,
  mandates: [{ mandateId: S1, kind, status, version: text.version, hash: text.hash, acceptedAt: T0, acceptedIp: null, revokedAt: status === 'REVOKED' ? T0 : null }],
});

const { given, fold } = deciderSpec<Host, HostCommand, DomainEvent>({ ...hostAggregate, decide: decideHost });

const applyCmd = (m: Mandates = mandates()): HostCommand => ({ type: 'ApplyHost', data: { hostId: HOST, tenantId: TENANT, userId: USER, profile, mandates: m }, metadata: meta });
const applied: DomainEvent = { type: 'RelaisHostApplied', data: { hostId: HOST, tenantId: TENANT, userId: USER, profile, mandate: relais, appliedAt: T1 } };
const organiser: HostReviewer = { kind: 'user', userId: ORGANISER, role: 'organiser', tenantId: TENANT };
const operator: HostReviewer = { kind: 'operator', id: 'ops' };
const approved: DomainEvent = { type: 'RelaisHostApproved', data: { hostId: HOST, approvedBy: `user:${ORGANISER}`, approvedAt: T1 } };
const status = (s: 'active' | 'temporarily_closed' | 'retired', reason: string | null = null): DomainEvent => ({ type: 'RelaisHostStatusChanged', data: { hostId: HOST, status: s, reason, changedAt: T1 } });
const book = (shipmentId: string, date: string, parcels: number, weightG = 1000): HostCommand => ({ type: 'BookParcels', data: { shipmentId, poolId: POOL, date, parcels, weightG }, metadata: meta });
const booked = (shipmentId: string, date: string, parcels: number): DomainEvent => ({ type: 'RelaisHostParcelsBooked', data: { hostId: HOST, shipmentId, poolId: POOL, date, parcels, bookedAt: T1 } });

const test = suite('community host decider');

test('given the current RELAIS mandate, when a member applies, then the host is pending with that mandate recorded', () => {
  const state = given().when(applyCmd()).then([applied]);
  assert.is(state.status, 'pending');
});

test('given no RELAIS mandate (none, another kind, revoked, an old text), when a member applies, then 403 relais_mandate_required', () => {
  given().when(applyCmd({ status: 'none' })).thenThrows(ForbiddenError, 'relais_mandate_required');
  given().when(applyCmd(mandates('FEE'))).thenThrows(ForbiddenError, 'relais_mandate_required');
  given().when(applyCmd(mandates('RELAIS', 'REVOKED'))).thenThrows(ForbiddenError, 'relais_mandate_required');
  given().when(applyCmd(mandates('RELAIS', 'ACCEPTED', { version: '2025-01', hash: 'cd'.repeat(32) }))).thenThrows(ForbiddenError, 'relais_mandate_required');
  given(applied).when(applyCmd()).thenThrows(ConflictError, 'host_exists');
});

test('given a pending host, when an organiser of the tenant or the operator approves, then it is active; approving again changes nothing', () => {
  const state = given(applied).when({ type: 'ApproveHost', data: { reviewer: organiser }, metadata: meta }).then([approved]);
  assert.is(state.status, 'active');
  given(applied, approved).when({ type: 'ApproveHost', data: { reviewer: operator }, metadata: meta }).then([]);
  given(applied)
    .when({ type: 'ApproveHost', data: { reviewer: operator }, metadata: meta })
    .then([{ type: 'RelaisHostApproved', data: { hostId: HOST, approvedBy: 'operator:ops', approvedAt: T1 } }]);
});

test('given a pending host, when a member who is no organiser, or another tenant’s organiser, reviews it, then 403 and 404', () => {
  given(applied).when({ type: 'ApproveHost', data: { reviewer: { ...organiser, role: 'user' } }, metadata: meta }).thenThrows(ForbiddenError, 'organise_capability_required');
  given(applied).when({ type: 'ApproveHost', data: { reviewer: { ...organiser, tenantId: OTHER_TENANT } }, metadata: meta }).thenThrows(NotFoundError, 'host_not_found');
  given(applied).when({ type: 'RejectHost', data: { reviewer: { ...organiser, tenantId: OTHER_TENANT }, reason: null }, metadata: meta }).thenThrows(NotFoundError, 'host_not_found');
  given().when({ type: 'ApproveHost', data: { reviewer: operator }, metadata: meta }).thenThrows(NotFoundError, 'host_not_found');
});

test('given a pending host, when rejected, then it is rejected with the reason; it can then be neither approved nor changed', () => {
  const rejected: DomainEvent = { type: 'RelaisHostRejected', data: { hostId: HOST, rejectedBy: 'operator:ops', reason: 'no address proof', rejectedAt: T1 } };
  const state = given(applied).when({ type: 'RejectHost', data: { reviewer: operator, reason: 'no address proof' }, metadata: meta }).then([rejected]);
  assert.is(state.status, 'rejected');
  given(applied, rejected).when({ type: 'RejectHost', data: { reviewer: operator, reason: null }, metadata: meta }).then([]);
  given(applied, rejected).when({ type: 'ApproveHost', data: { reviewer: operator }, metadata: meta }).thenThrows(IllegalStateError, 'host_rejected');
  given(applied, approved).when({ type: 'RejectHost', data: { reviewer: operator, reason: null }, metadata: meta }).thenThrows(IllegalStateError, 'host_not_pending');
});

test('given an approved host, when it updates its profile, then only what changed is recorded; another user finds no host', () => {
  const capacity = { parcelsPerDay: 8, maxWeightG: 5000 };
  given(applied, approved)
    .when({ type: 'UpdateHostProfile', data: { userId: USER, changes: { capacity, name: profile.name } }, metadata: meta })
    .then([{ type: 'RelaisHostProfileUpdated', data: { hostId: HOST, changes: { capacity }, updatedAt: T1 } }]);
  given(applied, approved).when({ type: 'UpdateHostProfile', data: { userId: USER, changes: { name: profile.name } }, metadata: meta }).then([]);
  given(applied, approved).when({ type: 'UpdateHostProfile', data: { userId: OTHER, changes: { capacity } }, metadata: meta }).thenThrows(NotFoundError, 'host_not_found');
});

test('given an approved host, when it pauses, reopens and retires, then each is recorded; retired is final', () => {
  given(applied, approved).when({ type: 'ChangeHostStatus', data: { userId: USER, status: 'temporarily_closed', reason: 'holidays' }, metadata: meta }).then([status('temporarily_closed', 'holidays')]);
  given(applied, approved, status('temporarily_closed')).when({ type: 'ChangeHostStatus', data: { userId: USER, status: 'active', reason: null }, metadata: meta }).then([status('active')]);
  given(applied, approved).when({ type: 'ChangeHostStatus', data: { userId: USER, status: 'active', reason: null }, metadata: meta }).then([]);
  given(applied, approved, status('retired')).when({ type: 'ChangeHostStatus', data: { userId: USER, status: 'active', reason: null }, metadata: meta }).thenThrows(IllegalStateError, 'host_retired');
  given(applied, approved, status('retired')).when({ type: 'ApproveHost', data: { reviewer: operator }, metadata: meta }).thenThrows(IllegalStateError, 'host_retired');
  given(applied, approved, status('retired')).when({ type: 'UpdateHostProfile', data: { userId: USER, changes: { name: 'x' } }, metadata: meta }).thenThrows(IllegalStateError, 'host_retired');
  given(applied).when({ type: 'ChangeHostStatus', data: { userId: USER, status: 'temporarily_closed', reason: null }, metadata: meta }).thenThrows(IllegalStateError, 'host_not_approved');
});

test('given an active host, when parcels are booked within capacity, then they are; the same shipment again answers nothing new', () => {
  const state = given(applied, approved).when(book(S1, MONDAY, 3)).then([booked(S1, MONDAY, 3)]);
  assert.is(bookedOn(state as ExistingHost, MONDAY), 3);
  given(applied, approved, booked(S1, MONDAY, 3)).when(book(S1, MONDAY, 3)).then([]);
  given(applied, approved, booked(S1, MONDAY, 3)).when(book(S2, MONDAY, 2)).then([booked(S2, MONDAY, 2)]);
  given(applied, approved, booked(S1, MONDAY, 3)).when(book(S2, TUESDAY, 5)).then([booked(S2, TUESDAY, 5)]);
});

test('given a day nearly full, when more parcels than are left are booked, then 409 host_capacity_exceeded naming what is left', () => {
  const e = given(applied, approved, booked(S1, MONDAY, 4)).when(book(S2, MONDAY, 2)).thenThrows(ConflictError, 'host_capacity_exceeded');
  assert.equal(e.errors, { parcels: [`1 left on ${MONDAY}`] });
});

test('given a booking released, when the day is booked again, then its parcels count no more', () => {
  const released: DomainEvent = { type: 'RelaisHostBookingReleased', data: { hostId: HOST, shipmentId: S1, releasedAt: T1 } };
  given(applied, approved, booked(S1, MONDAY, 5)).when({ type: 'ReleaseBooking', data: { shipmentId: S1 }, metadata: meta }).then([released]);
  given(applied, approved, booked(S1, MONDAY, 5), released).when({ type: 'ReleaseBooking', data: { shipmentId: S1 }, metadata: meta }).then([]);
  given(applied, approved).when({ type: 'ReleaseBooking', data: { shipmentId: S1 }, metadata: meta }).then([]);
  given(applied, approved, booked(S1, MONDAY, 5), released).when(book(S2, MONDAY, 5)).then([booked(S2, MONDAY, 5)]);
});

test('given a parcel heavier than the host takes, a closed day, a paused, pending or unknown host, when booked, then 400 host_too_heavy, 409 host_unavailable, 404', () => {
  given(applied, approved).when(book(S1, MONDAY, 1, 5001)).thenThrows(ValidationError, 'host_too_heavy');
  given(applied, approved).when(book(S1, SUNDAY, 1)).thenThrows(ConflictError, 'host_unavailable');
  const closure: DomainEvent = { type: 'RelaisHostProfileUpdated', data: { hostId: HOST, changes: { closures: [{ from: MONDAY, to: TUESDAY }] }, updatedAt: T1 } };
  given(applied, approved, closure).when(book(S1, TUESDAY, 1)).thenThrows(ConflictError, 'host_unavailable');
  given(applied, approved, status('temporarily_closed')).when(book(S1, MONDAY, 1)).thenThrows(ConflictError, 'host_unavailable');
  given(applied).when(book(S1, MONDAY, 1)).thenThrows(ConflictError, 'host_unavailable');
  given().when(book(S1, MONDAY, 1)).thenThrows(NotFoundError, 'host_not_found');
});

test('given live bookings, when a profile closes their days, then bookedDaysClosed names those days only', () => {
  const host = fold([applied, approved, booked(S1, MONDAY, 1), booked(S2, TUESDAY, 1)]) as ExistingHost;
  assert.equal(bookedDaysClosed(host, { ...profile, closures: [{ from: TUESDAY, to: '2026-03-10' }] }), [TUESDAY]);
  assert.equal(bookedDaysClosed(host, { ...profile, openingHours: { '1': [] } }), [MONDAY, TUESDAY]);
  assert.equal(bookedDaysClosed(host, profile), []);
});

test('property: for any sequence of bookings, releases and capacity changes, no day ever holds more parcels than the capacity at booking time allowed', () => {
  // A small deterministic generator (mulberry32): the same seeds every run, many sequences.
  const rng = (seed: number) => () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const days = [MONDAY, TUESDAY, '2026-03-04', '2026-03-05'];
  const shipments = Array.from({ length: 12 }, (_, i) => `c${String(i).padStart(7, '0')}-8a0e-4d47-9a8f-6f2f6d1c1a01`);
  let refusals = 0;
  let bookings = 0;
  for (let seed = 1; seed <= 200; seed++) {
    const next = rng(seed);
    const pick = <T>(xs: readonly T[]) => xs[Math.floor(next() * xs.length)]!;
    const history: DomainEvent[] = [applied, approved];
    let state = fold(history);
    for (let step = 0; step < 40; step++) {
      const r = next();
      const command: HostCommand =
        r < 0.65
          ? book(pick(shipments), pick(days), 1 + Math.floor(next() * 4), 500 + Math.floor(next() * 6000))
          : r < 0.9
            ? { type: 'ReleaseBooking', data: { shipmentId: pick(shipments) }, metadata: meta }
            : { type: 'UpdateHostProfile', data: { userId: USER, changes: { capacity: { parcelsPerDay: 1 + Math.floor(next() * 6), maxWeightG: 5000 } } }, metadata: meta };
      try {
        const events = decideHost(command, state);
        history.push(...events);
        state = events.reduce(hostAggregate.evolve, state);
        if (events.some((e) => e.type === 'RelaisHostParcelsBooked')) {
          bookings++;
          const host = state as ExistingHost;
          const d = (command as Extract<HostCommand, { type: 'BookParcels' }>).data.date;
          assert.ok(bookedOn(host, d) <= host.profile.capacity.parcelsPerDay, `seed ${seed} step ${step}: ${bookedOn(host, d)} parcels on ${d}`);
        }
      } catch (e) {
        if (!(e instanceof ConflictError || e instanceof ValidationError)) throw e;
        refusals++;
      }
    }
    // The state folded from the stored history agrees with the one carried along (and every event is storable).
    const replayed = fold(history) as ExistingHost;
    for (const d of days) assert.is(bookedOn(replayed, d), bookedOn(state as ExistingHost, d));
  }
  assert.ok(bookings > 100 && refusals > 100, `both paths exercised (${bookings} bookings, ${refusals} refusals)`);
});

test.run();
