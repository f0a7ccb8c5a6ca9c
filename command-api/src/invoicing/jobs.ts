import { JOB_QUEUES, Scheduler, type Services } from '@cagnotte/infra';
import { systemMetadata } from '../escrow/runtime';
import { TenantReadModel } from '@cagnotte/read-models';
import { makeTenantPolicy } from '../identity/tenant';
import { issueSettlementInvoices, type InvoicingDeps, type SettlementInvoiceJob } from './settlement-invoices';
import { issueActivationInvoice, issueListingInvoices, type ActivationInvoiceJob, type ListingInvoiceJob } from './fee-invoices';
import { issueRequestInvoice, type RequestInvoiceJob } from './request-invoices';

// The invoices of a released reservation, on the jobs port. projectors/src/invoicing/issuer.ts schedules one job per
// ReservationSettled (keyed by it); the handler decides from the pool's stream and issues each invoice once per source.

/** What the invoice queue carries: a released reservation (jobs queued before kinds existed have no `type`), a listing, a grant, a paid request. */
export type InvoiceJob = (SettlementInvoiceJob & { type?: 'settlement' }) | ListingInvoiceJob | ActivationInvoiceJob | RequestInvoiceJob;

/** Runs the invoicing worker in this process; answers the stop function. */
export const startInvoicingJobs = (deps: InvoicingDeps & { jobs: Services['jobs'] }): (() => Promise<void>) => {
  const worker = new Scheduler<InvoiceJob>(deps.jobs, JOB_QUEUES.invoice).run(
    async (job) => {
      const metadata = systemMetadata('invoicing', job.tenantId, deps.clock().toISOString());
      if (job.type === 'listing') await issueListingInvoices(deps, job, metadata);
      else if (job.type === 'activation') await issueActivationInvoice(deps, job, metadata);
      else if (job.type === 'request') await issueRequestInvoice(deps, job, metadata);
      else await issueSettlementInvoices(deps, job, metadata);
    },
    { concurrency: 2 },
  );
  return () => worker.close();
};

/** The invoicing job's dependencies from the process's services; the fee invoices' VAT comes from each tenant's fee schedule. */
export const invoicingJobDeps = (services: Services, clock: () => Date = services.clock): InvoicingDeps & { jobs: Services['jobs'] } => {
  const tenantPolicy = makeTenantPolicy({ store: services.store, tenants: new TenantReadModel(services.knex), config: services.config });
  return {
  store: services.store,
  pgPool: services.pgPool,
  commandQueue: services.commandQueue,
  jobs: services.jobs,
  platform: services.config,
  feeSchedule: async (tenantId) => (await tenantPolicy(tenantId)).feeSchedule,
  clock,
  };
};
