import { JOB_QUEUES, Scheduler, type Services } from '@cagnotte/infra';
import { systemMetadata } from '../escrow/runtime';
import { defaultVatRules } from './parties';
import { issueSettlementInvoices, type InvoicingDeps, type SettlementInvoiceJob } from './settlement-invoices';

// The invoices of a released reservation, on the jobs port. projectors/src/invoicing/issuer.ts schedules one job per
// ReservationSettled (keyed by it); the handler decides from the pool's stream and issues each invoice once per source.

/** Runs the invoicing worker in this process; answers the stop function. */
export const startInvoicingJobs = (deps: InvoicingDeps & { jobs: Services['jobs'] }): (() => Promise<void>) => {
  const worker = new Scheduler<SettlementInvoiceJob>(deps.jobs, JOB_QUEUES.invoice).run(
    async (job) => void (await issueSettlementInvoices(deps, job, systemMetadata('invoicing', job.tenantId, deps.clock().toISOString()))),
    { concurrency: 2 },
  );
  return () => worker.close();
};

/** The invoicing job's dependencies from the process's services. The VAT rules are where the fee schedule plugs in. */
export const invoicingJobDeps = (services: Services, clock: () => Date = () => new Date()): InvoicingDeps & { jobs: Services['jobs'] } => ({
  store: services.store,
  pgPool: services.pgPool,
  commandQueue: services.commandQueue,
  jobs: services.jobs,
  platform: services.config,
  vat: defaultVatRules(),
  clock,
});
