import type { Express } from 'express';
import { makeCommandRoutes, makeDeliveryScheduler } from '@cagnotte/command-api';
import { makeQueryRoutes } from '@cagnotte/query-api';
import { createProjectorRunner, type ProjectorRunner } from '@cagnotte/projectors';
import { createApiServer, type Services } from '@cagnotte/infra';
import type { RelaisDirectoryPort } from '@cagnotte/event-schemas';
import { TenantReadModel } from '@cagnotte/read-models';

export const API_INFO = {
  title: 'Cagnotte marketplace API',
  version: '1.0.0',
  description: 'Group-buying and escrow marketplace: an event-sourced ledger with CQRS read projections.',
};

/** The embedded default: command-api and query-api on one app, projectors in the same process. */
export const createEmbedded = async (
  services: Services,
  options: { projectors?: boolean; clock?: () => Date; relaisDirectory?: RelaisDirectoryPort } = {},
): Promise<{ app: Express; runner: ProjectorRunner }> => {
  const runner = createProjectorRunner(services);
  if (options.projectors !== false) await runner.start();
  const app = createApiServer({
    services,
    tenants: new TenantReadModel(services.knex),
    routes: [
      ...makeCommandRoutes({
        services,
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.relaisDirectory ? { relaisDirectory: options.relaisDirectory } : {}),
        // Test and recover only queue jobs: the delivery workers may run in this process or another.
        webhookDelivery: makeDeliveryScheduler({ knex: services.knex, jobs: services.jobs, clock: options.clock ?? (() => new Date()) }),
      }),
      ...makeQueryRoutes({ services }),
    ],
    projections: runner.names,
    info: API_INFO,
  });
  return { app, runner };
};
