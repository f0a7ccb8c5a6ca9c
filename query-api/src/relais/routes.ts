import type { RouteDef, Services } from '@cagnotte/infra';
import { relaisDirectoryOf } from './directory';
import { makeRelaisPointRoutes } from './points-routes';
import { makeShipmentQueryRoutes, shipmentQueryDepsOf } from './shipment-routes';

// Relais on the query side (docs/relais.md): each part adds its routes below.

export const makeRelaisQueryRoutes = (services: Services): RouteDef[] => {
  void services;
  return [
    // each part's routes
    ...makeRelaisPointRoutes({ directory: () => relaisDirectoryOf(services), relaisLimitPerMinute: services.config.RATE_LIMIT_RELAIS_PER_MINUTE }),
    ...makeShipmentQueryRoutes(shipmentQueryDepsOf(services)),
  ];
};
