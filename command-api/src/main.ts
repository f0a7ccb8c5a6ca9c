import { EscrowLedger, boot, createApiServer } from '@cagnotte/infra';
import { makeCommandRoutes } from './app';
import { startReservationExpiry } from './reservations/expiry';
import { startListingRefunds } from './pools/listing';
import { escrowJobDeps, startEscrowJobs } from './escrow/jobs';
import { invoicingJobDeps, startInvoicingJobs } from './invoicing/jobs';
import { startRequestJobs } from './requests/jobs';
import { startRelaisJobs } from './relais/pool-points';
import { makeDeliveryScheduler, startWebhooks } from './webhooks/dispatcher';
import { TenantReadModel } from '@cagnotte/read-models';

/** command-api alone (split deployment): writes only; reads are served by query-api, projections by the worker. */
void boot('command-api', async (services) => {
  // The reservation expiry jobs run where commands run: they append to pool streams.
  const stopExpiry = startReservationExpiry(services);
  const stopRefunds = startListingRefunds(services, new EscrowLedger(services.ledger));
  const stopEscrowJobs = startEscrowJobs(escrowJobDeps(services));
  const stopInvoicing = startInvoicingJobs(invoicingJobDeps(services));
  const stopRequests = startRequestJobs(services);
  const stopRelais = startRelaisJobs(services);
  // Webhook delivery (docs/webhooks.md): the dispatcher of the public feed, the delivery workers and their sweeper.
  const stopWebhooks = startWebhooks(services);
  return {
    app: createApiServer({
      services,
      tenants: new TenantReadModel(services.knex),
      routes: makeCommandRoutes({ services, webhookDelivery: makeDeliveryScheduler({ knex: services.knex, jobs: services.jobs, clock: () => new Date() }) }),
      projections: ['identity', 'pools', 'reservations'],
      info: { title: 'Cagnotte command API', version: '1.0.0', description: 'Write side of the marketplace API.' },
    }),
    stop: async () => {
      await stopExpiry();
      await stopRefunds();
      await stopEscrowJobs();
      await stopInvoicing();
      await stopRequests();
      await stopRelais();
      await stopWebhooks();
    },
  };
});
