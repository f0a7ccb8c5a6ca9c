import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createClient, stellar, type CagnotteClient } from '@cagnotte/sdk';
import { startWebhooks } from '@cagnotte/command-api';
import { startApi, type TestApi, type TestUser } from './harness';
import { startReceiver, type Receiver } from './webhook-receiver';
import { available, awaitEvents, customer, onHorizon, refusal, stablecoinOf, stroops, verifiedOn, type Customer } from './sdk-e2e-kit';

/**
 * A whole group-buy through the SDK only, on the sandbox network: the organiser's back end (its test API key) creates
 * it with a price tier and publishes it; two end customers' accounts (client.accounts.create, wallets of their own
 * linked by signing the challenge) order and pay by signing the deposit XDR; the tier is reached; close; the
 * organiser cosigns the settlement. Balances to the stroop (the difference back to the first buyer, the platform's fee,
 * the organiser's share), the group_buy.* events delivered to a real receiver and verified with verifyWebhook. Then
 * the keys, through the SDK: the other mode, a revoked key, a read-only key, another tenant.
 */
interface Ctx {
  api: TestApi;
  olga: TestUser;
  client: CagnotteClient;
  stopWebhooks: () => Promise<void>;
  receiver: Receiver;
  secret: string;
  ann: Customer;
  ben: Customer;
  groupBuy: string;
}

const test = suite<Ctx>('v1 group-buys through the SDK, on the sandbox network; the keys');

// uvu reports a failing hook without its error: the setup logs it.
test.before(async (ctx) => setup(ctx).catch((error: unknown) => (console.error('setup failed:', error), Promise.reject(error))));

const setup = async (ctx: Ctx) => {
  ctx.api = await startApi({ PLATFORM_FEE_PERCENT: '2.5', WEBHOOK_RETRY_SCHEDULE_MS: [0, 50, 100], WEBHOOK_TIMEOUT_MS: 2_000 });
  ctx.stopWebhooks = startWebhooks(ctx.api.services);
  const tenant = (await ctx.api.tenant()).slug;
  // The organiser (with its own ledger wallet, which cosigns the settlement) and its test API key.
  ctx.olga = await ctx.api.user(tenant, { role: 'organiser', name: 'Org Olga' });
  ctx.client = createClient({ baseUrl: ctx.api.url, apiKey: (await ctx.api.apiKey(ctx.olga, { mode: 'test' })).secret });
  ctx.receiver = await startReceiver();
  const endpoint = await ctx.client.webhooks.create({ url: `${ctx.receiver.url}/group-buys`, enabledEvents: ['group_buy.*'] });
  ctx.secret = endpoint.secret!;
  const asset = stablecoinOf(ctx.api.services);
  ctx.ann = await customer(ctx.client, 'Ann', { asset, fund: true });
  ctx.ben = await customer(ctx.client, 'Ben', { asset, fund: true });
};

test.after(async (ctx) => {
  await ctx.stopWebhooks();
  await ctx.receiver.close();
  await ctx.api.stop();
});

const cheese = () => ({
  title: 'Fromages du Jura',
  description: 'Comté 18 mois',
  items: [{ description: 'Comté 1 kg', unitAmount: '18.50', quantity: 20, maxPerBuyer: 5, tiers: [{ minUnits: 4, unitAmount: '16.00' }] }],
  closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
  releaseAfter: 'close' as const,
});

test('created with a tier, published, two buyers order and pay with their own wallets, the tier is reached, closed, settled: every balance to the stroop; the events delivered and verified', async (ctx) => {
  const { client, ann, ben } = ctx;
  const created = await client.groupBuys.create(cheese());
  assert.match(created.id, /^gb_[0-9a-f]{32}$/);
  assert.equal([created.status, created.livemode], ['draft', false]);
  const gb = await client.groupBuys.publish(created.id);
  assert.is(gb.status, 'open');
  assert.match(gb.escrow?.account ?? '', /^G[A-Z2-7]{55}$/);

  const pay = async (buyer: Customer, quantity: number) => {
    const order = await client.groupBuys.orders.create(gb.id, { buyer: buyer.id, items: [{ itemId: 'item_1', quantity }] });
    assert.match(order.id, /^ord_[0-9a-f]{32}$/);
    assert.equal([order.status, order.buyer], ['pending', buyer.id]);
    const payment = await client.groupBuys.orders.payment(gb.id, order.id, { acceptTerms: true });
    assert.is(payment.deposit.amount, order.amount);
    const before = await available(client, buyer.id);
    const submitted = await client.groupBuys.orders.submit(gb.id, order.id, { signedXdr: buyer.wallet.signXdr(payment.deposit.xdr) });
    assert.equal([submitted.paid, submitted.order?.status], [true, 'paid']);
    assert.is(before - (await available(client, buyer.id)), stroops(order.amount), 'the deposit left the buyer’s wallet');
    return submitted.order!;
  };
  const annOrder = await pay(ann, 2);
  assert.equal(annOrder.items, [{ itemId: 'item_1', quantity: 2, unitAmount: '18.50' }], 'below the tier: 2 × 18.50');
  const benOrder = await pay(ben, 2);
  assert.equal(benOrder.items, [{ itemId: 'item_1', quantity: 2, unitAmount: '16.00' }], 'the 4th unit reaches the tier');

  const open = await client.groupBuys.retrieve(gb.id);
  assert.is(open.unitsReserved, 4);
  assert.equal(open.currentTier, { itemId: 'item_1', minUnits: 4, unitAmount: '16.00' });
  const orders = await client.groupBuys.orders.list(gb.id).toArray();
  assert.equal(orders.map((o) => [o.id, o.status]), [[benOrder.id, 'paid'], [annOrder.id, 'paid']]);

  const w = ann.wallet;
  const platform = ctx.api.services.ledger.settings.platformAccount;
  const organiser = ctx.olga.wallet!.keypair.publicKey();
  const before = { ann: await available(client, ann.id), ben: await available(client, ben.id), organiser: await onHorizon(w, organiser), platform: await onHorizon(w, platform) };
  const closed = await client.groupBuys.close(gb.id);
  assert.equal([closed.status, closed.closing?.outcome, closed.closing?.paidUnits], ['locked', 'succeeded', 4]);

  // The organiser cosigns each round's lock and release with their own ledger key.
  const plan = await client.groupBuys.settlement(gb.id);
  const secret = ctx.olga.wallet!.keypair.secret();
  const signedXdrs = plan.rounds.flatMap((r) => [stellar.signXdr(r.lock.xdr, secret, w.networkPassphrase), stellar.signXdr(r.release.xdr, secret, w.networkPassphrase)]);
  await client.groupBuys.settlementSubmit(gb.id, { settlementId: plan.settlementId, signedXdrs });

  // Ann paid 37.00 for what costs 32.00 at the tier: 5.00 back. Due 64.00: 2.5 % to the platform (1.60), 62.40 to the organiser.
  assert.is((await available(client, ann.id)) - before.ann, stroops('5.00'));
  assert.is((await available(client, ben.id)) - before.ben, 0n);
  assert.is(await onHorizon(w, ann.wallet.publicKey), before.ann + stroops('5.00'), 'the same on the sandbox Horizon');
  assert.is((await onHorizon(w, platform)) - before.platform, stroops('1.60'));
  assert.is((await onHorizon(w, organiser)) - before.organiser, stroops('62.40'));

  const settled = await client.groupBuys.retrieve(gb.id);
  assert.is(settled.status, 'settled');
  const after = await client.groupBuys.orders.list(gb.id).toArray();
  assert.equal(after.find((o) => o.id === annOrder.id)?.settlements.map((s) => s.refunded), ['5.00']);

  const types = await awaitEvents(ctx.receiver, '/group-buys', ctx.secret, 'groupBuy', gb.id, ['group_buy.created', 'group_buy.published', 'group_buy.order_placed', 'group_buy.order_paid', 'group_buy.closed', 'group_buy.settled']);
  assert.ok(types.includes('group_buy.settled'));
  const paidEvents = () => new Set(verifiedOn(ctx.receiver, '/group-buys', ctx.secret).filter((e) => e.type === 'group_buy.order_paid' && e.data.groupBuy === gb.id).map((e) => e.id));
  await ctx.receiver.until(() => paidEvents().size === 2, 'both orders’ group_buy.order_paid');
  ctx.groupBuy = gb.id;
});

test('keys through the SDK: a live key finds no test object, a test key no live one (404 group_buy_not_found); a revoked key is a 401 at once; a read-only key cannot write (403 insufficient_scope); another tenant’s key finds nothing', async (ctx) => {
  const asClient = (apiKey: string) => createClient({ baseUrl: ctx.api.url, apiKey, maxRetries: 0 });
  const live = asClient((await ctx.api.apiKey(ctx.olga, { mode: 'live' })).secret);
  const hidden = await refusal(live.groupBuys.retrieve(ctx.groupBuy));
  assert.equal([hidden.status, hidden.code], [404, 'group_buy_not_found']);
  const liveGb = await live.groupBuys.create(cheese());
  assert.is(liveGb.livemode, true);
  const fromTest = await refusal(ctx.client.groupBuys.retrieve(liveGb.id));
  assert.equal([fromTest.status, fromTest.code], [404, 'group_buy_not_found'], 'a test key cannot read a live object');

  // A key made through the SDK (keys are managed with the owner's session, not with a key), used, revoked: the next call is refused at once.
  const owner = createClient({ baseUrl: ctx.api.url, sessionToken: ctx.olga.token, tenant: ctx.olga.tenant });
  const made = await owner.apiKeys.create({ name: `short-lived-${randomUUID().slice(0, 6)}`, mode: 'test' });
  const shortLived = asClient(made.secret!);
  assert.is((await shortLived.groupBuys.retrieve(ctx.groupBuy)).id, ctx.groupBuy);
  const revoked = await owner.apiKeys.del(made.id);
  assert.ok(revoked.revokedAt, JSON.stringify(revoked));
  const refused = await refusal(shortLived.groupBuys.retrieve(ctx.groupBuy));
  assert.is(refused.status, 401, `${refused.code}: ${refused.message}`);

  const reader = asClient((await owner.apiKeys.create({ name: 'reader', mode: 'test', scopes: ['group_buys:read'] })).secret!);
  assert.is((await reader.groupBuys.retrieve(ctx.groupBuy)).id, ctx.groupBuy, 'group_buys:read reads');
  const forbidden = await refusal(reader.groupBuys.create(cheese()));
  assert.equal([forbidden.status, forbidden.code], [403, 'insufficient_scope']);

  const other = (await ctx.api.tenant()).slug;
  const carla = await ctx.api.user(other, { role: 'organiser', wallet: false, name: 'Carla' });
  const outsider = asClient((await ctx.api.apiKey(carla)).secret);
  const foreign = await refusal(outsider.groupBuys.retrieve(ctx.groupBuy));
  assert.equal([foreign.status, foreign.code], [404, 'group_buy_not_found'], 'another tenant’s object is a 404');
  const foreignAccount = await refusal(outsider.accounts.retrieve(ctx.ann.id));
  assert.equal([foreignAccount.status, foreignAccount.code], [404, 'account_not_found']);
  assert.not.ok((await outsider.groupBuys.list().toArray()).some((g) => g.id === ctx.groupBuy));
});

test.run();
