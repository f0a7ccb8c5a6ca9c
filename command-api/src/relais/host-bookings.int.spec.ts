import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError, NotFoundError, ValidationError } from '@cagnotte/domain';
import { currentMandate, type DomainEvent, type HostProfile } from '@cagnotte/event-schemas';
import { KeyedQueue, PostgresEventStore, RecentWrites } from '@cagnotte/infra';
import { onTestTeardown, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { toNewEvents } from '../shared/new-events';
import { bookHostParcels, releaseHostBooking } from './host-bookings';
import { relaisHostStream } from './hosts';
import type { RelaisDeps } from './ports';

/**
 * A community host's capacity booked by shipments, on the real event store: each booking is decided on the host's
 * stream (one at a time per stream, appended with its expected revision), so bookings made at once never exceed a day.
 */
const test = suite('host bookings: capacity per day on the host stream');

let shared: PostgresEventStore | null = null;
const store = (): PostgresEventStore => {
  if (!shared) {
    const s = new PostgresEventStore({ pool: testPgPool(), pollMs: 20 });
    shared = s;
    onTestTeardown(() => s.close());
  }
  return shared;
};
const deps = (): RelaisDeps =>
  ({
    services: { store: store(), pgPool: testPgPool(), commandQueue: new KeyedQueue(), recentWrites: new RecentWrites(), logger: console },
    facts: { written: () => {} },
    clock: () => new Date('2026-03-01T09:00:00.000Z'),
  }) as unknown as RelaisDeps;

const TENANT = randomUUID();
// 2026-03-02 is a Monday (open); 2026-03-08 a Sunday (closed).
const MONDAY = '2026-03-02';
const profile: HostProfile = {
  name: 'Chez Louise',
  address: { line1: '3 rue des Lilas', postalCode: '75011', city: 'Paris', country: 'FR' },
  geo: { lat: 48.857, lng: 2.38 },
  openingHours: { '1': [{ open: '09:00', close: '19:00' }] },
  closures: [],
  capacity: { parcelsPerDay: 6, maxWeightG: 5000 },
  photoUrl: null,
};

const approvedHost = async (): Promise<string> => {
  const hostId = randomUUID();
  const at = '2026-03-01T08:00:00.000Z';
  const events: DomainEvent[] = [
    { type: 'RelaisHostApplied', data: { hostId, tenantId: TENANT, userId: randomUUID(), profile, mandate: currentMandate('RELAIS'), appliedAt: at } },
    { type: 'RelaisHostApproved', data: { hostId, approvedBy: 'operator:spec', approvedAt: at } },
  ];
  await store().append(relaisHostStream(hostId), toNewEvents(events, { tenantId: TENANT, actor: { kind: 'system', id: 'spec' }, correlationId: randomUUID(), causationId: null, occurredAt: at }), { expectedRevision: 'any' });
  return hostId;
};
const booking = (hostId: string, parcels: number, over: Partial<{ shipmentId: string; date: string; weightG: number }> = {}) => ({
  hostId,
  shipmentId: over.shipmentId ?? randomUUID(),
  poolId: randomUUID(),
  date: over.date ?? MONDAY,
  parcels,
  weightG: over.weightG ?? 1000,
});
const typesOf = async (hostId: string) => (await store().readStream(relaisHostStream(hostId))).map((e) => e.type);
const refusal = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return e;
  }
  return assert.unreachable('expected a refusal') as never;
};

test('given an active host, when a shipment books within capacity twice, then one booking is recorded', async () => {
  const hostId = await approvedHost();
  const b = booking(hostId, 4);
  await bookHostParcels(deps(), b);
  await bookHostParcels(deps(), b);
  assert.equal(await typesOf(hostId), ['RelaisHostApplied', 'RelaisHostApproved', 'RelaisHostParcelsBooked']);
});

test('given a day nearly full, a heavy parcel, a closed day and an unknown host, when booked, then the domain errors HTTP maps (409, 400, 409, 404)', async () => {
  const hostId = await approvedHost();
  await bookHostParcels(deps(), booking(hostId, 5));
  const full = await refusal(bookHostParcels(deps(), booking(hostId, 2)));
  assert.instance(full, ConflictError);
  assert.is((full as ConflictError).code, 'host_capacity_exceeded');
  const heavy = await refusal(bookHostParcels(deps(), booking(hostId, 1, { weightG: 6000 })));
  assert.instance(heavy, ValidationError);
  assert.is((heavy as ValidationError).code, 'host_too_heavy');
  const closed = await refusal(bookHostParcels(deps(), booking(hostId, 1, { date: '2026-03-08' })));
  assert.is((closed as ConflictError).code, 'host_unavailable');
  assert.instance(await refusal(bookHostParcels(deps(), booking(randomUUID(), 1))), NotFoundError);
});

test('given a booking released, when the day is booked again, then its parcels are free; releasing twice changes nothing', async () => {
  const hostId = await approvedHost();
  const first = booking(hostId, 6);
  await bookHostParcels(deps(), first);
  await releaseHostBooking(deps(), first);
  await releaseHostBooking(deps(), first);
  await bookHostParcels(deps(), booking(hostId, 6));
  assert.equal((await typesOf(hostId)).slice(2), ['RelaisHostParcelsBooked', 'RelaisHostBookingReleased', 'RelaisHostParcelsBooked']);
});

test('given ten shipments of one parcel booking one day of six at once, from two processes’ worth of runtimes, then exactly six are booked', async () => {
  const hostId = await approvedHost();
  const runtimes = [deps(), deps()];
  const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => bookHostParcels(runtimes[i % 2]!, booking(hostId, 1))));
  const refused = results.filter((r) => r.status === 'rejected');
  for (const r of refused) assert.is(((r as PromiseRejectedResult).reason as ConflictError).code, 'host_capacity_exceeded');
  assert.is(results.filter((r) => r.status === 'fulfilled').length, 6);
  assert.is((await typesOf(hostId)).filter((t) => t === 'RelaisHostParcelsBooked').length, 6);
});

test.run();
