import { boot } from '@cagnotte/infra';
import { createEmbedded } from './api';

/** `pnpm start`: migrate, then serve the whole API on PORT with the projectors in this process. */
void boot('cagnotte', async (services) => {
  const { app, runner } = await createEmbedded(services, { projectors: services.config.PROJECTORS === 'embedded' });
  return { app, stop: () => runner.stop() };
});
