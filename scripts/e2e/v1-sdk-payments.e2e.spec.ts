import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient, type CagnotteClient } from '@cagnotte/sdk';
import { startWebhooks } from '@cagnotte/command-api';
import { startApi, type TestApi, type TestUser } from './harness';
import { startReceiver, type Receiver } from './webhook-receiver';
import { available, awaitEventsAbout, customer, onHorizon, stablecoinOf, stroops, type Customer } from './sdk-e2e-kit';

/**
 * Payments through the SDK only, on the sandbox network: a payment request paid in full by an end customer's own
 * wallet (the service builds the payment, the payer signs it, the service submits and verifies it), and a transfer the
 * ledger refuses (a sender without the money: failed, op_underfunded), balances to the stroop, the events delivered to
 * a real receiver and verified with verifyWebhook.
 */
interface Ctx {
  api: TestApi;
  payee: TestUser;
  client: CagnotteClient;
  stopWebhooks: () => Promise<void>;
  receiver: Receiver;
  secret: string;
  payer: Customer;
  poor: Customer;
}

const test = suite<Ctx>('v1 requests and transfers through the SDK, on the sandbox network');

// uvu reports a failing hook without its error: the setup logs it.
test.before(async (ctx) => setup(ctx).catch((error: unknown) => (console.error('setup failed:', error), Promise.reject(error))));

const setup = async (ctx: Ctx) => {
  ctx.api = await startApi({ WEBHOOK_RETRY_SCHEDULE_MS: [0, 50, 100], WEBHOOK_TIMEOUT_MS: 2_000 });
  ctx.stopWebhooks = startWebhooks(ctx.api.services);
  const tenant = (await ctx.api.tenant()).slug;
  // The payee: a business organiser with a linked wallet (harness setup), and its test API key.
  ctx.payee = await ctx.api.user(tenant, { role: 'organiser', name: 'Studio' });
  const seller = await ctx.api.call('POST', '/api/me/become-seller', { token: ctx.payee.token, tenant, body: { companyName: 'Studio Graphique SAS', siret: '12345678200010' } });
  assert.is(seller.status, 200, seller.text);
  ctx.client = createClient({ baseUrl: ctx.api.url, apiKey: (await ctx.api.apiKey(ctx.payee, { mode: 'test' })).secret });
  ctx.receiver = await startReceiver();
  ctx.secret = (await ctx.client.webhooks.create({ url: `${ctx.receiver.url}/payments`, enabledEvents: ['request.*', 'transfer.*'] })).secret!;
  const asset = stablecoinOf(ctx.api.services);
  ctx.payer = await customer(ctx.client, 'Paula', { asset, fund: true });
  ctx.poor = await customer(ctx.client, 'Pete', { asset, fund: false });
};

test.after(async (ctx) => {
  await ctx.stopWebhooks();
  await ctx.receiver.close();
  await ctx.api.stop();
});

test('a payment request paid in full: built for the payer’s account, signed in their wallet, recorded: paid; 121.19 moved to the stroop; request.paid delivered and verified', async (ctx) => {
  const { client, payer } = ctx;
  // 2 × 45.00 at 20 % and 1 × 12.50 at 5.5 %: 102.50 net + 18.00 + 0.69 = 121.19.
  const request = await client.requests.create({
    lineItems: [
      { description: 'Logo design (hours)', quantity: 2, unitAmount: '45.00', vatCategory: 'S', vatRate: '20' },
      { description: 'Printed brand book', quantity: 1, unitAmount: '12.50', vatCategory: 'S', vatRate: '5.5' },
    ],
    currency: 'EUR',
    dueAt: new Date(Date.now() + 3600_000).toISOString(),
    customer: { name: 'Boulangerie Martin SARL', email: 'compta@martin.example', country: 'FR' },
  });
  assert.match(request.id, /^req_[0-9a-f]{32}$/);
  assert.equal([request.status, request.amountDue, request.amountRemaining], ['open', '121.19', '121.19']);
  const payeeWallet = ctx.payee.wallet!.keypair.publicKey();
  assert.is(request.payment.destination, payeeWallet);
  const before = { payer: await available(client, payer.id), payee: await onHorizon(payer.wallet, payeeWallet) };

  const built = await client.requests.buildPayment(request.id, { payer: payer.id });
  assert.is(built.amount, '121.19');
  const recorded = await client.requests.recordPayment(request.id, { signedXdr: payer.wallet.signXdr(built.xdr) });
  assert.is(recorded.recorded, true);
  assert.equal([recorded.request?.status, recorded.request?.amountPaid, recorded.request?.amountRemaining], ['paid', '121.19', '0.00']);
  assert.is((await client.requests.retrieve(request.id)).status, 'paid');

  assert.is(before.payer - (await available(client, payer.id)), stroops('121.19'), 'the payer paid 121.19, to the stroop');
  assert.is((await onHorizon(payer.wallet, payeeWallet)) - before.payee, stroops('121.19'), 'the payee received all of it');

  const events = await awaitEventsAbout(ctx.receiver, '/payments', ctx.secret, request.id, ['request.created', 'request.paid']);
  assert.ok(events.every((e) => /^evt_/.test(e.id)));
});

test('a transfer the ledger refuses: the sender has no money, the signed transfer is failed with op_underfunded; nothing moved; transfer.failed delivered and verified', async (ctx) => {
  const { client, poor, payer } = ctx;
  const before = { poor: await available(client, poor.id), payer: await available(client, payer.id) };
  assert.is(before.poor, 0n, 'a wallet without the stablecoin');
  const built = await client.transfers.create({ from: poor.id, to: payer.id, amount: '5.00' });
  assert.is(built.status, 'requires_signature');
  const failed = await client.transfers.submit(built.id, { signedXdr: poor.wallet.signXdr(built.unsignedXdr!) });
  assert.equal([failed.status, failed.failureCode, failed.settledAt], ['failed', 'op_underfunded', null]);
  assert.is((await client.transfers.retrieve(built.id)).failureCode, 'op_underfunded');
  assert.equal([await available(client, poor.id), await available(client, payer.id)], [before.poor, before.payer], 'nothing moved');
  await awaitEventsAbout(ctx.receiver, '/payments', ctx.secret, built.id, ['transfer.created', 'transfer.failed']);
});

test.run();
