import type { RouteDef, Services } from '@cagnotte/infra';
import { makeShipmentQueryRoutes, shipmentQueryDepsOf } from './shipment-routes';

// Relais on the query side (docs/relais.md): each part adds its routes below.

export const makeRelaisQueryRoutes = (services: Services): RouteDef[] => {
  void services;
  return [
    // each part's routes
    ...makeShipmentQueryRoutes(shipmentQueryDepsOf(services)),
  ];
};
