import { boot, startAnchoring, startMailDelivery } from '@cagnotte/infra';
import { createProjectorRunner } from './index';

/** The projector worker alone (split deployment). Several may run: they take turns per projection. */
void boot('projectors', async (services) => {
  const runner = createProjectorRunner(services);
  await runner.start();
  const stopMail = startMailDelivery(services);
  // The worker anchors the event log too; with the API also running, an advisory lock lets one at a time.
  const stopAnchoring = startAnchoring(services);
  services.logger.info({ projections: runner.names }, 'projectors running');
  return { stop: async () => {
    await stopAnchoring();
    await stopMail();
    await runner.stop();
  } };
});
