import type { Knex } from 'knex';
import { JOB_QUEUES, Scheduler, type JobQueue } from '@cagnotte/infra';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { selectWhereIn, upsertRows } from '../sql';

export const ESCROW_TIMER_TABLES = { timers: 'rm_escrow_timers' } as const;

const TIMED = new Set(['PoolCreated', 'PoolDraftUpdated', 'PoolPublished', 'ReservationPlaced', 'PoolDelivered', 'DisputeOpened', 'DisputeContested', 'EscrowSettlementPrepared']);

/** A reservation's expiry job runs a second after it lapses (command-api/src/reservations/expiry.ts decides what is left to do). */
const EXPIRY_GRACE_MS = 1000;

type Payload = { poolId: string; tenantId: string | null } | { poolId: string; reservationId: string };

/** A batch's view of the timers table (pool → its draft deadline; absent: no row), and the jobs its events set. */
interface TimerBatch {
  deadlines: Map<string, string | null>;
  /** Pools whose row the batch wrote. */
  written: Set<string>;
  jobs: Map<string, Array<{ key: string; payload: Payload; options: { runAt: Date } }>>;
}

const isoOf = (d: Date | string | null): string | null => (d === null ? null : new Date(d).toISOString());

/**
 * One event's timers, over the batch's in-memory rows: each timer the event sets is a job on its queue keyed by the
 * event (`at`, the Scheduler's key `<queue>:<eventId>`). A new case adds its `case` here.
 * A reservation's expiry is keyed by the reservation (`reservation-expiry:<reservationId>`), the one key its job has ever had.
 */
const timerOf = (batch: TimerBatch, e: ProjectedEvent): void => {
  const at = (queue: string, runAt: string) => {
    const jobs = batch.jobs.get(queue) ?? [];
    jobs.push({ key: Scheduler.keyOf(queue, e.id), payload: { poolId: (e.data as { poolId: string }).poolId, tenantId: e.metadata.tenantId }, options: { runAt: new Date(runAt) } });
    batch.jobs.set(queue, jobs);
  };
  switch (e.type) {
    case 'PoolCreated':
      batch.deadlines.set(e.data.poolId, isoOf(e.data.deadline));
      batch.written.add(e.data.poolId);
      return;
    case 'PoolDraftUpdated':
      if (e.data.changes.deadline !== undefined && batch.deadlines.has(e.data.poolId)) {
        batch.deadlines.set(e.data.poolId, isoOf(e.data.changes.deadline));
        batch.written.add(e.data.poolId);
      }
      return;
    case 'PoolPublished': {
      const deadline = batch.deadlines.get(e.data.poolId);
      if (deadline) at(JOB_QUEUES.poolDeadline, deadline);
      return;
    }
    case 'ReservationPlaced': {
      const jobs = batch.jobs.get(JOB_QUEUES.reservationExpiry) ?? [];
      jobs.push({
        key: Scheduler.keyOf(JOB_QUEUES.reservationExpiry, e.data.reservationId),
        payload: { poolId: e.data.poolId, reservationId: e.data.reservationId },
        options: { runAt: new Date(Date.parse(e.data.expiresAt) + EXPIRY_GRACE_MS) },
      });
      batch.jobs.set(JOB_QUEUES.reservationExpiry, jobs);
      return;
    }
    case 'PoolDelivered':
      at(JOB_QUEUES.inspectionEnd, e.data.inspectionEndsAt);
      return;
    case 'DisputeOpened':
      at(JOB_QUEUES.disputeLapse, e.data.respondBy);
      return;
    case 'DisputeContested':
      at(JOB_QUEUES.disputeLapse, e.data.lapsesAt);
      return;
    case 'EscrowSettlementPrepared':
      at(JOB_QUEUES.escrowRecovery, e.data.recoveryFrom);
      return;
    default:
      return;
  }
};

/** The events whose case reads the pool's row (the others only schedule from their own data). */
const READS_ROW = new Set(['PoolDraftUpdated', 'PoolPublished']);

/**
 * The escrow's process manager: every timer a pool event sets is scheduled on the jobs port, keyed by that event
 * (`<queue>:<eventId>`), in the checkpoint's transaction. Delivery is at least once: a batch retried after a crash
 * schedules the same keys again, which the queue ignores; the jobs decide from the stream when they run (docs/jobs.md).
 * A rebuild from position 0 schedules past timers again: they run at once and find nothing left to do.
 * A batch reads the rows of its pools once, folds its events over them in memory, writes the rows it changed in one
 * upsert and queues its jobs with one enqueueMany per queue.
 */
const applyTimers = async (jobs: JobQueue, trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap): Promise<void> => {
  const timers = table(ESCROW_TIMER_TABLES.timers);
  const pools = [...new Set(events.filter((e) => READS_ROW.has(e.type)).map((e) => (e.data as { poolId: string }).poolId))];
  const rows = await selectWhereIn<{ pool_id: string; deadline: Date | null }>(trx, timers, ['pool_id', 'deadline'], 'pool_id', 'uuid', pools);
  const batch: TimerBatch = { deadlines: new Map(rows.map((r) => [r.pool_id, isoOf(r.deadline)])), written: new Set(), jobs: new Map() };
  for (const e of events) timerOf(batch, e);
  const written = [...batch.written].map((poolId) => ({ pool_id: poolId, deadline: batch.deadlines.get(poolId) ?? null }));
  await upsertRows(trx, timers, { pool_id: 'uuid', deadline: 'timestamptz' }, ['pool_id'], written);
  for (const [queue, lot] of batch.jobs) await jobs.enqueueMany<Payload>(queue, lot);
};

export const makeEscrowTimersProjection = (deps: { jobs: JobQueue }): Projection => ({
  name: 'escrow-timers',
  tables: [ESCROW_TIMER_TABLES.timers],
  handles: (type) => TIMED.has(type),
  apply: (trx, event, table) => applyTimers(deps.jobs, trx, [event], table),
  applyMany: (trx, events, table) => applyTimers(deps.jobs, trx, events, table),
});
