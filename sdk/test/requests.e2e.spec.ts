import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type TestApi, type TestUser } from '@cagnotte/scripts/e2e/harness';
import { CagnotteError, createClient, sandbox, type CagnotteClient } from '../src';

/**
 * A payment request through the SDK with a test API key, on the sandbox network: created, read publicly, its
 * payment built by the service, signed in the payer's own wallet (sandbox.createWallet, signXdr), recorded (the
 * service submits it) → paid; listed by cursor; another request voided.
 */
interface Ctx {
  api: TestApi;
  payee: TestUser;
  client: CagnotteClient;
}

const test = suite<Ctx>('sdk e2e: /v1/requests through the client with an API key');

test.before(async (ctx) => {
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: `Cagnotte sdk requests e2e ${randomUUID()}` });
  const tenant = (await ctx.api.tenant()).slug;
  ctx.payee = await ctx.api.user(tenant, { role: 'organiser', name: 'Studio' });
  const seller = await ctx.api.call('POST', '/api/me/become-seller', { token: ctx.payee.token, tenant, body: { companyName: 'Studio Graphique SAS', siret: '12345678200010' } });
  assert.is(seller.status, 200, seller.text);
  const key = await ctx.api.apiKey(ctx.payee, { mode: 'test' });
  ctx.client = createClient({ baseUrl: ctx.api.url, apiKey: key.secret, tenant });
});

test.after(async (ctx) => ctx.api.stop());

const body = () => ({
  lineItems: [{ description: 'Logo design (hours)', quantity: 2, unitAmount: '45.00', vatCategory: 'S' as const, vatRate: '20' }],
  dueAt: new Date(Date.now() + 3600_000).toISOString(),
  customer: { name: 'Boulangerie Martin SARL', email: 'compta@martin.example', country: 'FR' },
});

test('given a request, when the payer signs the payment the service built and the payee records it, then it is paid', async ({ api, payee, client }) => {
  const request = await client.requests.create(body());
  assert.match(request.id, /^req_[0-9a-f]{32}$/);
  assert.equal([request.status, request.amountDue], ['open', '108.00']);
  assert.is((await client.requests.retrievePublic(request.id)).amountDue, '108.00');

  const payer = await sandbox.createWallet({ baseUrl: api.url, sessionToken: payee.token, tenant: payee.tenant });
  const built = await client.requests.buildPayment(request.id, { payer: payer.publicKey });
  const recorded = await client.requests.recordPayment(request.id, { signedXdr: payer.signXdr(built.xdr) });
  assert.is(recorded.recorded, true);
  assert.equal([recorded.request?.status, recorded.request?.amountPaid], ['paid', '108.00']);
  assert.is((await client.requests.retrieve(request.id)).status, 'paid');
});

test('given three more requests, then the list pages by cursor, newest first; a voided one says so, and voiding an unknown id is a 404', async ({ client }) => {
  const made = [];
  for (let i = 0; i < 3; i++) made.push(await client.requests.create(body()));
  const listed: string[] = [];
  for await (const r of client.requests.list({ limit: 2 })) listed.push(r.id);
  assert.equal(listed.slice(0, 3), made.map((r) => r.id).reverse());
  const voided = await client.requests.void(made[0]!.id);
  assert.is(voided.status, 'void');
  try {
    await client.requests.void(`req_${randomUUID().replace(/-/g, '')}`);
    assert.unreachable('voided a request that does not exist');
  } catch (error) {
    assert.instance(error, CagnotteError);
    assert.equal([(error as CagnotteError).status, (error as CagnotteError).code], [404, 'request_not_found']);
  }
});

test.run();
