export * from './runtime';
export * from './pools/projection';
export * from './reservations/projection';
export * from './escrow/projection';
export * from './identity/projection';
export * from './catalogue/merchants';
export * from './catalogue/leads';
export * from './search/projection';
export * from './search/listings';
export * from './escrow/timers';
export * from './audit/projection';
export * from './webhooks/public-events';
export * from './deals/projection';
export * from './requests/projection';
export * from './requests/timers';
export * from './accounts/projection';
export * from './transfers/projection';
export * from './relais/shipments';
import type { Services } from '@cagnotte/infra';
import { SEARCH_TABLES } from '@cagnotte/read-models';
import { poolsProjection } from './pools/projection';
import { reservationsProjection } from './reservations/projection';
import { escrowProjection } from './escrow/projection';
import { identityProjection } from './identity/projection';
import { merchantsProjection } from './catalogue/merchants';
import { leadsProjection } from './catalogue/leads';
import { makeSearchProjection } from './search/projection';
import { makeEscrowTimersProjection } from './escrow/timers';
import { auditProjection } from './audit/projection';
import { makeInvoiceIssuerProjection } from './invoicing/issuer';
import { invoicesProjection } from './invoicing/projection';
import { publicEventsProjection } from './webhooks/public-events';
import { dealsProjection } from './deals/projection';
import { requestsProjection } from './requests/projection';
import { makeRequestTimersProjection } from './requests/timers';
import { v1AccountsProjection } from './accounts/projection';
import { transfersProjection } from './transfers/projection';
import { relaisShipmentsProjection } from './relais/shipments';
import { ProjectorRunner, type Projection } from './runtime';

/** Every projection the service runs, in the order a catch-up applies them. */
export const makeProjections = (services: Pick<Services, 'searchIndex' | 'embedder' | 'jobs'>): Projection[] => [
  identityProjection,
  merchantsProjection,
  leadsProjection,
  poolsProjection,
  reservationsProjection,
  escrowProjection,
  makeSearchProjection({
    searchIndex: services.searchIndex,
    embedder: services.embedder,
    // The PostgreSQL index is a table of this projection (rebuilt with it); OpenSearch keeps its own index.
    listingsTable: services.searchIndex.name === 'postgres' ? SEARCH_TABLES.listings : undefined,
  }),
  makeEscrowTimersProjection({ jobs: services.jobs }),
  auditProjection,
  makeInvoiceIssuerProjection({ jobs: services.jobs }),
  invoicesProjection,
  requestsProjection,
  makeRequestTimersProjection({ jobs: services.jobs }),
  v1AccountsProjection,
  transfersProjection,
  dealsProjection,
  relaisShipmentsProjection,
  publicEventsProjection,
];

export const PROJECTION_NAMES = ['identity', 'merchants', 'leads', 'pools', 'reservations', 'escrow', 'search', 'escrow-timers', 'audit', 'invoice-issuer', 'invoices', 'requests', 'request-timers', 'v1-accounts', 'transfers', 'deals', 'relais-shipments', 'public-events'];

export const createProjectorRunner = (services: Services, options: { batchSize?: number } = {}): ProjectorRunner =>
  new ProjectorRunner({
    store: services.store,
    knex: services.knex,
    projections: makeProjections(services),
    logger: services.logger,
    waiter: services.waiter,
    maxAttempts: services.config.PROJECTION_MAX_ATTEMPTS,
    retryBaseMs: services.config.PROJECTION_RETRY_BASE_MS,
    ...options,
  });
