import { randomUUID } from 'node:crypto';
import { BASE_FEE, Operation, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxKeys } from '@cagnotte/infra';
import { eventually, runCli, startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * /v1/deals end to end on the embedded sandbox network, the way a marketplace drives it: with its API key it creates
 * the deal for its users; the buyer signs the deposit with their own wallet, the seller cosigns the release with
 * theirs; the parties also act with their own sessions. Balances are read on the ledger, to the stroop.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  market: TestUser;
  marketSession: TestUser;
  buyer: TestUser;
  seller: TestUser;
  broker: TestUser;
  third: TestUser;
  refundedDeal: string;
  /** How far the service's clock is ahead of the real one (the time rules' test moves it). */
  offsetMs: number;
}

const test = suite<Ctx>('v1 deals: escrow between named parties on the ledger');

test.before(async (ctx) => {
  ctx.offsetMs = 0;
  ctx.api = await startApi({}, { clock: () => new Date(Date.now() + ctx.offsetMs) });
  ctx.tenant = (await ctx.api.tenant()).slug;
  // The marketplace: an organiser of the tenant, calling with its test API key (a key acts as its owner).
  const market = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Market' });
  ctx.marketSession = market;
  ctx.market = { ...market, token: (await ctx.api.apiKey(market, { mode: 'test' })).secret };
  const [buyer, seller, broker, third] = await Promise.all(['Bea', 'Sam', 'Kim', 'Tom'].map((name) => ctx.api.user(ctx.tenant, { wallet: true, name })));
  Object.assign(ctx, { buyer, seller, broker, third });
});
test.after(async (ctx) => ctx.api.stop());

const acct = (u: TestUser) => `acct_${u.id.replace(/-/g, '')}`;
const post = (ctx: Ctx, path: string, body: unknown = {}, who: TestUser = ctx.market, tenant = ctx.tenant) =>
  ctx.api.call('POST', path, { token: who.token, tenant, body, headers: { 'Idempotency-Key': randomUUID() } });
const get = (ctx: Ctx, path: string, who: TestUser = ctx.market, tenant = ctx.tenant) => ctx.api.call('GET', path, { token: who.token, tenant });

const eurc = async (ctx: Ctx, account: string): Promise<bigint> => {
  const a = await ctx.api.services.ledger.loadAccount(account);
  const line = a?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  const s = line?.balance ?? '0.0000000';
  const [w, f = ''] = s.split('.');
  return BigInt(w!) * 10_000_000n + BigInt(f.padEnd(7, '0'));
};
const walletOf = (u: TestUser) => u.wallet!.keypair.publicKey();

const codesOf = async (submit: () => Promise<unknown>): Promise<unknown> => {
  try {
    await submit();
  } catch (e) {
    return (e as { response?: { data?: { extras?: { result_codes?: unknown } } } }).response?.data?.extras?.result_codes;
  }
  return 'accepted';
};

/** A decimal amount in stroops (7 decimals), to compare balances exactly. */
const stroops = (amount: string): bigint => {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole!) * 10_000_000n + BigInt(frac.padEnd(7, '0'));
};
/** What the buyer's /v1 account says is theirs in escrow (pools and deals), in stroops. */
const buyerInEscrow = async (ctx: Ctx): Promise<bigint> => {
  const r = await get(ctx, `/v1/accounts/${acct(ctx.buyer)}`);
  assert.is(r.status, 200, r.text);
  return stroops(r.body.data.balances[0].inEscrow);
};

/** Creates and funds a deal: the buyer signs the deposit and submits it to the ledger, the service verifies it. */
const fundedDeal = async (ctx: Ctx, body: Record<string, unknown>) => {
  const created = await post(ctx, '/v1/deals', { buyer: acct(ctx.buyer), seller: acct(ctx.seller), currency: 'EUR', ...body });
  assert.is(created.status, 201, created.text);
  const deal = created.body.data;
  const fund = await post(ctx, `/v1/deals/${deal.id}/fund`);
  assert.is(fund.status, 200, fund.text);
  assert.is(fund.body.data.amount, deal.amount);
  await ctx.buyer.wallet!.horizon.submitTransaction(signXdr(ctx.buyer.wallet!, fund.body.data.xdr));
  const submitted = await post(ctx, `/v1/deals/${deal.id}/fund/submit`, { txHash: fund.body.data.hash });
  assert.is(submitted.status, 200, submitted.text);
  assert.is(submitted.body.data.status, 'funded');
  return { deal: submitted.body.data, deposit: fund.body.data };
};

/** The seller cosigns the settlement's lock and release with their own key and submits them through the API. */
const cosignAndSubmit = async (ctx: Ctx, dealId: string, which: 'release' | 'refund') => {
  const prepared = await post(ctx, `/v1/deals/${dealId}/${which}`, {}, ctx.seller);
  assert.is(prepared.status, 201, prepared.text);
  const s = prepared.body.data;
  assert.equal(s.toSign, [s.lock.hash, s.release.hash]);
  const signedXdrs = [signXdr(ctx.seller.wallet!, s.lock.xdr).toXDR(), signXdr(ctx.seller.wallet!, s.release.xdr).toXDR()];
  const done = await post(ctx, `/v1/deals/${dealId}/${which}/submit`, { settlementId: s.id, signedXdrs }, ctx.seller);
  assert.is(done.status, 200, done.text);
  return { settlement: s, deal: done.body.data };
};

test('a three-way split: funded, delivered, accepted, released; each party paid to the stroop, the platform kept nothing; the platform alone cannot move the funds', async (ctx) => {
  const [seller, broker, third, buyer] = [ctx.seller, ctx.broker, ctx.third, ctx.buyer].map(walletOf) as [string, string, string, string];
  const platform = ctx.api.services.ledger.settings.platformAccount;
  const before = { seller: await eurc(ctx, seller), broker: await eurc(ctx, broker), third: await eurc(ctx, third), buyer: await eurc(ctx, buyer), platform: await eurc(ctx, platform) };

  const { deal, deposit } = await fundedDeal(ctx, {
    broker: acct(ctx.broker),
    items: [
      { description: 'Tractor', quantity: 1, unitAmount: '90.0000001' },
      { description: 'Trailer', quantity: 2, unitAmount: '5' },
    ],
    split: [
      { account: acct(ctx.seller), bps: 8000 },
      { account: acct(ctx.broker), bps: 1500 },
      { account: acct(ctx.third), bps: 500 },
    ],
    releaseRule: 'on_acceptance',
    inspectionDays: 3,
    metadata: { order: 'A-42' },
  });
  assert.ok(/^deal_[0-9a-f]{32}$/.test(deal.id), deal.id);
  assert.is(deal.object, 'deal');
  assert.is(deal.livemode, false);
  assert.is(deal.amount, '100.0000001');
  assert.equal(deal.split.map((l: { role: string; amount: string }) => [l.role, l.amount]), [['seller', '80.0000001'], ['broker', '15.00'], ['payee', '5.00']]);
  assert.is(deal.escrow.cosigner, seller, 'the seller cosigns the escrow instead of a pool organiser');
  assert.is(await eurc(ctx, buyer), before.buyer - 1_000_000_001n, 'the deposit left the buyer’s account');

  // The platform alone cannot move the deposit: a claim into the escrow and a payment out of it, signed by the platform only.
  const horizon = ctx.buyer.wallet!.horizon;
  const passphrase = ctx.buyer.wallet!.passphrase;
  const platformKey = sandboxKeys(passphrase).platform;
  const platformAlone = async (op: ReturnType<typeof Operation.payment>) => {
    const source = await horizon.loadAccount(platformKey.publicKey());
    const tx = new TransactionBuilder(source, { fee: String(Number(BASE_FEE) * 2), networkPassphrase: passphrase }).addOperation(op).setTimeout(60).build();
    tx.sign(platformKey);
    return codesOf(() => horizon.submitTransaction(tx));
  };
  // The escrow's operations lack its threshold (platform 1 of 2): the ledger refuses them (op_bad_auth), nothing moves.
  const claim = await platformAlone(Operation.claimClaimableBalance({ balanceId: deposit.balanceId, source: deal.escrow.account }));
  assert.equal(claim, { transaction: 'tx_failed', operations: ['op_bad_auth'] });
  const pay = await platformAlone(Operation.payment({ source: deal.escrow.account, destination: platform, asset: ctx.api.services.ledger.asset, amount: '1' }));
  assert.equal(pay, { transaction: 'tx_failed', operations: ['op_bad_auth'] });
  assert.is((await ctx.api.services.ledger.loadClaimableBalance(deposit.balanceId)) !== null, true, 'the deposit is still there');

  // Not releasable before the buyer accepts (or the inspection period ends).
  const early = await post(ctx, `/v1/deals/${deal.id}/release`, {}, ctx.seller);
  assert.is(early.status, 400, early.text);
  assert.is(early.body.code, 'release_not_due');
  const delivered = await post(ctx, `/v1/deals/${deal.id}/deliver`, { note: 'Handed over in Lyon' }, ctx.seller);
  assert.is(delivered.body.data.status, 'delivered', delivered.text);
  assert.ok(delivered.body.data.inspectionEndsAt);
  const refusedToSeller = await post(ctx, `/v1/deals/${deal.id}/accept`, {}, ctx.seller);
  assert.is(refusedToSeller.status, 403, refusedToSeller.text);
  const accepted = await post(ctx, `/v1/deals/${deal.id}/accept`, {}, ctx.buyer);
  assert.is(accepted.body.data.status, 'accepted', accepted.text);

  // The buyer's account counts the funded deposit as in escrow until the release.
  const heldBefore = await eventually(async () => {
    const held = await buyerInEscrow(ctx);
    return held >= 1_000_000_001n ? held : null;
  }, 'the deposit counted in the buyer’s inEscrow');

  // The release the seller cosigns: without their signature the ledger refuses it.
  const prepared = await post(ctx, `/v1/deals/${deal.id}/release`, {}, ctx.seller);
  assert.is(prepared.status, 201, prepared.text);
  const unsigned = await post(ctx, `/v1/deals/${deal.id}/release/submit`, { settlementId: prepared.body.data.id, signedXdrs: [prepared.body.data.lock.xdr] }, ctx.seller);
  assert.is(unsigned.status, 400, unsigned.text);
  assert.is(unsigned.body.code, 'ledger_rejected');
  const s = prepared.body.data;
  const signedXdrs = [signXdr(ctx.seller.wallet!, s.lock.xdr).toXDR(), signXdr(ctx.seller.wallet!, s.release.xdr).toXDR()];
  const released = await post(ctx, `/v1/deals/${deal.id}/release/submit`, { settlementId: s.id, signedXdrs }, ctx.seller);
  assert.is(released.status, 200, released.text);
  assert.is(released.body.data.status, 'released');
  assert.ok(released.body.data.statusTransitions.released);

  assert.is((await eurc(ctx, seller)) - before.seller, 800_000_001n, 'the seller: 80% and the stroop left over');
  assert.is((await eurc(ctx, broker)) - before.broker, 150_000_000n);
  assert.is((await eurc(ctx, third)) - before.third, 50_000_000n);
  assert.is(before.buyer - (await eurc(ctx, buyer)), 1_000_000_001n);
  assert.is(await eurc(ctx, platform), before.platform, 'the platform kept nothing (deals carry no fee)');
  assert.is((await ctx.api.services.ledger.loadAccount(deal.escrow.account)) ?? null, null, 'the escrow account was merged back');
  await eventually(async () => ((await buyerInEscrow(ctx)) === heldBefore - 1_000_000_001n ? true : null), 'the released deposit no longer in the buyer’s inEscrow');

  // The read side: the same deal, expanded; the list; the events.
  const read = await eventually(async () => {
    const r = await get(ctx, `/v1/deals/${deal.id}?expand[]=buyer&expand[]=broker`);
    return r.status === 200 && r.body.data.status === 'released' ? r : null;
  }, 'the deal read as released');
  assert.is(read.body.data.buyer.object, 'account');
  assert.is(read.body.data.buyer.id, acct(ctx.buyer));
  assert.is(read.body.data.seller, acct(ctx.seller));
  assert.is(read.body.data.broker.displayName, 'Kim');
  assert.equal(read.body.data.payouts.map((p: { role: string; amount: string }) => [p.role, p.amount]), [['seller', '80.0000001'], ['broker', '15.00'], ['payee', '5.00']]);
  const events = await eventually(async () => {
    const r = await get(ctx, '/v1/events?limit=500');
    const mine = (r.body.data?.items ?? []).filter((e: { data: { deal?: string } }) => e.data.deal === deal.id).map((e: { type: string }) => e.type);
    return mine.includes('deal.released') ? mine : null;
  }, 'the deal’s events in the feed');
  assert.equal(events, ['deal.created', 'deal.funded', 'deal.delivered', 'deal.accepted', 'deal.released']);

  // The reconciliation: the events against the ledger, the pools' rule.
  const rec = await get(ctx, `/v1/deals/${deal.id}/reconciliation`);
  assert.is(rec.status, 200, rec.text);
  assert.is(rec.body.data.ok, true, JSON.stringify(rec.body.data.problems));
  assert.equal(rec.body.data.events, { held: '0.00', owedBack: '0.00', released: '100.0000001', refunded: '0.00', merged: true, straysOwed: '0.00' });
  assert.equal(rec.body.data.rounds.map((r: { path: string; ok: boolean }) => [r.path, r.ok]), [['RELEASE', true]]);
  assert.equal(rec.body.data.platform, { received: '0.00', fees: '0.00' });
});

test('a refunded deal: the seller cosigns the refund and the buyer gets everything back', async (ctx) => {
  const buyer = walletOf(ctx.buyer);
  const before = await eurc(ctx, buyer);
  const { deal } = await fundedDeal(ctx, { items: [{ description: 'Bike', quantity: 1, unitAmount: '42.1234567' }] });
  assert.is(deal.split.length, 1, 'the default split: all to the seller');
  assert.is(await eurc(ctx, buyer), before - 421_234_567n);
  const holding = await eventually(async () => {
    const r = await get(ctx, `/v1/deals/${deal.id}/reconciliation`, ctx.seller);
    return r.status === 200 ? r : null;
  }, 'the funded deal’s reconciliation');
  assert.is(holding.body.data.ok, true, JSON.stringify(holding.body.data.problems));
  assert.equal([holding.body.data.events.held, holding.body.data.ledger.held], ['42.1234567', '42.1234567']);
  const disputed = await post(ctx, `/v1/deals/${deal.id}/dispute`, { reason: 'Frame cracked' }, ctx.buyer);
  assert.is(disputed.body.data.status, 'disputed', disputed.text);
  const held = await post(ctx, `/v1/deals/${deal.id}/release`, {}, ctx.seller);
  assert.is(held.body.code, 'release_not_due', 'a dispute holds the release');
  const { deal: refunded } = await cosignAndSubmit(ctx, deal.id, 'refund');
  assert.is(refunded.status, 'refunded');
  assert.is(refunded.dispute.status, 'REFUNDED');
  assert.is(await eurc(ctx, buyer), before, 'the buyer got everything back');
  ctx.refundedDeal = deal.id;
});

test('the /v1 rules: an Idempotency-Key on every POST, the key’s scopes, a malformed id is a 404', async (ctx) => {
  const body = { buyer: acct(ctx.buyer), seller: acct(ctx.seller), items: [{ description: 'Chair', quantity: 1, unitAmount: '12' }] };
  const bare = await ctx.api.call('POST', '/v1/deals', { token: ctx.market.token, tenant: ctx.tenant, body, idempotencyKey: false });
  assert.is(bare.status, 400);
  assert.is(bare.body.code, 'idempotency_key_required');
  const reader = { ...ctx.market, token: (await ctx.api.apiKey(ctx.marketSession, { mode: 'test', scopes: ['deals:read'] })).secret };
  const refused = await post(ctx, '/v1/deals', body, reader);
  assert.is(refused.status, 403, refused.text);
  assert.is(refused.body.code, 'insufficient_scope');
  assert.is((await get(ctx, '/v1/deals?limit=1', reader)).status, 200, 'deals:read reads');
  assert.is((await get(ctx, '/v1/deals/deal_nope')).status, 404);
  const split = await post(ctx, '/v1/deals', { ...body, split: [{ account: acct(ctx.seller), bps: 9000 }] });
  assert.is(split.status, 400);
  assert.is(split.body.param, 'split');

  // Modes: a live key of the same owner finds none of the test deals.
  const created = await post(ctx, '/v1/deals', body);
  assert.is(created.status, 201, created.text);
  const live = { ...ctx.market, token: (await ctx.api.apiKey(ctx.marketSession, { mode: 'live' })).secret };
  assert.is((await get(ctx, `/v1/deals/${created.body.data.id}`, live)).status, 404);
  assert.is((await post(ctx, `/v1/deals/${created.body.data.id}/cancel`, {}, live)).status, 404);
  assert.equal((await get(ctx, '/v1/deals', live)).body.data.items, []);
  const liveDeal = await post(ctx, '/v1/deals', body, live);
  assert.is(liveDeal.body.data.livemode, true, liveDeal.text);
  assert.is((await get(ctx, `/v1/deals/${liveDeal.body.data.id}`)).status, 404, 'and the test key none of the live ones');
});

test('cancel before funding; another tenant’s deal and a stranger’s read are 404; the list is newest first with cursors', async (ctx) => {
  const created = await post(ctx, '/v1/deals', { buyer: acct(ctx.buyer), seller: acct(ctx.seller), items: [{ description: 'Lamp', quantity: 3, unitAmount: '2.50' }] });
  assert.is(created.status, 201, created.text);
  const id = created.body.data.id;
  const cancelled = await post(ctx, `/v1/deals/${id}/cancel`, { reason: 'Out of stock' }, ctx.seller);
  assert.is(cancelled.body.data.status, 'cancelled', cancelled.text);
  assert.is((await post(ctx, `/v1/deals/${id}/fund`, {}, ctx.buyer)).status, 400, 'a cancelled deal takes no deposit');

  const other = (await ctx.api.tenant()).slug;
  const outsider = await ctx.api.user(other, { role: 'organiser' });
  assert.is((await get(ctx, `/v1/deals/${id}`, outsider, other)).status, 404);
  assert.is((await post(ctx, `/v1/deals/${id}/cancel`, {}, outsider, other)).status, 404);
  const stranger = await ctx.api.user(ctx.tenant, { name: 'Stranger' });
  assert.is((await get(ctx, `/v1/deals/${id}`, stranger)).status, 404, 'a user of the tenant who takes no part');
  assert.is((await post(ctx, '/v1/deals', { buyer: acct(outsider), seller: acct(ctx.seller), items: [{ description: 'x', quantity: 1, unitAmount: '1' }] })).body.code, 'account_not_found');

  const list = await eventually(async () => {
    const r = await get(ctx, '/v1/deals?limit=2');
    return r.body.data?.items?.[0]?.id === id ? r : null;
  }, 'the newest deal first');
  assert.is(list.body.data.object, 'list');
  assert.is(list.body.data.items.length, 2);
  assert.is(list.body.data.hasMore, true);
  const next = await get(ctx, `/v1/deals?limit=2&startingAfter=${list.body.data.items[1].id}`);
  assert.ok(next.body.data.items.every((d: { id: string }) => !list.body.data.items.some((x: { id: string }) => x.id === d.id)));
  assert.is((await get(ctx, '/v1/deals?startingAfter=deal_00000000000000000000000000000000')).status, 400);
});

test('the auditor’s view: the deal’s stream as stored, every hash link verified; its creator reads it too, a stranger gets 404', async (ctx) => {
  const auditor = await ctx.api.user(ctx.tenant, { name: 'Audrey' });
  const grant = await runCli('auditor', 'grant', '--tenant', ctx.tenant, '--email', auditor.email);
  assert.is(grant.code, 0, grant.err);
  const history = await eventually(async () => {
    const r = await get(ctx, `/v1/deals/${ctx.refundedDeal}/history?limit=100`, auditor);
    return r.status === 200 && r.body.data.items.some((i: { type: string }) => i.type === 'DealRefunded') ? r : null;
  }, 'the deal’s history');
  const items = history.body.data.items as Array<{ type: string; verified: boolean }>;
  assert.equal(items.map((i) => i.type), ['DealCreated', 'DealEscrowOpened', 'DealFunded', 'DealDisputed', 'DealSettlementPrepared', 'DealRefunded']);
  assert.ok(items.every((i) => i.verified));
  assert.equal(history.body.data.chain, { verified: true, firstBroken: null });
  const rec = await get(ctx, `/v1/deals/${ctx.refundedDeal}/reconciliation`, auditor);
  assert.is(rec.status, 200, rec.text);
  assert.equal([rec.body.data.ok, rec.body.data.events.refunded, rec.body.data.events.merged], [true, '42.1234567', true]);
  assert.is((await get(ctx, `/v1/deals/${ctx.refundedDeal}/history`)).status, 200, 'its creator');
  const stranger = await ctx.api.user(ctx.tenant, { name: 'Nosy' });
  assert.is((await get(ctx, `/v1/deals/${ctx.refundedDeal}/history`, stranger)).status, 404);
});

const DAY = 86_400_000;

test('time rules (the service’s clock moved on): a dated release waits for its date; on_acceptance releases once the inspection period is over; a dispute nobody answers lapses to the buyer, who then asks for the refund', async (ctx) => {
  const sellerWallet = walletOf(ctx.seller);
  const buyerWallet = walletOf(ctx.buyer);
  const item = (unitAmount: string) => [{ description: 'Crate', quantity: 1, unitAmount }];
  const sellerBefore = await eurc(ctx, sellerWallet);

  const dated = (await fundedDeal(ctx, { items: item('3'), releaseRule: { at: new Date(Date.now() + ctx.offsetMs + 2 * DAY).toISOString() } })).deal;
  assert.is((await post(ctx, `/v1/deals/${dated.id}/release`, {}, ctx.seller)).body.code, 'release_not_due');
  const inspected = (await fundedDeal(ctx, { items: item('4'), releaseRule: 'on_acceptance', inspectionDays: 1 })).deal;
  const lapsing = (await fundedDeal(ctx, { items: item('5'), releaseRule: 'on_acceptance', inspectionDays: 3 })).deal;
  assert.is((await post(ctx, `/v1/deals/${inspected.id}/deliver`, {}, ctx.seller)).body.data.status, 'delivered');
  assert.is((await post(ctx, `/v1/deals/${lapsing.id}/deliver`, {}, ctx.seller)).body.data.status, 'delivered');
  const disputed = await post(ctx, `/v1/deals/${lapsing.id}/dispute`, { reason: 'Never arrived' }, ctx.buyer);
  assert.is(disputed.body.data.status, 'disputed', disputed.text);
  assert.is((await post(ctx, `/v1/deals/${lapsing.id}/refund`, {}, ctx.buyer)).body.code, 'seller_only', 'the buyer waits for the lapse');
  assert.is((await post(ctx, `/v1/deals/${inspected.id}/release`, {}, ctx.seller)).body.code, 'release_not_due', 'the inspection period runs');

  ctx.offsetMs = 2 * DAY + 3_600_000;
  await cosignAndSubmit(ctx, dated.id, 'release');
  await cosignAndSubmit(ctx, inspected.id, 'release');
  assert.is((await eurc(ctx, sellerWallet)) - sellerBefore, 70_000_000n, 'the dated and the inspected deals paid the seller');

  // The dispute's respondBy (7 days) passed: it lapses to the buyer, who asks for the refund; the seller still cosigns it.
  ctx.offsetMs = 8 * DAY;
  const buyerBefore = await eurc(ctx, buyerWallet);
  const refund = await post(ctx, `/v1/deals/${lapsing.id}/refund`, {}, ctx.buyer);
  assert.is(refund.status, 201, refund.text);
  const s = refund.body.data;
  const signedXdrs = [signXdr(ctx.seller.wallet!, s.lock.xdr).toXDR(), signXdr(ctx.seller.wallet!, s.release.xdr).toXDR()];
  const done = await post(ctx, `/v1/deals/${lapsing.id}/refund/submit`, { settlementId: s.id, signedXdrs }, ctx.seller);
  assert.is(done.body.data.status, 'refunded', done.text);
  assert.is((await eurc(ctx, buyerWallet)) - buyerBefore, 50_000_000n);
  ctx.offsetMs = 0;
});

test('locked: once the seller’s cosigned lock is on the ledger, the keyless recovery waits for recoveryFrom (tx_too_early), and only the release the seller cosigns pays', async (ctx) => {
  const { deal } = await fundedDeal(ctx, { items: [{ description: 'Boat', quantity: 1, unitAmount: '7' }], releaseRule: 'on_delivery' });
  assert.is((await post(ctx, `/v1/deals/${deal.id}/deliver`, {}, ctx.seller)).body.data.status, 'delivered');
  const prepared = await post(ctx, `/v1/deals/${deal.id}/release`, {}, ctx.seller);
  assert.is(prepared.status, 201, prepared.text);
  const s = prepared.body.data;
  const lockOnly = await post(ctx, `/v1/deals/${deal.id}/release/submit`, { settlementId: s.id, signedXdrs: [signXdr(ctx.seller.wallet!, s.lock.xdr).toXDR()] }, ctx.seller);
  assert.is(lockOnly.status, 200, lockOnly.text);
  assert.equal([lockOnly.body.data.status, lockOnly.body.data.pending], ['delivered', true]);
  // Anyone may submit the recovery (it needs no signature), but not before recoveryFrom.
  const horizon = ctx.buyer.wallet!.horizon;
  const recovery = await codesOf(() => horizon.submitTransaction(new Transaction(s.recovery.xdr, ctx.buyer.wallet!.passphrase)));
  assert.equal(recovery, { transaction: 'tx_too_early' });
  // Asking again answers the settlement the escrow is locked on, unchanged.
  const again = await post(ctx, `/v1/deals/${deal.id}/release`, {}, ctx.seller);
  assert.equal([again.status, again.body.data.id], [200, s.id]);
  const released = await post(ctx, `/v1/deals/${deal.id}/release/submit`, { settlementId: s.id, signedXdrs: [signXdr(ctx.seller.wallet!, s.release.xdr).toXDR()] }, ctx.seller);
  assert.is(released.body.data.status, 'released', released.text);
});

test.run();
