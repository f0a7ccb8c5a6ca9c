import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import type { RecordedEvent } from '@cagnotte/infra';
import { ProjectorRunner, applyBatch, type Projection, type TableMap } from '../runtime';
import { appendTo, newPool, silent, specKnex, specStore, uniq, type PoolFixture } from '../spec-support';
import { reservationsProjection } from './projection';

/**
 * The reservations projection on a copy of rm_reservations (a rebuild here never swaps the live table other specs
 * read): events appended with the real event store; one at a time, one batch, a replay and a rebuild from
 * position 0 write the same rows; other events of the feed write none.
 */
const Reservations = suite('reservations projection');

const onCopy = async (): Promise<Projection> => {
  const copy = uniq('spec_res_rm_reservations');
  await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, 'rm_reservations']);
  const to = (table: TableMap): TableMap => (t) => table(t === 'rm_reservations' ? copy : t);
  return {
    name: copy,
    tables: [copy],
    handles: reservationsProjection.handles,
    apply: (trx, e, table) => reservationsProjection.apply(trx, e, to(table)),
    applyMany: (trx, es, table) => reservationsProjection.applyMany!(trx, es, to(table)),
  };
};

const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 9, minute)).toISOString();
const G = (c: string) => `G${c.repeat(55)}`;

/**
 * A published pool, three buyers: one pays (then a second, late deposit lands on an expired one), one cancels. The
 * pool closes; the paid one disputes (contested, then partly refunded) and is settled, the late deposit refunded.
 */
const history = (p: PoolFixture) => {
  const [paidId, expiredId, cancelledId] = [randomUUID(), randomUUID(), randomUUID()];
  const [b1, b2, b3] = [randomUUID(), randomUUID(), randomUUID()];
  const [disputeId, settlementId] = [randomUUID(), randomUUID()];
  const base = { poolId: p.poolId };
  const place = (reservationId: string, buyerId: string, name: string, quantity: number, minute: number): DomainEvent => ({
    type: 'ReservationPlaced',
    data: { ...base, reservationId, buyerId, buyerName: name, lines: [{ unitId: 'u1', quantity, unitPrice: '12.50' }], pledge: null, amount: (12.5 * quantity).toFixed(2), relaisId: 'r-a', expiresAt: at(minute + 30), placedAt: at(minute) },
  });
  const sign = (reservationId: string, buyerId: string, minute: number): DomainEvent => ({
    type: 'ReservationSigned',
    data: { ...base, reservationId, buyerId, terms: { version: 'v1', hash: 'a'.repeat(64) }, source: G('B'), escrowAccount: G('E'), memoHash: 'b'.repeat(64), reclaimAfter: at(59), ip: null, signedAt: at(minute) },
  });
  const deposit = (n: string) => ({ txHash: n.repeat(64), ledger: 9, balanceId: `00000000${n.repeat(64)}`, amount: '25.00' });
  const events: DomainEvent[] = [
    p.created(),
    p.published(),
    place(paidId, b1, 'Ana', 2, 3),
    place(expiredId, b2, 'Ben', 2, 4),
    place(cancelledId, b3, 'Cy', 1, 5),
    sign(paidId, b1, 6),
    sign(expiredId, b2, 6),
    { type: 'ReservationPaid', data: { ...base, reservationId: paidId, buyerId: b1, ...deposit('c'), via: 'signedXdr', paidAt: at(7) } },
    { type: 'ReservationCancelled', data: { ...base, reservationId: cancelledId, buyerId: b3, cancelledAt: at(8) } },
    { type: 'ReservationExpired', data: { ...base, reservationId: expiredId, buyerId: b2, expiresAt: at(34), expiredAt: at(35) } },
    { type: 'ReservationLatePaymentReceived', data: { ...base, reservationId: expiredId, buyerId: b2, ...deposit('d'), reclaimAfter: at(59), receivedAt: at(40) } },
    {
      type: 'PoolClosed',
      data: { ...base, outcome: 'SUCCEEDED', reason: 'DEADLINE', paidUnits: 2, paidAmount: '25.00', finalPrices: [{ unitId: 'u1', price: '12.50' }], fees: { platformFeePercent: '2', organiserCommissionPercent: null }, release: { after: 'RECEIPT', inspectionDays: 3, disputeResponseDays: 2 }, closedAt: at(41) },
    },
    { type: 'PoolDelivered', data: { ...base, note: null, inspectionEndsAt: at(50), deliveredAt: at(42) } },
    { type: 'DisputeOpened', data: { ...base, reservationId: paidId, disputeId, buyerId: b1, reason: 'NOT_AS_DESCRIBED', details: 'Too small', evidence: [], amount: '25.00', respondBy: at(45), openedAt: at(43) } },
    { type: 'DisputeContested', data: { ...base, reservationId: paidId, disputeId, statement: 'As listed', lapsesAt: at(47), contestedAt: at(44) } },
    { type: 'DisputeResolved', data: { ...base, reservationId: paidId, disputeId, outcome: 'REFUNDED', refund: '5.00', resolvedAt: at(46) } },
    { type: 'ReservationSettled', data: { ...base, reservationId: paidId, buyerId: b1, settlementId, kind: 'DEPOSIT', balanceId: deposit('c').balanceId, path: 'RELEASE', released: '20.00', refunded: '5.00', txHash: 'e'.repeat(64), settledAt: at(48) } },
    { type: 'ReservationSettled', data: { ...base, reservationId: expiredId, buyerId: b2, settlementId, kind: 'LATE_DEPOSIT', balanceId: deposit('d').balanceId, path: 'RELEASE', released: '0.00', refunded: '25.00', txHash: 'e'.repeat(64), settledAt: at(48) } },
  ];
  return { ids: [paidId, expiredId, cancelledId], events };
};

const appendHistory = async (p: PoolFixture, events: DomainEvent[]): Promise<RecordedEvent[]> => {
  await appendTo(p, ...events);
  return specStore().readStream(p.streamId);
};

const rowsOf = (proj: Projection, poolId: string) => specKnex()(proj.tables[0]!).where({ pool_id: poolId }).orderBy('placed_at');

Reservations('one event at a time, one batch, a replay and a rebuild from position 0 write the same rows', async () => {
  const p = newPool();
  const h = history(p);
  const events = await appendHistory(p, h.events);
  const single = await onCopy();
  const batched = await onCopy();
  for (const e of events) await applyBatch(specKnex(), single, [e]);
  await applyBatch(specKnex(), batched, events);
  const expected = await rowsOf(batched, p.poolId);
  assert.is(expected.length, 3);
  assert.equal(await rowsOf(single, p.poolId), expected, 'one at a time = one batch');

  await applyBatch(specKnex(), { ...batched, name: uniq('spec_res_replay') }, events);
  assert.equal(await rowsOf(batched, p.poolId), expected, 'replayed');

  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [batched], logger: silent });
  await runner.rebuild(batched.name);
  assert.equal(await rowsOf(batched, p.poolId), expected, 'rebuilt from position 0');
});

Reservations('the rows: status, amounts as text, payment proof, late payments, escrow facts, tenant from the metadata', async () => {
  const p = newPool();
  const h = history(p);
  const proj = await onCopy();
  await applyBatch(specKnex(), proj, await appendHistory(p, h.events));
  const rows = await rowsOf(proj, p.poolId);
  const [paidId, expiredId, cancelledId] = h.ids;
  const byId = new Map(rows.map((r) => [r.id, r]));
  const paid = byId.get(paidId)!;
  assert.is(paid.status, 'PAID');
  assert.is(paid.amount, '25.00');
  assert.is(paid.tenant_id, p.tenantId);
  assert.is(paid.payment.txHash, 'c'.repeat(64));
  assert.is(paid.payment.via, 'signedXdr');
  assert.is(String(paid.revision), '16');
  assert.equal([paid.escrow.acceptance, paid.escrow.dispute.status, paid.escrow.dispute.refund, paid.escrow.dispute.lapsesAt], [null, 'REFUNDED', '5.00', at(47)]);
  assert.equal(paid.escrow.settlements.map((l: { kind: string; released: string; refunded: string }) => [l.kind, l.released, l.refunded]), [['DEPOSIT', '20.00', '5.00']]);
  const expired = byId.get(expiredId)!;
  assert.is(expired.status, 'EXPIRED');
  assert.equal(expired.late_payments.map((l: { txHash: string; amount: string }) => [l.txHash, l.amount]), [['d'.repeat(64), '25.00']]);
  assert.equal(new Date(expired.ended_at).toISOString(), at(35));
  assert.equal(expired.escrow.settlements.map((l: { kind: string; refunded: string }) => [l.kind, l.refunded]), [['LATE_DEPOSIT', '25.00']]);
  const cancelled = byId.get(cancelledId)!;
  assert.is(cancelled.status, 'CANCELLED');
  assert.is(cancelled.signed, null);
  assert.is(cancelled.escrow, null, 'the escrow did nothing with it');
});

Reservations('a runner catching up writes the rows; pool lifecycle events alone write none', async () => {
  const p = newPool();
  const proj = await onCopy();
  await appendTo(p, p.created(), p.published());
  const runner = new ProjectorRunner({ store: specStore(), knex: specKnex(), projections: [proj], logger: silent });
  await runner.catchUp();
  assert.is((await rowsOf(proj, p.poolId)).length, 0);
  const h = history(p);
  await appendTo(p, ...h.events.slice(2));
  await runner.catchUp();
  assert.equal((await rowsOf(proj, p.poolId)).map((r) => r.status).sort(), ['CANCELLED', 'EXPIRED', 'PAID']);
});

Reservations.run();
