import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError } from '@cagnotte/domain';
import { createLogger } from '../logger';
import { testPgPool } from '../testing/resources';
import { IdempotencyStore } from './idempotency';

/** The pool's queries, as sent: one entry per round trip. */
const countingPool = () => {
  const pool = testPgPool();
  const sent: Array<{ name?: string }> = [];
  const counted = Object.create(pool) as pg.Pool;
  counted.query = ((config: { name?: string }, ...rest: unknown[]) => {
    sent.push(typeof config === 'string' ? {} : config);
    return (pool.query as (...a: unknown[]) => unknown)(config, ...rest);
  }) as pg.Pool['query'];
  return { counted, sent };
};

const fingerprint = IdempotencyStore.fingerprint('post', '/api/pools', { title: 'x' });
const answer = { status: 201, body: { success: true, data: { id: 'p1', title: 'x', 'é': [1, 2] } }, headers: { 'X-Event-Position': '12-3' } };

const test = suite('idempotency: one round trip per look-up');

test('a new key is looked up once, in PostgreSQL, through the prepared statement', async () => {
  const { counted, sent } = countingPool();
  const store = new IdempotencyStore(counted, createLogger('silent'));
  const claim = store.claim(`u:${randomUUID()}`, `key-${randomUUID()}`, fingerprint, 201);
  assert.is(await store.replayFor(claim), null);
  assert.equal(sent.map((q) => q.name), ['idem_find']);
});

test('a kept answer is replayed as kept, in one round trip; another request under the key is a 409', async () => {
  const { counted, sent } = countingPool();
  const store = new IdempotencyStore(counted, createLogger('silent'));
  const scope = `u:${randomUUID()}`;
  const key = `key-${randomUUID()}`;
  const claim = store.claim(scope, key, fingerprint, 201);
  assert.equal(await store.record(claim, answer), answer);
  sent.length = 0;
  assert.equal(await store.replayFor(claim), answer);
  assert.equal(sent.map((q) => q.name), ['idem_find']);
  const other = store.claim(scope, key, IdempotencyStore.fingerprint('post', '/api/pools', { title: 'y' }), 201);
  try {
    await store.replayFor(other);
    assert.unreachable('the same key for another request');
  } catch (e) {
    assert.ok(e instanceof ConflictError && e.code === 'idempotency_key_reused', String(e));
  }
});

test('an expired answer is not replayed, and a new answer under its key replaces it', async () => {
  const store = new IdempotencyStore(testPgPool(), createLogger('silent'));
  const scope = `u:${randomUUID()}`;
  const key = `key-${randomUUID()}`;
  await testPgPool().query(
    `INSERT INTO idempotency_keys (scope, key, fingerprint, status_code, body, expires_at) VALUES ($1, $2, 'old', 200, '{}', now() - interval '1 second')`,
    [scope, key],
  );
  const claim = store.claim(scope, key, fingerprint, 201);
  assert.is(await store.replayFor(claim), null);
  assert.equal(await store.record(claim, answer), answer);
  assert.equal(await store.replayFor(claim), answer);
});

test.run();
