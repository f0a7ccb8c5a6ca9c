import type { Config } from '@cagnotte/infra/src/config';
import { networkOf, sandboxSeed } from '@cagnotte/infra/src/ledger/network';
import { accountIdOfSeed, seedOfSecret } from './stellar-keys';

// `pnpm cli ledger info`: what a client needs to talk to the ledger, from the configuration alone. It loads neither the
// services nor the Stellar SDK (no database, no Redis), so scripts can call it in a loop: docs in README.md#operator-cli.

type LedgerConfig = Pick<
  Config,
  'LEDGER_MODE' | 'HORIZON_URL' | 'HOST' | 'PORT' | 'STELLAR_NETWORK_PASSPHRASE' | 'STELLAR_ASSET_CODE' | 'STELLAR_ASSET_ISSUER' | 'PLATFORM_ACCOUNT' | 'LEDGER_SIGNING_SECRET' | 'LEDGER_HOME_DOMAIN'
>;

/**
 * Where the service's Horizon answers: HORIZON_URL when set; in sandbox the service's own, `/sandbox/horizon` on the
 * host and PORT it listens on (a wildcard HOST is reached as localhost). Null when PORT is 0 (a port the system picks).
 */
export const horizonUrlOf = (c: Pick<Config, 'HORIZON_URL' | 'HOST' | 'PORT'>): string | null => {
  if (c.HORIZON_URL) return c.HORIZON_URL;
  if (c.PORT === 0) return null;
  const host = c.HOST === '0.0.0.0' || c.HOST === '::' ? 'localhost' : c.HOST.includes(':') ? `[${c.HOST}]` : c.HOST;
  return `http://${host}:${c.PORT}/sandbox/horizon`;
};

/** The same accounts the ledger gateway uses (infra/src/services.ts `createLedgerGateway`): configured, else the sandbox's. */
export const ledgerInfo = (c: LedgerConfig) => {
  const sandbox = (role: 'issuer' | 'platform' | 'signing') => accountIdOfSeed(sandboxSeed(c.STELLAR_NETWORK_PASSPHRASE, role));
  return {
    mode: c.LEDGER_MODE,
    network: networkOf(c.STELLAR_NETWORK_PASSPHRASE),
    networkPassphrase: c.STELLAR_NETWORK_PASSPHRASE,
    horizonUrl: horizonUrlOf(c),
    stablecoin: { code: c.STELLAR_ASSET_CODE, issuer: c.STELLAR_ASSET_ISSUER ?? sandbox('issuer') },
    platformAccount: c.PLATFORM_ACCOUNT ?? sandbox('platform'),
    challengeSigningAccount: c.LEDGER_SIGNING_SECRET ? accountIdOfSeed(seedOfSecret(c.LEDGER_SIGNING_SECRET)) : sandbox('signing'),
    homeDomain: c.LEDGER_HOME_DOMAIN,
  };
};

