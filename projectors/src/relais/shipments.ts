import type { Knex } from 'knex';
import type { DomainEvent } from '@cagnotte/event-schemas';
import {
  RELAIS_SHIPMENT_EVENTS,
  RELAIS_SHIPMENT_TABLES as T,
  collectionRowsOf,
  foldCollected,
  foldCollectionOnStatus,
  foldShipmentStatus,
  shipmentRowOf,
  type CollectionRow,
  type ShipmentRow,
} from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

type Of<K extends string> = Extract<DomainEvent, { type: K }>;

const jsonRow = (row: ShipmentRow) => ({ ...row, reservation_ids: JSON.stringify(row.reservation_ids), revision: String(row.revision) });
const collectionValues = (row: CollectionRow) => ({ ...row, revision: String(row.revision) });

/**
 * Each event on its own (shipments are few per pool): the pure folds of read-models/src/relais/shipments.ts over the
 * rows it touches, written in the checkpoint's transaction. Each row keeps the pool stream's revision it last folded,
 * so an event applied twice changes nothing.
 */
const applyShipmentEvent = async (trx: Knex.Transaction, event: ProjectedEvent, table: TableMap): Promise<void> => {
  const e = event as ProjectedEvent & DomainEvent;
  switch (e.type) {
    case 'PoolShipmentCreated': {
      const tenantId = event.metadata.tenantId;
      if (!tenantId) return;
      const row = shipmentRowOf(e as Of<'PoolShipmentCreated'>, tenantId, event.revision);
      await trx(table(T.shipments)).insert(jsonRow(row)).onConflict('shipment_id').ignore();
      const parcels = collectionRowsOf(row);
      // A parcel shipped again (its first shipment returned) is the new shipment's.
      if (parcels.length) {
        await trx(table(T.collections))
          .insert(parcels.map(collectionValues))
          .onConflict('reservation_id')
          .merge()
          .where(`${table(T.collections)}.revision`, '<', trx.raw('excluded.revision'));
      }
      return;
    }
    case 'PoolShipmentStatusChanged': {
      const d = (e as Of<'PoolShipmentStatusChanged'>).data;
      const row = (await trx<ShipmentRow>(table(T.shipments)).where({ shipment_id: d.shipmentId }).forUpdate().first()) as ShipmentRow | undefined;
      if (!row) return;
      const next = foldShipmentStatus(row, e as Of<'PoolShipmentStatusChanged'>, event.revision);
      if (next === row) return;
      await trx(table(T.shipments)).where({ shipment_id: d.shipmentId }).update({ status: next.status, arrived_at: next.arrived_at, updated_at: next.updated_at, revision: String(next.revision) });
      const parcels = (await trx<CollectionRow>(table(T.collections)).where({ shipment_id: d.shipmentId })) as CollectionRow[];
      for (const p of parcels) {
        const folded = foldCollectionOnStatus(p, next, event.revision);
        if (folded === p) continue;
        if (folded === null) await trx(table(T.collections)).where({ reservation_id: p.reservation_id }).delete();
        else await trx(table(T.collections)).where({ reservation_id: p.reservation_id }).update({ status: folded.status, ready_at: folded.ready_at, revision: String(folded.revision) });
      }
      return;
    }
    case 'RelaisParcelCollected': {
      const d = (e as Of<'RelaisParcelCollected'>).data;
      const row = (await trx<CollectionRow>(table(T.collections)).where({ reservation_id: d.reservationId }).first()) as CollectionRow | undefined;
      if (!row) return;
      const next = foldCollected(row, e as Of<'RelaisParcelCollected'>, event.revision);
      if (next !== row) await trx(table(T.collections)).where({ reservation_id: d.reservationId }).update({ status: next.status, collected_at: next.collected_at, revision: String(next.revision) });
      return;
    }
    case 'RelaisHostApplied': {
      const d = (e as Of<'RelaisHostApplied'>).data;
      await trx(table(T.hosts)).insert({ host_id: d.hostId, tenant_id: d.tenantId, user_id: d.userId }).onConflict('host_id').ignore();
      return;
    }
    default:
      return;
  }
};

/** Relais shipments: each shipment, each community parcel's collection, each host's user (GET …/shipments, …/parcels, …/collection). */
export const relaisShipmentsProjection: Projection = {
  name: 'relais-shipments',
  tables: [T.shipments, T.collections, T.hosts],
  handles: (type) => RELAIS_SHIPMENT_EVENTS.has(type),
  apply: applyShipmentEvent,
};
