import { V1_ACCOUNTS_TABLE, V1_ACCOUNT_EVENTS, foldV1Account, v1AccountDocOf, v1AccountKeyOf, v1AccountRowOf, type V1AccountDoc } from '@cagnotte/read-models';
import type { Knex } from 'knex';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { applyFolded, type FoldedTable } from '../identity/folded-rows';

export const v1AccountRows: FoldedTable<V1AccountDoc> = {
  table: V1_ACCOUNTS_TABLE,
  key: 'id',
  keyOf: v1AccountKeyOf,
  fold: foldV1Account,
  toRow: v1AccountRowOf,
  fromRow: v1AccountDocOf,
};

const apply = (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap) => applyFolded(trx, events, v1AccountRows, table);

/** rm_v1_accounts: every account of every tenant as /v1/accounts lists it (a signup's too), with its partner's facts. */
export const v1AccountsProjection: Projection = {
  name: 'v1-accounts',
  tables: [V1_ACCOUNTS_TABLE],
  handles: (type) => V1_ACCOUNT_EVENTS.has(type),
  apply: (trx, event, table) => apply(trx, [event], table),
  applyMany: apply,
};
