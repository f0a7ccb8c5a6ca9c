import jwt from 'jsonwebtoken';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { loadConfig } from '../config';
import { TokenService } from './tokens';

const OLD = 'o'.repeat(40);
const NEW = 'n'.repeat(40);
const base = { issuer: 'cagnotte', audience: 'cagnotte-api' };
const claims = { sub: 'u', sid: 's', tid: 't', did: 'd' };

const test = suite('tokens: purpose binding and key rotation');

test('a token signed with a retired key still verifies while its kid is listed; an unknown kid never does', () => {
  const before = new TokenService({ ...base, secret: OLD, keyId: 'k0' });
  const { token } = before.signAccess(claims);
  const rotated = new TokenService({ ...base, secret: NEW, keyId: 'k1', previousKeys: { k0: OLD } });
  assert.is(rotated.verifyAccess(token).sub, 'u');
  assert.is(rotated.verifyAccess(rotated.signAccess(claims).token).sub, 'u', 'new tokens use the new key');
  const retired = new TokenService({ ...base, secret: NEW, keyId: 'k1' });
  assert.throws(() => retired.verifyAccess(token), /Invalid or expired token/);
  const lying = new TokenService({ ...base, secret: NEW, keyId: 'k1', previousKeys: { k0: 'x'.repeat(40) } });
  assert.throws(() => lying.verifyAccess(token), /Invalid or expired token/, 'the kid must match its own key');
});

test('purpose tokens work for their kind only, and never as access tokens', () => {
  const t = new TokenService({ ...base, secret: NEW, keyId: 'k1' });
  const reset = t.signPurpose('password-reset', { sub: 'u', tid: 't', pwf: 'abc' }, 1800);
  assert.is(t.verifyPurpose('password-reset', reset.token)?.jti, reset.jti);
  assert.is(t.verifyPurpose('partner-sso', reset.token), null);
  assert.throws(() => t.verifyAccess(reset.token), /Invalid or expired token/);
  assert.is(t.verifyPurpose('password-reset', t.signAccess(claims).token), null);
  assert.is(t.verifyPurpose('partner-sso', t.signPurpose('partner-sso', { sub: 'u', tid: 't' }, -1).token), null, 'expired');
});

test('a token without exp, without iat, or issued in the future (beyond the clock skew) is refused, access or purpose', () => {
  // The clock stands still for this test: on a loaded machine a second boundary crossed between the signing and the
  // check would put "31 s ahead" exactly on the skew (and accept it), failing the test for the wrong reason.
  const realNow = Date.now;
  const frozen = Math.floor(realNow() / 1000) * 1000;
  Date.now = () => frozen;
  try {
    refusesTimeless();
  } finally {
    Date.now = realNow;
  }
});

const refusesTimeless = () => {
  const t = new TokenService({ ...base, secret: NEW, keyId: 'k1' });
  const now = Math.floor(Date.now() / 1000);
  const sign = (payload: object, opts: jwt.SignOptions = {}) =>
    jwt.sign(payload, NEW, { algorithm: 'HS256', keyid: 'k1', issuer: base.issuer, audience: base.audience, ...opts });
  const access = { ...claims, kind: 'access' };
  const sso = { sub: 'u', tid: 't', kind: 'partner-sso', jti: 'j' };
  // Control: the same hand-made tokens with exp and a current iat are accepted, so the refusals below are about those claims.
  assert.is(t.verifyAccess(sign(access, { expiresIn: 60 })).sub, 'u');
  assert.is(t.verifyPurpose('partner-sso', sign(sso, { expiresIn: 60 }))?.sub, 'u');
  assert.is(t.verifyAccess(sign({ ...access, iat: now + 20 }, { expiresIn: 60 })).sub, 'u', 'within the 30 s skew');

  const noExp = sign(access);
  assert.is((jwt.decode(noExp) as jwt.JwtPayload).exp, undefined);
  assert.throws(() => t.verifyAccess(noExp), /Invalid or expired token/, 'no exp');
  assert.is(t.verifyPurpose('partner-sso', sign(sso)), null, 'purpose token without exp');
  assert.throws(() => t.verifyAccess(sign(access, { expiresIn: 60, noTimestamp: true })), /Invalid or expired token/, 'no iat');
  for (const ahead of [31, 3600, 10 * 365 * 86400]) {
    const future = sign({ ...access, iat: now + ahead, exp: now + ahead + 600 });
    assert.throws(() => t.verifyAccess(future), /Invalid or expired token/, `iat ${ahead}s ahead`);
    assert.is(t.verifyPurpose('partner-sso', sign({ ...sso, iat: now + ahead, exp: now + ahead + 60 })), null, `purpose iat ${ahead}s ahead`);
  }
};

test('JWT_PREVIOUS_KEYS is JSON of kid to secret (at least 32 characters)', () => {
  assert.equal(loadConfig({ JWT_PREVIOUS_KEYS: JSON.stringify({ k0: OLD }) }).JWT_PREVIOUS_KEYS, { k0: OLD });
  assert.throws(() => loadConfig({ JWT_PREVIOUS_KEYS: '{"k0":"short"}' }), /JWT_PREVIOUS_KEYS/);
  assert.throws(() => loadConfig({ JWT_PREVIOUS_KEYS: 'k0=abc' }), /JWT_PREVIOUS_KEYS/);
});

test.run();
