import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConfigError, SANDBOX_JWT_SECRET, loadConfig } from './config';

const test = suite('configuration');

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
  assert.is(loadConfig({ APP_ENV: 'production', JWT_SECRET: 'x'.repeat(40) }).JWT_SECRET, 'x'.repeat(40));
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
