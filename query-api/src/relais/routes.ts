import type { RouteDef, Services } from '@cagnotte/infra';
import { relaisDirectoryOf } from './directory';
import { makeRelaisPointRoutes } from './points-routes';
import { makeShipmentQueryRoutes, shipmentQueryDepsOf } from './shipment-routes';
import { AccountReadModel, RelaisHostReader } from '@cagnotte/read-models';
import { waitForMinPosition } from '../shared/consistency';
import { makeHostQueryRoutes } from './hosts-routes';

// Relais on the query side (docs/relais.md): each part adds its routes below.

export const makeRelaisQueryRoutes = (services: Services): RouteDef[] => {
  void services;
  return [
    // each part's routes
    ...makeRelaisPointRoutes({ directory: () => relaisDirectoryOf(services), relaisLimitPerMinute: services.config.RATE_LIMIT_RELAIS_PER_MINUTE }),
    ...makeShipmentQueryRoutes(shipmentQueryDepsOf(services)),
    ...makeHostQueryRoutes({
      hosts: new RelaisHostReader(services.knex),
      accounts: new AccountReadModel(services.knex),
      awaitProjections: (ctx) =>
        waitForMinPosition({ waiter: services.waiter, readYourWritesMs: services.config.READ_YOUR_WRITES_TIMEOUT_MS, recentWrites: services.recentWrites }, ctx, ['relais-hosts']),
    }),
  ];
};
