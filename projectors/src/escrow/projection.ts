import type { Knex } from 'knex';
import { isPoolEvent, type PoolEvent } from '@cagnotte/event-schemas';
import { ESCROW_TABLES, escrowDocOfRow, escrowRowValues, foldEscrow, initialEscrow, isEscrowEvent, type EscrowDoc, type EscrowRow } from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

type ProjectedPoolEvent = Extract<ProjectedEvent, PoolEvent>;

/**
 * Folds a batch in memory over the rows it touches (with the read model's own fold, foldEscrow), then writes the
 * changed ones in one multi-row upsert, inside the checkpoint's transaction. A pool's row starts at PoolCreated.
 */
const applyEscrowEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e): e is ProjectedPoolEvent => isPoolEvent(e) && isEscrowEvent(e));
  const ids = [...new Set(events.map((e) => e.data.poolId))];
  if (ids.length === 0) return;
  const rows = (await trx<EscrowRow>(table(ESCROW_TABLES.escrows)).whereIn('pool_id', ids)) as EscrowRow[];
  const before = new Map<string, EscrowDoc>(rows.map((r) => [r.pool_id, escrowDocOfRow(r)]));
  const after = new Map(before);
  for (const e of events) {
    const id = e.data.poolId;
    after.set(id, foldEscrow(after.get(id) ?? initialEscrow(), e, e.revision));
  }
  const changed = ids
    .filter((id) => after.get(id) !== before.get(id))
    .map((id) => after.get(id)!)
    .filter((doc) => doc.escrow.poolId !== null);
  for (let i = 0; i < changed.length; i += 500) {
    await trx(table(ESCROW_TABLES.escrows)).insert(changed.slice(i, i + 500).map(escrowRowValues)).onConflict('pool_id').merge();
  }
};

/** Escrow read model: a row per pool, where its buyers' money is (GET /api/pools/{id}/escrow, …/disputes). */
export const escrowProjection: Projection = {
  name: 'escrow',
  tables: [ESCROW_TABLES.escrows],
  handles: (type) => isEscrowEvent({ type }),
  apply: (trx, event, table) => applyEscrowEvents(trx, [event], table),
  applyMany: applyEscrowEvents,
};
