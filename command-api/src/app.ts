import { EscrowLedger, type RouteDef, type Services } from '@cagnotte/infra';
import { AccountReadModel, TenantReadModel } from '@cagnotte/read-models';
import { makeAuthCommandRoutes } from './identity/login-routes';
import { makeAccountRoutes } from './identity/account-routes';
import { makeOrganiserRoutes, makeSellerRoutes } from './personas/routes';
import { makeLedgerRoutes } from './ledger/routes';
import { makeMandateRoutes } from './mandates/routes';
import { makePoolCommandRoutes } from './pools/routes';
import { makePilotRequestRoutes } from './catalogue/pilot-requests';
import { makeReservationRoutes } from './reservations/routes';
import { makeListingRoutes } from './pools/listing';
import type { TenantPolicy } from './pools/handler';
import { loadTenantSettings } from './identity/tenant';

export interface CommandApiDeps {
  services: Services;
  clock?: () => Date;
}

/** Every write endpoint of the API, as route definitions (served and documented from the same objects). */
export const makeCommandRoutes = (deps: CommandApiDeps): RouteDef[] => {
  const clock = deps.clock ?? (() => new Date());
  const { store, pgPool, commandQueue, waiter, knex, config, tokens, sessions, credentials, oneTime, mail, ledger, logger, jobs } = deps.services;
  // Read-side lookups the command side may make: routing a request to its tenant, and finding an account id by
  // email or phone (the account's own stream then decides).
  const tenants = new TenantReadModel(knex);
  const accounts = new AccountReadModel(knex);
  // What every command on an account stream needs: the write path, and read-your-writes.
  const escrow = new EscrowLedger(ledger);
  /** The tenant's commercial settings (its stream says), else the service's defaults. */
  const tenantPolicy = async (tenantId: string): Promise<TenantPolicy> => {
    const tenant = await tenants.byId(tenantId);
    const settings = tenant ? await loadTenantSettings(store, tenant.slug) : {};
    return {
      reservationTtlSeconds: settings.reservationTtlSeconds ?? config.RESERVATION_TTL_SECONDS,
      listingFees: settings.listingFees ?? { LISTED: config.LISTING_FEE_LISTED, FEATURED: config.LISTING_FEE_FEATURED },
      delistRefundWindowHours: settings.delistRefundWindowHours ?? config.DELIST_REFUND_WINDOW_HOURS,
      platformFeePercent: settings.platformFeePercent ?? config.PLATFORM_FEE_PERCENT,
      inspectionDays: settings.inspectionDays ?? config.INSPECTION_DAYS,
      disputeResponseDays: settings.disputeResponseDays ?? config.DISPUTE_RESPONSE_DAYS,
    };
  };
  const reservationTtlSeconds = async (tenantId: string) => (await tenantPolicy(tenantId)).reservationTtlSeconds;
  const onAccounts = { store, pgPool, commandQueue, waiter, clock, readYourWritesMs: config.READ_YOUR_WRITES_TIMEOUT_MS };
  const onPools = { ...onAccounts, accounts, escrow, reclaimAfterDays: config.ESCROW_RECLAIM_AFTER_DAYS, jobs, tenantPolicy };
  return [
    ...makeAuthCommandRoutes({ knex, tenants, store, tokens, sessions, config }),
    ...makeAccountRoutes({ ...onAccounts, knex, credentials, tokens, sessions, oneTime, mail, tenants, logger, config }),
    ...makeSellerRoutes(onAccounts),
    ...makeLedgerRoutes({ ...onAccounts, ledger, oneTime }),
    ...makeOrganiserRoutes({ ...onAccounts, ledger, config }),
    ...makeMandateRoutes(onAccounts),
    ...makePoolCommandRoutes(onPools),
    ...makeListingRoutes({ ...onPools, ledger }),
    ...makePilotRequestRoutes({ store, pgPool, commandQueue, clock }),
    ...makeReservationRoutes({ ...onAccounts, ledger, escrow, jobs, reservationTtlSeconds }),
  ];
};
