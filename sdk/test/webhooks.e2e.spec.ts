import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type TestApi, type TestUser } from '@cagnotte/scripts/e2e/harness';
import { CagnotteError, createClient, sandbox, type CagnotteClient } from '../src';

/**
 * The SDK against the real app (command + query + projectors in process, real PostgreSQL and Redis), as a partner's
 * back office uses it with a session token: webhook endpoints created, paged through, refused; a sandbox wallet.
 */
interface Ctx {
  api: TestApi;
  organiser: TestUser;
  client: CagnotteClient;
}

const test = suite<Ctx>('sdk e2e: /v1 webhooks through the client');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = await ctx.api.tenant();
  ctx.organiser = await ctx.api.user(tenant.slug, { role: 'organiser', wallet: false });
  ctx.client = createClient({ baseUrl: ctx.api.url, sessionToken: ctx.organiser.token, tenant: tenant.slug });
});

test.after(async (ctx) => ctx.api.stop());

const endpointBody = (n: number) => ({ url: `https://hooks.partner.example/in/${n}`, enabledEvents: ['reservation.*', 'payout.settled'] });

const caught = async (p: Promise<unknown>): Promise<CagnotteError> => {
  try {
    await p;
  } catch (error) {
    assert.instance(error, CagnotteError);
    return error as CagnotteError;
  }
  throw new Error('it did not throw');
};

test('given an organiser, when they create three endpoints, then each answers a we_ id and its secret, and the iterator lists the three, a page at a time', async ({ client }) => {
  const created = [];
  for (const n of [1, 2, 3]) created.push(await client.webhooks.create(endpointBody(n)));
  for (const e of created) {
    assert.match(e.id, /^we_[0-9a-f]{32}$/);
    assert.match(e.secret ?? '', /^whsec_/);
  }
  const listed: string[] = [];
  for await (const endpoint of client.webhooks.list({ limit: 1 })) listed.push(endpoint.id);
  assert.equal([...listed].sort(), created.map((e) => e.id).sort());
  const got = await client.webhooks.retrieve(created[0]!.id);
  assert.equal([got.id, got.url, 'secret' in got], [created[0]!.id, endpointBody(1).url, false]);
});

test('given an endpoint that does not exist, then retrieve throws a 404 CagnotteError with its code and request id', async ({ client }) => {
  const error = await caught(client.webhooks.retrieve(`we_${randomUUID().replace(/-/g, '')}`));
  assert.is(error.status, 404);
  assert.is(error.code, 'webhook_endpoint_not_found');
  assert.ok(error.requestId, 'the X-Request-Id is kept');
  assert.ok(error.message.length > 0);
});

test('given an invalid body, then a 400 validation_failed names the field in errors and param', async ({ client }) => {
  const error = await caught(client.webhooks.create({ url: 'https://hooks.partner.example/in', enabledEvents: ['reservation.*', 'no.such_type'] }));
  assert.is(error.status, 400);
  assert.is(error.code, 'validation_failed');
  assert.ok(error.errors['enabledEvents.1'], JSON.stringify(error.errors));
  assert.is(error.param, 'enabledEvents.1');
});

test('given the same Idempotency-Key twice, then the second call replays the first endpoint (without its secret), not a new one', async ({ client }) => {
  const key = `sdk-e2e-${randomUUID()}`;
  const first = await client.webhooks.create(endpointBody(9), { idempotencyKey: key });
  const again = await client.webhooks.create(endpointBody(9), { idempotencyKey: key });
  assert.is(again.id, first.id);
  assert.ok(first.secret);
  assert.is(again.secret, undefined);
});

test('given an endpoint, when updated then deleted, then the change is read back and the deleted one is a 404', async ({ client }) => {
  const e = await client.webhooks.create(endpointBody(5));
  const updated = await client.webhooks.update(e.id, { description: 'back office', ordering: 'per_subject' });
  assert.equal([updated.description, updated.ordering], ['back office', 'per_subject']);
  assert.is(await client.webhooks.del(e.id), undefined);
  assert.is((await caught(client.webhooks.retrieve(e.id))).status, 404);
});

test('given an API key the organiser issued through the client, then a client with that key acts as them, and the key list pages by cursor (startingAfter)', async ({ api, client, organiser }) => {
  const issued = [];
  for (const name of ['one', 'two', 'three']) issued.push(await client.apiKeys.create({ name, scopes: ['*'] }));
  const secret = issued[0]!.secret;
  assert.match(secret ?? '', /^sk_test_/);
  const withKey = createClient({ baseUrl: api.url, apiKey: secret! });
  const listed: string[] = [];
  // Keys are managed with a session only: the organiser's client lists them.
  for await (const key of client.apiKeys.list({ limit: 1 })) listed.push(key.id);
  assert.is((await caught(withKey.apiKeys.list().page())).status, 403);
  assert.equal(listed.slice(0, 3), issued.map((k) => k.id).reverse(), 'newest first, one page each');
  const endpoint = await withKey.webhooks.create(endpointBody(7));
  const seen = await client.webhooks.retrieve(endpoint.id);
  assert.is(seen.ownerId, organiser.id);
  const revoked = await client.apiKeys.del(issued[0]!.id);
  assert.is(revoked.id, issued[0]!.id);
  assert.is((await caught(withKey.webhooks.retrieve(endpoint.id))).status, 401);
});

test('given the sandbox, when createWallet links a new wallet, then the account shows it and it holds the stablecoin', async ({ api, organiser }) => {
  const wallet = await sandbox.createWallet({ baseUrl: api.url, sessionToken: organiser.token, tenant: organiser.tenant, link: true });
  assert.match(wallet.publicKey, /^G[A-Z2-7]{55}$/);
  const me = (await (await fetch(`${api.url}/api/auth/me`, { headers: { authorization: `Bearer ${organiser.token}` } })).json()) as { data: { wallet: { ledgerAccount: string } } };
  assert.is(me.data.wallet.ledgerAccount, wallet.publicKey);
  const account = (await (await fetch(`${wallet.horizonUrl}/accounts/${wallet.publicKey}`)).json()) as { balances: Array<{ asset_code?: string; asset_issuer?: string; balance: string }> };
  const held = account.balances.find((b) => b.asset_code === wallet.asset.code && b.asset_issuer === wallet.asset.issuer);
  assert.is(held?.balance, '1000.0000000', JSON.stringify(account.balances));
});

test('given the client, then client.sandbox.createWallet uses its root and session: a funded wallet, not linked', async ({ api, organiser }) => {
  const client = createClient({ baseUrl: api.url, sessionToken: organiser.token, tenant: organiser.tenant });
  const wallet = await client.sandbox.createWallet({ fund: false });
  const account = (await (await fetch(`${wallet.horizonUrl}/accounts/${wallet.publicKey}`)).json()) as { balances: Array<{ asset_code?: string; balance: string }> };
  assert.is(account.balances.find((b) => b.asset_code === wallet.asset.code)?.balance, '0.0000000', 'a trustline, no stablecoin without fund');
});

test.run();
