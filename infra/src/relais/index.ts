import type { Knex } from 'knex';
import type { Redis } from 'ioredis';
import type { CarrierAdapter } from '@cagnotte/event-schemas';
import type { Config } from '../config';
import type { Logger } from '../logger';
import { ChronopostAdapter } from './carriers/chronopost';
import { ColissimoAdapter } from './carriers/colissimo';
import { InpostAdapter } from './carriers/inpost';
import { MondialRelayAdapter } from './carriers/mondial-relay';
import { SandboxCarrier } from './carriers/sandbox';
import { RelaisDirectory } from './directory';

export * from './directory';
export * from './geo';
export * from './carriers/wire';
export * from './carriers/mondial-relay';
export * from './carriers/colissimo';
export * from './carriers/chronopost';
export * from './carriers/inpost';
export * from './carriers/sandbox';

/** The sandbox carrier: RELAIS_SANDBOX_CARRIER when set, else on outside production. */
export const relaisSandboxEnabled = (config: Config): boolean => config.RELAIS_SANDBOX_CARRIER ?? config.APP_ENV !== 'production';

/** The carriers this deployment speaks to: the sandbox one (when enabled) and each carrier whose credentials are set. */
export const configuredCarriers = (config: Config, knex: Knex): CarrierAdapter[] => {
  const adapters: CarrierAdapter[] = [];
  if (relaisSandboxEnabled(config)) adapters.push(new SandboxCarrier({ knex, latencyMs: config.RELAIS_SANDBOX_LATENCY_MS }));
  if (config.MONDIAL_RELAY_ENSEIGNE && config.MONDIAL_RELAY_PRIVATE_KEY) {
    adapters.push(new MondialRelayAdapter({ enseigne: config.MONDIAL_RELAY_ENSEIGNE, privateKey: config.MONDIAL_RELAY_PRIVATE_KEY, url: config.MONDIAL_RELAY_API_URL }));
  }
  if (config.COLISSIMO_ACCOUNT && config.COLISSIMO_PASSWORD) adapters.push(new ColissimoAdapter({ account: config.COLISSIMO_ACCOUNT, password: config.COLISSIMO_PASSWORD, url: config.COLISSIMO_API_URL }));
  if (config.CHRONOPOST_ACCOUNT && config.CHRONOPOST_PASSWORD) adapters.push(new ChronopostAdapter({ account: config.CHRONOPOST_ACCOUNT, password: config.CHRONOPOST_PASSWORD, url: config.CHRONOPOST_API_URL }));
  if (config.INPOST_TOKEN) adapters.push(new InpostAdapter({ token: config.INPOST_TOKEN, url: config.INPOST_API_URL }));
  return adapters;
};

/**
 * A directory of the configured carriers plus the adapters the composition root adds (the community network, which
 * lives in read-models). A process uses one, from relaisDirectoryOnce.
 */
export const createRelaisDirectory = (deps: { config: Config; knex: Knex; redis: Redis; logger: Logger }, extra: CarrierAdapter[] = []): RelaisDirectory =>
  new RelaisDirectory({
    adapters: [...configuredCarriers(deps.config, deps.knex), ...extra],
    redis: deps.redis,
    timeoutMs: deps.config.RELAIS_NETWORK_TIMEOUT_MS,
    cacheTtlSeconds: deps.config.RELAIS_CACHE_TTL_SECONDS,
    logger: deps.logger,
  });

type DirectoryDeps = Parameters<typeof createRelaisDirectory>[0];
const directories = new WeakMap<DirectoryDeps, RelaisDirectory>();

/**
 * The directory of a process's services, built on the first call (`extra` is asked then) and shared by every app of
 * the process: the embedded service's command and query sides search through one directory.
 */
export const relaisDirectoryOnce = (deps: DirectoryDeps, extra: () => CarrierAdapter[]): RelaisDirectory => {
  let directory = directories.get(deps);
  if (!directory) {
    directory = createRelaisDirectory(deps, extra());
    directories.set(deps, directory);
  }
  return directory;
};
