import { ApiKeyStore, EscrowLedger, LedgerWalletBalances, WebhookKeyring, webhookEncryptionKey, type Resolver, type RouteDef, type Services } from '@cagnotte/infra';
import { AccountReadModel, SessionEventPrincipals, TenantReadModel } from '@cagnotte/read-models';
import { makeAuthCommandRoutes } from './identity/login-routes';
import { makeAccountRoutes } from './identity/account-routes';
import { makeOrganiserRoutes, makeSellerRoutes } from './personas/routes';
import { makeLedgerRoutes } from './ledger/routes';
import { makeSandboxClockRoutes } from './ledger/sandbox-clock-routes';
import { makeMandateRoutes } from './mandates/routes';
import { makePoolCommandRoutes } from './pools/routes';
import { makePilotRequestRoutes } from './catalogue/pilot-requests';
import { makeReservationRoutes } from './reservations/routes';
import { makeListingRoutes } from './pools/listing';
import { CommandFacts } from './shared/facts';
import { makeClosingRoutes } from './escrow/closing';
import { makeDisputeRoutes } from './escrow/disputes';
import { makeSettlementRoutes } from './escrow/settlement';
import type { EscrowDeps } from './escrow/runtime';
import { makeFeeRoutes } from './fees/routes';
import { makeQuoteSigner } from './fees/quote-token';
import { makeWebhookCommandRoutes } from './webhooks/routes';
import { InboxTokens, SANDBOX_INBOX_PATH, makeInboxCommandRoutes } from './webhooks/inbox';
import type { WebhookDeliveryScheduler } from './webhooks/ports';
import { makeDeliveryScheduler } from './webhooks/delivery';
import { makeRequestCommandRoutes } from './requests/routes';
import { makeApiKeyRoutes } from './api-keys/routes';
import { makeGroupBuyCommandRoutes } from './pools/v1-routes';
import { makeGroupBuyOrderRoutes } from './pools/v1-orders';
import { makeAccountV1Routes, type AccountV1Deps } from './accounts/routes';
import { makeTransferRoutes } from './transfers/routes';
import { makeDealRoutes } from './deals/routes';
import { makeDealSettlementRoutes } from './deals/settlement-routes';
import type { DealDeps } from './deals/runtime';
import { makeRelaisCommandRoutes, relaisDepsOf } from './relais/routes';
import { relaisDirectoryOf } from './relais/directory';
import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';

export interface CommandApiDeps {
  services: Services;
  /** The commands' time: the services' clock (the sandbox clock in sandbox) unless a spec brings its own. */
  clock?: () => Date;
  /** The webhook delivery side that test and recover queue on; the jobs queue of `services` by default. */
  webhookDelivery?: WebhookDeliveryScheduler;
  /** DNS for the webhook URL guard (specs); the system resolver otherwise. */
  webhookResolver?: Resolver;
  /** The pick-up point directory (specs inject a double); the process's own (relaisDirectoryOf) by default. */
  relaisDirectory?: RelaisDirectoryPort;
}

/** Every write endpoint of the API, as route definitions (served and documented from the same objects). */
export const makeCommandRoutes = (deps: CommandApiDeps): RouteDef[] => {
  const clock = deps.clock ?? deps.services.clock;
  const { store, pgPool, commandQueue, waiter, recentWrites, knex, config, tokens, sessions, credentials, oneTime, mail, ledger, logger, jobs } = deps.services;
  // Read-side lookups the command side may make: routing a request to its tenant, and finding an account id by
  // email or phone (the account's own stream then decides).
  const tenants = new TenantReadModel(knex);
  const accounts = new AccountReadModel(knex);
  const escrow = new EscrowLedger(ledger);
  // The facts commands are decided under (the caller's persona, the tenant's policy): kept per process, refreshed from their streams' tails.
  const facts = new CommandFacts({ store, tenants, config });
  const tenantPolicy = (tenantId: string) => facts.policy(tenantId);
  const quotes = makeQuoteSigner(config.JWT_SECRET);
  // What every command needs: the write path, and where a session's last write is remembered (read-your-writes).
  const runtime = { store, pgPool, commandQueue, recentWrites, facts };
  const onAccounts = { ...runtime, waiter, clock, readYourWritesMs: config.READ_YOUR_WRITES_TIMEOUT_MS };
  const relaisDirectory = () => deps.relaisDirectory ?? relaisDirectoryOf(deps.services);
  const onPools = { ...runtime, clock, accounts, escrow, reclaimAfterDays: config.ESCROW_RECLAIM_AFTER_DAYS, jobs, production: config.APP_ENV === 'production', relaisDirectory };
  return [
    ...makeAuthCommandRoutes({ knex, tenants, store, tokens, sessions, config }),
    ...makeAccountRoutes({ ...onAccounts, knex, credentials, tokens, sessions, oneTime, mail, tenants, logger, config }),
    ...makeSellerRoutes(onAccounts),
    ...makeLedgerRoutes({ ...onAccounts, ledger, oneTime }),
    ...makeSandboxClockRoutes({ sandboxClock: deps.services.sandboxClock, jobs }),
    ...makeOrganiserRoutes({ ...onAccounts, ledger, config, tenantPolicy }),
    ...makeMandateRoutes(onAccounts),
    ...makePoolCommandRoutes(onPools),
    ...makeListingRoutes({ ...onPools, ledger }),
    ...makePilotRequestRoutes({ ...runtime, clock }),
    ...makeReservationRoutes({ ...runtime, clock, ledger, escrow, quotes }),
    ...escrowRoutes({ ...runtime, clock, ledger, escrow, releaseWindowHours: config.ESCROW_RELEASE_WINDOW_HOURS }),
    ...makeFeeRoutes({ ...onAccounts, tenantPolicy, quotes }),
    ...makeRequestCommandRoutes({ ...runtime, facts, ledger, config, clock }),
    // Webhooks keep real time, a sandbox clock moved ahead or not: a delivery is signed with the time the receiver checks.
    ...webhookRoutes(deps, deps.clock ?? (() => new Date())),
    ...makeApiKeyRoutes({ store, keys: new ApiKeyStore(knex), clock }),
    // /v1/group-buys: the pool engine above, through /v1 (the same commands, the /v1 shapes).
    ...makeGroupBuyCommandRoutes({ ...onPools, ledger, releaseWindowHours: config.ESCROW_RELEASE_WINDOW_HOURS }),
    ...makeGroupBuyOrderRoutes({ ...runtime, clock, ledger, escrow, quotes, production: onPools.production }),
    ...v1Routes({ ...onAccounts, knex, ledger, oneTime }, config.APP_ENV === 'production'),
    ...dealRoutes({
      ...runtime,
      clock,
      ledger,
      escrow,
      reclaimAfterDays: config.ESCROW_RECLAIM_AFTER_DAYS,
      releaseWindowHours: config.ESCROW_RELEASE_WINDOW_HOURS,
      production: config.APP_ENV === 'production',
    }),
    ...makeRelaisCommandRoutes(relaisDepsOf(deps.services, facts, clock, deps.relaisDirectory)),
  ];
};

/** /v1 accounts and transfers: a partner's end customers and the payments between their wallets (non-custodial). */
const v1Routes = (deps: Omit<AccountV1Deps, 'view' | 'production'>, production: boolean): RouteDef[] => {
  const view = { knex: deps.knex, wallets: new LedgerWalletBalances(deps.ledger), defaultLivemode: production, now: deps.clock };
  return [...makeAccountV1Routes({ ...deps, view, production }), ...makeTransferRoutes({ ...deps, production })];
};

const dealRoutes = (deps: DealDeps): RouteDef[] => [...makeDealRoutes(deps), ...makeDealSettlementRoutes(deps)];

const escrowRoutes = (deps: EscrowDeps): RouteDef[] => [...makeClosingRoutes(deps), ...makeDisputeRoutes(deps), ...makeSettlementRoutes(deps)];

/** The endpoints API, and the sandbox inbox outside production. */
const webhookRoutes = (deps: CommandApiDeps, clock: () => Date): RouteDef[] => {
  const { knex, config, rateLimiter } = deps.services;
  const encryptionKey = webhookEncryptionKey(config.WEBHOOK_ENCRYPTION_KEY);
  const production = config.APP_ENV === 'production';
  return [
    ...makeWebhookCommandRoutes({
      knex,
      keyring: new WebhookKeyring(knex, encryptionKey),
      principals: new SessionEventPrincipals(knex, production),
      production,
      sandboxInboxBase: () => (deps.services.self.url ? `${deps.services.self.url}${SANDBOX_INBOX_PATH}` : undefined),
      maxEndpointsPerTenant: config.WEBHOOK_MAX_ENDPOINTS_PER_TENANT,
      clock,
      // Test and recover only queue jobs: any process serving commands can take them, whichever runs the workers.
      delivery: deps.webhookDelivery ?? makeDeliveryScheduler({ knex, jobs: deps.services.jobs, clock }),
      ...(deps.webhookResolver ? { resolver: deps.webhookResolver } : {}),
    }),
    ...(production ? [] : makeInboxCommandRoutes({ knex, tokens: new InboxTokens(encryptionKey), rateLimiter })),
  ];
};
