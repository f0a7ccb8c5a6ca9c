import { randomUUID } from 'node:crypto';
import { Asset, BASE_FEE, Horizon, Keypair, Memo, Operation, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxKeys } from '@cagnotte/infra';
import { setTenantFeeSchedule } from '@cagnotte/command-api';
import { startApi, type TestApi, type TestUser } from './harness';

/**
 * Become-organiser end to end, on the embedded sandbox Stellar network: every signature is made here with
 * the SDK, every transaction goes through Horizon's HTTP API, as a partner's front end would do it.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  closed: string;
  horizon: Horizon.Server;
  passphrase: string;
  eurc: Asset;
}

const test = suite<Ctx>('become-organiser and ledger linking');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  ctx.closed = (await ctx.api.tenant({ whiteLabel: false })).slug;
  ctx.horizon = new Horizon.Server(`${ctx.api.url}/sandbox/horizon`, { allowHttp: true });
  ctx.passphrase = ctx.api.services.config.STELLAR_NETWORK_PASSPHRASE;
  ctx.eurc = ctx.api.services.ledger.asset;
});

// Each suite gives its connections back when done: the whole run stays under max_connections.
test.after(async (ctx) => ctx.api.stop());

/** A funded account that trusts the stablecoin and holds 1,000 of it (friendbot, changeTrust, friendbot). */
const fundedWallet = async (ctx: Ctx, { stablecoin = true } = {}): Promise<Keypair> => {
  const kp = Keypair.random();
  await ctx.horizon.friendbot(kp.publicKey()).call();
  if (stablecoin) {
    const account = await ctx.horizon.loadAccount(kp.publicKey());
    const trust = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: ctx.passphrase })
      .addOperation(Operation.changeTrust({ asset: ctx.eurc }))
      .setTimeout(60)
      .build();
    trust.sign(kp);
    await ctx.horizon.submitTransaction(trust);
    await ctx.horizon.friendbot(kp.publicKey()).call();
  }
  return kp;
};

const linkWallet = async (ctx: Ctx, user: TestUser, kp: Keypair) => {
  const ch = await ctx.api.call('POST', '/api/me/ledger/challenge', { token: user.token, body: { account: kp.publicKey() } });
  assert.is(ch.status, 200, ch.text);
  const tx = new Transaction(ch.body.data.transaction, ctx.passphrase);
  tx.sign(kp);
  const res = await ctx.api.call('POST', '/api/me/ledger/link', { token: user.token, body: { transaction: tx.toXDR() } });
  assert.is(res.status, 200, res.text);
};

const buyer = async (ctx: Ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const kp = await fundedWallet(ctx);
  await linkWallet(ctx, user, kp);
  return { user, kp };
};

const prepare = async (ctx: Ctx, user: TestUser, body: unknown = {}) => {
  const res = await ctx.api.call('POST', '/api/me/become-organiser/prepare', { token: user.token, body });
  assert.is(res.status, 200, res.text);
  return res.body.data;
};

const submit = (ctx: Ctx, user: TestUser, body: unknown) => ctx.api.call('POST', '/api/me/become-organiser/submit', { token: user.token, body });

/** What the ledger said to a submission: `null` when it was applied, else its result codes (transaction, then operations). */
const ledgerVerdict = (e: unknown): string[] => {
  const codes = (e as { response?: { data?: { extras?: { result_codes?: { transaction?: string; operations?: string[] } } } } }).response?.data?.extras?.result_codes;
  return codes ? [codes.transaction ?? '?', ...(codes.operations ?? [])] : [`no result codes: ${String((e as Error)?.message ?? e)}`];
};

/**
 * A payment the test builds itself (the forgeries), signed by `kp`. Submitted unless `submit: false`, and the
 * ledger's verdict is asserted: applied, or refused with exactly `refusedWith`. A forgery that never reached the
 * ledger would otherwise be "refused" by the service for the wrong reason and the spec would prove nothing.
 */
const pay = async (ctx: Ctx, kp: Keypair, o: { to?: string; asset?: Asset; amount?: string; memoHash?: string | null; submit?: boolean; refusedWith?: string[] }) => {
  const account = await ctx.horizon.loadAccount(kp.publicKey());
  const b = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: ctx.passphrase })
    .addOperation(Operation.payment({ destination: o.to ?? ctx.api.services.ledger.settings.platformAccount, asset: o.asset ?? ctx.eurc, amount: o.amount ?? '1' }))
    .setTimeout(60);
  if (o.memoHash) b.addMemo(Memo.hash(o.memoHash));
  const tx = b.build();
  tx.sign(kp);
  const hash = Buffer.from(tx.hash()).toString('hex');
  if (o.submit !== false) {
    const verdict = await ctx.horizon.submitTransaction(tx).then(() => null, ledgerVerdict);
    assert.equal(verdict, o.refusedWith ?? null, `the ledger's verdict on ${hash}`);
  }
  return { tx, hash };
};

const role = async (ctx: Ctx, user: TestUser) => (await ctx.api.call('GET', '/api/auth/me', { token: user.token })).body.data.user.role as string;

test('prepare needs a linked ledger account: a clear 400', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const res = await ctx.api.call('POST', '/api/me/become-organiser/prepare', { token: user.token, body: {} });
  assert.is(res.status, 400, res.text);
  assert.is(res.body.code, 'ledger_account_required');
  assert.ok(res.body.errors.ledgerAccount);
});

test('linking: a SEP-10 style challenge signed by the account links it and shows in /me; forgeries and replays are refused', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const other = await ctx.api.user(ctx.tenant);
  const kp = Keypair.random();
  const ask = async (who: TestUser = user) =>
    new Transaction((await ctx.api.call('POST', '/api/me/ledger/challenge', { token: who.token, body: { account: kp.publicKey() } })).body.data.transaction, ctx.passphrase);
  const link = (xdr: string, who: TestUser = user) => ctx.api.call('POST', '/api/me/ledger/link', { token: who.token, body: { transaction: xdr } });

  assert.is((await ctx.api.call('POST', '/api/me/ledger/challenge', { token: user.token, body: { account: 'GNOPE' } })).status, 400);
  assert.is((await ctx.api.call('POST', '/api/me/ledger/challenge', { body: { account: kp.publicKey() } })).status, 401);
  const unsigned = await ask();
  assert.is((await link(unsigned.toXDR())).status, 400, 'not signed by the account');
  const wrongKey = await ask();
  wrongKey.sign(Keypair.random());
  assert.is((await link(wrongKey.toXDR())).status, 400, 'signed by another key');
  const forgedServer = new TransactionBuilder(await ctx.horizon.loadAccount(ctx.api.services.ledger.settings.platformAccount), { fee: BASE_FEE, networkPassphrase: ctx.passphrase })
    .addOperation(Operation.manageData({ name: 'cagnotte.local auth', value: 'x'.repeat(64), source: kp.publicKey() }))
    .setTimeout(300)
    .build();
  forgedServer.sign(kp);
  assert.is((await link(forgedServer.toXDR())).status, 400, 'not issued by the service');
  const stolen = await ask(other);
  stolen.sign(kp);
  assert.is((await link(stolen.toXDR())).status, 400, 'a challenge issued to another user');
  const good = await ask();
  good.sign(kp);
  const ok = await link(good.toXDR());
  assert.is(ok.status, 200, ok.text);
  assert.is(ok.body.data.ledgerAccount, kp.publicKey());
  assert.is((await link(good.toXDR())).status, 400, 'a challenge works once');
  const me = await ctx.api.call('GET', '/api/auth/me', { token: user.token });
  assert.is(me.body.data.wallet.ledgerAccount, kp.publicKey());
  assert.is(me.body.data.verification.ledgerAccount, true);
});

test('the primary path: prepare, GET rebuilds the XDR, pending before the ledger shows it, settled after, idempotent on repeat', async (ctx) => {
  const { user, kp } = await buyer(ctx);
  const grant = await prepare(ctx, user);
  assert.is(grant.status, 'AWAITING_SIGNATURE');
  assert.match(grant.grantId, /^[0-9a-f-]{36}$/);
  assert.equal(grant.payment.asset, { code: ctx.eurc.getCode(), issuer: ctx.eurc.getIssuer() });
  assert.is(grant.payment.amount, '1.0000000');
  const tx = new Transaction(grant.xdr, ctx.passphrase);
  assert.is(tx.source, kp.publicKey());
  assert.is(tx.signatures.length, 0, 'unsigned');
  const op = tx.operations[0] as Operation.Payment;
  assert.equal([tx.operations.length, op.type, op.destination, op.amount, op.asset.getCode(), op.asset.getIssuer()], [
    1,
    'payment',
    ctx.api.services.ledger.settings.platformAccount,
    '1.0000000',
    ctx.eurc.getCode(),
    ctx.eurc.getIssuer(),
  ]);
  assert.is(Buffer.from(tx.memo.value as Buffer).toString('hex'), grant.payment.memoHash);

  const read = await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`, { token: user.token });
  assert.is(read.status, 200, read.text);
  assert.is(read.body.data.status, 'AWAITING_SIGNATURE');
  assert.ok(read.body.data.xdr, 'a fresh unsigned XDR');
  const other = await ctx.api.user(ctx.tenant);
  assert.is((await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`, { token: other.token })).status, 404, 'owner only');
  assert.is((await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`)).status, 401);
  assert.is((await ctx.api.call('GET', '/api/me/become-organiser/not-a-grant', { token: user.token })).status, 404);

  const signed = new Transaction(read.body.data.xdr, ctx.passphrase);
  signed.sign(kp);
  const txHash = Buffer.from(signed.hash()).toString('hex');
  assert.is(txHash, read.body.data.txHash, 'the announced hash is the signed transaction\'s');
  const early = await submit(ctx, user, { grantId: grant.grantId, txHash });
  assert.is(early.status, 200, early.text);
  assert.equal([early.body.data.pending, early.body.data.settled], [true, false]);
  assert.is(await role(ctx, user), 'user');

  await ctx.horizon.submitTransaction(signed);
  const done = await submit(ctx, user, { grantId: grant.grantId, txHash });
  assert.is(done.status, 200, done.text);
  assert.equal([done.body.data.settled, done.body.data.role], [true, 'organiser']);
  const me = await ctx.api.call('GET', '/api/auth/me', { token: user.token });
  assert.is(me.body.data.user.role, 'organiser');
  assert.ok(me.body.data.agent.capabilities.includes('organise'));
  const again = await submit(ctx, user, { grantId: grant.grantId, txHash });
  assert.equal([again.body.data.settled, again.body.data.idempotent], [true, true]);
  const settled = await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`, { token: user.token });
  assert.equal([settled.body.data.status, settled.body.data.xdr, settled.body.data.txHash], ['SETTLED', null, txHash]);
  assert.equal((await prepare(ctx, user)).alreadyOrganiser, true);
  const pool = await ctx.api.call('POST', '/api/pools', { token: user.token, body: { type: 'FUNDING', title: 'Now I organise', config: {} } });
  assert.is.not(pool.status, 403, 'the organise capability is effective at once');
  const events = await ctx.api.services.store.readStream(`account-${user.id}`);
  const types = events.map((e) => e.type);
  assert.equal(types.slice(-2), ['OrganiserGrantSettled', 'RoleGranted'], 'one append: settled and granted');
  assert.is(events[events.length - 1]!.metadata.correlationId, events[events.length - 2]!.metadata.correlationId);
});

test('the fallback path: signedXdr submitted by the service; the same nonce answers the same grant', async (ctx) => {
  const { user, kp } = await buyer(ctx);
  const nonce = randomUUID();
  const grant = await prepare(ctx, user, { nonce });
  assert.is((await prepare(ctx, user, { nonce })).grantId, grant.grantId);
  const tx = new Transaction(grant.xdr, ctx.passphrase);
  tx.sign(kp);
  const res = await submit(ctx, user, { grantId: grant.grantId, signedXdr: tx.toXDR() });
  assert.is(res.status, 200, res.text);
  assert.equal([res.body.data.settled, res.body.data.role], [true, 'organiser']);
  const onLedger = await ctx.horizon.transactions().transaction(Buffer.from(tx.hash()).toString('hex')).call();
  assert.ok(onLedger.successful);
  const balance = (await ctx.horizon.loadAccount(kp.publicKey())).balances.find((b) => 'asset_code' in b && b.asset_code === ctx.eurc.getCode());
  assert.is(balance?.balance, '999.0000000', 'exactly one unit paid');
  const replay = await submit(ctx, user, { grantId: grant.grantId, signedXdr: tx.toXDR() });
  assert.equal([replay.status, replay.body.data.idempotent], [200, true]);
});

test('forged payments never grant: wrong amount, wrong asset (code or issuer), someone else\'s payment, a failed one, a replayed hash', async (ctx) => {
  const { user, kp } = await buyer(ctx);
  const grant = await prepare(ctx, user);
  const memoHash = grant.payment.memoHash as string;
  /** The service refuses with this code, naming this field: the reason is the forgery, not some other failure. */
  const refuse = async (what: string, body: Record<string, unknown>, field: string, code = 'payment_mismatch') => {
    const res = await submit(ctx, user, { grantId: grant.grantId, ...body });
    assert.is(res.status, 400, `${what}: ${res.text}`);
    assert.is(res.body.success, false);
    assert.is(res.body.code, code, `${what}: ${res.text}`);
    assert.ok(res.body.errors?.[field], `${what} names ${field}: ${res.text}`);
    assert.is(await role(ctx, user), 'user', `${what} granted nothing`);
  };

  await refuse('two units', { txHash: (await pay(ctx, kp, { amount: '2', memoHash })).hash }, 'amount');
  await refuse('a stroop short', { txHash: (await pay(ctx, kp, { amount: '0.9999999', memoHash })).hash }, 'amount');
  await refuse('lumens', { txHash: (await pay(ctx, kp, { asset: Asset.native(), memoHash })).hash }, 'asset');

  // A look-alike: same code, another issuer, that the platform account does trust (sandbox keys let the test set it up).
  const fakeIssuer = await fundedWallet(ctx, { stablecoin: false });
  const fake = new Asset(ctx.eurc.getCode(), fakeIssuer.publicKey());
  const platform = sandboxKeys(ctx.passphrase).platform;
  for (const holder of [platform, kp]) {
    const acc = await ctx.horizon.loadAccount(holder.publicKey());
    const t = new TransactionBuilder(acc, { fee: BASE_FEE, networkPassphrase: ctx.passphrase }).addOperation(Operation.changeTrust({ asset: fake })).setTimeout(60).build();
    t.sign(holder);
    await ctx.horizon.submitTransaction(t);
  }
  await pay(ctx, fakeIssuer, { to: kp.publicKey(), asset: fake, amount: '5' });
  const lookAlike = await pay(ctx, kp, { asset: fake, memoHash });
  assert.ok((await ctx.horizon.transactions().transaction(lookAlike.hash).call()).successful, 'the look-alike payment did land');
  await refuse('same code, another issuer', { txHash: lookAlike.hash }, 'asset');

  await refuse('no memo', { txHash: (await pay(ctx, kp, { memoHash: null })).hash }, 'memo');
  const stranger = await fundedWallet(ctx);
  await refuse('to someone else', { txHash: (await pay(ctx, kp, { to: stranger.publicKey(), memoHash })).hash }, 'destination');
  await refuse('paid by another account', { txHash: (await pay(ctx, stranger, { memoHash })).hash }, 'source');

  const broke = await fundedWallet(ctx);
  const brokeTrustless = await pay(ctx, broke, { amount: '5000', memoHash, refusedWith: ['tx_failed', 'op_underfunded'] });
  await refuse('paid by another account and failed', { txHash: brokeTrustless.hash }, 'transaction');

  // The user's own payment that failed on the ledger (more than the balance): included, successful=false.
  const failed = await pay(ctx, kp, { amount: '50000', memoHash, refusedWith: ['tx_failed', 'op_underfunded'] });
  const failedRecord = await ctx.horizon.transactions().transaction(failed.hash).call();
  assert.is(failedRecord.successful, false);
  await refuse('a failed transaction', { txHash: failed.hash }, 'transaction');

  // Another user's real, settled payment replayed for this grant.
  const other = await buyer(ctx);
  const otherGrant = await prepare(ctx, other.user);
  const otherTx = new Transaction(otherGrant.xdr, ctx.passphrase);
  otherTx.sign(other.kp);
  await ctx.horizon.submitTransaction(otherTx);
  const otherHash = Buffer.from(otherTx.hash()).toString('hex');
  assert.is((await submit(ctx, other.user, { grantId: otherGrant.grantId, txHash: otherHash })).body.data.settled, true);
  await refuse('a replayed hash of another grant', { txHash: otherHash }, 'memo');

  // signedXdr forgeries are refused before anything reaches the ledger.
  const wrong = await pay(ctx, kp, { amount: '3', memoHash, submit: false });
  await refuse('signedXdr with a wrong amount', { signedXdr: wrong.tx.toXDR() }, 'amount');
  assert.is(await ctx.horizon.transactions().transaction(wrong.hash).call().then(() => 'found', () => 'absent'), 'absent', 'never submitted');
  const unsigned = new Transaction((await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`, { token: user.token })).body.data.xdr, ctx.passphrase);
  const rejected = await submit(ctx, user, { grantId: grant.grantId, signedXdr: unsigned.toXDR() });
  assert.is(rejected.status, 400);
  assert.is(rejected.body.code, 'ledger_rejected');
  assert.ok(rejected.body.errors.signedXdr.includes('tx_bad_auth'), rejected.text);
  await refuse('not an envelope', { signedXdr: 'AAAA' }, 'signedXdr', 'invalid_xdr');
  await refuse('a malformed hash', { txHash: 'xyz' }, 'txHash', 'validation_failed');
  await refuse('neither', {}, 'txHash', 'validation_failed');

  // After all that, the genuine payment still settles.
  const genuine = new Transaction((await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`, { token: user.token })).body.data.xdr, ctx.passphrase);
  genuine.sign(kp);
  const ok = await submit(ctx, user, { grantId: grant.grantId, signedXdr: genuine.toXDR() });
  assert.equal([ok.status, ok.body.data.settled, ok.body.data.role], [200, true, 'organiser']);
});

test('who may: business accounts get 400, other users\' grants 404, closed tenants 404, no token 401', async (ctx) => {
  const { user } = await buyer(ctx);
  const grant = await prepare(ctx, user);
  const intruder = await buyer(ctx);
  assert.is((await submit(ctx, intruder.user, { grantId: grant.grantId, txHash: 'a'.repeat(64) })).status, 404);
  assert.is((await submit(ctx, user, { grantId: randomUUID(), txHash: 'a'.repeat(64) })).status, 404);
  assert.is((await ctx.api.call('POST', '/api/me/become-organiser/submit', { body: { grantId: grant.grantId, txHash: 'a'.repeat(64) } })).status, 401);
  assert.is((await ctx.api.call('POST', '/api/me/become-organiser/prepare', { body: {} })).status, 401);
  const business = await ctx.api.user(ctx.tenant, { accountType: 'BUSINESS' });
  await linkWallet(ctx, business, await fundedWallet(ctx));
  const b = await ctx.api.call('POST', '/api/me/become-organiser/prepare', { token: business.token, body: {} });
  assert.is(b.status, 400, b.text);
  const closed = await ctx.api.user(ctx.closed);
  assert.is((await ctx.api.call('POST', '/api/me/become-organiser/prepare', { token: closed.token, body: {} })).status, 404);
  assert.is((await ctx.api.call('GET', `/api/me/become-organiser/${grant.grantId}`, { token: closed.token })).status, 404);
  const unfunded = await ctx.api.user(ctx.tenant);
  await linkWallet(ctx, unfunded, Keypair.random());
  const u = await ctx.api.call('POST', '/api/me/become-organiser/prepare', { token: unfunded.token, body: {} });
  assert.is(u.status, 400, u.text);
  assert.is(u.body.code, 'ledger_account_not_found');
  assert.equal((await ctx.api.services.store.readStream(`account-${unfunded.id}`)).filter((e) => e.type === 'OrganiserGrantPrepared'), [], 'no grant recorded');
});

test('the activation fee is the tenant’s fee schedule’s (`tenant fees --activation`): the payment to sign and the one verified', async (ctx) => {
  const tenant = (await ctx.api.tenant({ whiteLabel: true })).slug;
  const meta = { actor: { kind: 'operator' as const, id: 'organiser-e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() };
  await setTenantFeeSchedule(ctx.api.services, ctx.api.services.config, tenant, (sched) => ({ ...sched, organiserActivation: '2.50' }), meta);
  const zero = await setTenantFeeSchedule(ctx.api.services, ctx.api.services.config, tenant, (sched) => ({ ...sched, organiserActivation: '0' }), meta).then(() => null, (e: Error & { fields?: unknown }) => e);
  assert.is((zero as { kind?: string } | null)?.kind, 'validation', 'a fee of nothing could never be paid: refused');
  const user = await ctx.api.user(tenant);
  const kp = await fundedWallet(ctx);
  await linkWallet(ctx, user, kp);
  const grant = await prepare(ctx, user);
  assert.is(grant.payment.amount, '2.5000000');
  assert.is((new Transaction(grant.xdr, ctx.passphrase).operations[0] as Operation.Payment).amount, '2.5000000');
  const one = await pay(ctx, kp, { amount: '1', memoHash: grant.payment.memoHash });
  const short = await submit(ctx, user, { grantId: grant.grantId, txHash: one.hash });
  assert.is(short.status, 400, short.text);
  assert.ok(short.body.errors?.amount, 'the contract’s default of 1 is not this tenant’s fee');
  const right = await pay(ctx, kp, { amount: '2.5', memoHash: grant.payment.memoHash });
  const done = await submit(ctx, user, { grantId: grant.grantId, txHash: right.hash });
  assert.equal([done.status, done.body.data.settled, done.body.data.role], [200, true, 'organiser'], done.text);
});

test.run();
