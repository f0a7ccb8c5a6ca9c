import { boot, createApiServer } from '@cagnotte/infra';
import { makeQueryRoutes } from './app';

/** query-api alone (split deployment): reads read models only. */
void boot('query-api', async (services) => ({
  app: createApiServer({
    services,
    routes: makeQueryRoutes({ services }),
    projections: ['identity', 'pools'],
    info: { title: 'Cagnotte query API', version: '1.0.0', description: 'Read side of the marketplace API.' },
  }),
}));
