import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';
import { relaisSandboxEnabled, type RouteDef, type Services } from '@cagnotte/infra';
import type { CommandFacts } from '../shared/facts';
import { relaisDirectoryOf } from './directory';
import type { RelaisDeps } from './ports';
import { makeSandboxPointRoutes } from './sandbox-points';
import { makeShipmentCommandRoutes } from './shipment-routes';
import { makeHostCommandRoutes } from './hosts';
import { makePoolPointRoutes } from './pool-point-routes';
import { makeCarrierWebhookRoutes } from './carrier-webhooks';
import { advanceMagicAfterCreate, makeSandboxShipmentRoutes } from './sandbox-shipments';

// Relais on the command side (docs/relais.md): each part adds its routes below, from the one RelaisDeps.

export const relaisDepsOf = (services: Services, facts: CommandFacts, clock: () => Date, directory?: RelaisDirectoryPort): RelaisDeps => ({
  services,
  facts,
  clock,
  get directory() {
    return directory ?? relaisDirectoryOf(services);
  },
});

export const makeRelaisCommandRoutes = (deps: RelaisDeps): RouteDef[] => {
  return [
    // each part's routes
    ...(deps.services.config.APP_ENV !== 'production' && relaisSandboxEnabled(deps.services.config) ? makeSandboxPointRoutes(deps) : []),
    ...makeHostCommandRoutes(deps),
    ...makePoolPointRoutes(deps),
    ...makeShipmentCommandRoutes(deps, { afterCreate: advanceMagicAfterCreate }),
    ...makeCarrierWebhookRoutes(deps),
    ...makeSandboxShipmentRoutes(deps),
  ];
};
