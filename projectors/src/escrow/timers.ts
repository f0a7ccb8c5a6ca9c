import type { Knex } from 'knex';
import { JOB_QUEUES, Scheduler, type JobQueue } from '@cagnotte/infra';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

export const ESCROW_TIMER_TABLES = { timers: 'rm_escrow_timers' } as const;

const TIMED = new Set(['PoolCreated', 'PoolDraftUpdated', 'PoolPublished', 'ReservationPlaced', 'PoolDelivered', 'DisputeOpened', 'DisputeContested', 'EscrowSettlementPrepared']);

/** A reservation's expiry job runs a second after it lapses (command-api/src/reservations/expiry.ts decides what is left to do). */
const EXPIRY_GRACE_MS = 1000;

/**
 * The escrow's process manager: every timer a pool event sets is scheduled on the jobs port, keyed by that event
 * (`<queue>:<eventId>`; a reservation's expiry by the reservation, `reservation-expiry:<reservationId>`), in the
 * checkpoint's transaction. Delivery is at least once: a batch retried after a crash
 * schedules the same keys again, which the queue ignores; the jobs decide from the stream when they run (docs/jobs.md).
 * A rebuild from position 0 schedules past timers again: they run at once and find nothing left to do.
 */
const applyTimer = async (jobs: JobQueue, trx: Knex.Transaction, e: ProjectedEvent, table: TableMap): Promise<void> => {
  // One queue per kind of timer, each job keyed `<kind>:<eventId>` (the Scheduler's keys).
  const at = (queue: string, runAt: string) =>
    new Scheduler<{ poolId: string; tenantId: string | null }>(jobs, queue).at(queue, e.id, new Date(runAt), { poolId: (e.data as { poolId: string }).poolId, tenantId: e.metadata.tenantId });
  switch (e.type) {
    case 'PoolCreated':
      await trx(table(ESCROW_TIMER_TABLES.timers)).insert({ pool_id: e.data.poolId, deadline: e.data.deadline }).onConflict('pool_id').merge();
      return;
    case 'PoolDraftUpdated':
      if (e.data.changes.deadline !== undefined) await trx(table(ESCROW_TIMER_TABLES.timers)).where({ pool_id: e.data.poolId }).update({ deadline: e.data.changes.deadline });
      return;
    case 'PoolPublished': {
      const row = await trx(table(ESCROW_TIMER_TABLES.timers)).where({ pool_id: e.data.poolId }).first<{ deadline: Date | null } | undefined>();
      if (row?.deadline) await at(JOB_QUEUES.poolDeadline, new Date(row.deadline).toISOString());
      return;
    }
    case 'ReservationPlaced':
      // Keyed by the reservation (`reservation-expiry:<reservationId>`), the one key its job has ever had.
      await new Scheduler<{ poolId: string; reservationId: string }>(jobs, JOB_QUEUES.reservationExpiry).at(
        JOB_QUEUES.reservationExpiry,
        e.data.reservationId,
        new Date(Date.parse(e.data.expiresAt) + EXPIRY_GRACE_MS),
        { poolId: e.data.poolId, reservationId: e.data.reservationId },
      );
      return;
    case 'PoolDelivered':
      await at(JOB_QUEUES.inspectionEnd, e.data.inspectionEndsAt);
      return;
    case 'DisputeOpened':
      await at(JOB_QUEUES.disputeLapse, e.data.respondBy);
      return;
    case 'DisputeContested':
      await at(JOB_QUEUES.disputeLapse, e.data.lapsesAt);
      return;
    case 'EscrowSettlementPrepared':
      await at(JOB_QUEUES.escrowRecovery, e.data.recoveryFrom);
      return;
    default:
      return;
  }
};

export const makeEscrowTimersProjection = (deps: { jobs: JobQueue }): Projection => ({
  name: 'escrow-timers',
  tables: [ESCROW_TIMER_TABLES.timers],
  handles: (type) => TIMED.has(type),
  apply: (trx, event, table) => applyTimer(deps.jobs, trx, event, table),
});
