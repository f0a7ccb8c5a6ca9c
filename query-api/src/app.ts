import type { RouteDef, Services } from '@cagnotte/infra';
import { PoolReadModel } from '@cagnotte/read-models';
import { makeAuthQueryRoutes } from './auth/routes';
import { makeMerchantQueryRoutes } from './merchants/routes';
import { makePoolQueryRoutes } from './pools/routes';
import { makeCatalogueRoutes } from './catalogue/routes';
import { makeMeQueryRoutes } from './me/routes';

/**
 * Every read endpoint of the API. They read read models; the only stream they read is the caller's own
 * account stream (mandates, organiser grants), which is short and always current.
 */
export const makeQueryRoutes = (deps: { services: Services }): RouteDef[] => [
  ...makeAuthQueryRoutes(deps),
  ...makePoolQueryRoutes({
    pools: new PoolReadModel(deps.services.knex, deps.services.pgPool),
    accounts: deps.services.accounts,
    waiter: deps.services.waiter,
    readYourWritesMs: deps.services.config.READ_YOUR_WRITES_TIMEOUT_MS,
  }),
  ...makeMerchantQueryRoutes(deps),
  ...makeCatalogueRoutes(deps),
  ...makeMeQueryRoutes(deps),
];
