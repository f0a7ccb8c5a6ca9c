import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient, type CagnotteClient } from '@cagnotte/sdk';
import { startWebhooks } from '@cagnotte/command-api';
import { startApi, type TestApi } from './harness';
import { startReceiver, type Receiver } from './webhook-receiver';
import { available, awaitEvents, customer, existsOnHorizon, onHorizon, refusal, stablecoinOf, stroops, verifiedOn, type Customer } from './sdk-e2e-kit';

/**
 * Deals through the SDK only, on the sandbox network, as a marketplace's back end drives them with its test API key:
 * its end customers' accounts made with client.accounts.create, each with a wallet of its own (client.sandbox.createWallet)
 * linked by signing the challenge; a deal funded (the buyer signs the deposit with the wallet's key), delivered,
 * accepted and released in a three-way split that the seller cosigns, every party's balance checked to the stroop
 * through /v1/accounts and on the sandbox Horizon; a refunded deal; and each deal's events delivered to a real
 * receiver and verified with verifyWebhook. The harness only makes the tenant, the marketplace's user and its key.
 */
interface Ctx {
  api: TestApi;
  client: CagnotteClient;
  stopWebhooks: () => Promise<void>;
  receiver: Receiver;
  secret: string;
  buyer: Customer;
  seller: Customer;
  broker: Customer;
  third: Customer;
}

const test = suite<Ctx>('v1 deals through the SDK, on the sandbox network');

// uvu reports a failing hook without its error: the setup logs it.
test.before(async (ctx) => setup(ctx).catch((error: unknown) => (console.error('setup failed:', error), Promise.reject(error))));

const setup = async (ctx: Ctx) => {
  ctx.api = await startApi({ WEBHOOK_RETRY_SCHEDULE_MS: [0, 50, 100], WEBHOOK_TIMEOUT_MS: 2_000 });
  ctx.stopWebhooks = startWebhooks(ctx.api.services);
  const tenant = (await ctx.api.tenant()).slug;
  const market = await ctx.api.user(tenant, { role: 'organiser', name: 'Market' });
  ctx.client = createClient({ baseUrl: ctx.api.url, apiKey: (await ctx.api.apiKey(market, { mode: 'test' })).secret });
  ctx.receiver = await startReceiver();
  // per_subject: the deal's events one at a time, in order (the spec checks their order; `none` may deliver in parallel).
  const endpoint = await ctx.client.webhooks.create({ url: `${ctx.receiver.url}/deals`, enabledEvents: ['deal.*'], ordering: 'per_subject' });
  ctx.secret = endpoint.secret!;
  assert.match(ctx.secret, /^whsec_/);
  const asset = stablecoinOf(ctx.api.services);
  ctx.buyer = await customer(ctx.client, 'Bea', { asset, fund: true });
  ctx.seller = await customer(ctx.client, 'Sam', { asset });
  ctx.broker = await customer(ctx.client, 'Kim', { asset });
  ctx.third = await customer(ctx.client, 'Tom', { asset });
};

test.after(async (ctx) => {
  await ctx.stopWebhooks();
  await ctx.receiver.close();
  await ctx.api.stop();
});

/** Creates a deal and funds it: the buyer signs the deposit XDR in their wallet, the service submits and verifies it. */
const fundedDeal = async (ctx: Ctx, body: Omit<Parameters<CagnotteClient['deals']['create']>[0], 'buyer' | 'seller'>) => {
  const created = await ctx.client.deals.create({ buyer: ctx.buyer.id, seller: ctx.seller.id, currency: 'EUR', ...body });
  assert.is(created.status, 'created');
  const deposit = await ctx.client.deals.fund(created.id);
  assert.is(deposit.amount, created.amount);
  const funded = await ctx.client.deals.fundSubmit(created.id, { signedXdr: ctx.buyer.wallet.signXdr(deposit.xdr) });
  assert.is(funded.status, 'funded');
  return funded;
};

test('a three-way split (8,000 / 1,500 / 500 bps): funded, delivered, accepted, released with the seller’s cosignature; every party paid to the stroop; the events delivered and verified', async (ctx) => {
  const { buyer, seller, broker, third, client } = ctx;
  const w = buyer.wallet;
  assert.is(await available(client, buyer.id), stroops('1000'), 'friendbot’s stablecoin, read through /v1/accounts');
  const before = {
    buyer: await available(client, buyer.id),
    seller: await available(client, seller.id),
    broker: await available(client, broker.id),
    third: await available(client, third.id),
  };

  const deal = await fundedDeal(ctx, {
    broker: broker.id,
    items: [
      { description: 'Tractor', quantity: 1, unitAmount: '90.0000001' },
      { description: 'Trailer', quantity: 2, unitAmount: '5' },
    ],
    split: [
      { account: seller.id, bps: 8000 },
      { account: broker.id, bps: 1500 },
      { account: third.id, bps: 500 },
    ],
    releaseRule: 'on_acceptance',
    inspectionDays: 3,
    metadata: { order: 'A-42' },
  });
  assert.match(deal.id, /^deal_[0-9a-f]{32}$/);
  assert.equal([deal.amount, deal.livemode], ['100.0000001', false]);
  assert.equal(deal.split.map((l) => [l.role, l.amount]), [['seller', '80.0000001'], ['broker', '15.00'], ['payee', '5.00']]);
  assert.is(deal.escrow?.cosigner, seller.wallet.publicKey, 'the seller’s wallet cosigns the escrow');
  const escrow = deal.escrow!.account;
  assert.is(before.buyer - (await available(client, buyer.id)), 1_000_000_001n, 'the deposit left the buyer');
  assert.is(await onHorizon(w, escrow), 0n, 'the deposit waits as a claimable balance, not yet on the escrow');

  const early = await refusal(client.deals.release(deal.id, {}));
  assert.equal([early.status, early.code], [400, 'release_not_due']);
  const delivered = await client.deals.deliver(deal.id, { note: 'Handed over in Lyon' });
  assert.is(delivered.status, 'delivered');
  assert.ok(delivered.inspectionEndsAt);
  assert.is((await client.deals.accept(deal.id, {})).status, 'accepted');

  // The release the seller cosigns: without their signature the ledger refuses it.
  const settlement = await client.deals.release(deal.id, {});
  assert.equal(settlement.toSign, [settlement.lock.hash, settlement.release.hash]);
  const unsigned = await refusal(client.deals.releaseSubmit(deal.id, { settlementId: settlement.id, signedXdrs: [settlement.lock.xdr] }));
  assert.equal([unsigned.status, unsigned.code], [400, 'ledger_rejected']);
  const released = await client.deals.releaseSubmit(deal.id, { settlementId: settlement.id, signedXdrs: [seller.wallet.signXdr(settlement.lock.xdr), seller.wallet.signXdr(settlement.release.xdr)] });
  assert.is(released.status, 'released');
  assert.ok(released.statusTransitions.released);

  // To the stroop, through /v1/accounts and on the sandbox Horizon.
  const paid = {
    seller: (await available(client, seller.id)) - before.seller,
    broker: (await available(client, broker.id)) - before.broker,
    third: (await available(client, third.id)) - before.third,
    buyer: before.buyer - (await available(client, buyer.id)),
  };
  assert.equal(paid, { seller: 800_000_001n, broker: 150_000_000n, third: 50_000_000n, buyer: 1_000_000_001n }, 'the seller takes 80% and the stroop left over');
  assert.is(await onHorizon(w, seller.wallet.publicKey), before.seller + 800_000_001n);
  assert.is(await onHorizon(w, broker.wallet.publicKey), before.broker + 150_000_000n);
  assert.is(await onHorizon(w, third.wallet.publicKey), before.third + 50_000_000n);
  assert.is(await onHorizon(w, buyer.wallet.publicKey), before.buyer - 1_000_000_001n);
  assert.is(await existsOnHorizon(w, escrow), false, 'the escrow account was merged back');

  const read = await client.deals.retrieve(deal.id);
  assert.equal(read.payouts?.map((p) => [p.role, p.amount]), [['seller', '80.0000001'], ['broker', '15.00'], ['payee', '5.00']]);
  const rec = await client.deals.reconciliation(deal.id);
  assert.is(rec.ok, true, JSON.stringify(rec.problems));
  assert.is(rec.events.released, '100.0000001');

  // The events, delivered to the receiver and verified with the endpoint's secret.
  const types = await awaitEvents(ctx.receiver, '/deals', ctx.secret, 'deal', deal.id, ['deal.created', 'deal.funded', 'deal.delivered', 'deal.accepted', 'deal.released']);
  assert.equal([...new Set(types)], ['deal.created', 'deal.funded', 'deal.delivered', 'deal.accepted', 'deal.released'], 'in the order they happened');
  const releasedEvent = verifiedOn(ctx.receiver, '/deals', ctx.secret).find((e) => e.type === 'deal.released' && e.data.deal === deal.id)!;
  assert.match(releasedEvent.id, /^evt_/);
  // The same deliveries verify with the tenant's public key (the v1a ed25519 signatures), and not with another secret.
  const { publicKey } = await client.webhooks.signingKey();
  assert.match(publicKey, /^whpk_/);
  assert.equal(verifiedOn(ctx.receiver, '/deals', publicKey).map((e) => e.id), verifiedOn(ctx.receiver, '/deals', ctx.secret).map((e) => e.id));
  assert.throws(() => verifiedOn(ctx.receiver, '/deals', `whsec_${Buffer.from('not the secret').toString('base64')}`), /no signature matches/);
});

test('a refunded deal: disputed, the seller cosigns the refund, the buyer gets everything back to the stroop; the events delivered and verified', async (ctx) => {
  const { buyer, seller, client } = ctx;
  const before = await available(client, buyer.id);
  const sellerBefore = await available(client, seller.id);
  const deal = await fundedDeal(ctx, { items: [{ description: 'Bike', quantity: 1, unitAmount: '42.1234567' }] });
  assert.is(deal.split.length, 1, 'the default split: all to the seller');
  assert.is(before - (await available(client, buyer.id)), 421_234_567n);
  assert.is((await client.deals.dispute(deal.id, { reason: 'Frame cracked' })).status, 'disputed');
  assert.is((await refusal(client.deals.release(deal.id, {}))).code, 'release_not_due', 'a dispute holds the release');

  const settlement = await client.deals.refund(deal.id, {});
  const refunded = await client.deals.refundSubmit(deal.id, { settlementId: settlement.id, signedXdrs: [seller.wallet.signXdr(settlement.lock.xdr), seller.wallet.signXdr(settlement.release.xdr)] });
  assert.is(refunded.status, 'refunded');
  assert.is(await available(client, buyer.id), before, 'the buyer got everything back');
  assert.is(await onHorizon(buyer.wallet, buyer.wallet.publicKey), before);
  assert.is(await available(client, seller.id), sellerBefore, 'the seller got nothing');

  const types = await awaitEvents(ctx.receiver, '/deals', ctx.secret, 'deal', deal.id, ['deal.created', 'deal.funded', 'deal.disputed', 'deal.refunded']);
  assert.not.ok(types.includes('deal.released'));
});

test.run();
