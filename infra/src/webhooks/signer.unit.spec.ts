import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import { newEndpointSecret } from './keyring';
import { ed25519PublicKey, signDelivery, verifyEd25519Delivery } from './signer';

const test = suite('webhook signer (Standard Webhooks)');

const now = () => Math.floor(Date.now() / 1000);
const body = JSON.stringify({ id: 'evt_0123456789abcdef0123456789abcdef', type: 'reservation.paid', data: { amount: '12.5000000', note: 'café ☕' } });

test('given one secret, when a delivery is signed, then the standardwebhooks library verifies it and returns the payload', () => {
  const secret = newEndpointSecret();
  const headers = signDelivery({ id: 'evt_0123456789abcdef0123456789abcdef', timestamp: now(), body, secrets: [secret] });
  assert.match(headers['webhook-signature'], /^v1,[A-Za-z0-9+/]+=*$/);
  assert.equal(new Webhook(secret).verify(body, { ...headers }), JSON.parse(body));
});

test('given a rotation (two secrets), when signed, then both the old and the new secret verify, and a third does not', () => {
  const [oldSecret, newSecret] = [newEndpointSecret(), newEndpointSecret()];
  const headers = signDelivery({ id: 'evt_a', timestamp: now(), body, secrets: [newSecret, oldSecret] });
  assert.is(headers['webhook-signature'].split(' ').length, 2);
  assert.ok(new Webhook(oldSecret).verify(body, { ...headers }));
  assert.ok(new Webhook(newSecret).verify(body, { ...headers }));
  assert.throws(() => new Webhook(newEndpointSecret()).verify(body, { ...headers }), (e: unknown) => e instanceof WebhookVerificationError);
});

test('given a signed delivery, when one byte of the body, the id or the timestamp changes, then verification fails', () => {
  const secret = newEndpointSecret();
  const ts = now();
  const headers = signDelivery({ id: 'evt_a', timestamp: ts, body, secrets: [secret] });
  const wh = new Webhook(secret);
  assert.throws(() => wh.verify(body.replace('12.5', '12.6'), { ...headers }), /No matching signature/);
  assert.throws(() => wh.verify(body, { ...headers, 'webhook-id': 'evt_b' }), /No matching signature/);
  assert.throws(() => wh.verify(body, { ...headers, 'webhook-timestamp': String(ts - 1) }), /No matching signature/);
});

test('given a timestamp older than five minutes, when verified, then the library refuses it (replay protection is the timestamp)', () => {
  const secret = newEndpointSecret();
  const headers = signDelivery({ id: 'evt_a', timestamp: now() - 3600, body, secrets: [secret] });
  assert.throws(() => new Webhook(secret).verify(body, { ...headers }), /too old/);
});

test('given a tenant ed25519 key, when signed, then v1a verifies with node:crypto against the whpk_ public key, and v1 still verifies with standardwebhooks', () => {
  const pair = generateKeyPairSync('ed25519');
  const raw = Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url');
  const publicKey = `whpk_${raw.toString('base64')}`;
  const secret = newEndpointSecret();
  const ts = now();
  const headers = signDelivery({ id: 'evt_a_1', timestamp: ts, body, secrets: [secret], ed25519: pair.privateKey });
  const parts = headers['webhook-signature'].split(' ');
  assert.equal(parts.map((p) => p.split(',')[0]), ['v1', 'v1a']);
  const sig = Buffer.from(parts[1]!.split(',')[1]!, 'base64');
  assert.is(sig.length, 64);
  const content = Buffer.from(`evt_a_1.${ts}.${body}`, 'utf8');
  // Straight node:crypto against a key built from the raw 32 bytes, as a partner would.
  const key = createPublicKey({ key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), raw]), format: 'der', type: 'spki' });
  assert.ok(verify(null, content, key, sig));
  assert.not.ok(verify(null, Buffer.from(`evt_a_1.${ts}.${body} `), key, sig));
  assert.ok(verifyEd25519Delivery({ headers, body, publicKey }));
  assert.not.ok(verifyEd25519Delivery({ headers: { ...headers, 'webhook-id': 'evt_b' }, body, publicKey }));
  assert.ok(ed25519PublicKey(publicKey).equals(pair.publicKey));
  assert.ok(new Webhook(secret).verify(body, { ...headers }), 'the library skips v1a and verifies v1');
});

test('given a Buffer body with non-ASCII bytes, when signed, then the string and the Buffer give the same signature', () => {
  const secret = newEndpointSecret();
  const a = signDelivery({ id: 'evt_a', timestamp: 1_700_000_000, body, secrets: [secret] });
  const b = signDelivery({ id: 'evt_a', timestamp: 1_700_000_000, body: Buffer.from(body, 'utf8'), secrets: [secret] });
  assert.equal(a, b);
});

test('given bad input, when signing, then it refuses rather than sign something unverifiable', () => {
  assert.throws(() => signDelivery({ id: 'evt a', timestamp: now(), body, secrets: [newEndpointSecret()] }), /no space/);
  assert.throws(() => signDelivery({ id: 'evt_a', timestamp: 1.5, body, secrets: [newEndpointSecret()] }), /unix seconds/);
  assert.throws(() => signDelivery({ id: 'evt_a', timestamp: now(), body, secrets: ['not-a-secret'] }), /whsec_/);
  assert.throws(() => signDelivery({ id: 'evt_a', timestamp: now(), body, secrets: [] }), /nothing to sign/);
});

test('a secret is whsec_ and the base64 of 24 random bytes', () => {
  const s = newEndpointSecret();
  assert.match(s, /^whsec_[A-Za-z0-9+/]{32}$/);
  assert.is(Buffer.from(s.slice(6), 'base64').length, 24);
  assert.is.not(s, newEndpointSecret());
});

test.run();
