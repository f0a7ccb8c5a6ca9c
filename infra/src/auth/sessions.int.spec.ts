import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { UnauthorizedError } from '@cagnotte/domain';
import { testKnex, testPgPool } from '../testing/resources';
import { SessionAuthenticator } from '../services';
import { SessionStore } from './sessions';
import { TokenService } from './tokens';

const tokens = new TokenService({ secret: 's'.repeat(40), keyId: 'k1', issuer: 'cagnotte', audience: 'cagnotte-api' });

/** The pool's queries, as sent: one entry per round trip. */
const countingPool = () => {
  const pool = testPgPool();
  const sent: Array<{ name?: string; text: string }> = [];
  const counted = Object.create(pool) as pg.Pool;
  counted.query = ((config: { name?: string; text: string }, ...rest: unknown[]) => {
    sent.push(config);
    return (pool.query as (...a: unknown[]) => unknown)(config, ...rest);
  }) as pg.Pool['query'];
  return { counted, sent };
};

const signedIn = async (store: SessionStore, expiresAt = new Date(Date.now() + 3600_000)) => {
  const s = { id: randomUUID(), userId: randomUUID(), tenantId: randomUUID(), deviceId: randomUUID() };
  await store.create({ ...s, expiresAt, ip: null, userAgent: null });
  return { ...s, token: tokens.signAccess({ sub: s.userId, sid: s.id, tid: s.tenantId, did: s.deviceId }).token };
};

const refusal = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
  } catch (e) {
    assert.ok(e instanceof UnauthorizedError, String(e));
    return (e as UnauthorizedError).code;
  }
  throw new Error('expected a refusal');
};

const test = suite('sessions: one round trip per authenticated request, revocation at once');

test('authenticate asks PostgreSQL once, through one named statement', async () => {
  const { counted, sent } = countingPool();
  const store = new SessionStore(testKnex(), counted);
  const s = await signedIn(store);
  const auth = new SessionAuthenticator(tokens, store);
  sent.length = 0;
  const ctx = await auth.authenticate(s.token);
  assert.equal(ctx, { userId: s.userId, tenantId: s.tenantId, sessionId: s.id, deviceId: s.deviceId });
  await auth.authenticate(s.token);
  assert.is(sent.length, 2, 'one query per authentication');
  assert.ok(sent.every((q) => q.name === 'session_find_active' && q.text === sent[0]!.text), 'the same prepared statement every time');
});

test('a revoke counts from the next request, whichever process revoked', async () => {
  const store = new SessionStore(testKnex(), testPgPool());
  const auth = new SessionAuthenticator(tokens, store);
  const s = await signedIn(store);
  assert.is((await auth.authenticate(s.token)).userId, s.userId);
  // Another process: its own store over the same table.
  await new SessionStore(testKnex(), testPgPool()).revoke(s.id);
  assert.is(await refusal(auth.authenticate(s.token)), 'session_revoked');

  const all = await signedIn(store);
  await auth.authenticate(all.token);
  await store.revokeAllForUser(all.userId);
  assert.is(await refusal(auth.authenticate(all.token)), 'session_revoked');
});

test('an expired session, an unknown one and a token naming another user are refused', async () => {
  const store = new SessionStore(testKnex(), testPgPool());
  const auth = new SessionAuthenticator(tokens, store);
  const expired = await signedIn(store, new Date(Date.now() - 1000));
  assert.is(await refusal(auth.authenticate(expired.token)), 'session_revoked');
  const unknown = tokens.signAccess({ sub: randomUUID(), sid: randomUUID(), tid: randomUUID(), did: randomUUID() }).token;
  assert.is(await refusal(auth.authenticate(unknown)), 'session_revoked');
  const s = await signedIn(store);
  const other = tokens.signAccess({ sub: randomUUID(), sid: s.id, tid: s.tenantId, did: s.deviceId }).token;
  assert.is(await refusal(auth.authenticate(other)), 'session_revoked');
  assert.is(await refusal(auth.authenticate('not.a.token')), 'invalid_token');
});

test.run();
