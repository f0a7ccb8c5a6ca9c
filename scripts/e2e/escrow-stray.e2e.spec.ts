import { randomUUID } from 'node:crypto';
import { BASE_FEE, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reconcilePool } from '@cagnotte/command-api';
import { EscrowLedger, sandboxKeys } from '@cagnotte/infra';
import { runCli, startApi, type TestApi, type TestUser } from './harness';
import { signXdr, type Wallet } from './wallet';

/**
 * Money paid straight into a pool's escrow account (a payment, not the reservation's deposit) is its sender's: it is
 * recorded with its sender (read from the ledger), shown owed back, and the settlement pays it back to them; the
 * platform receives exactly its fee lines. A platform that took more than its fee lines from an escrow is a mismatch
 * the operator's reconciliation reports (exit 1).
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
}

const test = suite<Ctx>('escrow: a stray payment goes back to its sender, never to the platform');

test.before(async (ctx) => {
  // The network of the environment: the operator's CLI (its own process) reads the same one.
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Stella' });
});
test.after(async (ctx) => ctx.api.stop());

const as = (ctx: Ctx, user: TestUser) => ({
  post: (path: string, body: unknown = {}) => ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID() } }),
  get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: ctx.tenant }),
});

const cheese = { type: 'GROUPS', title: 'Fromages du Jura', config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: 20 }], release: { after: 'CLOSE' } } };

const openPool = async (ctx: Ctx) => {
  const created = await as(ctx, ctx.organiser).post('/api/pools', cheese);
  assert.is(created.status, 201, created.text);
  const published = await as(ctx, ctx.organiser).post(`/api/pools/${created.body.data.id}/publish`);
  assert.is(published.status, 200, published.text);
  return published.body.data.id as string;
};

/** Reserve and sign: the deposit handed out (not submitted yet). */
const reserveAndSign = async (ctx: Ctx, poolId: string, user: TestUser, quantity: number) => {
  const placed = await as(ctx, user).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity }] });
  assert.is(placed.status, 201, placed.text);
  const t = (await as(ctx, user).get(`/api/pools/${poolId}/terms`)).body.data;
  const signed = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash });
  assert.is(signed.status, 200, signed.text);
  return { reservationId: placed.body.data.id as string, payment: signed.body.data.payment as { xdr: string; hash: string; escrowAccount: string } };
};

const buy = async (ctx: Ctx, poolId: string, quantity: number, name: string) => {
  const user = await ctx.api.user(ctx.tenant, { wallet: true, name });
  const { reservationId, payment } = await reserveAndSign(ctx, poolId, user, quantity);
  await user.wallet!.horizon.submitTransaction(signXdr(user.wallet!, payment.xdr));
  const paid = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${reservationId}/pay`, { txHash: payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  return { user, escrowAccount: payment.escrowAccount };
};

/** A plain payment of the stablecoin from the wallet straight to `destination`: its hash. */
const payStraight = async (ctx: Ctx, wallet: Wallet, destination: string, amount: string): Promise<string> => {
  const source = await wallet.horizon.loadAccount(wallet.keypair.publicKey());
  const tx = new TransactionBuilder(source, { fee: BASE_FEE, networkPassphrase: wallet.passphrase })
    .addOperation(Operation.payment({ destination, asset: ctx.api.services.ledger.asset, amount }))
    .setTimeout(60)
    .build();
  tx.sign(wallet.keypair);
  return (await wallet.horizon.submitTransaction(tx)).hash;
};

const eurc = async (ctx: Ctx, account: string): Promise<bigint> => {
  const a = await ctx.api.services.ledger.loadAccount(account);
  const line = a?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  return stroops(line?.balance ?? '0');
};
const stroops = (s: string) => {
  const [whole, frac = ''] = s.split('.');
  return BigInt(whole!) * 10_000_000n + BigInt(frac.padEnd(7, '0'));
};

const poolEvents = async (ctx: Ctx, poolId: string) => ctx.api.services.store.readStream(`pool-${poolId}`);

test('a buyer pays 10 EURC straight to the escrow: /pay refuses it, it is recorded with its sender, shown owed back, and the settlement pays it back; the platform gains exactly its fee lines', async (ctx) => {
  const poolId = await openPool(ctx);
  const ann = await buy(ctx, poolId, 2, 'Ann');
  const escrowAccount = ann.escrowAccount;
  const bob = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bob' });
  const bobAccount = bob.wallet!.keypair.publicKey();
  // Bob reserves, then pays 10 EURC to the escrow account himself instead of submitting the deposit handed out.
  const bobs = await reserveAndSign(ctx, poolId, bob, 1);
  const straight = await payStraight(ctx, bob.wallet!, escrowAccount, '10');
  const refused = await as(ctx, bob).post(`/api/pools/${poolId}/reservations/${bobs.reservationId}/pay`, { txHash: straight });
  assert.is(refused.status, 400, refused.text);
  assert.is(refused.body.code, 'payment_mismatch');
  assert.equal(
    (await poolEvents(ctx, poolId)).filter((e) => e.type === 'EscrowStrayPaymentRecorded').map((e) => (e.data as { from: string }).from),
    [bobAccount],
    '/pay, handed a payment that is no deposit, records what it paid the escrow as owed back to its sender',
  );

  const platform = ctx.api.services.ledger.settings.platformAccount;
  const seller = ctx.organiser.wallet!.keypair.publicKey();
  const before = { platform: await eurc(ctx, platform), bob: await eurc(ctx, bobAccount), seller: await eurc(ctx, seller) };
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);

  const prepared = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`);
  assert.is(prepared.status, 201, prepared.text);
  const plan = prepared.body.data;
  assert.equal(plan.strayReturns, [{ destination: bobAccount, amount: '10.00' }], 'the plan pays the stray back to its sender');

  // Before the settlement lands: recorded with its sender, shown owed back.
  const recorded = (await poolEvents(ctx, poolId)).filter((e) => e.type === 'EscrowStrayPaymentRecorded');
  assert.is(recorded.length, 1, 'one event per ledger operation, however often it is detected');
  const stray = recorded[0]!.data as { from: string; amount: string; txHash: string; operationId: string };
  assert.equal([stray.from, stray.amount, stray.txHash], [bobAccount, '10.00', straight]);
  await ctx.api.runner.catchUp((await poolEvents(ctx, poolId)).at(-1)!.position);
  const owed = (await as(ctx, ctx.organiser).get(`/api/pools/${poolId}/escrow`)).body.data;
  assert.equal(
    owed.strays.map((s: { from: string; amount: string; status: string }) => [s.from, s.amount, s.status]),
    [[bobAccount, '10.00', 'OWED']],
  );
  assert.equal(owed.straysOwed, { count: 1, amount: '10.00' });

  const signed = plan.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [
    signXdr(ctx.organiser.wallet!, r.lock.xdr).toXDR(),
    signXdr(ctx.organiser.wallet!, r.release.xdr).toXDR(),
  ]);
  const done = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement/submit`, { settlementId: plan.settlementId, signedXdrs: signed });
  assert.is(done.status, 200, done.text);
  assert.is(done.body.data.status, 'SETTLED');

  const events = await poolEvents(ctx, poolId);
  const fees = events
    .filter((e) => e.type === 'EscrowPayoutSettled' && (e.data as { role: string }).role === 'PLATFORM')
    .reduce((t, e) => t + stroops((e.data as { amount: string }).amount), 0n);
  assert.ok(fees > 0n, 'the platform has a fee line');
  assert.is((await eurc(ctx, platform)) - before.platform, fees, 'the platform gains exactly its fee lines');
  assert.is((await eurc(ctx, bobAccount)) - before.bob, stroops('10'), 'the sender gets his 10 back');
  const sellerLines = events
    .filter((e) => e.type === 'EscrowPayoutSettled' && (e.data as { role: string }).role === 'SELLER')
    .reduce((t, e) => t + stroops((e.data as { amount: string }).amount), 0n);
  assert.is((await eurc(ctx, seller)) - before.seller, sellerLines);
  const returned = events.filter((e) => e.type === 'EscrowStrayPaymentReturned').map((e) => e.data as { to: string; amount: string; operationId: string });
  assert.equal(returned.map((r) => [r.to, r.amount, r.operationId]), [[bobAccount, '10.00', stray.operationId]], 'an event names the sender it went back to');

  await ctx.api.runner.catchUp(events.at(-1)!.position);
  const after = (await as(ctx, ctx.organiser).get(`/api/pools/${poolId}/escrow`)).body.data;
  assert.equal(after.strays.map((s: { status: string }) => s.status), ['RETURNED']);
  assert.equal(after.straysOwed, { count: 0, amount: '0.00' });

  const report = (await reconcilePool({ ...ctx.api.services, escrow: new EscrowLedger(ctx.api.services.ledger) }, poolId))!;
  assert.is(report.ok, true, JSON.stringify(report, null, 1));
  assert.equal(report.platform, { received: report.platform.fees, fees: report.platform.fees });
  assert.equal(report.strays.map((s) => [s.from, s.amount, s.status]), [[bobAccount, '10.00', 'RETURNED']]);
});

test('reconcile: a pool whose escrow paid the platform more than its fee lines is a mismatch (exit 1), and the stray it took is listed owed back', async (ctx) => {
  const poolId = await openPool(ctx);
  const cid = await buy(ctx, poolId, 1, 'Cid');
  const dan = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Dan' });
  await payStraight(ctx, dan.wallet!, cid.escrowAccount, '7');
  // What the lock used to do: the platform and the organiser (2 of 2) sweep the escrow's own balance to the platform.
  const wallet = ctx.organiser.wallet!;
  const platformKey = sandboxKeys(wallet.passphrase).platform;
  const escrow = await wallet.horizon.loadAccount(cid.escrowAccount);
  const sweep = new TransactionBuilder(escrow, { fee: BASE_FEE, networkPassphrase: wallet.passphrase })
    .addOperation(Operation.payment({ destination: platformKey.publicKey(), asset: ctx.api.services.ledger.asset, amount: '7' }))
    .setTimeout(60)
    .build();
  sweep.sign(wallet.keypair, platformKey);
  await wallet.horizon.submitTransaction(sweep);

  const out = await runCli('escrow', 'reconcile', '--pool', poolId);
  assert.is(out.code, 1, `${out.out}\n${out.err}`);
  const report = JSON.parse(out.out) as { ok: boolean; pools: Array<{ ok: boolean; problems: string[]; platform: { received: string; fees: string }; strays: Array<{ from: string; amount: string; status: string }> }> };
  const pool = report.pools[0]!;
  assert.is(pool.ok, false);
  assert.equal(pool.platform, { received: '7.00', fees: '0.00' });
  assert.ok(pool.problems.some((p) => p.includes('the platform received 7.00 from the escrow, its fee lines are 0.00')), pool.problems.join('; '));
  assert.equal(pool.strays.map((s) => [s.from, s.amount, s.status]), [[dan.wallet!.keypair.publicKey(), '7.00', 'OWED']]);
});

test.run();
