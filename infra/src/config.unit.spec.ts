import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, SANDBOX_JWT_SECRET, SANDBOX_WEBHOOK_ENCRYPTION_KEY, loadConfig } from './config';

const test = suite('configuration');

const REAL_LEDGER = {
  LEDGER_MODE: 'horizon',
  HORIZON_URL: 'https://horizon-testnet.stellar.org',
  STELLAR_NETWORK_PASSPHRASE: 'Test SDF Network ; September 2015',
  STELLAR_ASSET_ISSUER: 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG',
  PLATFORM_ACCOUNT: 'GAIH3ULLFQ4DGSECF2AR555KZ4KNDGEKN4AFI4SU2M7B43MGK3QJZNSR',
  LEDGER_SIGNING_SECRET: 'SBQWY3DNPFWGSZTFNV4WQZLBOJ2GQYLTMJSWK3TTMFZGK5DFOJ2WK3TF',
  PLATFORM_SECRET: 'SBQWY3DNPFWGSZTFNV4WQZLBOJ2GQYLTMJSWK3TTMFZGK5DFOJ2WK3TF',
  ANCHOR_SIGNING_SECRET: 'SBQWY3DNPFWGSZTFNV4WQZLBOJ2GQYLTMJSWK3TTMFZGK5DFOJ2WK3TF',
};

test('defaults give a working sandbox on the embedded default', () => {
  const c = loadConfig({});
  assert.is(c.APP_ENV, 'sandbox');
  assert.is(c.PORT, 3000);
  assert.is(c.DATABASE_URL, 'postgres://postgres@127.0.0.1:5432/cagnotte');
  assert.is(c.REDIS_URL, 'redis://127.0.0.1:6379');
  assert.is(c.JWT_SECRET, SANDBOX_JWT_SECRET);
});

test('production without JWT_SECRET is refused with a clear message', () => {
  try {
    loadConfig({ APP_ENV: 'production' });
    assert.unreachable();
  } catch (e) {
    assert.instance(e, ConfigError);
    assert.match((e as Error).message, /JWT_SECRET is required when APP_ENV=production/);
  }
});

test('production refuses the sandbox secret and short secrets; accepts a real one', () => {
  assert.throws(() => loadConfig({ APP_ENV: 'production', JWT_SECRET: SANDBOX_JWT_SECRET }), /must not be used in production/);
  assert.throws(() => loadConfig({ APP_ENV: 'production', JWT_SECRET: 'short' }), /at least 32/);
  assert.throws(() => loadConfig({ APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40) }), /sandbox ledger must not be used in production/);
  assert.is(loadConfig({ APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40), ...REAL_LEDGER, WEBHOOK_ENCRYPTION_KEY: REAL_WEBHOOK_KEY }).JWT_SECRET, 'x'.repeat(40));
});

const REAL_WEBHOOK_KEY = Buffer.alloc(32, 7).toString('base64');

test('webhook encryption key: a fixed sandbox default; required in production, which refuses the sandbox one and keys not 32 bytes', () => {
  assert.is(loadConfig({}).WEBHOOK_ENCRYPTION_KEY, SANDBOX_WEBHOOK_ENCRYPTION_KEY);
  assert.is(Buffer.from(SANDBOX_WEBHOOK_ENCRYPTION_KEY, 'base64').length, 32);
  const prod = { APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40), ...REAL_LEDGER };
  assert.throws(() => loadConfig(prod), /WEBHOOK_ENCRYPTION_KEY is required when APP_ENV=production/);
  assert.throws(() => loadConfig({ ...prod, WEBHOOK_ENCRYPTION_KEY: SANDBOX_WEBHOOK_ENCRYPTION_KEY }), /sandbox WEBHOOK_ENCRYPTION_KEY must not be used in production/);
  assert.throws(() => loadConfig({ ...prod, WEBHOOK_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }), /base64 of 32 bytes/);
  assert.throws(() => loadConfig({ WEBHOOK_ENCRYPTION_KEY: 'not base64!' }), /base64 of 32 bytes/);
  assert.is(loadConfig({ ...prod, WEBHOOK_ENCRYPTION_KEY: REAL_WEBHOOK_KEY }).WEBHOOK_ENCRYPTION_KEY, REAL_WEBHOOK_KEY);
});

test('the ledger: sandbox by default; a real Horizon needs its URL, the stablecoin issuer, the platform account and a signing key', () => {
  const c = loadConfig({});
  assert.equal([c.LEDGER_MODE, c.STELLAR_ASSET_CODE, c.STELLAR_NETWORK_PASSPHRASE], ['sandbox', 'EURC', 'Cagnotte Sandbox Network ; November 2026']);
  try {
    loadConfig({ LEDGER_MODE: 'horizon' });
    assert.unreachable();
  } catch (e) {
    for (const key of ['HORIZON_URL', 'STELLAR_ASSET_ISSUER', 'PLATFORM_ACCOUNT', 'PLATFORM_SECRET', 'LEDGER_SIGNING_SECRET']) assert.match((e as Error).message, key);
  }
  assert.is(loadConfig(REAL_LEDGER).HORIZON_URL, 'https://horizon-testnet.stellar.org');
  assert.throws(() => loadConfig({ ...REAL_LEDGER, PLATFORM_ACCOUNT: 'not-an-account' }), /PLATFORM_ACCOUNT/);
});

test('anchoring: every 300 s by default; against a real Horizon it needs its signing key unless it is turned off', () => {
  assert.is(loadConfig({}).ANCHOR_INTERVAL_SECONDS, 300);
  assert.is(loadConfig({}).ANCHOR_SIGNING_SECRET, undefined, 'sandbox derives it');
  const { ANCHOR_SIGNING_SECRET: _secret, ...withoutAnchorKey } = REAL_LEDGER;
  assert.throws(() => loadConfig(withoutAnchorKey), /ANCHOR_SIGNING_SECRET is required/);
  assert.is(loadConfig({ ...withoutAnchorKey, ANCHOR_INTERVAL_SECONDS: '0' }).ANCHOR_INTERVAL_SECONDS, 0);
  assert.throws(() => loadConfig({ ANCHOR_INTERVAL_SECONDS: '-1' }), /ANCHOR_INTERVAL_SECONDS/);
  assert.throws(() => loadConfig({ ANCHOR_SIGNING_SECRET: 'GABC' }), /ANCHOR_SIGNING_SECRET/);
});

test('bad values are listed by name', () => {
  try {
    loadConfig({ PORT: 'eighty', APP_ENV: 'staging', DATABASE_URL: 'nope' });
    assert.unreachable();
  } catch (e) {
    const problems = (e as ConfigError).problems.join('\n');
    for (const name of ['PORT', 'APP_ENV', 'DATABASE_URL']) assert.match(problems, name);
  }
});

test('empty strings count as unset', () => {
  assert.is(loadConfig({ PORT: '', JWT_SECRET: '' }).PORT, 3000);
});

test.run();
