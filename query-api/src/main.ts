import { boot, createApiServer } from '@cagnotte/infra';
import { makeQueryRoutes } from './app';
import { TenantReadModel } from '@cagnotte/read-models';

/** query-api alone (split deployment): reads read models only. */
void boot('query-api', async (services) => ({
  app: createApiServer({
    services,
    tenants: new TenantReadModel(services.knex),
    routes: makeQueryRoutes({ services }),
    projections: ['identity', 'pools'],
    info: { title: 'Cagnotte query API', version: '1.0.0', description: 'Read side of the marketplace API.' },
  }),
}));
