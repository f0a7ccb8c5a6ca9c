import type { Server } from 'node:http';
import type { Express } from 'express';
import { loadConfigOrExit } from './config';
import { createServices, type Services } from './services';
import { serveApp } from './http/listen';

export interface Running {
  services: Services;
  server: Server | null;
  stop(): Promise<void>;
}

/**
 * Starts a process: config, services (migrating first), then `start` (which may return an express app to
 * serve on PORT). SIGINT/SIGTERM stop it gracefully.
 */
export const boot = async (
  name: string,
  start: (services: Services) => Promise<{ app?: Express; stop?: () => Promise<void> }>,
): Promise<Running> => {
  const config = loadConfigOrExit();
  const services = await createServices(config);
  const started = await start(services);
  let server: Server | null = null;
  if (started.app) {
    const app = started.app;
    server = await serveApp(app, config.PORT, config.HOST);
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : config.PORT;
    services.logger.info({ port, env: config.APP_ENV, eventStore: services.store.name }, `${name} listening on http://localhost:${port}`);
  }
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (server) {
        const closed = new Promise<void>((r) => server!.close(() => r()));
        // Open event streams and long-polls end (the server waits for every open connection).
        await services.feedWaker.close();
        await closed;
      }
      await started.stop?.();
      await services.close();
    })());
  const onSignal = () => void stop().then(() => process.exit(0));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  return { services, server, stop };
};
