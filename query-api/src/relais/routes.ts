import type { RouteDef, Services } from '@cagnotte/infra';
import { AccountReadModel, RelaisHostReader } from '@cagnotte/read-models';
import { waitForMinPosition } from '../shared/consistency';
import { makeHostQueryRoutes } from './hosts-routes';

// Relais on the query side (docs/relais.md): each part adds its routes below.

export const makeRelaisQueryRoutes = (services: Services): RouteDef[] => {
  void services;
  return [
    // each part's routes
    ...makeHostQueryRoutes({
      hosts: new RelaisHostReader(services.knex),
      accounts: new AccountReadModel(services.knex),
      awaitProjections: (ctx) =>
        waitForMinPosition({ waiter: services.waiter, readYourWritesMs: services.config.READ_YOUR_WRITES_TIMEOUT_MS, recentWrites: services.recentWrites }, ctx, ['relais-hosts']),
    }),
  ];
};
