import { createHmac } from 'node:crypto';
import type { Config } from '../../config';
import type { CarrierNetwork } from './index';

const KEYS = {
  mondial_relay: 'RELAIS_WEBHOOK_SECRET_MONDIAL_RELAY',
  colissimo: 'RELAIS_WEBHOOK_SECRET_COLISSIMO',
  chronopost: 'RELAIS_WEBHOOK_SECRET_CHRONOPOST',
  inpost: 'RELAIS_WEBHOOK_SECRET_INPOST',
  sandbox: 'RELAIS_WEBHOOK_SECRET_SANDBOX',
} as const satisfies Record<CarrierNetwork, keyof Config>;

/** The config key holding a network's webhook secret. */
export const relaisWebhookSecretKey = (network: CarrierNetwork): (typeof KEYS)[CarrierNetwork] => KEYS[network];

/**
 * A network's webhook secret, or null when it has none (its endpoint is then a 404). Only the sandbox carrier, and
 * only in a sandbox deployment, has a default: derived from JWT_SECRET under its own label, so it is stable across
 * restarts and processes and never the JWT secret itself. Production takes explicit secrets only. Never log it.
 */
export const relaisWebhookSecret = (config: Pick<Config, 'APP_ENV' | 'JWT_SECRET' | (typeof KEYS)[CarrierNetwork]>, network: CarrierNetwork): string | null => {
  const explicit = config[KEYS[network]];
  if (explicit) return explicit;
  if (network === 'sandbox' && config.APP_ENV === 'sandbox') {
    return createHmac('sha256', config.JWT_SECRET).update('cagnotte relais webhook secret: sandbox carrier').digest('hex');
  }
  return null;
};
