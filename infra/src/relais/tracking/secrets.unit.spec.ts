import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, loadConfig } from '../../config';
import { relaisWebhookSecret } from './secrets';

const test = suite('relais webhook secrets');
const production = { APP_ENV: 'production', JWT_SECRET: 'p'.repeat(40), WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), LEDGER_MODE: 'horizon' };

test('given a sandbox deployment without secrets, then the sandbox carrier has a derived secret (not the JWT secret) and the carriers none', () => {
  const config = loadConfig({});
  const secret = relaisWebhookSecret(config, 'sandbox');
  assert.match(secret ?? '', /^[0-9a-f]{64}$/);
  assert.is.not(secret, config.JWT_SECRET);
  assert.is(relaisWebhookSecret(loadConfig({}), 'sandbox'), secret, 'stable across processes');
  assert.is.not(relaisWebhookSecret(loadConfig({ JWT_SECRET: 'x'.repeat(40) }), 'sandbox'), secret, 'follows JWT_SECRET');
  for (const network of ['mondial_relay', 'colissimo', 'chronopost', 'inpost'] as const) assert.is(relaisWebhookSecret(config, network), null);
});

test('given explicit secrets, then each network takes its own; in production the sandbox carrier has none unless set', () => {
  const config = loadConfig({ RELAIS_WEBHOOK_SECRET_INPOST: 'i'.repeat(32), RELAIS_WEBHOOK_SECRET_SANDBOX: 's'.repeat(32) });
  assert.is(relaisWebhookSecret(config, 'inpost'), 'i'.repeat(32));
  assert.is(relaisWebhookSecret(config, 'sandbox'), 's'.repeat(32));
  const prod = { ...config, ...production, APP_ENV: 'production' as const, RELAIS_WEBHOOK_SECRET_SANDBOX: undefined };
  assert.is(relaisWebhookSecret(prod, 'sandbox'), null);
});

test('given a secret shorter than 32 characters, then the config is refused', () => {
  assert.throws(() => loadConfig({ RELAIS_WEBHOOK_SECRET_COLISSIMO: 'short' }), (e: unknown) => e instanceof ConfigError && /RELAIS_WEBHOOK_SECRET_COLISSIMO/.test(e.message));
});

test.run();
