import { JOB_QUEUES, Scheduler, type JobQueue } from '@cagnotte/infra';
import type { Projection } from '../runtime';

/** What the expiry job carries (command-api/src/requests/jobs.ts). */
export interface RequestExpiryJob {
  requestId: string;
  tenantId: string | null;
}

/** The expiry runs a second after the due time (the job decides from the stream what is left to do). */
const EXPIRY_GRACE_MS = 1000;

/**
 * The requests' process manager: a request's creation schedules its expiry at `dueAt` on the jobs port, keyed by the
 * request (`request-expiry:<requestId>`, the one key its job ever has), in the checkpoint's transaction. A replay
 * schedules the same key, which the queue ignores; a job that runs finds the request paid or voided and does nothing.
 */
export const makeRequestTimersProjection = (deps: { jobs: JobQueue }): Projection => {
  const scheduler = new Scheduler<RequestExpiryJob>(deps.jobs, JOB_QUEUES.requestExpiry);
  return {
    name: 'request-timers',
    tables: [],
    handles: (type) => type === 'PaymentRequestCreated',
    apply: async (_trx, e) => {
      if (e.type !== 'PaymentRequestCreated') return;
      await scheduler.at(JOB_QUEUES.requestExpiry, e.data.requestId, new Date(Date.parse(e.data.dueAt) + EXPIRY_GRACE_MS), { requestId: e.data.requestId, tenantId: e.data.tenantId });
    },
  };
};
