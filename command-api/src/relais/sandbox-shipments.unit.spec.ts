import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SHIPMENT_STATUS_RANK, advancesShipment } from '@cagnotte/event-schemas';
import { SANDBOX_ROAD, magicRoadOf, nextSandboxStatus } from './sandbox-shipments';

const test = suite('sandbox carrier: the next status and the magic tracking numbers');

test('given nothing pushed yet, when advanced, then in_transit (the label exists with the shipment)', () => {
  assert.is(nextSandboxStatus(null), 'in_transit');
});

test('given a status on the road, when advanced, then the next one; each step moves the shipment forward', () => {
  assert.equal(
    SANDBOX_ROAD.map((s) => nextSandboxStatus(s)),
    ['in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered', null],
  );
  for (const s of SANDBOX_ROAD.slice(0, -1)) assert.ok(advancesShipment(s, nextSandboxStatus(s)!), s);
});

test('given an end (delivered, returned, failed), when advanced, then nothing comes next', () => {
  assert.is(nextSandboxStatus('delivered'), null);
  assert.is(nextSandboxStatus('returned'), null);
  assert.is(nextSandboxStatus('failed'), null);
});

test('magic tracking numbers walk up to their status in rank order; other numbers are not magic', () => {
  assert.equal(magicRoadOf('SBX-TRANSIT-1'), ['in_transit']);
  assert.equal(magicRoadOf('SBX-AVAILABLE-42'), ['in_transit', 'out_for_delivery', 'available_for_pickup']);
  assert.equal(magicRoadOf('sbx-delivered-7'), ['in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered']);
  assert.equal(magicRoadOf('SBX-RETURNED-x'), ['in_transit', 'returned']);
  assert.equal(magicRoadOf('SBX-FAILED-x'), ['in_transit', 'failed']);
  for (const road of ['SBX-TRANSIT-', 'SBX-AVAILABLE-', 'SBX-DELIVERED-', 'SBX-RETURNED-', 'SBX-FAILED-'].map((p) => magicRoadOf(`${p}1`)!)) {
    for (let i = 1; i < road.length; i++) assert.ok(SHIPMENT_STATUS_RANK[road[i]!] > SHIPMENT_STATUS_RANK[road[i - 1]!]);
  }
  for (const plain of ['SBX123456789012', 'CMY123456789012', 'SBX-LOST-1', 'XSBX-TRANSIT-1']) assert.is(magicRoadOf(plain), null, plain);
});

test.run();
