import { EscrowLedger, JOB_QUEUES, type Services } from '@cagnotte/infra';
import { TenantReadModel } from '@cagnotte/read-models';
import { makeTenantPolicy } from '../identity/tenant';
import type { TenantPolicy } from '../identity/tenant';
import { closeAtDeadline, endInspection, type PoolJob } from './closing';
import { lapseDisputes } from './disputes';
import { systemMetadata } from './runtime';
import { submitRecoveries, syncSettlements } from './sync';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { poolAggregate } from '../pools/aggregate';

// The escrow's timers, on the jobs port. Each job is keyed by the event that set it (projectors/src/escrow/timers.ts
// schedules them) and decides from the pool's stream at run time, so a retried or late job changes nothing twice.

type JobDeps = Pick<Services, 'store' | 'pgPool' | 'commandQueue' | 'ledger' | 'jobs' | 'clock'> & { escrow: EscrowLedger; tenantPolicy: (tenantId: string) => Promise<TenantPolicy> };

/**
 * At a settlement's `recoveryFrom` (keyed by EscrowSettlementPrepared): records what the ledger shows, then submits
 * the keyless recovery of a round whose lock landed and whose release never came. Before the ledger's clock reaches
 * the time bound it throws, and the queue retries later.
 */
export const recoverSettlements = async (deps: JobDeps, job: PoolJob, now: Date) => {
  const metadata = () => systemMetadata('escrow-recovery', job.tenantId, now.toISOString());
  await syncSettlements(deps, job.poolId, metadata());
  const { pool } = await loadState(deps.store, poolStream(job.poolId), poolAggregate);
  if (pool.status === 'none') return { attempts: [], recorded: 0 };
  const attempts = await submitRecoveries(deps, pool);
  const recorded = await syncSettlements(deps, job.poolId, metadata());
  if (attempts.some((a) => a.result === 'too_early')) throw new Error(`pool ${job.poolId}: the ledger says the recovery is not valid yet`);
  return { attempts, recorded };
};

/** Runs the escrow's timer workers in this process; answers the stop function. */
export const startEscrowJobs = (deps: JobDeps): (() => Promise<void>) => {
  const run = <P>(queue: string, handler: (payload: P) => Promise<unknown>) => deps.jobs.startWorker<P>(queue, async (payload) => void (await handler(payload)), { concurrency: 2 });
  const workers = [
    run<PoolJob>(JOB_QUEUES.poolDeadline, (job) => closeAtDeadline(deps, job, deps.clock())),
    run<PoolJob>(JOB_QUEUES.inspectionEnd, (job) => endInspection(deps, job, deps.clock())),
    run<PoolJob>(JOB_QUEUES.disputeLapse, (job) => lapseDisputes(deps, job, deps.clock())),
    run<PoolJob>(JOB_QUEUES.escrowRecovery, (job) => recoverSettlements(deps, job, deps.clock())),
  ];
  return async () => {
    await Promise.all(workers.map((w) => w.close()));
  };
};

/** The escrow's job dependencies from the process's services (what `pnpm start` and command-api's main run). */
export const escrowJobDeps = (services: Services): JobDeps => ({
  ...services,
  escrow: new EscrowLedger(services.ledger),
  tenantPolicy: makeTenantPolicy({ store: services.store, tenants: new TenantReadModel(services.knex), config: services.config }),
});
