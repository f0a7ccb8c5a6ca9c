import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * /v1/group-buys as a partner's back end drives it with an API key, on a sandbox network of this spec's own: one
 * engine with /api/pools (a group-buy made on either side reads back on the other), two buyers ordering and paying
 * with their own wallets, the tier reached, close, settlement at the reached tier with the difference refunded (to
 * the stroop on the ledger), another tenant's key and a key of the other mode finding nothing, and the group_buy.*
 * events in the feed.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  olga: TestUser;
  key: string;
}

type Envelope = { success: boolean; data: any; code?: string; param?: string; errors?: Record<string, string[]> };
const test = suite<Ctx>('/v1 group-buys');

const withKey =
  (ctx: Ctx, secret: string) =>
  (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse<Envelope>> =>
    ctx.api.call<Envelope>(method, path, { headers: { authorization: `Bearer ${secret}`, ...headers }, ...(body !== undefined ? { body } : {}) });
const asUser = (ctx: Ctx, user: TestUser) => (method: string, path: string, body?: unknown) =>
  ctx.api.call<Envelope>(method, path, { token: user.token, tenant: user.tenant, headers: method === 'POST' ? { 'Idempotency-Key': randomUUID() } : {}, ...(body !== undefined ? { body } : {}) });

const hexOf = (uuid: string) => uuid.replace(/-/g, '');
const uuidOf = (id: string) => id.replace(/^[a-z]+_/, '').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
const acct = (u: TestUser) => `acct_${hexOf(u.id)}`;

const cheese = (o: { releaseAfter?: 'close' | 'receipt' } = {}) => ({
  title: 'Fromages du Jura',
  description: 'Comté 18 mois',
  items: [{ description: 'Comté 1 kg', unitAmount: '18.50', quantity: 20, maxPerBuyer: 5, tiers: [{ minUnits: 4, unitAmount: '16.00' }] }],
  closesAt: new Date(Date.now() + 7 * 86_400_000).toISOString(),
  releaseAfter: o.releaseAfter ?? 'close',
});

const eurc = async (ctx: Ctx, account: string): Promise<bigint> => {
  const a = await ctx.api.services.ledger.loadAccount(account);
  const line = a?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  const s = line?.balance ?? '0.0000000';
  return BigInt(s.replace('.', '').padEnd(s.indexOf('.') + 8, '0'));
};
const stroops = (s: string) => BigInt(s.replace('.', '').padEnd(s.indexOf('.') + 8, '0'));

test.before(async (ctx) => {
  ctx.api = await startApi({ STELLAR_NETWORK_PASSPHRASE: `Cagnotte v1 group-buys e2e ${randomUUID()}`, PLATFORM_FEE_PERCENT: '2.5' });
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.olga = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Olga' });
  ctx.key = (await ctx.api.apiKey(ctx.olga)).secret;
});
test.after(async (ctx) => ctx.api.stop());

test('created with tiers through /v1, it reads back through /api/pools/{uuid}; a pool made on /api reads back as /v1/group-buys/gb_…, both listed newest first', async (ctx) => {
  const v1 = withKey(ctx, ctx.key);
  // A retry with the same Idempotency-Key answers the same group-buy, and creates nothing more.
  const key = `gb-create-${randomUUID()}`;
  const body = cheese();
  const first = await v1('POST', '/v1/group-buys', body, { 'Idempotency-Key': key });
  const again = await v1('POST', '/v1/group-buys', body, { 'Idempotency-Key': key });
  assert.equal([again.status, again.headers.get('idempotent-replayed'), again.body.data.id], [201, 'true', first.body.data.id]);
  const reused = await v1('POST', '/v1/group-buys', { ...body, title: 'Autre' }, { 'Idempotency-Key': key });
  assert.equal([reused.status, reused.body.code], [409, 'idempotency_key_reused']);
  const missingKey = await ctx.api.call<Envelope>('POST', '/v1/group-buys', { headers: { authorization: `Bearer ${ctx.key}` }, body: cheese(), idempotencyKey: false });
  assert.equal([missingKey.status, missingKey.body.code], [400, 'idempotency_key_required']);
  const readOnly = await withKey(ctx, (await ctx.api.apiKey(ctx.olga, { scopes: ['group_buys:read'] })).secret)('POST', '/v1/group-buys', cheese());
  assert.equal([readOnly.status, readOnly.body.code], [403, 'insufficient_scope']);

  const created = await v1('POST', '/v1/group-buys', cheese());
  assert.is(created.status, 201, created.text);
  const gb = created.body.data;
  assert.match(gb.id, /^gb_[0-9a-f]{32}$/);
  assert.equal([gb.object, gb.livemode, gb.status, gb.organiser, gb.releaseAfter], ['group_buy', false, 'draft', acct(ctx.olga), 'close']);
  assert.equal(gb.items, [
    { id: 'item_1', description: 'Comté 1 kg', unitAmount: '18.50', quantity: 20, maxPerBuyer: 5, minPerBuyer: null, tiers: [{ minUnits: 4, unitAmount: '16.00' }], unitsReserved: 0, currentTier: null },
  ]);

  const onApi = await asUser(ctx, ctx.olga)('GET', `/api/pools/${uuidOf(gb.id)}`);
  assert.is(onApi.status, 200, onApi.text);
  assert.equal([onApi.body.data.type, onApi.body.data.status, onApi.body.data.title, onApi.body.data.deadline], ['GROUPS', 'DRAFT', 'Fromages du Jura', gb.closesAt]);
  assert.equal(onApi.body.data.config.units, [{ id: 'item_1', label: 'Comté 1 kg', price: '18.50', quantity: 20, maxPerBuyer: 5, tiers: [{ minQuantity: 4, price: '16.00' }] }]);
  assert.equal(onApi.body.data.config.release, { after: 'CLOSE' });

  const made = await asUser(ctx, ctx.olga)('POST', '/api/pools', {
    type: 'GROUPS',
    title: 'Miel de sapin',
    config: { units: [{ id: 'pot', label: 'Pot 500 g', price: '9.00', tiers: [{ minQuantity: 10, price: '8.00' }] }] },
  });
  assert.is(made.status, 201, made.text);
  const back = await v1('GET', `/v1/group-buys/gb_${hexOf(made.body.data.id)}`);
  assert.is(back.status, 200, back.text);
  assert.equal([back.body.data.title, back.body.data.status, back.body.data.livemode, back.body.data.releaseAfter], ['Miel de sapin', 'draft', false, 'receipt']);
  assert.equal(back.body.data.items[0].tiers, [{ minUnits: 10, unitAmount: '8.00' }]);

  const list = await v1('GET', '/v1/group-buys?limit=1');
  assert.is(list.status, 200, list.text);
  assert.equal([list.body.data.object, list.body.data.url, list.body.data.hasMore], ['list', '/v1/group-buys', true]);
  assert.is(list.body.data.items[0].id, back.body.data.id, 'newest first');
  const next = await v1('GET', `/v1/group-buys?limit=1&startingAfter=${back.body.data.id}`);
  assert.is(next.body.data.items[0].id, gb.id);
  const previous = await v1('GET', `/v1/group-buys?limit=5&endingBefore=${gb.id}`);
  assert.equal(previous.body.data.items.map((i: { id: string }) => i.id), [back.body.data.id]);
  const unknown = await v1('GET', `/v1/group-buys?startingAfter=gb_${hexOf(randomUUID())}`);
  assert.equal([unknown.status, unknown.body.param], [400, 'startingAfter']);
});

test('two buyers order and pay with their own wallets, the tier is reached, close, settle: each pays the reached tier, the difference goes back, to the stroop', async (ctx) => {
  const v1 = withKey(ctx, ctx.key);
  const gb = (await v1('POST', '/v1/group-buys', cheese())).body.data;
  const published = await v1('POST', `/v1/group-buys/${gb.id}/publish`);
  assert.is(published.status, 200, published.text);
  assert.is(published.body.data.status, 'open');
  assert.match(published.body.data.escrow.account, /^G[A-Z2-7]{55}$/);

  const [ann, ben] = [await ctx.api.user(ctx.tenant, { wallet: true, name: 'Ann' }), await ctx.api.user(ctx.tenant, { wallet: true, name: 'Ben' })];
  const pay = async (buyer: TestUser, quantity: number, via: 'txHash' | 'signedXdr') => {
    const placed = await v1('POST', `/v1/group-buys/${gb.id}/orders`, { buyer: acct(buyer), items: [{ itemId: 'item_1', quantity }] });
    assert.is(placed.status, 201, placed.text);
    const order = placed.body.data;
    assert.match(order.id, /^ord_[0-9a-f]{32}$/);
    assert.equal([order.object, order.status, order.buyer, order.groupBuy], ['group_buy_order', 'pending', acct(buyer), gb.id]);
    const payment = await v1('POST', `/v1/group-buys/${gb.id}/orders/${order.id}/payment`, { acceptTerms: true });
    assert.is(payment.status, 200, payment.text);
    assert.is(payment.body.data.deposit.amount, order.amount);
    const signed = signXdr(buyer.wallet!, payment.body.data.deposit.xdr);
    if (via === 'txHash') await buyer.wallet!.horizon.submitTransaction(signed);
    const submitted = await v1('POST', `/v1/group-buys/${gb.id}/orders/${order.id}/submit`, via === 'txHash' ? { txHash: payment.body.data.deposit.hash } : { signedXdr: signed.toXDR() });
    assert.is(submitted.status, 200, submitted.text);
    assert.equal([submitted.body.data.object, submitted.body.data.paid, submitted.body.data.order.status], ['order_payment_result', true, 'paid']);
    return submitted.body.data.order;
  };
  const annOrder = await pay(ann, 2, 'signedXdr');
  assert.equal(annOrder.items, [{ itemId: 'item_1', quantity: 2, unitAmount: '18.50' }], 'below the tier: 2 × 18.50');
  const benOrder = await pay(ben, 2, 'txHash');
  assert.equal(benOrder.items, [{ itemId: 'item_1', quantity: 2, unitAmount: '16.00' }], 'the 4th unit reaches the tier');

  const open = (await v1('GET', `/v1/group-buys/${gb.id}`)).body.data;
  assert.is(open.unitsReserved, 4);
  assert.equal(open.currentTier, { itemId: 'item_1', minUnits: 4, unitAmount: '16.00' });
  const orders = await v1('GET', `/v1/group-buys/${gb.id}/orders`);
  assert.equal(orders.body.data.items.map((o: { id: string; status: string }) => [o.id, o.status]), [[benOrder.id, 'paid'], [annOrder.id, 'paid']]);

  const before = { ann: await eurc(ctx, ann.wallet!.keypair.publicKey()), ben: await eurc(ctx, ben.wallet!.keypair.publicKey()), seller: await eurc(ctx, ctx.olga.wallet!.keypair.publicKey()), platform: await eurc(ctx, ctx.api.services.ledger.settings.platformAccount) };
  const closed = await v1('POST', `/v1/group-buys/${gb.id}/close`);
  assert.is(closed.status, 200, closed.text);
  assert.equal([closed.body.data.status, closed.body.data.closing.outcome, closed.body.data.closing.paidUnits], ['locked', 'succeeded', 4]);

  // The organiser cosigns the settlement (their own ledger key): the lock and the release of each round.
  const plan = await v1('POST', `/v1/group-buys/${gb.id}/settlement`);
  assert.is(plan.status, 201, plan.text);
  const signedXdrs = plan.body.data.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [signXdr(ctx.olga.wallet!, r.lock.xdr).toXDR(), signXdr(ctx.olga.wallet!, r.release.xdr).toXDR()]);
  const done = await v1('POST', `/v1/group-buys/${gb.id}/settlement/submit`, { settlementId: plan.body.data.settlementId, signedXdrs });
  assert.is(done.status, 200, done.text);

  // Ann paid 37.00 for what costs 32.00 at the tier: 5.00 back. Due 64.00: 2.5 % to the platform (1.60), 62.40 to the seller.
  assert.is((await eurc(ctx, ann.wallet!.keypair.publicKey())) - before.ann, stroops('5.00'));
  assert.is((await eurc(ctx, ben.wallet!.keypair.publicKey())) - before.ben, 0n);
  assert.is((await eurc(ctx, ctx.api.services.ledger.settings.platformAccount)) - before.platform, stroops('1.60'));
  assert.is((await eurc(ctx, ctx.olga.wallet!.keypair.publicKey())) - before.seller, stroops('62.40'));

  const settled = (await v1('GET', `/v1/group-buys/${gb.id}`)).body.data;
  assert.is(settled.status, 'settled');
  assert.equal(settled.items[0].currentTier, { minUnits: 4, unitAmount: '16.00' });
  const after = (await v1('GET', `/v1/group-buys/${gb.id}/orders`)).body.data.items;
  assert.equal(after.find((o: { id: string }) => o.id === annOrder.id).settlements.map((s: { refunded: string }) => s.refunded), ['5.00']);
  assert.equal((await asUser(ctx, ctx.olga)('GET', `/api/pools/${uuidOf(gb.id)}`)).body.data.status, 'SETTLED', 'the same pool on /api');

  // The events in the feed: each group_buy.* names the group-buy and the orders by their /v1 ids.
  await ctx.api.runner.catchUp();
  const feed = await v1('GET', '/v1/events?limit=500');
  assert.is(feed.status, 200, feed.text);
  const mine = feed.body.data.items.filter((e: { data: { groupBuy?: string } }) => e.data.groupBuy === gb.id).map((e: { type: string }) => e.type);
  for (const t of ['group_buy.created', 'group_buy.published', 'group_buy.order_placed', 'group_buy.order_paid', 'group_buy.closed', 'group_buy.settled']) assert.ok(mine.includes(t), `${t} in ${mine.join(', ')}`);
  assert.is(mine.filter((t: string) => t === 'group_buy.order_paid').length, 2);
});

test('another tenant’s key, a key of the other mode, and another organiser find nothing: 404 group_buy_not_found, as a missing id', async (ctx) => {
  const gb = (await withKey(ctx, ctx.key)('POST', '/v1/group-buys', cheese())).body.data;
  const other = await ctx.api.tenant();
  const carla = await ctx.api.user(other.slug, { role: 'organiser', wallet: false, name: 'Carla' });
  const bob = await ctx.api.user(ctx.tenant, { role: 'organiser', wallet: false, name: 'Bob' });
  const live = (await ctx.api.apiKey(ctx.olga, { mode: 'live' })).secret;
  for (const secret of [(await ctx.api.apiKey(carla)).secret, live, (await ctx.api.apiKey(bob)).secret]) {
    const as = withKey(ctx, secret);
    for (const [method, path, body] of [
      ['GET', `/v1/group-buys/${gb.id}`],
      ['GET', `/v1/group-buys/${gb.id}/orders`],
      ['POST', `/v1/group-buys/${gb.id}/publish`],
      ['POST', `/v1/group-buys/${gb.id}/cancel`, {}],
      ['POST', `/v1/group-buys/${gb.id}/orders`, { buyer: acct(ctx.olga), items: [{ itemId: 'item_1', quantity: 1 }] }],
    ] as Array<[string, string, unknown?]>) {
      const res = await as(method, path, body);
      assert.equal([res.status, res.body.code], [404, 'group_buy_not_found'], `${method} ${path}: ${res.text}`);
    }
    assert.not.ok((await as('GET', '/v1/group-buys')).body.data.items.some((i: { id: string }) => i.id === gb.id));
  }
  const missing = await withKey(ctx, ctx.key)('GET', `/v1/group-buys/gb_${hexOf(randomUUID())}`);
  assert.equal([missing.status, missing.body.code], [404, 'group_buy_not_found']);
  // A live group-buy is the live key's only.
  const liveGb = await withKey(ctx, live)('POST', '/v1/group-buys', cheese());
  assert.equal([liveGb.status, liveGb.body.data.livemode], [201, true]);
  assert.is((await withKey(ctx, ctx.key)('GET', `/v1/group-buys/${liveGb.body.data.id}`)).status, 404);
  assert.is((await withKey(ctx, live)('GET', `/v1/group-buys/${liveGb.body.data.id}`)).status, 200);
  // A buyer of the other mode (a sandbox signup: a test account) is no buyer for a live group-buy.
  const testBuyer = await withKey(ctx, live)('POST', `/v1/group-buys/${liveGb.body.data.id}/orders`, { buyer: acct(bob), items: [{ itemId: 'item_1', quantity: 1 }] });
  assert.equal([testBuyer.status, testBuyer.body.param], [400, 'buyer'], testBuyer.text);
  // Its events are live: in the live key's feed, never in the test key's.
  await ctx.api.runner.catchUp();
  const typesIn = async (secret: string) =>
    ((await withKey(ctx, secret)('GET', '/v1/events?limit=500')).body.data.items as Array<{ type: string; data: { groupBuy?: string; poolId?: string } }>)
      .filter((e) => e.data.poolId === uuidOf(liveGb.body.data.id))
      .map((e) => e.type);
  assert.equal(await typesIn(live), ['pool.created', 'group_buy.created']);
  assert.equal(await typesIn(ctx.key), []);
  // A FUNDING pool is no group-buy.
  const pot = await asUser(ctx, ctx.olga)('POST', '/api/pools', { type: 'FUNDING', title: 'Cagnotte', targetAmount: '100.00' });
  assert.is(pot.status, 201, pot.text);
  assert.is((await withKey(ctx, ctx.key)('GET', `/v1/group-buys/gb_${hexOf(pot.body.data.id)}`)).status, 404);
  assert.is((await withKey(ctx, ctx.key)('POST', `/v1/group-buys/gb_${hexOf(pot.body.data.id)}/cancel`, {})).status, 404);
});

test('orders: a buyer that is no account of the tenant is a 400 on buyer; more than the stock is a 409; the organiser does not order in their own group-buy', async (ctx) => {
  const v1 = withKey(ctx, ctx.key);
  const gb = (await v1('POST', '/v1/group-buys', { ...cheese(), items: [{ description: 'Comté', unitAmount: '18.50', quantity: 3 }] })).body.data;
  const draft = await v1('POST', `/v1/group-buys/${gb.id}/orders`, { buyer: acct(ctx.olga), items: [{ itemId: 'item_1', quantity: 1 }] });
  assert.equal([draft.status, draft.body.code], [400, 'pool_not_open'], draft.text);
  await v1('POST', `/v1/group-buys/${gb.id}/publish`);
  const stranger = await v1('POST', `/v1/group-buys/${gb.id}/orders`, { buyer: `acct_${hexOf(randomUUID())}`, items: [{ itemId: 'item_1', quantity: 1 }] });
  assert.equal([stranger.status, stranger.body.param], [400, 'buyer'], stranger.text);
  const other = await ctx.api.tenant();
  const foreign = await ctx.api.user(other.slug, { name: 'Faraway' });
  assert.equal((await v1('POST', `/v1/group-buys/${gb.id}/orders`, { buyer: acct(foreign), items: [{ itemId: 'item_1', quantity: 1 }] })).body.param, 'buyer');
  const own = await v1('POST', `/v1/group-buys/${gb.id}/orders`, { buyer: acct(ctx.olga), items: [{ itemId: 'item_1', quantity: 1 }] });
  assert.equal([own.status, own.body.code], [403, 'organiser_cannot_reserve']);
  const dan = await ctx.api.user(ctx.tenant, { name: 'Dan' });
  const short = await v1('POST', `/v1/group-buys/${gb.id}/orders`, { buyer: acct(dan), items: [{ itemId: 'item_1', quantity: 4 }] });
  assert.equal([short.status, short.body.code], [409, 'insufficient_stock'], short.text);
  const noOrder = await v1('POST', `/v1/group-buys/${gb.id}/orders/ord_${hexOf(randomUUID())}/payment`, { acceptTerms: true });
  assert.equal([noOrder.status, noOrder.body.code], [404, 'order_not_found']);
  const cancelled = await v1('POST', `/v1/group-buys/${gb.id}/cancel`, { reason: 'stock' });
  assert.equal([cancelled.status, cancelled.body.data.status], [200, 'cancelled']);
});

test.run();
