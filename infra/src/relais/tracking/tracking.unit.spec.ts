import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ValidationError } from '@cagnotte/domain';
import { ShipmentStatus } from '@cagnotte/event-schemas';
import { CARRIER_NETWORKS, CHRONOPOST_EVENT_CODES, COLISSIMO_EVENT_CODES, INPOST_STATUSES, SANDBOX_EVENT_CODES, mondialRelayStatusOf, parseTrackingPayload } from './index';

// Recorded payloads in each carrier's documented format (recorded/): no carrier is reachable from here.
const recorded = (name: string): unknown => JSON.parse(readFileSync(join(__dirname, 'recorded', name), 'utf8'));
const invalid = (run: () => unknown, field: RegExp) =>
  assert.throws(run, (e: unknown) => e instanceof ValidationError && e.code === 'invalid_payload' && Object.keys(e.errors).some((k) => field.test(k)));

const test = suite('carrier tracking payloads → the vocabulary');

test('every network but community has a parser', () => {
  assert.equal([...CARRIER_NETWORKS].sort(), ['chronopost', 'colissimo', 'inpost', 'mondial_relay', 'sandbox']);
});

test('every code table maps into the vocabulary', () => {
  for (const table of [COLISSIMO_EVENT_CODES, CHRONOPOST_EVENT_CODES, INPOST_STATUSES, SANDBOX_EVENT_CODES]) {
    for (const status of Object.values(table)) assert.ok(ShipmentStatus.safeParse(status).success, status);
  }
});

test('InPost: given a recorded shipment_status_changed push, when parsed, then ready_to_pickup is available_for_pickup at event_ts in UTC', () => {
  assert.equal(parseTrackingPayload('inpost', recorded('inpost-shipment-status-changed.json')), [
    { trackingNumber: '683400111223344556677889', carrierStatus: 'ready_to_pickup', status: 'available_for_pickup', occurredAt: '2026-11-24T17:02:11.000Z' },
  ]);
});

test('InPost: shipment_confirmed is label_created; offers_prepared (no parcel yet) is no update', () => {
  assert.equal(parseTrackingPayload('inpost', recorded('inpost-shipment-confirmed.json')), [
    { trackingNumber: '683400111223344556677889', carrierStatus: 'confirmed', status: 'label_created', occurredAt: '2026-11-21T08:15:40.000Z' },
  ]);
  assert.equal(parseTrackingPayload('inpost', recorded('inpost-offers-prepared.json')), []);
});

test('InPost: each status of the table, an unknown one and an inherited name', () => {
  const push = (status: string) => ({ event_ts: '2026-11-24 18:02:11 +0100', event: 'shipment_status_changed', payload: { shipment_id: 1, status, tracking_number: '683400111223344556677889' } });
  for (const [code, status] of Object.entries(INPOST_STATUSES)) assert.is(parseTrackingPayload('inpost', push(code))[0]!.status, status, code);
  assert.is(parseTrackingPayload('inpost', push('delivered'))[0]!.status, 'delivered');
  assert.is(parseTrackingPayload('inpost', push('returned_to_sender'))[0]!.status, 'returned');
  assert.is(parseTrackingPayload('inpost', push('teleported'))[0]!.status, 'unknown');
  assert.is(parseTrackingPayload('inpost', push('constructor'))[0]!.status, 'unknown');
  invalid(() => parseTrackingPayload('inpost', { ...push('delivered'), event_ts: 'yesterday' }), /event_ts/);
  invalid(() => parseTrackingPayload('inpost', { event: 'shipment_status_changed' }), /body/);
});

test('Colissimo: given a recorded La Poste Suivi v2 answer, when parsed, then every event of the found parcel is an update and the unknown parcel none', () => {
  const updates = parseTrackingPayload('colissimo', recorded('colissimo-suivi-v2.json'));
  assert.equal(
    updates.map((u) => [u.carrierStatus, u.status, u.occurredAt]),
    [
      ['AG1', 'available_for_pickup', '2026-11-23T09:41:00.000Z'],
      ['ET1', 'in_transit', '2026-11-22T04:12:31.000Z'],
      ['ET1', 'in_transit', '2026-11-21T01:40:10.000Z'],
      ['PC1', 'in_transit', '2026-11-20T15:05:00.000Z'],
      ['DR1', 'label_created', '2026-11-20T10:30:00.000Z'],
    ],
  );
  assert.ok(updates.every((u) => u.trackingNumber === '6A26418870215'));
});

test('Colissimo: the code table (delivered, returned, not deliverable, a hold) and an unknown code', () => {
  const answer = (code: string) => ({ returnCode: 200, shipment: { idShip: '6A26418870215', event: [{ code, label: '', date: '2026-11-23T10:41:00+01:00' }] } });
  const statusOf = (code: string) => parseTrackingPayload('colissimo', answer(code))[0]!.status;
  assert.equal(['DI1', 'DI2', 'RE1', 'ND1', 'MD2', 'DO3', 'XX9'].map(statusOf), ['delivered', 'returned', 'returned', 'failed', 'out_for_delivery', 'unknown', 'unknown']);
  invalid(() => parseTrackingPayload('colissimo', { returnCode: 200, shipment: { idShip: '6A26418870215', event: [{ code: 'DI1', date: '23/11/2026' }] } }), /date/);
  invalid(() => parseTrackingPayload('colissimo', 'not an answer'), /body/);
});

test('Chronopost: given a recorded trackSkybillV2 return, when parsed, then codes map, the relay arrival is read from its label, an unknown code is unknown', () => {
  const updates = parseTrackingPayload('chronopost', recorded('chronopost-track-skybill-v2.json'));
  assert.equal(
    updates.map((u) => [u.carrierStatus, u.status]),
    [
      ['DC', 'label_created'],
      ['DB', 'in_transit'],
      ['TS', 'in_transit'],
      ['SD', 'in_transit'],
      ['TA', 'out_for_delivery'],
      ['ZZ', 'available_for_pickup'],
      ['QQ', 'unknown'],
    ],
  );
  assert.is(updates[0]!.occurredAt, '2026-11-20T13:02:10.000Z');
  assert.ok(updates.every((u) => u.trackingNumber === 'XY502667318FR'));
});

test('Chronopost: one event as an object (XML→JSON), D is delivered, an error answer is refused', () => {
  const one = { errorCode: '0', listEventInfoComp: { skybillNumber: 'XY502667318FR', events: { code: 'D', eventDate: '2026-11-21T12:00:00+01:00', eventLabel: 'Livré' } } };
  assert.equal(parseTrackingPayload('chronopost', one), [{ trackingNumber: 'XY502667318FR', carrierStatus: 'D', status: 'delivered', occurredAt: '2026-11-21T11:00:00.000Z' }]);
  invalid(() => parseTrackingPayload('chronopost', { errorCode: 1, errorMessage: 'System Error' }), /errorCode/);
});

test('Mondial Relay: given a recorded WSI2_TracingColisDetaille answer, when parsed, then each non-empty step is an update at its Paris time', () => {
  assert.equal(parseTrackingPayload('mondial_relay', recorded('mondial-relay-tracing-colis-detaille.json')), [
    { trackingNumber: '31452207', carrierStatus: 'RÉCEPTION DES DONNÉES', status: 'label_created', occurredAt: '2026-11-20T09:05:00.000Z' },
    { trackingNumber: '31452207', carrierStatus: 'PRISE EN CHARGE EN AGENCE', status: 'in_transit', occurredAt: '2026-11-21T17:40:00.000Z' },
    { trackingNumber: '31452207', carrierStatus: "COLIS EN COURS D'ACHEMINEMENT", status: 'in_transit', occurredAt: '2026-11-22T05:15:00.000Z' },
    { trackingNumber: '31452207', carrierStatus: 'COLIS DISPONIBLE AU POINT RELAIS', status: 'available_for_pickup', occurredAt: '2026-11-23T08:12:00.000Z' },
  ]);
});

test('Mondial Relay: label rules (delivery, out for delivery, return, unknown), summer time, an error STAT', () => {
  assert.equal(
    ['COLIS LIVRÉ', 'COLIS RÉCUPÉRÉ PAR LE DESTINATAIRE', 'COLIS EN COURS DE LIVRAISON', 'RETOUR À L’EXPÉDITEUR', 'COLIS RETOURNE DISPONIBLE', 'INCIDENT'].map(mondialRelayStatusOf),
    ['delivered', 'delivered', 'out_for_delivery', 'returned', 'returned', 'unknown'],
  );
  const summer = { Expedition: '31452207', WSI2_TracingColisDetailleResult: { STAT: 82, Tracing: { ret_WSI2_sub_TracingColisDetaille: { Libelle: 'COLIS LIVRÉ', Date: '01/07/2026', Heure: '12:00' } } } };
  assert.is(parseTrackingPayload('mondial_relay', summer)[0]!.occurredAt, '2026-07-01T10:00:00.000Z');
  invalid(() => parseTrackingPayload('mondial_relay', { ...summer, WSI2_TracingColisDetailleResult: { STAT: '97' } }), /STAT/);
  invalid(() => parseTrackingPayload('mondial_relay', { ...summer, WSI2_TracingColisDetailleResult: { STAT: 81, Tracing: { ret_WSI2_sub_TracingColisDetaille: [{ Libelle: 'X', Date: '31/02/26', Heure: '10:00' }] } } }), /Tracing/);
});

test('sandbox: its own push, codes the vocabulary in capitals, an unknown code unknown', () => {
  assert.equal(
    parseTrackingPayload('sandbox', recorded('sandbox-push.json')).map((u) => [u.trackingNumber, u.status, u.occurredAt]),
    [
      ['SBX-AVAILABLE-0001', 'in_transit', '2026-11-27T09:00:00.000Z'],
      ['SBX-AVAILABLE-0001', 'available_for_pickup', '2026-11-27T09:00:01.000Z'],
      ['SBX-AVAILABLE-0001', 'unknown', '2026-11-27T09:00:02.000Z'],
    ],
  );
  invalid(() => parseTrackingPayload('sandbox', { shipment: { tracking_number: 'has spaces in it', events: [{ code: 'DELIVERED', at: '2026-11-27T09:00:00Z' }] } }), /tracking_number/);
});

test.run();
