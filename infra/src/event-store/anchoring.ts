import { Keypair } from '@stellar/stellar-sdk';
import { sandboxKeys } from '@cagnotte/sandbox-ledger';
import type { Services } from '../services';
import { EventAnchor, horizonAnchorLedger, sandboxAnchorLedger } from './anchor';

/**
 * The anchoring of this deployment: ANCHOR_SIGNING_SECRET (derived from the passphrase in sandbox mode) on
 * the configured ledger: the sandbox network in process, or the Horizon at HORIZON_URL. Null when the event
 * store is not PostgreSQL (EventStoreDB has no es_events to anchor) or a real ledger has no anchoring key.
 */
export const createEventAnchor = (services: Pick<Services, 'config' | 'store' | 'pgPool' | 'ledger' | 'sandboxLedger' | 'logger'> & Partial<Pick<Services, 'clock'>>): EventAnchor | null => {
  const { config } = services;
  if (services.store.name !== 'postgres') return null;
  const sandbox = services.sandboxLedger;
  const secret = config.ANCHOR_SIGNING_SECRET;
  const keypair = secret ? Keypair.fromSecret(secret) : sandbox ? sandboxKeys(config.STELLAR_NETWORK_PASSPHRASE).anchor : null;
  if (!keypair) return null;
  return new EventAnchor({
    pool: services.pgPool,
    ledger: sandbox ? sandboxAnchorLedger(sandbox) : horizonAnchorLedger(services.ledger),
    keypair,
    networkPassphrase: config.STELLAR_NETWORK_PASSPHRASE,
    logger: services.logger,
    // The gateway's turns: an anchoring key that is also the platform's takes turns with the platform's transactions.
    sourceLock: services.ledger.sourceLock,
    ...(services.clock ? { clock: services.clock } : {}),
  });
};

/**
 * Anchors every ANCHOR_INTERVAL_SECONDS (0: never) from a service process. Several processes may run it: a
 * PostgreSQL advisory lock lets one anchor at a time, the others answer 'busy'. Returns the stop function.
 */
export const startAnchoring = (services: Parameters<typeof createEventAnchor>[0]): (() => Promise<void>) => {
  const seconds = services.config.ANCHOR_INTERVAL_SECONDS;
  const anchor = seconds > 0 ? createEventAnchor(services) : null;
  if (!anchor) return async () => undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<void> | null = null;
  const tick = () => {
    running = anchor
      .anchorNow()
      .then(() => undefined)
      .catch((e: unknown) => services.logger.error({ err: (e as Error).message }, 'anchor: the event log could not be anchored; retrying at the next interval'))
      .finally(() => {
        running = null;
        if (!stopped) schedule();
      });
  };
  const schedule = () => {
    timer = setTimeout(tick, seconds * 1000);
    timer.unref();
  };
  schedule();
  return async () => {
    stopped = true;
    if (timer) clearTimeout(timer);
    await running;
  };
};
