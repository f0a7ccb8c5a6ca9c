import { generateKeyPairSync } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { newEndpointSecret, signDelivery } from '@cagnotte/infra';
import { WebhookVerificationError, verifyWebhook } from '../src';

/** The SDK's verifyWebhook against the service's own signer (infra/src/webhooks/signer.ts): what it signs, the SDK accepts; nothing else. */
const test = suite('sdk: webhooks.verify against the service signer');

const now = new Date('2026-11-27T10:00:00Z');
const at = Math.floor(now.getTime() / 1000);
const clock = { now: () => now };
const body = JSON.stringify({ id: 'evt_0123456789abcdef0123456789abcdef', type: 'reservation.paid', data: { amount: '12.50' } });
const id = 'evt_0123456789abcdef0123456789abcdef';

const refused = (fn: () => unknown, why: RegExp) => {
  try {
    fn();
  } catch (error) {
    assert.instance(error, WebhookVerificationError);
    assert.match((error as Error).message, why);
    return;
  }
  assert.unreachable('it verified');
};

const ed25519 = () => {
  const pair = generateKeyPairSync('ed25519');
  const publicKey = `whpk_${Buffer.from(pair.publicKey.export({ format: 'jwk' }).x!, 'base64url').toString('base64')}`;
  return { privateKey: pair.privateKey, publicKey };
};

test('given a delivery signed by the service, when verified with its secret, then it answers the event parsed', () => {
  const secret = newEndpointSecret();
  const headers = signDelivery({ id, timestamp: at, body, secrets: [secret] });
  const event = verifyWebhook<{ type: string; data: { amount: string } }>(body, headers, secret, clock);
  assert.is(event.type, 'reservation.paid');
  assert.is(event.data.amount, '12.50');
});

test('given Node request headers (any case, Buffer body) or fetch Headers, then it verifies the same', () => {
  const secret = newEndpointSecret();
  const signed = signDelivery({ id, timestamp: at, body: Buffer.from(body), secrets: [secret] });
  const nodeStyle = { 'Webhook-Id': signed['webhook-id'], 'WEBHOOK-TIMESTAMP': signed['webhook-timestamp'], 'webhook-signature': signed['webhook-signature'], host: 'x' };
  assert.is(verifyWebhook<{ id: string }>(Buffer.from(body), nodeStyle, secret, clock).id, id);
  assert.is(verifyWebhook<{ id: string }>(body, new Headers(signed as unknown as Record<string, string>), secret, clock).id, id);
});

test('given a rotation, when the service signs with both secrets, then either secret verifies, and a third does not', () => {
  const [old, fresh, other] = [newEndpointSecret(), newEndpointSecret(), newEndpointSecret()];
  const headers = signDelivery({ id, timestamp: at, body, secrets: [old, fresh] });
  assert.ok(verifyWebhook(body, headers, old, clock));
  assert.ok(verifyWebhook(body, headers, fresh, clock));
  assert.ok(verifyWebhook(body, headers, [other, fresh], clock));
  refused(() => verifyWebhook(body, headers, other, clock), /no signature matches/);
});

test('given a body changed by one byte, or another id or timestamp, then it is refused', () => {
  const secret = newEndpointSecret();
  const headers = signDelivery({ id, timestamp: at, body, secrets: [secret] });
  refused(() => verifyWebhook(body.replace('12.50', '12.51'), headers, secret, clock), /no signature matches/);
  refused(() => verifyWebhook(body, { ...headers, 'webhook-id': 'evt_other' }, secret, clock), /no signature matches/);
  refused(() => verifyWebhook(body, { ...headers, 'webhook-timestamp': String(at - 1) }, secret, clock), /no signature matches/);
});

test('given a timestamp more than 5 minutes from now, then it is refused; within 5 minutes it verifies', () => {
  const secret = newEndpointSecret();
  const sign = (t: number) => signDelivery({ id, timestamp: t, body, secrets: [secret] });
  assert.ok(verifyWebhook(body, sign(at - 300), secret, clock));
  assert.ok(verifyWebhook(body, sign(at + 300), secret, clock));
  refused(() => verifyWebhook(body, sign(at - 301), secret, clock), /too old/);
  refused(() => verifyWebhook(body, sign(at + 301), secret, clock), /future/);
  assert.ok(verifyWebhook(body, sign(at - 3600), secret, { ...clock, toleranceSeconds: 3601 }));
});

test('given a missing header or a signature list without v1, then it is refused', () => {
  const secret = newEndpointSecret();
  const headers = signDelivery({ id, timestamp: at, body, secrets: [secret] });
  refused(() => verifyWebhook(body, { 'webhook-id': id, 'webhook-timestamp': String(at) }, secret, clock), /missing/);
  refused(() => verifyWebhook(body, { ...headers, 'webhook-signature': headers['webhook-signature'].replace('v1,', 'v2,') }, secret, clock), /no signature matches/);
  refused(() => verifyWebhook(body, { ...headers, 'webhook-signature': 'garbage' }, secret, clock), /no signature matches/);
});

test('given the v1a ed25519 signature, when verified with the tenant whpk_ key, then it verifies; another key or a v1-only delivery does not', () => {
  const tenant = ed25519();
  const stranger = ed25519();
  const secret = newEndpointSecret();
  const headers = signDelivery({ id, timestamp: at, body, secrets: [secret], ed25519: tenant.privateKey });
  assert.match(headers['webhook-signature'], /^v1,\S+ v1a,\S+$/);
  assert.ok(verifyWebhook(body, headers, tenant.publicKey, clock));
  refused(() => verifyWebhook(body, headers, stranger.publicKey, clock), /no signature matches/);
  refused(() => verifyWebhook(body.replace('12.50', '0.01'), headers, tenant.publicKey, clock), /no signature matches/);
  refused(() => verifyWebhook(body, signDelivery({ id, timestamp: at, body, secrets: [secret] }), tenant.publicKey, clock), /no signature matches/);
});

test('given the client, then client.webhooks.verify is the same check', async () => {
  const { createClient } = await import('../src');
  const secret = newEndpointSecret();
  const headers = signDelivery({ id, timestamp: at, body, secrets: [secret] });
  assert.ok(createClient({ baseUrl: 'http://127.0.0.1:1' }).webhooks.verify(body, headers, secret, clock));
});

test.run();
