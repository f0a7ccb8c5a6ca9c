import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { BullJobQueue, JOB_QUEUES, type JobQueue } from '@cagnotte/infra';
import { onTestTeardown } from '@cagnotte/infra/src/testing/resources';
import { applyBatch, type Projection, type TableMap } from '../runtime';
import { appendTo, newPool, silent, sleep, specKnex, specStore, uniq } from '../spec-support';
import { ESCROW_TIMER_TABLES, makeEscrowTimersProjection } from './timers';

/**
 * The escrow's process manager on real bullmq queues (a Redis prefix of this spec's own) and a copy of its table:
 * every timer an event sets becomes one delayed job keyed `<queue>:<eventId>` at the event's time, with the pool and
 * its tenant; applying the same events again (a replay, a retried batch) schedules nothing twice.
 */
const Timers = suite('escrow timers (process manager)');

const newJobs = (): JobQueue => {
  const jobs = new BullJobQueue({ url: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/15', keyPrefix: `${process.env.REDIS_KEY_PREFIX ?? 'test:'}timers-${randomUUID().slice(0, 8)}:`, logger: silent });
  onTestTeardown(() => jobs.close());
  return jobs;
};

const onCopy = async (jobs: JobQueue): Promise<Projection> => {
  const copy = uniq('spec_rm_escrow_timers');
  await specKnex().raw('CREATE TABLE ?? (LIKE ?? INCLUDING ALL)', [copy, ESCROW_TIMER_TABLES.timers]);
  const projection = makeEscrowTimersProjection({ jobs });
  const to = (table: TableMap): TableMap => (t) => table(t === ESCROW_TIMER_TABLES.timers ? copy : t);
  return {
    ...projection,
    name: copy,
    tables: [copy],
    apply: (trx, e, table) => projection.apply(trx, e, to(table)),
    applyMany: (trx, events, table) => projection.applyMany!(trx, events, to(table)),
  };
};

const past = (minutes: number) => new Date(Date.now() - minutes * 60_000).toISOString();
const future = (hours: number) => new Date(Date.now() + hours * 3_600_000).toISOString();

Timers('each timer is one job keyed by its event, at its time, for its pool; a replay schedules nothing twice; a deadline changed while DRAFT counts', async () => {
  const jobs = newJobs();
  const projection = await onCopy(jobs);
  const p = newPool();
  const base = { poolId: p.poolId };
  const reservationId = randomUUID();
  const disputeId = randomUUID();
  const history: DomainEvent[] = [
    p.created(),
    // The deadline of the draft moves (to the past: the job runs at once); publishing schedules it at the new one.
    { type: 'PoolDraftUpdated', data: { poolId: p.poolId, changes: { deadline: past(5) }, updatedAt: past(9) } },
    p.published(),
    { type: 'PoolDelivered', data: { ...base, note: null, inspectionEndsAt: past(2), deliveredAt: past(3) } },
    {
      type: 'DisputeOpened',
      data: { ...base, reservationId, disputeId, buyerId: randomUUID(), reason: 'DAMAGED', details: '', evidence: [], amount: '10.00', respondBy: past(1), openedAt: past(4) },
    },
    { type: 'DisputeContested', data: { ...base, reservationId, disputeId, statement: 'no', lapsesAt: future(72), contestedAt: past(1) } },
  ];
  await appendTo(p, ...history);
  const events = await specStore().readStream(p.streamId);
  const id = (type: string) => events.find((e) => e.type === type)!.id;

  const ran: Array<{ queue: string; key: string; payload: unknown }> = [];
  for (const queue of [JOB_QUEUES.poolDeadline, JOB_QUEUES.inspectionEnd, JOB_QUEUES.disputeLapse, JOB_QUEUES.escrowRecovery]) {
    jobs.startWorker(queue, async (payload, context) => void ran.push({ queue, key: context.key, payload }));
  }
  await applyBatch(specKnex(), projection, events);
  await applyBatch(specKnex(), projection, events);
  for (const e of events) await applyBatch(specKnex(), projection, [e]);

  const expected = [
    `${JOB_QUEUES.poolDeadline}:${id('PoolPublished')}`,
    `${JOB_QUEUES.inspectionEnd}:${id('PoolDelivered')}`,
    `${JOB_QUEUES.disputeLapse}:${id('DisputeOpened')}`,
  ].sort();
  const deadline = Date.now() + 15_000;
  while (ran.length < expected.length && Date.now() < deadline) await sleep(50);
  await sleep(500); // a duplicate would run by now
  assert.equal(ran.map((r) => r.key).sort(), expected, 'each past timer ran once, however often its events were applied');
  for (const r of ran) assert.equal(r.payload, { poolId: p.poolId, tenantId: p.tenantId });
  const counts = await jobs.counts();
  assert.is(counts[JOB_QUEUES.disputeLapse]!.delayed, 1, 'the contested dispute lapses later: its job waits');
  assert.is(counts[JOB_QUEUES.poolDeadline]!.delayed + counts[JOB_QUEUES.poolDeadline]!.waiting, 0);
});

Timers('a published pool without a deadline schedules no deadline; a prepared settlement schedules its recovery at recoveryFrom', async () => {
  const jobs = newJobs();
  const projection = await onCopy(jobs);
  const p = newPool();
  const settlementId = randomUUID();
  await appendTo(p, p.created(), p.published(), {
    type: 'EscrowSettlementPrepared',
    data: {
      poolId: p.poolId,
      settlementId,
      kind: 'REFUND',
      escrowAccount: `G${'E'.repeat(55)}`,
      escrowSequence: '42',
      strayBalance: '0.00',
      hadTrustline: true,
      strayReturns: [],
      deadPreAuthSigners: [],
      final: true,
      releaseUntil: future(1),
      recoveryFrom: future(2),
      recoveryUntil: future(3),
      items: [],
      rounds: [{ index: 0, refs: [], lockHash: '1'.repeat(64), releaseHash: '2'.repeat(64), recoveryHash: '3'.repeat(64) }],
      supersedes: null,
      preparedAt: past(1),
    },
  });
  await applyBatch(specKnex(), projection, await specStore().readStream(p.streamId));
  const counts = await jobs.counts();
  assert.is((counts[JOB_QUEUES.poolDeadline]?.delayed ?? 0) + (counts[JOB_QUEUES.poolDeadline]?.waiting ?? 0), 0, 'no deadline, no deadline job');
  assert.is(counts[JOB_QUEUES.escrowRecovery]!.delayed, 1, 'the recovery waits for recoveryFrom');
});

Timers('a placed reservation schedules its expiry, keyed by the reservation, a second after expiresAt, with its pool; a replay schedules it once', async () => {
  const jobs = newJobs();
  const projection = await onCopy(jobs);
  const p = newPool();
  const due = randomUUID();
  const later = randomUUID();
  const placed = (reservationId: string, expiresAt: string): DomainEvent => ({
    type: 'ReservationPlaced',
    data: { poolId: p.poolId, reservationId, buyerId: randomUUID(), buyerName: 'B', lines: [{ unitId: 'u1', quantity: 1, unitPrice: '12.50' }], pledge: null, amount: '12.50', relaisId: 'r-a', expiresAt, placedAt: past(10) },
  });
  await appendTo(p, p.created(), p.published(), placed(due, past(1)), placed(later, future(1)));
  const events = await specStore().readStream(p.streamId);
  const ran: Array<{ key: string; payload: unknown; at: number }> = [];
  jobs.startWorker(JOB_QUEUES.reservationExpiry, async (payload, context) => void ran.push({ key: context.key, payload, at: Date.now() }));
  await applyBatch(specKnex(), projection, events);
  await applyBatch(specKnex(), projection, events);

  const deadline = Date.now() + 15_000;
  while (ran.length < 1 && Date.now() < deadline) await sleep(50);
  await sleep(500); // a duplicate would run by now
  assert.equal(
    ran.map((r) => ({ key: r.key, payload: r.payload })),
    [{ key: `${JOB_QUEUES.reservationExpiry}:${due}`, payload: { poolId: p.poolId, reservationId: due } }],
    'the lapsed reservation’s job ran once, keyed reservation-expiry:<reservationId>',
  );
  const counts = await jobs.counts();
  assert.is(counts[JOB_QUEUES.reservationExpiry]!.delayed, 1, 'the other waits for its expiresAt + 1 s');
});

Timers.run();
