import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { HostProfile } from '@cagnotte/event-schemas';
import { TENANT, USER, at, foldAll, on } from '../spec-events';
import { foldRelaisHost, foldRelaisHostBooking, relaisHostBookingKeyOf, relaisHostKeyOf } from './hosts-fold';
import { relaisHostView } from './hosts-view';

const HOST = '4c1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL = 'a01f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const SHIPMENT = 'b11f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const stream = `relais-host-${HOST}`;
const profile: HostProfile = {
  name: 'Chez Louise',
  address: { line1: '3 rue des Lilas', postalCode: '75011', city: 'Paris', country: 'FR' },
  geo: { lat: 48.857, lng: 2.38 },
  openingHours: { '1': [{ open: '09:00', close: '19:00' }] },
  closures: [],
  capacity: { parcelsPerDay: 5, maxWeightG: 5000 },
  photoUrl: null,
};
const applied = on(stream, 0, { type: 'RelaisHostApplied', data: { hostId: HOST, tenantId: TENANT, userId: USER, profile, mandate: { version: '2026-01', hash: 'ab'.repeat(32) }, appliedAt: at(0) } });
const approved = on(stream, 1, { type: 'RelaisHostApproved', data: { hostId: HOST, approvedBy: 'operator:ops', approvedAt: at(1) } });
const updated = on(stream, 2, { type: 'RelaisHostProfileUpdated', data: { hostId: HOST, changes: { capacity: { parcelsPerDay: 8, maxWeightG: 2000 } }, updatedAt: at(2) } });
const booked = on(stream, 3, { type: 'RelaisHostParcelsBooked', data: { hostId: HOST, shipmentId: SHIPMENT, poolId: POOL, date: '2026-03-02', parcels: 3, bookedAt: at(3) } });
const paused = on(stream, 4, { type: 'RelaisHostStatusChanged', data: { hostId: HOST, status: 'temporarily_closed', reason: 'holidays', changedAt: at(4) } });
const released = on(stream, 5, { type: 'RelaisHostBookingReleased', data: { hostId: HOST, shipmentId: SHIPMENT, releasedAt: at(5) } });

test('given a host’s life, when folded, then one document holds its status, profile and review; a replayed event changes nothing', () => {
  const doc = foldAll(foldRelaisHost, [applied, approved, updated, booked, paused].filter((e) => relaisHostKeyOf(e) !== null));
  assert.ok(doc);
  assert.equal([doc.status, doc.approvedAt, doc.approvedBy, doc.statusReason, doc.profile.capacity, doc.updatedAt, doc.revision], [
    'temporarily_closed',
    at(1),
    'operator:ops',
    'holidays',
    { parcelsPerDay: 8, maxWeightG: 2000 },
    at(4),
    4n,
  ]);
  assert.is(foldAll(foldRelaisHost, [applied, approved, updated], doc), doc, 'replayed: the same document');
  assert.is(relaisHostKeyOf(booked), null, 'bookings are their own rows');
  assert.equal(relaisHostView(doc).pointId, `community:${HOST}`);
});

test('given a booking then its release, when folded, then the booking row is released; replaying the booking does not revive it', () => {
  assert.is(relaisHostBookingKeyOf(booked), `${HOST}:${SHIPMENT}`);
  assert.is(relaisHostBookingKeyOf(applied), null);
  const doc = foldAll(foldRelaisHostBooking, [booked, released]);
  assert.ok(doc);
  assert.equal([doc.released, doc.releasedAt, doc.parcels, doc.date], [true, at(5), 3, '2026-03-02']);
  assert.is(foldAll(foldRelaisHostBooking, [booked], doc), doc);
  assert.is(foldAll(foldRelaisHostBooking, [released]), null, 'a release without its booking folds nothing');
});

test.run();
