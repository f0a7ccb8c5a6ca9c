import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { parseEvent } from '@cagnotte/event-schemas';
import type { RecordedEvent } from '@cagnotte/infra';
import { applyBatch, type ProjectedEvent, type Projection, type TableMap } from '../runtime';
import { appendTo, newPool, specKnex, specStore, uniq } from '../spec-support';
import { poolsProjection } from './projection';

/** The pools projection follows a pool's closing: its row's status and document (on a copy of rm_pools). */
const Pools = suite('pools projection: closing');

const onCopy = async (): Promise<Projection> => {
  const copies = new Map<string, string>();
  for (const t of poolsProjection.tables) {
    copies.set(t, uniq(`spec_${t}`));
    await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copies.get(t)!, t]);
  }
  const to = (table: TableMap): TableMap => (t) => table(copies.get(t) ?? t);
  return {
    name: uniq('spec_pools'),
    tables: [...copies.values()],
    handles: poolsProjection.handles,
    apply: (trx, e, table) => poolsProjection.apply(trx, e, to(table)),
    applyMany: (trx, es, table) => poolsProjection.applyMany!(trx, es, to(table)),
  };
};

const parsed = (e: RecordedEvent): ProjectedEvent => ({
  ...e,
  ...parseEvent({ type: e.type, schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata }),
  stored: { schemaVersion: e.schemaVersion, data: e.data, metadata: e.metadata },
} as ProjectedEvent);

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();

Pools('given a published pool, when it closes, is delivered and settles, then its row follows: LOCKED, closing, SETTLED', async () => {
  const p = newPool();
  const proj = await onCopy();
  const closed: DomainEvent = {
    type: 'PoolClosed',
    data: {
      poolId: p.poolId,
      outcome: 'SUCCEEDED',
      reason: 'ORGANISER',
      paidUnits: 0,
      paidAmount: '0.00',
      finalPrices: [],
      fees: { platformFeePercent: '2', organiserCommissionPercent: null },
      release: { after: 'RECEIPT', inspectionDays: 3, disputeResponseDays: 2 },
      closedAt: at(1),
    },
  };
  await appendTo(p, p.created(), p.published(), closed, { type: 'PoolDelivered', data: { poolId: p.poolId, note: 'at the shop', inspectionEndsAt: at(50), deliveredAt: at(2) } });
  await applyBatch(specKnex(), proj, await specStore().readStream(p.streamId));
  const row = await specKnex()(proj.tables[0]!).where({ id: p.poolId }).first();
  assert.is(row.status, 'LOCKED');
  assert.equal([row.doc.closing.outcome, row.doc.closing.deliveredAt, row.doc.closing.inspectionEndsAt], ['SUCCEEDED', at(2), at(50)]);

  await appendTo(p, { type: 'PoolSettled', data: { poolId: p.poolId, settlementId: p.tenantId, released: '0.00', refunded: '0.00', settledAt: at(60) } });
  await applyBatch(specKnex(), proj, (await specStore().readStream(p.streamId)).slice(-1));
  const settled = await specKnex()(proj.tables[0]!).where({ id: p.poolId }).first();
  assert.equal([settled.status, settled.doc.settledAt, String(settled.revision)], ['SETTLED', at(60), '4']);
});

Pools('given an open pool, when it is cancelled, then its row reads CANCELLED with cancelledAt', async () => {
  const p = newPool();
  const proj = await onCopy();
  await appendTo(p, p.created(), p.published(), { type: 'PoolCancelled', data: { poolId: p.poolId, reason: 'supplier gone', cancelledAt: at(5) } });
  await applyBatch(specKnex(), proj, await specStore().readStream(p.streamId));
  const row = await specKnex()(proj.tables[0]!).where({ id: p.poolId }).first();
  assert.equal([row.status, row.doc.cancelledAt], ['CANCELLED', at(5)]);
});

Pools('given a pool folded to its last revision, when its PoolCreated is applied again past the checkpoint, then neither its row nor its pick-up points go back', async () => {
  const p = newPool();
  const proj = await onCopy();
  const relais = [{ id: 'r-b', name: 'Boulangerie' }];
  const config = { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], relais };
  await appendTo(p, p.created(), { type: 'PoolDraftUpdated', data: { poolId: p.poolId, changes: { config }, updatedAt: at(1) } }, p.renamed('Renamed', 2));
  const events = await specStore().readStream(p.streamId);
  await applyBatch(specKnex(), proj, events);
  // The set-based path reads no row for a pool whose first event in the batch is its creation: the upsert's guard
  // (and the pick-up points it resyncs only for rows it wrote) keep a replay from moving the pool back.
  await specKnex().transaction((trx) => proj.applyMany!(trx, [parsed(events[0]!)], (t) => t));
  const row = await specKnex()(proj.tables[0]!).where({ id: p.poolId }).first();
  assert.equal([row.title, String(row.revision)], ['Renamed', '2']);
  const points = await specKnex()(proj.tables[2]!).where({ pool_id: p.poolId }).select('point_id');
  assert.equal(points.map((r: { point_id: string }) => r.point_id), ['r-b']);
});

Pools.run();
