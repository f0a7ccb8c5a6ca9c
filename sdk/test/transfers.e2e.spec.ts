import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type TestApi, type TestUser } from '@cagnotte/scripts/e2e/harness';
import { createClient, type CagnotteClient, type SandboxWallet } from '../src';

/**
 * Accounts and transfers through the SDK with a test API key: two end customers' accounts, each wallet made on the
 * sandbox (client.sandbox.createWallet) and linked the non-custodial way (the holder signs the challenge's hash);
 * a transfer built by the service, signed in the sender's wallet, submitted: settled.
 */
interface Ctx {
  api: TestApi;
  organiser: TestUser;
  client: CagnotteClient;
}

const test = suite<Ctx>('sdk e2e: /v1/accounts and /v1/transfers through the client');

test.before(async (ctx) => {
  ctx.api = await startApi();
  const tenant = await ctx.api.tenant();
  ctx.organiser = await ctx.api.user(tenant.slug, { role: 'organiser', wallet: false });
  ctx.client = createClient({ baseUrl: ctx.api.url, apiKey: (await ctx.api.apiKey(ctx.organiser)).secret });
});

test.after(async (ctx) => ctx.api.stop());

const customer = async (ctx: Ctx): Promise<{ id: string; wallet: SandboxWallet }> => {
  const account = await ctx.client.accounts.create({ email: `${Math.random().toString(36).slice(2, 10)}@customer.test`, type: 'individual' });
  // The wallet is the customer's: made with the organiser's session only to read the stablecoin, not linked to them.
  const wallet = await createClient({ baseUrl: ctx.api.url, sessionToken: ctx.organiser.token, tenant: ctx.organiser.tenant }).sandbox.createWallet();
  const challenge = await ctx.client.accounts.walletChallenge(account.id, { publicKey: wallet.publicKey });
  await ctx.client.accounts.linkWallet(account.id, { publicKey: wallet.publicKey, signature: wallet.signHash(challenge.hash) });
  return { id: account.id, wallet };
};

test('given two linked accounts, when a transfer is built, signed in the sender wallet and submitted, then it is settled and listed', async (ctx) => {
  const [alice, bob] = [await customer(ctx), await customer(ctx)];
  const built = await ctx.client.transfers.create({ from: alice.id, to: bob.id, amount: '12.50', memo: 'rent' });
  assert.match(built.id, /^tr_[0-9a-f]{32}$/);
  assert.is(built.status, 'requires_signature');
  const settled = await ctx.client.transfers.submit(built.id, { signedXdr: alice.wallet.signXdr(built.unsignedXdr!) });
  assert.equal([settled.status, settled.failureCode], ['settled', null]);
  assert.is((await ctx.client.transfers.retrieve(built.id)).status, 'settled');
  const listed = await ctx.client.transfers.list({ limit: 1 }).toArray({ max: 5 });
  assert.is(listed[0]?.id, built.id);
  const account = await ctx.client.accounts.retrieve(alice.id);
  assert.is(account.id, alice.id);
});

test.run();
