import type { Knex } from 'knex';
import {
  RELAIS_HOSTS_TABLE,
  RELAIS_HOST_BOOKINGS_TABLE,
  RELAIS_HOST_EVENTS,
  foldRelaisHost,
  foldRelaisHostBooking,
  relaisHostBookingDocOf,
  relaisHostBookingKeyOf,
  relaisHostBookingRowOf,
  relaisHostDocOf,
  relaisHostKeyOf,
  relaisHostRowOf,
  type RelaisHostBookingDoc,
  type RelaisHostDoc,
} from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { applyFolded, type FoldedTable } from '../identity/folded-rows';

export const relaisHostRows: FoldedTable<RelaisHostDoc> = {
  table: RELAIS_HOSTS_TABLE,
  key: 'id',
  keyOf: relaisHostKeyOf,
  fold: foldRelaisHost,
  toRow: relaisHostRowOf,
  fromRow: relaisHostDocOf,
};

export const relaisHostBookingRows: FoldedTable<RelaisHostBookingDoc> = {
  table: RELAIS_HOST_BOOKINGS_TABLE,
  key: 'id',
  keyOf: relaisHostBookingKeyOf,
  fold: foldRelaisHostBooking,
  toRow: relaisHostBookingRowOf,
  fromRow: relaisHostBookingDocOf,
};

const apply = async (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap) => {
  await applyFolded(trx, events, relaisHostRows, table);
  await applyFolded(trx, events, relaisHostBookingRows, table);
};

/** rm_relais_hosts and rm_relais_host_bookings: the community hosts and the parcels booked on their days. */
export const relaisHostsProjection: Projection = {
  name: 'relais-hosts',
  tables: [RELAIS_HOSTS_TABLE, RELAIS_HOST_BOOKINGS_TABLE],
  handles: (type) => RELAIS_HOST_EVENTS.has(type),
  apply: (trx, event, table) => apply(trx, [event], table),
  applyMany: apply,
};
