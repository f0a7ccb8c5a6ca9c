import type { Knex } from 'knex';
import { DEALS_TABLE, dealDocOfRow, dealRowValues, foldDeal, isDealDocEvent, type DealDoc, type DealRow } from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

/**
 * Folds a batch in memory over the deals it touches (the read model's own fold, foldDeal, replay-safe by revision),
 * then upserts the changed rows inside the checkpoint's transaction. `seq` is assigned once, at the first insert.
 */
const applyDealEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e) => isDealDocEvent(e));
  const ids = [...new Set(events.map((e) => (e.data as { dealId: string }).dealId))];
  if (ids.length === 0) return;
  const rows = (await trx<DealRow>(table(DEALS_TABLE)).whereIn('deal_id', ids).select('deal_id', 'doc', 'revision')) as DealRow[];
  const before = new Map<string, DealDoc>(rows.map((r) => [r.deal_id, dealDocOfRow(r)]));
  const after = new Map<string, DealDoc | null>(before);
  for (const e of events) {
    const id = (e.data as { dealId: string }).dealId;
    after.set(id, foldDeal(after.get(id) ?? null, e, e.revision));
  }
  // In the order the deals were created in this batch: seq follows creation.
  const changed = ids.map((id) => after.get(id)).filter((d): d is DealDoc => !!d && d !== before.get(d.dealId));
  if (changed.length > 0) await trx(table(DEALS_TABLE)).insert(changed.map(dealRowValues)).onConflict('deal_id').merge();
};

/** Deals read model: a row per deal (GET /v1/deals, GET /v1/deals/{id}). */
export const dealsProjection: Projection = {
  name: 'deals',
  tables: [DEALS_TABLE],
  handles: (type) => isDealDocEvent({ type }),
  apply: (trx, event, table) => applyDealEvents(trx, [event], table),
  applyMany: applyDealEvents,
};
