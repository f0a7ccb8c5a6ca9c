import { JOB_QUEUES, Scheduler, type JobQueue } from '@cagnotte/infra';
import { parseAmount } from '@cagnotte/domain';
import type { Projection } from '../runtime';

/**
 * The invoicing process manager: a reservation whose deposit a round RELEASED (something went to the seller side)
 * schedules the job that issues its invoices (command-api/src/invoicing/jobs.ts), keyed `invoice:<eventId>`, in the
 * checkpoint's transaction. A redelivered batch or a rebuild schedules the same key again, which the queue ignores
 * within its keep window; after it, the job runs again and finds every invoice issued (each is issued once per source).
 * A RECOVERY (the deposit went back whole) invoices nothing.
 */
export const makeInvoiceIssuerProjection = (deps: { jobs: JobQueue }): Projection => {
  const scheduler = new Scheduler<{ tenantId: string | null; poolId: string; reservationId: string; settlementId: string }>(deps.jobs, JOB_QUEUES.invoice);
  return {
    name: 'invoice-issuer',
    tables: [],
    handles: (type) => type === 'ReservationSettled',
    apply: async (_trx, e) => {
      if (e.type !== 'ReservationSettled' || e.data.path !== 'RELEASE' || parseAmount(e.data.released) <= 0n) return;
      const { poolId, reservationId, settlementId } = e.data;
      await scheduler.at(JOB_QUEUES.invoice, e.id, new Date(e.data.settledAt), { tenantId: e.metadata.tenantId, poolId, reservationId, settlementId });
    },
  };
};
