import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { applyBatch, type Projection, type TableMap } from '../runtime';
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

Pools.run();
