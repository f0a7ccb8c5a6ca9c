import { boot } from '@cagnotte/infra';
import { allProjections } from './index';
import { ProjectorRunner } from './runtime';

/** The projector worker alone (split deployment). Several may run: they take turns per projection. */
void boot('projectors', async (services) => {
  const runner = new ProjectorRunner({ store: services.store, knex: services.knex, projections: allProjections, logger: services.logger, waiter: services.waiter });
  await runner.start();
  services.logger.info({ projections: runner.names }, 'projectors running');
  return { stop: () => runner.stop() };
});
