import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { escrowStatus, escrowView, foldEscrow, initialEscrow, type EscrowDocument } from '@cagnotte/read-models';
import { ProjectorRunner, applyBatch, type Projection, type TableMap } from '../runtime';
import { appendTo, newPool, silent, specKnex, specStore, uniq, type PoolFixture } from '../spec-support';
import { escrowProjection } from './projection';

/**
 * The escrow projection on a copy of rm_escrows (a rebuild here never swaps the live table other specs read): events
 * appended with the real event store; one at a time, one batch, a replay and a rebuild from position 0 write the same
 * row, and it is the pure fold of the stream.
 */
const Escrows = suite('escrow projection');

const onCopy = async (): Promise<Projection> => {
  const copy = uniq('spec_rm_escrows');
  await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, 'rm_escrows']);
  const to = (table: TableMap): TableMap => (t) => table(t === 'rm_escrows' ? copy : t);
  return {
    name: copy,
    tables: [copy],
    handles: escrowProjection.handles,
    apply: (trx, e, table) => escrowProjection.apply(trx, e, to(table)),
    applyMany: (trx, es, table) => escrowProjection.applyMany!(trx, es, to(table)),
  };
};

const at = (minute: number) => new Date(Date.UTC(2025, 2, 1, 10, minute)).toISOString();
const G = (c: string) => `G${c.repeat(55)}`;
const hex = (c: string) => c.repeat(64);

/** Two buyers pay; the pool closes (released at closing); one settlement releases both and merges the escrow. */
const history = (p: PoolFixture) => {
  const base = { poolId: p.poolId };
  const [b1, b2, r1, r2, settlementId] = [randomUUID(), randomUUID(), randomUUID(), randomUUID(), randomUUID()];
  const bal = (c: string) => `00000000${hex(c)}`;
  const pay = (reservationId: string, buyerId: string, c: string): DomainEvent[] => [
    { type: 'ReservationPlaced', data: { ...base, reservationId, buyerId, buyerName: 'B', lines: [{ unitId: 'u1', quantity: 2, unitPrice: '12.50' }], pledge: null, amount: '25.00', relaisId: null, expiresAt: at(30), placedAt: at(3) } },
    { type: 'ReservationPaid', data: { ...base, reservationId, buyerId, txHash: hex(c), ledger: 5, balanceId: bal(c), amount: '25.00', via: 'txHash', paidAt: at(4) } },
  ];
  const item = (reservationId: string, c: string) => ({
    ref: reservationId,
    reservationId,
    kind: 'DEPOSIT' as const,
    balanceId: bal(c),
    amount: '25.00',
    refundTo: G('B'),
    payouts: [
      { role: 'SELLER' as const, destination: G('S'), amount: '24.00' },
      { role: 'PLATFORM' as const, destination: G('P'), amount: '1.00' },
    ],
  });
  const settled = (reservationId: string, buyerId: string, c: string): DomainEvent => ({
    type: 'ReservationSettled',
    data: { ...base, reservationId, buyerId, settlementId, kind: 'DEPOSIT', balanceId: bal(c), path: 'RELEASE', released: '25.00', refunded: '0.00', txHash: hex('9'), settledAt: at(20) },
  });
  const events: DomainEvent[] = [
    p.created(),
    p.published(),
    { type: 'PoolEscrowOpened', data: { ...base, accountId: G('E'), organiserSigner: G('O'), platformSigner: G('P'), threshold: 2, reclaimAfter: at(59), setupTxHash: null, openedAt: at(2) } },
    ...pay(r1, b1, 'a'),
    ...pay(r2, b2, 'b'),
    {
      type: 'PoolClosed',
      data: { ...base, outcome: 'SUCCEEDED', reason: 'ORGANISER', paidUnits: 4, paidAmount: '50.00', finalPrices: [{ unitId: 'u1', price: '12.50' }], fees: { platformFeePercent: '4', organiserCommissionPercent: null }, release: { after: 'CLOSE', inspectionDays: 7, disputeResponseDays: 3 }, closedAt: at(10) },
    },
    {
      type: 'EscrowSettlementPrepared',
      data: { ...base, settlementId, kind: 'RELEASE', escrowAccount: G('E'), escrowSequence: '42', strayBalance: '0.00', hadTrustline: true, strayReturns: [], deadPreAuthSigners: [], final: true, releaseUntil: at(40), recoveryFrom: at(41), recoveryUntil: at(58), items: [item(r1, 'a'), item(r2, 'b')], rounds: [{ index: 0, refs: [r1, r2], lockHash: hex('1'), releaseHash: hex('2'), recoveryHash: hex('3') }], supersedes: null, preparedAt: at(15) },
    },
    { type: 'EscrowRoundSettled', data: { ...base, settlementId, round: 0, path: 'RELEASE', txHash: hex('2'), ledger: 77, merged: true, settledAt: at(20) } },
    { type: 'EscrowPayoutSettled', data: { ...base, settlementId, round: 0, role: 'SELLER', destination: G('S'), amount: '48.00', txHash: hex('2'), settledAt: at(20) } },
    { type: 'EscrowPayoutSettled', data: { ...base, settlementId, round: 0, role: 'PLATFORM', destination: G('P'), amount: '2.00', txHash: hex('2'), settledAt: at(20) } },
    settled(r1, b1, 'a'),
    settled(r2, b2, 'b'),
    { type: 'PoolSettled', data: { ...base, settlementId, released: '50.00', refunded: '0.00', settledAt: at(20) } },
  ];
  return { events, buyers: [b1, b2] };
};

const rowOf = async (proj: Projection, poolId: string) => specKnex()(proj.tables[0]!).where({ pool_id: poolId }).first();

Escrows('one event at a time, one batch, a replay and a rebuild from position 0 write the same row: the pure fold of the stream', async () => {
  const p = newPool();
  const h = history(p);
  await appendTo(p, ...h.events);
  const events = await specStore().readStream(p.streamId);
  const single = await onCopy();
  const batched = await onCopy();
  for (const e of events) await applyBatch(specKnex(), single, [e]);
  await applyBatch(specKnex(), batched, events);
  const expected = await rowOf(batched, p.poolId);
  assert.ok(expected);
  assert.equal(await rowOf(single, p.poolId), expected, 'one at a time = one batch');

  await applyBatch(specKnex(), { ...batched, name: uniq('spec_escrow_replay') }, events);
  assert.equal(await rowOf(batched, p.poolId), expected, 'replayed');

  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [batched], logger: silent });
  await runner.rebuild(batched.name);
  assert.equal(await rowOf(batched, p.poolId), expected, 'rebuilt from position 0');

  const folded = events.reduce((doc, e) => foldEscrow(doc, { type: e.type, data: e.data } as never, e.revision), initialEscrow());
  assert.equal(expected.doc, JSON.parse(JSON.stringify(folded.escrow)));
  assert.is(String(expected.revision), String(events.length - 1));
});

Escrows('the row: tenant and organiser columns, SETTLED with its totals; each buyer sees their own lines', async () => {
  const p = newPool();
  const h = history(p);
  const proj = await onCopy();
  await appendTo(p, ...h.events);
  await applyBatch(specKnex(), proj, await specStore().readStream(p.streamId));
  const row = await rowOf(proj, p.poolId);
  const doc = row.doc as EscrowDocument;
  assert.equal([row.tenant_id, row.organiser_id], [p.tenantId, doc.organiserId]);
  assert.equal([escrowStatus(doc), doc.held, doc.released, doc.payouts.SELLER, doc.mergedAt], ['SETTLED', { count: 0, amount: '0.00' }, '50.00', '48.00', at(20)]);
  const [b1] = h.buyers;
  const mine = escrowView({ escrow: doc, revision: BigInt(row.revision) }, { userId: b1! })!;
  assert.equal([mine.view, mine.lines.length, mine.lines[0]!.buyerId], ['BUYER', 1, b1]);
});

Escrows('a draft gets its row (NONE); events the escrow does not fold write nothing', async () => {
  const p = newPool();
  const proj = await onCopy();
  await appendTo(p, p.created(), p.renamed('Another title'));
  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [proj], logger: silent });
  await runner.catchUp();
  const row = await rowOf(proj, p.poolId);
  assert.equal([escrowStatus(row.doc), String(row.revision)], ['NONE', '0']);
});

Escrows.run();
