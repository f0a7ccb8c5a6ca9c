import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Knex } from 'knex';
import { loadConfig } from '../../config';
import { configuredCarriers, relaisSandboxEnabled } from '../index';

const test = suite('relais carriers: which networks a deployment speaks to');
const knex = {} as Knex; // adapters touch the database only when asked for points
const PROD = { APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40), WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'), LEDGER_MODE: 'horizon', HORIZON_URL: 'https://horizon-testnet.stellar.org', STELLAR_ASSET_ISSUER: 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG', PLATFORM_ACCOUNT: 'GAIH3ULLFQ4DGSECF2AR555KZ4KNDGEKN4AFI4SU2M7B43MGK3QJZNSR', LEDGER_SIGNING_SECRET: 'SBQWY3DNPFWGSZTFNV4WQZLBOJ2GQYLTMJSWK3TTMFZGK5DFOJ2WK3TF', PLATFORM_SECRET: 'SBQWY3DNPFWGSZTFNV4WQZLBOJ2GQYLTMJSWK3TTMFZGK5DFOJ2WK3TF', ANCHOR_SIGNING_SECRET: 'SBQWY3DNPFWGSZTFNV4WQZLBOJ2GQYLTMJSWK3TTMFZGK5DFOJ2WK3TF' };

test('given no carrier credentials, then a sandbox deployment has the sandbox carrier only, production none', () => {
  const sandbox = loadConfig({});
  assert.is(relaisSandboxEnabled(sandbox), true);
  assert.equal(configuredCarriers(sandbox, knex).map((a) => a.network), ['sandbox']);
  assert.is(sandbox.RELAIS_NETWORK_TIMEOUT_MS, 1500);
  assert.is(sandbox.RELAIS_CACHE_TTL_SECONDS, 900);
  assert.is(sandbox.RELAIS_SANDBOX_LATENCY_MS, 0);
  assert.is(sandbox.RATE_LIMIT_RELAIS_PER_MINUTE, 120);
  const production = loadConfig(PROD);
  assert.is(relaisSandboxEnabled(production), false);
  assert.equal(configuredCarriers(production, knex), []);
  assert.is(relaisSandboxEnabled(loadConfig({ RELAIS_SANDBOX_CARRIER: 'false' })), false);
});

test('given credentials, then each carrier is enabled only with all of its own', () => {
  const c = loadConfig({
    RELAIS_SANDBOX_CARRIER: 'false',
    MONDIAL_RELAY_ENSEIGNE: 'BDTEST13',
    MONDIAL_RELAY_PRIVATE_KEY: 'PrivateK',
    COLISSIMO_ACCOUNT: '123456',
    CHRONOPOST_ACCOUNT: '19869502',
    CHRONOPOST_PASSWORD: '255562',
    INPOST_TOKEN: 'token',
  });
  assert.equal(configuredCarriers(c, knex).map((a) => a.network), ['mondial_relay', 'chronopost', 'inpost'], 'Colissimo lacks its password');
});

test.run();
