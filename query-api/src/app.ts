import { ApiKeyStore, EscrowLedger, LedgerWalletBalances, WebhookKeyring, renderCii, renderFacturX, webhookEncryptionKey, type RouteDef, type Services } from '@cagnotte/infra';
import {
  AccountReadModel,
  AuditReadModel,
  CatalogueReadModel,
  EscrowReadModel,
  InvoiceReadModel,
  escrowStateFold,
  MandateReadModel,
  OrganiserGrantReadModel,
  GroupBuyReader,
  PoolReadModel,
  ReservationReadModel,
  SessionEventPrincipals,
  TenantReadModel,
  WebhookEndpointReader,
  WebhookInboxReader,
  PublicFeedReader,
  DealReadModel,
  RequestReadModel,
  V1AccountReader,
  V1TransferReader,
} from '@cagnotte/read-models';
import { makeIdentityQueryRoutes } from './identity/routes';
import { makeMerchantQueryRoutes } from './catalogue/merchant-profile';
import { makePoolQueryRoutes } from './pools/routes';
import { makeGroupBuyQueryRoutes } from './pools/v1-routes';
import { makeReservationQueryRoutes } from './reservations/routes';
import { makeCheckoutQueryRoutes } from './reservations/checkout';
import { makeEscrowQueryRoutes } from './escrow/routes';
import { makeReconciliationRoutes } from './escrow/reconciliation';
import { makeCatalogueRoutes } from './catalogue/routes';
import { makeSearchRoutes } from './search/routes';
import { makeMandateQueryRoutes } from './mandates/routes';
import { makePersonaQueryRoutes } from './personas/routes';
import { makeAuditQueryRoutes } from './audit/routes';
import { waitForMinPosition } from './shared/consistency';
import { makeInvoiceQueryRoutes } from './invoicing/routes';
import { makeInboxQueryRoutes, makeWebhookQueryRoutes } from './webhooks/routes';
import { makeEventTypesRoute } from './webhooks/types-route';
import { makeFeedRoutes } from './webhooks/feed-routes';
import { makeDealQueryRoutes } from './deals/routes';
import { makeRequestQueryRoutes } from './requests/routes';
import { makeAccountV1QueryRoutes } from './accounts/routes';
import { makeTransferQueryRoutes } from './transfers/routes';
import { makeApiKeyQueryRoutes } from './api-keys/routes';
import { makeLedgerQueryRoutes } from './ledger/routes';
import { makeSandboxClockQueryRoutes } from './ledger/sandbox-clock-route';
import { makeRelaisQueryRoutes } from './relais/routes';

/** Every read endpoint of the API. They read read models only; each feature's routes get what they use. */
export const makeQueryRoutes = (deps: { services: Services }): RouteDef[] => {
  const { services } = deps;
  const accounts = new AccountReadModel(services.knex);
  const tenants = new TenantReadModel(services.knex);
  // Mandates and grants are tables of the `identity` projection (the one their commands wait for).
  const catalogue = new CatalogueReadModel(services.knex);
  const pools = new PoolReadModel(services.knex, services.pgPool);
  const reservations = new ReservationReadModel(services.knex);
  const audit = new AuditReadModel(services.knex);
  const escrows = new EscrowReadModel(services.knex);
  const isAuditor = (tenantId: string, userId: string) => audit.isAuditor(tenantId, userId);
  const consistency = { waiter: services.waiter, readYourWritesMs: services.config.READ_YOUR_WRITES_TIMEOUT_MS, recentWrites: services.recentWrites };
  // The request clock (lazy expiry, the state now): the services' clock, the sandbox clock in sandbox.
  const clock = services.clock;
  const awaitIdentity = (ctx: Parameters<typeof waitForMinPosition>[1]) => waitForMinPosition(consistency, ctx, ['identity']);
  return [
    ...makeIdentityQueryRoutes({ accounts, tenants, ledger: services.ledger, reservations, clock, awaitProjections: (ctx) => waitForMinPosition(consistency, ctx, ['identity', 'reservations']) }),
    ...makePoolQueryRoutes({ pools, accounts, clock, ...consistency }),
    ...makeGroupBuyQueryRoutes({ groupBuys: new GroupBuyReader(services.knex), production: services.config.APP_ENV === 'production', clock, ...consistency }),
    ...makeReservationQueryRoutes({ reservations, pools, accounts, clock, ...consistency }),
    ...makeCheckoutQueryRoutes({ reservations, pools, escrow: new EscrowLedger(services.ledger), ...consistency }),
    ...makeEscrowQueryRoutes({ escrows, isAuditor, ...consistency }),
    ...makeReconciliationRoutes({ escrows, reservations, escrow: new EscrowLedger(services.ledger), isAuditor, ...consistency }),
    ...makeMerchantQueryRoutes({ catalogue }),
    ...makeCatalogueRoutes({ catalogue, catalogueLimitPerMinute: services.config.RATE_LIMIT_CATALOGUE_PER_MINUTE }),
    ...makeSearchRoutes({ searchIndex: services.searchIndex, embedder: services.embedder, searchLimitPerMinute: services.config.RATE_LIMIT_SEARCH_PER_MINUTE }),
    ...makeMandateQueryRoutes({ mandates: new MandateReadModel(services.knex), awaitProjections: awaitIdentity }),
    ...makePersonaQueryRoutes({ grants: new OrganiserGrantReadModel(services.knex), ledger: services.ledger, awaitProjections: awaitIdentity }),
    ...makeAuditQueryRoutes({ audit, extraFolds: { escrow: escrowStateFold }, production: services.config.APP_ENV === 'production', clock, ...consistency }),
    ...makeInvoiceQueryRoutes({ invoices: new InvoiceReadModel(services.knex), isAuditor, renderers: { xml: renderCii, pdf: renderFacturX }, ...consistency }),
    ...makeRequestQueryRoutes({ requests: new RequestReadModel(services.knex), invoices: new InvoiceReadModel(services.knex), renderers: { xml: renderCii, pdf: renderFacturX }, config: services.config, ...consistency }),
    ...makeWebhookQueryRoutes({
      endpoints: new WebhookEndpointReader(services.knex),
      principals: new SessionEventPrincipals(services.knex, services.config.APP_ENV === 'production'),
      keyring: new WebhookKeyring(services.knex, webhookEncryptionKey(services.config.WEBHOOK_ENCRYPTION_KEY)),
    }),
    ...(services.config.APP_ENV === 'production' ? [] : makeInboxQueryRoutes({ inbox: new WebhookInboxReader(services.knex) })),
    makeEventTypesRoute(),
    ...makeApiKeyQueryRoutes({ keys: new ApiKeyStore(services.knex) }),
    ...makeLedgerQueryRoutes({ ledger: services.ledger }),
    ...makeSandboxClockQueryRoutes({ sandboxClock: services.sandboxClock }),
    ...makeRelaisQueryRoutes(services),
    ...makeFeedRoutes({
      feed: new PublicFeedReader(services.knex),
      principals: new SessionEventPrincipals(services.knex, services.config.APP_ENV === 'production'),
      waker: services.feedWaker,
      heartbeatMs: services.config.FEED_HEARTBEAT_MS,
      onStreamError: (err) => services.logger.warn({ err }, 'event stream ended on an error'),
    }),
    ...makeAccountV1QueryRoutes({
      accounts: new V1AccountReader(services.knex),
      users: accounts,
      view: { knex: services.knex, wallets: new LedgerWalletBalances(services.ledger), defaultLivemode: services.config.APP_ENV === 'production', now: clock },
      awaitProjections: (ctx) => waitForMinPosition(consistency, ctx, ['v1-accounts', 'transfers', 'reservations']),
    }),
    ...makeTransferQueryRoutes({
      transfers: new V1TransferReader(services.knex),
      users: accounts,
      production: services.config.APP_ENV === 'production',
      awaitProjections: (ctx) => waitForMinPosition(consistency, ctx, ['transfers']),
    }),
    ...makeDealQueryRoutes({
      deals: new DealReadModel(services.knex),
      awaitProjections: (ctx) => waitForMinPosition(consistency, ctx, ['deals']),
      production: services.config.APP_ENV === 'production',
      escrow: new EscrowLedger(services.ledger),
      isAuditor,
    }),
  ];
};
