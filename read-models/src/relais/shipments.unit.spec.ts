import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent, ShipmentStatus } from '@cagnotte/event-schemas';
import { collectionCode, isCollectionCode } from './collection-code';
import { collectionRowsOf, foldCollected, foldCollectionOnStatus, foldShipmentStatus, shipmentRowOf, shipmentView, type CollectionRow, type ShipmentRow } from './shipments';

// The shipments read model's folds (given a row, when an event at a revision, then the row), and the collection code.

const POOL = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const HOST = '40000000-0000-4000-8000-000000000001';
const S1 = '5a000000-0000-4000-8000-000000000001';
const [R1, R2] = ['10000000-0000-4000-8000-000000000001', '10000000-0000-4000-8000-000000000002'];
const at = (h: number) => new Date(Date.UTC(2026, 2, 11, h)).toISOString();

const created = (pointId: string): Extract<DomainEvent, { type: 'PoolShipmentCreated' }> => ({
  type: 'PoolShipmentCreated',
  data: { poolId: POOL, shipmentId: S1, pointId, network: pointId.startsWith('community') ? 'community' : 'sandbox', trackingNumber: 'CMY000000000001', reservationIds: [R1, R2], parcels: 2, weightG: 1000, expectedOn: '2026-03-12', createdAt: at(1) },
});
const changed = (status: ShipmentStatus, previous: ShipmentStatus, h: number): Extract<DomainEvent, { type: 'PoolShipmentStatusChanged' }> => ({
  type: 'PoolShipmentStatusChanged',
  data: { poolId: POOL, shipmentId: S1, trackingNumber: 'CMY000000000001', network: 'community', status, previous, carrierStatus: null, source: 'host', occurredAt: at(h), recordedAt: at(h) },
});
const collected: Extract<DomainEvent, { type: 'RelaisParcelCollected' }> = {
  type: 'RelaisParcelCollected',
  data: { poolId: POOL, shipmentId: S1, reservationId: R1, buyerId: 'b0000000-0000-4000-8000-00000000000b', pointId: `community:${HOST}`, hostId: HOST, collectedAt: at(9) },
};

const test = suite('relais shipments read model');

test('given a shipment created to a community host, then its row is label_created and each parcel waits at the host; to a relay, no parcels to collect', () => {
  const row = shipmentRowOf(created(`community:${HOST}`), TENANT, 4n);
  assert.equal([row.status, row.arrived_at, row.revision, row.tenant_id], ['label_created', null, 4n, TENANT]);
  assert.equal(collectionRowsOf(row).map((c) => [c.reservation_id, c.host_id, c.status]), [[R1, HOST, 'waiting'], [R2, HOST, 'waiting']]);
  assert.equal(collectionRowsOf(shipmentRowOf(created('sandbox:SBX-001'), TENANT, 4n)), []);
  assert.is(shipmentView(row).arrivedAt, null);
});

test('given the shipment arrives, then its row records when and its parcels are ready; the same event again (a replay) changes nothing', () => {
  const row = shipmentRowOf(created(`community:${HOST}`), TENANT, 4n);
  const arrived = foldShipmentStatus(row, changed('available_for_pickup', 'label_created', 5), 5n);
  assert.equal([arrived.status, arrived.arrived_at, arrived.revision], ['available_for_pickup', at(5), 5n]);
  assert.is(foldShipmentStatus(arrived, changed('available_for_pickup', 'label_created', 5), 5n), arrived);
  const later = foldShipmentStatus(arrived, changed('delivered', 'available_for_pickup', 7), 6n);
  assert.is(later.arrived_at, at(5), 'the first arrival stands');
  const [c1] = collectionRowsOf(row) as [CollectionRow];
  const ready = foldCollectionOnStatus(c1, arrived, 5n)!;
  assert.equal([ready.status, ready.ready_at], ['ready', at(5)]);
  assert.is(foldCollectionOnStatus(ready, arrived, 5n), ready);
});

test('given a parcel collected, then its collection says so, once; a returned shipment takes back the parcels not collected', () => {
  const row = shipmentRowOf(created(`community:${HOST}`), TENANT, 4n);
  const arrived = foldShipmentStatus(row, changed('available_for_pickup', 'label_created', 5), 5n);
  const [c1, c2] = collectionRowsOf(row).map((c) => foldCollectionOnStatus(c, arrived, 5n)!) as [CollectionRow, CollectionRow];
  const done = foldCollected(c1, collected, 6n);
  assert.equal([done.status, done.collected_at], ['collected', at(9)]);
  assert.is(foldCollected(done, collected, 6n), done);
  const returned: ShipmentRow = foldShipmentStatus(arrived, changed('returned', 'available_for_pickup', 10), 7n);
  assert.is(foldCollectionOnStatus(c2, returned, 7n), null);
  assert.is(foldCollectionOnStatus(done, returned, 7n), done);
});

test('given a reservation, then its code is 8 digits, the same every time, another reservation’s differs, and only it opens the parcel', () => {
  const code = collectionCode('a-secret-of-at-least-32-characters!!', R1);
  assert.match(code, /^\d{8}$/);
  assert.is(collectionCode('a-secret-of-at-least-32-characters!!', R1), code);
  assert.is.not(collectionCode('a-secret-of-at-least-32-characters!!', R2), code);
  assert.is.not(collectionCode('another-secret-of-at-least-32-chars!', R1), code);
  assert.ok(isCollectionCode('a-secret-of-at-least-32-characters!!', R1, code));
  assert.not.ok(isCollectionCode('a-secret-of-at-least-32-characters!!', R2, code));
  assert.not.ok(isCollectionCode('a-secret-of-at-least-32-characters!!', R1, `${code}0`));
});

test.run();
