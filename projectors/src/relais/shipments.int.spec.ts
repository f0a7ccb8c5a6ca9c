import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { ProjectorRunner, applyBatch, type Projection, type TableMap } from '../runtime';
import { appendTo, newPool, silent, specKnex, specStore, uniq, type PoolFixture } from '../spec-support';
import { relaisShipmentsProjection } from './shipments';

/**
 * The relais shipments projection on copies of its tables (a rebuild here never swaps the live ones): one event at a
 * time, a replay and a rebuild from position 0 write the same rows.
 */
const Shipments = suite('relais shipments projection');

const onCopy = async (): Promise<Projection> => {
  const copies = new Map<string, string>();
  for (const t of relaisShipmentsProjection.tables) {
    const copy = uniq(`spec_${t}`);
    await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, t]);
    copies.set(t, copy);
  }
  const to = (table: TableMap): TableMap => (t) => table(copies.get(t) ?? t);
  return {
    name: uniq('spec_relais_shipments'),
    tables: [...copies.values()],
    handles: relaisShipmentsProjection.handles,
    apply: (trx, e, table) => relaisShipmentsProjection.apply(trx, e, to(table)),
  };
};

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();

const history = (p: PoolFixture, hostId: string) => {
  const base = { poolId: p.poolId };
  const [shipmentId, r1, r2] = [randomUUID(), randomUUID(), randomUUID()];
  const pointId = `community:${hostId}`;
  const trackingNumber = `CMY${String(Date.now()).slice(-12).padStart(12, '0')}`;
  const events: DomainEvent[] = [
    p.created(),
    { type: 'PoolShipmentCreated', data: { ...base, shipmentId, pointId, network: 'community', trackingNumber, reservationIds: [r1, r2], parcels: 2, weightG: 800, expectedOn: '2025-03-02', createdAt: at(1) } },
    {
      type: 'PoolShipmentStatusChanged',
      data: { ...base, shipmentId, trackingNumber, network: 'community', status: 'available_for_pickup', previous: 'label_created', carrierStatus: null, source: 'host', occurredAt: at(2), recordedAt: at(2) },
    },
    { type: 'RelaisParcelCollected', data: { ...base, shipmentId, reservationId: r1, buyerId: randomUUID(), pointId, hostId, collectedAt: at(3) } },
  ];
  return { events, shipmentId, r1, r2 };
};

const rowsOf = async (proj: Projection, shipmentId: string) => {
  const [shipments, collections] = proj.tables;
  return {
    shipment: await specKnex()(shipments!).where({ shipment_id: shipmentId }).first(),
    collections: await specKnex()(collections!).where({ shipment_id: shipmentId }).orderBy('reservation_id'),
  };
};

Shipments('one event at a time, a replay and a rebuild from position 0 write the same rows: the shipment arrived, one parcel collected, one ready', async () => {
  const p = newPool();
  const hostId = randomUUID();
  const h = history(p, hostId);
  await appendTo(p, ...h.events);
  const events = await specStore().readStream(p.streamId);
  const proj = await onCopy();
  for (const e of events) await applyBatch(specKnex(), proj, [e]);
  const expected = await rowsOf(proj, h.shipmentId);
  assert.equal([expected.shipment.status, expected.shipment.tenant_id, new Date(expected.shipment.arrived_at).toISOString()], ['available_for_pickup', p.tenantId, at(2)]);
  const byId = new Map(expected.collections.map((c: { reservation_id: string; status: string }) => [c.reservation_id, c.status]));
  assert.equal([byId.get(h.r1), byId.get(h.r2)], ['collected', 'ready']);

  await applyBatch(specKnex(), { ...proj, name: uniq('spec_relais_replay') }, events);
  assert.equal(await rowsOf(proj, h.shipmentId), expected, 'replayed');

  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [proj], logger: silent });
  await runner.rebuild(proj.name);
  assert.equal(await rowsOf(proj, h.shipmentId), expected, 'rebuilt from position 0');
});

Shipments.run();
