import type { RouteDef, Services } from '@cagnotte/infra';
import { makeAuthQueryRoutes } from './auth/routes';
import { makeMerchantQueryRoutes } from './merchants/routes';
import { makePoolQueryRoutes } from './pools/routes';
import { makeCatalogueRoutes } from './catalogue/routes';

/** Every read endpoint of the API: they read read models only, never the event store. */
export const makeQueryRoutes = (deps: { services: Services }): RouteDef[] => [
  ...makeAuthQueryRoutes(deps),
  ...makePoolQueryRoutes(deps),
  ...makeMerchantQueryRoutes(deps),
  ...makeCatalogueRoutes(deps),
];
