import { decidePaymentRequest } from '@cagnotte/domain';
import { JOB_QUEUES, type Services } from '@cagnotte/infra';
import { systemMetadata } from '../escrow/runtime';
import { executeCommand } from '../shared/execute-command';
import type { CommandRuntime } from '../shared/run-command';
import { requestAggregate, requestStream } from './aggregate';

/** What the expiry job carries (projectors/src/requests/timers.ts schedules it at `dueAt`, keyed by the request). */
export interface RequestExpiryJob {
  requestId: string;
  tenantId: string | null;
}

/**
 * A request's due time came: an open request expires; a paid or voided one, or a job that runs early, appends nothing.
 * Decided from the stream when it runs, so a repeated job changes nothing twice.
 */
export const expirePaymentRequest = (deps: CommandRuntime, job: RequestExpiryJob, now: Date) =>
  executeCommand(deps, {
    stream: requestStream(job.requestId),
    aggregate: requestAggregate,
    decide: (s) => decidePaymentRequest({ type: 'ExpireRequest', data: { requestId: job.requestId }, metadata: { now: now.toISOString() } }, s.request),
    metadata: systemMetadata('request-expiry', job.tenantId, now.toISOString()),
  });

/** Runs the requests' expiry worker in this process; answers the stop function. */
export const startRequestJobs = (deps: Pick<Services, 'store' | 'pgPool' | 'commandQueue' | 'jobs' | 'clock'>): (() => Promise<void>) => {
  const worker = deps.jobs.startWorker<RequestExpiryJob>(JOB_QUEUES.requestExpiry, async (job) => void (await expirePaymentRequest(deps, job, deps.clock())), { concurrency: 2 });
  return () => worker.close();
};
