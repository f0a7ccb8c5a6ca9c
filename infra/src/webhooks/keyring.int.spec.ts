import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Webhook } from 'standardwebhooks';
import { testKnex } from '../testing/resources';
import { WebhookKeyring, webhookEncryptionKey } from './keyring';
import { signDelivery, verifyEd25519Delivery } from './signer';

const test = suite('webhook keyring (PostgreSQL)');

const KEY = Buffer.alloc(32, 1);
const keyring = () => new WebhookKeyring(testKnex(), KEY);

const newEndpoint = async (): Promise<string> => {
  const id = `we_${randomUUID().replaceAll('-', '')}`;
  await testKnex()('webhook_endpoints').insert({
    id,
    tenant_id: randomUUID(),
    created_by: randomUUID(),
    url: 'https://example.com/hook',
    enabled_events: ['*'],
    ordering: 'none',
    status: 'enabled',
  });
  return id;
};

test('given a new endpoint, when its secret is created, then it is stored encrypted and is the one active secret', async () => {
  const id = await newEndpoint();
  const secret = await testKnex().transaction((trx) => keyring().createEndpointSecret(trx, id));
  assert.match(secret, /^whsec_/);
  const rows = await testKnex()('webhook_secrets').where({ endpoint_id: id });
  assert.is(rows.length, 1);
  assert.not.ok(rows[0].secret_ciphertext.includes(secret.slice(6)), 'not stored in clear');
  assert.equal(await keyring().activeSecrets(id, new Date()), [secret]);
});

test('given a rotation with an expiry, when asked before and after it, then both secrets sign until it and only the new one after', async () => {
  const id = await newEndpoint();
  const k = keyring();
  const first = await k.createEndpointSecret(testKnex(), id);
  const t0 = new Date();
  const second = await testKnex().transaction((trx) => k.rotate(trx, id, 3600, t0));
  assert.is.not(second, first);
  assert.equal(await k.activeSecrets(id, new Date(t0.getTime() + 1000)), [second, first], 'newest first');
  assert.equal(await k.activeSecrets(id, new Date(t0.getTime() + 3600_000 + 1)), [second]);
  // Both sign one delivery; standardwebhooks verifies it with either.
  const body = '{"id":"evt_1"}';
  const headers = signDelivery({ id: 'evt_1', timestamp: Math.floor(Date.now() / 1000), body, secrets: await k.activeSecrets(id, new Date(t0.getTime() + 1000)) });
  assert.ok(new Webhook(first).verify(body, { ...headers }));
  assert.ok(new Webhook(second).verify(body, { ...headers }));
});

test('given two rotations, when the second has a longer expiry, then the oldest secret keeps its earlier expiry', async () => {
  const id = await newEndpoint();
  const k = keyring();
  const first = await k.createEndpointSecret(testKnex(), id);
  const t0 = new Date();
  const second = await k.rotate(testKnex(), id, 60, t0);
  const third = await k.rotate(testKnex(), id, 7 * 86_400, t0);
  assert.equal(await k.activeSecrets(id, new Date(t0.getTime() + 120_000)), [third, second]);
  assert.not.ok((await k.activeSecrets(id, new Date(t0.getTime() + 120_000))).includes(first));
});

test('given an expiry of 0, when rotated, then the old secret stops at once; an expiry over 7 days is refused', async () => {
  const id = await newEndpoint();
  const k = keyring();
  await k.createEndpointSecret(testKnex(), id);
  const t0 = new Date();
  const fresh = await k.rotate(testKnex(), id, 0, t0);
  assert.equal(await k.activeSecrets(id, t0), [fresh]);
  await k.rotate(testKnex(), id, 7 * 86_400 + 1, t0).then(
    () => assert.unreachable(),
    (e: Error) => assert.instance(e, RangeError),
  );
});

test('given another encryption key, when the secrets are read, then they do not decrypt (GCM authenticates)', async () => {
  const id = await newEndpoint();
  await keyring().createEndpointSecret(testKnex(), id);
  await new WebhookKeyring(testKnex(), Buffer.alloc(32, 2)).activeSecrets(id, new Date()).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /unable to authenticate|auth/i),
  );
});

test('given a ciphertext copied onto another endpoint, when read there, then it does not decrypt (bound to its row)', async () => {
  const [a, b] = [await newEndpoint(), await newEndpoint()];
  await keyring().createEndpointSecret(testKnex(), a);
  const row = await testKnex()('webhook_secrets').where({ endpoint_id: a }).first();
  await testKnex()('webhook_secrets').insert({ endpoint_id: b, secret_ciphertext: row.secret_ciphertext });
  await keyring().activeSecrets(b, new Date()).then(
    () => assert.unreachable(),
    (e: Error) => assert.match(e.message, /unable to authenticate|auth/i),
  );
});

test("given a tenant, when its signing key is asked by two keyrings at once, then one key pair is created and both answer it; a partner verifies v1a with it", async () => {
  const tenant = randomUUID();
  const [a, b] = await Promise.all([keyring().signingKey(tenant), keyring().signingKey(tenant)]);
  assert.match(a.publicKey, /^whpk_[A-Za-z0-9+/]{43}=$/);
  assert.is(a.publicKey, b.publicKey);
  const rows = await testKnex()('webhook_signing_keys').where({ tenant_id: tenant });
  assert.is(rows.length, 1);
  assert.not.ok(JSON.stringify(rows[0]).includes('PRIVATE'), 'stored encrypted');
  const body = '{"x":1}';
  const headers = signDelivery({ id: 'evt_9', timestamp: 1_800_000_000, body, secrets: [], ed25519: b.privateKey });
  assert.ok(verifyEd25519Delivery({ headers, body, publicKey: a.publicKey }));
  assert.is.not((await keyring().signingKey(randomUUID())).publicKey, a.publicKey, 'one key per tenant');
});

test('webhookEncryptionKey decodes 32 bytes and refuses anything else', () => {
  assert.is(webhookEncryptionKey(Buffer.alloc(32, 3).toString('base64')).length, 32);
  assert.throws(() => webhookEncryptionKey(Buffer.alloc(31).toString('base64')), /32 bytes/);
  assert.throws(() => new WebhookKeyring(testKnex(), Buffer.alloc(16)), /32 bytes/);
});

test.run();
