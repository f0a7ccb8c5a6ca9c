import { boot, startMailDelivery } from '@cagnotte/infra';
import { createEmbedded } from './api';

/** `pnpm start`: migrate, then serve the whole API on PORT with the projectors in this process. */
void boot('cagnotte', async (services) => {
  const { app, runner } = await createEmbedded(services, { projectors: services.config.PROJECTORS === 'embedded' });
  const stopMail = startMailDelivery(services);
  return {
    app,
    stop: async () => {
      await stopMail();
      await runner.stop();
    },
  };
});
