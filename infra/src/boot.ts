import type { Server } from 'node:http';
import type { Express } from 'express';
import { loadConfigOrExit, type Config } from './config';
import { createServices, type Services } from './services';
import { serveApp } from './http/listen';
import { drainable } from './http/drain';
import { checkDatabase, describeStartupError, waitForRedis } from './preflight';

export interface Running {
  services: Services;
  server: Server | null;
  stop(): Promise<void>;
}

export interface BootOptions {
  /**
   * Runs once Redis answers and before PostgreSQL is checked: it may hand back another config (`pnpm start` runs an
   * embedded PostgreSQL here and points DATABASE_URL at it) and what to stop last, after every connection closed.
   */
  prepare?: (config: Config) => Promise<{ config: Config; stop?: () => Promise<void> }>;
}

const line = (text: string) => process.stderr.write(`${text}\n`);

/**
 * Starts a process: config, Redis and PostgreSQL answering (one line naming the setting when they do not), services
 * (migrating first), then `start` (which may return an express app to serve on PORT). SIGINT/SIGTERM stop it
 * gracefully within SHUTDOWN_TIMEOUT_MS: the server stops accepting and its in-flight requests finish, `start`'s
 * workers stop, connections close; past the deadline, one line and exit 1.
 */
export const boot = async (
  name: string,
  start: (services: Services) => Promise<{ app?: Express; stop?: () => Promise<void> }>,
  options: BootOptions = {},
): Promise<Running> => {
  let config = loadConfigOrExit();
  // A signal while starting ends the process at once ('exit' handlers, such as the embedded PostgreSQL's, still run).
  const whileStarting = (signal: NodeJS.Signals) => {
    line(`${name}: ${signal} while starting: exiting`);
    process.exit(1);
  };
  process.on('SIGINT', whileStarting);
  process.on('SIGTERM', whileStarting);
  let stopPrepared: (() => Promise<void>) | undefined;
  let services: Services;
  let started: Awaited<ReturnType<typeof start>>;
  let server: Server | null = null;
  let drain: ((graceMs: number) => Promise<void>) | null = null;
  try {
    await waitForRedis(config, { tty: process.stderr.isTTY });
    if (options.prepare) {
      const prepared = await options.prepare(config);
      config = prepared.config;
      stopPrepared = prepared.stop;
    }
    await checkDatabase(config.DATABASE_URL, Boolean(process.env.DATABASE_URL));
    services = await createServices(config);
    started = await start(services);
    if (started.app) {
      server = await serveApp(started.app, config.PORT, config.HOST);
      drain = drainable(server).drain;
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : config.PORT;
      services.logger.info({ port, env: config.APP_ENV, eventStore: services.store.name }, `${name} listening on http://localhost:${port}`);
    }
  } catch (e) {
    const { line: text, expected } = describeStartupError(e, config);
    line(`${name}: ${text}`);
    if (!expected && e instanceof Error && e.stack) line(e.stack);
    // The process exits either way; an embedded PostgreSQL that would not stop is said, not hidden.
    await stopPrepared?.().catch((err: unknown) => line(`${name}: could not stop what start-up prepared: ${err instanceof Error ? err.message : String(err)}`));
    process.exit(1);
  }
  process.off('SIGINT', whileStarting);
  process.off('SIGTERM', whileStarting);

  const { logger } = services;
  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      if (drain) {
        const drained = drain(Math.min(1000, config.SHUTDOWN_TIMEOUT_MS / 4));
        // Open event streams and long-polls end (the server waits for every open connection).
        await services.feedWaker.close();
        await drained;
      }
      await started.stop?.();
      await services.close();
      await stopPrepared?.();
    })());
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return; // already stopping: the deadline bounds it (a terminal's Ctrl-C may arrive twice through tsx)
    const deadlineMs = config.SHUTDOWN_TIMEOUT_MS;
    logger.info({ signal, deadlineMs }, `${name} stopping: in-flight requests and jobs have ${deadlineMs} ms`);
    setTimeout(() => {
      logger.error({ deadlineMs }, `${name} did not stop within SHUTDOWN_TIMEOUT_MS (${deadlineMs} ms): exiting with what was still running`);
      process.exit(1);
    }, deadlineMs);
    void stop().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err: err instanceof Error ? err.message : String(err) }, `${name} failed to stop cleanly`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return { services, server, stop };
};
