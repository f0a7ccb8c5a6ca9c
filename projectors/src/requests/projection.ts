import { REQUESTS_TABLE, foldRequest, requestDocOf, requestKeyOf, requestRowOf, type RequestDoc, type RequestRow } from '@cagnotte/read-models';
import { PAYMENT_REQUEST_EVENT_TYPES } from '@cagnotte/event-schemas';
import type { Projection } from '../runtime';
import { upsertRows, type Columns } from '../sql';

const COLUMNS: Columns = {
  request_id: 'uuid',
  tenant_id: 'uuid',
  livemode: 'boolean',
  payee_id: 'uuid',
  status: 'text',
  due_at: 'timestamptz',
  created_at: 'timestamptz',
  revision: 'bigint',
  doc: 'jsonb',
};

/**
 * rm_payment_requests: one row per request, its document folded by `foldRequest` (a replayed event, at or below the
 * row's revision, changes nothing). `seq` is the table's identity: given once, when the row is first written.
 */
export const requestsProjection: Projection = {
  name: 'requests',
  tables: [REQUESTS_TABLE],
  handles: (type) => PAYMENT_REQUEST_EVENT_TYPES.has(type),
  apply: async (trx, e, table) => {
    const key = requestKeyOf(e);
    if (!key) return;
    const row = (await trx(table(REQUESTS_TABLE)).where({ request_id: key }).first()) as RequestRow | undefined;
    const before: RequestDoc | null = row ? requestDocOf(row) : null;
    const after = foldRequest(before, e);
    if (!after || after === before) return;
    await upsertRows(trx, table(REQUESTS_TABLE), COLUMNS, ['request_id'], [requestRowOf(after)]);
  },
};
