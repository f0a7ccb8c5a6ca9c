import type { Knex } from 'knex';
import { isPoolEvent, type PoolEvent } from '@cagnotte/event-schemas';
import { POOL_TABLES, foldPool, organiserMemberOf, pickupPointRowsOf, relaisChanged, type PoolDoc, type PoolRow } from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

/** The pool events that change the read model (the COMMISSION mandate shows in none of its views). */
const HANDLED = new Set<PoolEvent['type']>([
  'PoolCreated',
  'PoolDraftUpdated',
  'PoolPublished',
  'PoolVisibilityChanged',
  'PoolListed',
  'PoolEscrowOpened',
  'PoolCountryChanged',
  'PoolArchived',
  'PoolUnarchived',
  // foldPool follows the status and the closing; without these the rows would stay OPEN after a pool closed.
  'PoolClosed',
  'PoolCancelled',
  'PoolDelivered',
  'PoolSettled',
]);

type ProjectedPoolEvent = Extract<ProjectedEvent, PoolEvent>;

const rowValues = ({ pool: p, revision }: PoolDoc) => ({
  id: p.id,
  tenant_id: p.tenantId,
  organiser_id: p.organiserId,
  type: p.type,
  status: p.status,
  marketplace_visibility: p.fields.marketplaceVisibility,
  archived_at: p.archivedAt,
  country: p.fields.country,
  title: p.fields.title,
  doc: JSON.stringify(p),
  created_at: p.createdAt,
  updated_at: p.updatedAt,
  revision: revision.toString(),
});

const pointRows = ({ pool: p }: PoolDoc) => pickupPointRowsOf(p).map((row) => ({ ...row, tenant_id: p.tenantId }));

/**
 * Folds a batch in memory over the rows it touches (with the read model's own fold, foldPool), then writes each
 * table once: one select, one multi-row upsert, and pick-up point and member writes only for the pools that need them.
 */
const applyPoolEvents = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap): Promise<void> => {
  const events = batch.filter((e): e is ProjectedPoolEvent => isPoolEvent(e));
  const ids = [...new Set(events.map((e) => e.data.poolId))];
  if (ids.length === 0) return;
  const rows = await trx<PoolRow>(table(POOL_TABLES.pools)).whereIn('id', ids).select('id', 'doc', 'revision');
  const before = new Map<string, PoolDoc>(rows.map((r) => [r.id, { pool: r.doc, revision: BigInt(r.revision) }]));
  const after = new Map(before);
  const created: PoolDoc[] = [];
  for (const e of events) {
    const id = e.data.poolId;
    const prev = after.get(id) ?? null;
    const next = foldPool(prev, e, e.revision);
    if (!next || next === prev) continue;
    after.set(id, next);
    if (e.type === 'PoolCreated') created.push(next);
  }
  const changed = ids.filter((id) => after.get(id) !== before.get(id)).map((id) => after.get(id)!);
  if (changed.length === 0) return;
  await trx(table(POOL_TABLES.pools)).insert(changed.map(rowValues)).onConflict('id').merge();
  if (created.length > 0) {
    await trx(table(POOL_TABLES.members))
      .insert(created.map(({ pool: p }) => ({ ...organiserMemberOf(p), tenant_id: p.tenantId })))
      .onConflict(['pool_id', 'user_id'])
      .ignore();
  }
  const resync = changed.filter((doc) => relaisChanged(before.get(doc.pool.id) ?? null, doc));
  if (resync.length > 0) {
    await trx(table(POOL_TABLES.pickupPoints)).whereIn('pool_id', resync.map((d) => d.pool.id)).delete();
    const points = resync.flatMap(pointRows);
    for (let i = 0; i < points.length; i += 1000) await trx(table(POOL_TABLES.pickupPoints)).insert(points.slice(i, i + 1000));
  }
};

/** GroupBuy read model: pool rows (their document folded by read-models' foldPool), their members and pick-up points. */
export const poolsProjection: Projection = {
  name: 'pools',
  tables: [POOL_TABLES.pools, POOL_TABLES.members, POOL_TABLES.pickupPoints],
  handles: (type) => HANDLED.has(type as PoolEvent['type']),
  apply: (trx, event, table) => applyPoolEvents(trx, [event], table),
  applyMany: applyPoolEvents,
};
