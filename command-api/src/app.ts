import type { RouteDef, Services } from '@cagnotte/infra';
import { makeAuthCommandRoutes } from './auth/routes';
import { makePoolCommandRoutes } from './pools/routes';
import { makePilotRequestRoutes } from './catalogue/pilot-requests';
import { makeAccountRoutes } from './auth/account-routes';
import { makePersonaRoutes } from './me/personas';
import { makeMandateRoutes } from './me/mandates';

export interface CommandApiDeps {
  services: Services;
  clock?: () => Date;
}

/** Every write endpoint of the API, as route definitions (served and documented from the same objects). */
export const makeCommandRoutes = (deps: CommandApiDeps): RouteDef[] => {
  const clock = deps.clock ?? (() => new Date());
  return [
    ...makeAuthCommandRoutes({ services: deps.services }),
    ...makeAccountRoutes({ services: deps.services, clock }),
    ...makePersonaRoutes({ services: deps.services, clock }),
    ...makeMandateRoutes({ services: deps.services, clock }),
    ...makePoolCommandRoutes({
      store: deps.services.store,
      pgPool: deps.services.pgPool,
      commandQueue: deps.services.commandQueue,
      waiter: deps.services.waiter,
      readYourWritesMs: deps.services.config.READ_YOUR_WRITES_TIMEOUT_MS,
      accounts: deps.services.accounts,
      clock,
    }),
    ...makePilotRequestRoutes({ store: deps.services.store, pgPool: deps.services.pgPool, commandQueue: deps.services.commandQueue, clock }),
  ];
};
