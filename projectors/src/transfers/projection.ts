import { V1_TRANSFERS_TABLE, V1_TRANSFER_EVENTS, foldV1Transfer, v1TransferDocOf, v1TransferKeyOf, v1TransferRowOf, type V1TransferDoc } from '@cagnotte/read-models';
import type { Knex } from 'knex';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { applyFolded, type FoldedTable } from '../identity/folded-rows';

export const v1TransferRows: FoldedTable<V1TransferDoc> = {
  table: V1_TRANSFERS_TABLE,
  key: 'id',
  keyOf: v1TransferKeyOf,
  fold: foldV1Transfer,
  toRow: v1TransferRowOf,
  fromRow: v1TransferDocOf,
};

const apply = (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap) => applyFolded(trx, events, v1TransferRows, table);

/** rm_v1_transfers: a row per transfer, for /v1/transfers and the accounts' pending balances. */
export const transfersProjection: Projection = {
  name: 'transfers',
  tables: [V1_TRANSFERS_TABLE],
  handles: (type) => V1_TRANSFER_EVENTS.has(type),
  apply: (trx, event, table) => apply(trx, [event], table),
  applyMany: apply,
};
