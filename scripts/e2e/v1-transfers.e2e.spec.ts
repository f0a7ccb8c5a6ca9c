import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Asset, BASE_FEE, Keypair, Memo, Operation, Transaction, TransactionBuilder } from '@stellar/stellar-sdk';
import { eventually, startApi, type ApiResponse, type TestApi } from './harness';
import { fundedWallet, signXdr, type Wallet } from './wallet';

/**
 * /v1/transfers as a partner's back end drives it: a payment between two accounts' wallets built by the service,
 * signed by the sender with their own key in the test (the service never holds it), submitted and settled on the
 * sandbox ledger (balances moved there); one the ledger refuses is failed with its code; another transaction than the
 * one built is refused before anything is submitted; cancel; another tenant's and the other mode's are a 404; the
 * public events reach the feed.
 */

type Envelope = { success: boolean; data: any; code?: string; param?: string; errors?: Record<string, string[]> };

interface Party {
  id: string;
  wallet: Wallet;
}

interface Ctx {
  api: TestApi;
  key: string;
  liveKey: string;
  otherKey: string;
  alice: Party;
  bob: Party;
  /** Trusts the stablecoin but holds none of it. */
  poor: Party;
}

const test = suite<Ctx>('e2e: /v1/transfers');

const as =
  (ctx: Ctx, secret: string) =>
  (method: string, path: string, body?: unknown): Promise<ApiResponse<Envelope>> =>
    ctx.api.call<Envelope>(method, path, { headers: { authorization: `Bearer ${secret}` }, ...(body !== undefined ? { body } : {}) });

/** A partner's end customer with a wallet linked the non-custodial way (the holder signs the challenge). */
const party = async (ctx: Ctx, stablecoin = true): Promise<Party> => {
  const key = as(ctx, ctx.key);
  const a = (await key('POST', '/v1/accounts', { email: `${Math.random().toString(36).slice(2, 10)}@customer.test`, type: 'individual' })).body.data;
  const wallet = await fundedWallet(ctx.api.url, ctx.api.services, { stablecoin });
  const ch = (await key('POST', `/v1/accounts/${a.id}/wallet/challenge`, { publicKey: wallet.keypair.publicKey() })).body.data;
  const signature = Buffer.from(wallet.keypair.sign(Buffer.from(ch.hash, 'hex'))).toString('base64');
  const linked = await key('POST', `/v1/accounts/${a.id}/wallet`, { publicKey: wallet.keypair.publicKey(), signature });
  assert.is(linked.status, 200, linked.text);
  return { id: a.id, wallet };
};

/** The stablecoin balance as the ledger (Horizon) says, not as the service does. */
const onLedger = async (ctx: Ctx, p: { wallet: Wallet }): Promise<string> => {
  const account = await p.wallet.horizon.loadAccount(p.wallet.keypair.publicKey());
  const asset = ctx.api.services.ledger.asset;
  const line = account.balances.find((b) => 'asset_code' in b && b.asset_code === asset.getCode() && b.asset_issuer === asset.getIssuer());
  return line?.balance ?? '0';
};

test.before(async (ctx) => {
  ctx.api = await startApi();
  const t = await ctx.api.tenant();
  const ana = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Ana' });
  ctx.key = (await ctx.api.apiKey(ana)).secret;
  ctx.liveKey = (await ctx.api.apiKey(ana, { mode: 'live' })).secret;
  const other = await ctx.api.tenant();
  ctx.otherKey = (await ctx.api.apiKey(await ctx.api.user(other.slug, { role: 'organiser', wallet: false }))).secret;
  ctx.alice = await party(ctx);
  ctx.bob = await party(ctx);
  ctx.poor = await party(ctx, false);
});

test.after(async (ctx) => ctx.api.stop());

test('a transfer built, signed by the sender, submitted: settled on the ledger, the balances moved there', async (ctx) => {
  const key = as(ctx, ctx.key);
  const created = await key('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '12.50', currency: 'EUR', memo: 'rent' });
  assert.is(created.status, 200, created.text);
  const t = created.body.data;
  assert.match(t.id, /^tr_[0-9a-f]{32}$/);
  assert.equal(
    [t.object, t.livemode, t.status, t.from, t.to, t.amount, t.currency, t.memo, t.fromWallet, t.toWallet, t.settledAt, t.failureCode],
    ['transfer', false, 'requires_signature', ctx.alice.id, ctx.bob.id, '12.50', 'EUR', 'rent', ctx.alice.wallet.keypair.publicKey(), ctx.bob.wallet.keypair.publicKey(), null, null],
  );
  assert.ok(Date.parse(t.expiresAt) > Date.now());
  // What the sender signs is the payment it says, on the real network.
  const tx = new Transaction(t.unsignedXdr, ctx.alice.wallet.passphrase);
  assert.is(tx.source, ctx.alice.wallet.keypair.publicKey());
  const op = tx.operations[0] as Operation.Payment;
  assert.equal([tx.operations.length, op.type, op.destination, op.amount, op.asset.getCode(), Buffer.from(tx.memo.value as Uint8Array).toString()], [1, 'payment', ctx.bob.wallet.keypair.publicKey(), '12.5000000', ctx.api.services.ledger.asset.getCode(), 'rent']);
  const pending = await key('GET', `/v1/accounts/${ctx.alice.id}`);
  assert.is(pending.body.data.balances[0].pending, '12.50');

  const [aliceBefore, bobBefore] = [await onLedger(ctx, ctx.alice), await onLedger(ctx, ctx.bob)];
  const submitted = await key('POST', `/v1/transfers/${t.id}/submit`, { signedXdr: signXdr(ctx.alice.wallet, t.unsignedXdr).toXDR() });
  assert.is(submitted.status, 200, submitted.text);
  const s = submitted.body.data;
  assert.equal([s.status, s.txHash, s.unsignedXdr, s.failureCode], ['settled', t.txHash, null, null]);
  assert.ok(s.settledAt && s.ledger > 0);
  assert.equal([await onLedger(ctx, ctx.alice), await onLedger(ctx, ctx.bob)], [(Number(aliceBefore) - 12.5).toFixed(7), (Number(bobBefore) + 12.5).toFixed(7)]);
  const onHorizon = await ctx.alice.wallet.horizon.transactions().transaction(t.txHash).call();
  assert.is(onHorizon.successful, true);

  const read = await key('GET', `/v1/transfers/${t.id}`);
  assert.is(read.status, 200, read.text);
  assert.equal([read.body.data.status, read.body.data.txHash, read.body.data.settledAt], ['settled', t.txHash, s.settledAt]);
  const alice = (await key('GET', `/v1/accounts/${ctx.alice.id}`)).body.data.balances[0];
  assert.equal([alice.available, alice.pending], [(Number(aliceBefore) - 12.5).toFixed(2), '0.00']);
  // Submitting again changes nothing.
  const again = await key('POST', `/v1/transfers/${t.id}/submit`, { txHash: t.txHash });
  assert.equal([again.status, again.body.data.status], [200, 'settled']);
});

test('the ledger refuses: a sender without the money is failed with op_underfunded, a destination without a trustline with op_no_trust', async (ctx) => {
  const key = as(ctx, ctx.key);
  const poor = (await key('POST', '/v1/transfers', { from: ctx.poor.id, to: ctx.alice.id, amount: '5.00' })).body.data;
  const failed = await key('POST', `/v1/transfers/${poor.id}/submit`, { signedXdr: signXdr(ctx.poor.wallet, poor.unsignedXdr).toXDR() });
  assert.is(failed.status, 200, failed.text);
  assert.equal([failed.body.data.status, failed.body.data.failureCode, failed.body.data.settledAt], ['failed', 'op_underfunded', null]);
  assert.equal((await key('GET', `/v1/transfers/${poor.id}`)).body.data.failureCode, 'op_underfunded');

  const untrusting = Keypair.random();
  await ctx.alice.wallet.horizon.friendbot(untrusting.publicKey()).call();
  const before = await onLedger(ctx, ctx.alice);
  const t = (await key('POST', '/v1/transfers', { from: ctx.alice.id, to: untrusting.publicKey(), amount: '1.00' })).body.data;
  assert.is(t.to, untrusting.publicKey());
  const noTrust = await key('POST', `/v1/transfers/${t.id}/submit`, { signedXdr: signXdr(ctx.alice.wallet, t.unsignedXdr).toXDR() });
  assert.equal([noTrust.body.data.status, noTrust.body.data.failureCode], ['failed', 'op_no_trust']);
  assert.is(await onLedger(ctx, ctx.alice), before, 'nothing moved');
});

test('another transaction than the one built is refused before anything is submitted', async (ctx) => {
  const key = as(ctx, ctx.key);
  const t = (await key('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '2.00' })).body.data;
  const built = new Transaction(t.unsignedXdr, ctx.alice.wallet.passphrase);
  // Same source and sequence, but 200 instead of 2: signed by the sender all the same.
  const account = await ctx.alice.wallet.horizon.loadAccount(ctx.alice.wallet.keypair.publicKey());
  const forged = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: ctx.alice.wallet.passphrase })
    .addOperation(Operation.payment({ destination: ctx.bob.wallet.keypair.publicKey(), asset: ctx.api.services.ledger.asset as Asset, amount: '200' }))
    .addMemo(Memo.none())
    .setTimeout(600)
    .build();
  forged.sign(ctx.alice.wallet.keypair);
  const forgedHash = Buffer.from(forged.hash()).toString('hex');
  assert.is.not(forgedHash, Buffer.from(built.hash()).toString('hex'));
  const before = await onLedger(ctx, ctx.alice);
  const refused = await key('POST', `/v1/transfers/${t.id}/submit`, { signedXdr: forged.toXDR() });
  assert.equal([refused.status, refused.body.code, refused.body.param], [400, 'transfer_transaction_mismatch', 'signedXdr']);
  assert.is(await onLedger(ctx, ctx.alice), before, 'nothing was submitted');
  const byHash = await key('POST', `/v1/transfers/${t.id}/submit`, { txHash: forgedHash });
  assert.equal([byHash.status, byHash.body.code, byHash.body.param], [400, 'transfer_transaction_mismatch', 'txHash']);
  assert.is((await key('GET', `/v1/transfers/${t.id}`)).body.data.status, 'requires_signature');
});

test('submitted by the sender’s own wallet app: the hash is found on the ledger and the transfer settles', async (ctx) => {
  const key = as(ctx, ctx.key);
  const t = (await key('POST', '/v1/transfers', { from: ctx.bob.id, to: ctx.alice.id, amount: '0.0000001' })).body.data;
  await ctx.bob.wallet.horizon.submitTransaction(signXdr(ctx.bob.wallet, t.unsignedXdr));
  const res = await key('POST', `/v1/transfers/${t.id}/submit`, { txHash: t.txHash });
  assert.equal([res.status, res.body.data.status, res.body.data.amount], [200, 'settled', '0.0000001']);
});

test('cancel while it requires a signature; twice is the same answer; a cancelled transfer is not submitted', async (ctx) => {
  const key = as(ctx, ctx.key);
  const pendingBefore = (await key('GET', `/v1/accounts/${ctx.alice.id}`)).body.data.balances[0].pending;
  const t = (await key('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '3.00' })).body.data;
  assert.is.not((await key('GET', `/v1/accounts/${ctx.alice.id}`)).body.data.balances[0].pending, pendingBefore);
  const cancelled = await key('POST', `/v1/transfers/${t.id}/cancel`);
  assert.equal([cancelled.status, cancelled.body.data.status, cancelled.body.data.unsignedXdr], [200, 'canceled', null]);
  assert.is((await key('POST', `/v1/transfers/${t.id}/cancel`)).body.data.status, 'canceled');
  const late = await key('POST', `/v1/transfers/${t.id}/submit`, { signedXdr: signXdr(ctx.alice.wallet, t.unsignedXdr).toXDR() });
  assert.equal([late.status, late.body.code], [400, 'transfer_canceled']);
  assert.is((await key('GET', `/v1/accounts/${ctx.alice.id}`)).body.data.balances[0].pending, pendingBefore, 'no longer pending');
});

test('what a transfer needs: a sender with a wallet, an account of the tenant or a Stellar address, a positive amount, not itself', async (ctx) => {
  const key = as(ctx, ctx.key);
  const noWallet = (await key('POST', '/v1/accounts', { email: `${Math.random().toString(36).slice(2, 10)}@customer.test`, type: 'individual' })).body.data;
  const cases: Array<[unknown, string, string]> = [
    [{ from: noWallet.id, to: ctx.bob.id, amount: '1.00' }, 'account_wallet_missing', 'from'],
    [{ from: ctx.alice.id, to: 'nobody', amount: '1.00' }, 'validation_failed', 'to'],
    [{ from: ctx.alice.id, to: ctx.alice.id, amount: '1.00' }, 'transfer_to_self', 'to'],
    [{ from: ctx.alice.id, to: ctx.bob.id, amount: '1.5.0' }, 'validation_failed', 'amount'],
    [{ from: ctx.alice.id, to: ctx.bob.id, amount: '1.00', currency: 'USD' }, 'validation_failed', 'currency'],
    [{ from: `acct_${'0'.repeat(32)}`, to: ctx.bob.id, amount: '1.00' }, 'account_not_found', 'from'],
  ];
  for (const [body, code, param] of cases) {
    const res = await key('POST', '/v1/transfers', body);
    assert.equal([res.status, res.body.code, res.body.param], [400, code, param], JSON.stringify(body));
  }
});

test('lists newest first, by account; another tenant’s transfer and the other mode’s are a 404', async (ctx) => {
  const key = as(ctx, ctx.key);
  const t1 = (await key('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '1.00' })).body.data;
  const t2 = (await key('POST', '/v1/transfers', { from: ctx.bob.id, to: ctx.alice.id, amount: '1.00' })).body.data;
  const page = (await key('GET', `/v1/transfers?account=${ctx.bob.id}&limit=2`)).body.data;
  assert.equal([page.items.map((i: { id: string }) => i.id), page.hasMore, page.url], [[t2.id, t1.id], true, '/v1/transfers']);
  const next = (await key('GET', `/v1/transfers?account=${ctx.bob.id}&limit=1&startingAfter=${t2.id}`)).body.data;
  assert.equal(next.items.map((i: { id: string }) => i.id), [t1.id]);
  const poorOnly = (await key('GET', `/v1/transfers?account=${ctx.poor.id}`)).body.data.items;
  assert.ok(poorOnly.every((i: { from: string; to: string }) => i.from === ctx.poor.id || i.to === ctx.poor.id));
  for (const secret of [ctx.otherKey, ctx.liveKey]) {
    assert.is((await as(ctx, secret)('GET', `/v1/transfers/${t1.id}`)).status, 404);
    assert.is((await as(ctx, secret)('POST', `/v1/transfers/${t1.id}/cancel`)).status, 404);
    assert.not.ok((await as(ctx, secret)('GET', '/v1/transfers?limit=100')).body.data.items.some((i: { id: string }) => i.id === t1.id));
    // Nor can another tenant's key pay from these accounts.
    const res = await as(ctx, secret)('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '1.00' });
    assert.equal([res.status, res.body.code], [400, 'account_not_found']);
  }
});

test('transfer.created, transfer.settled, transfer.failed and transfer.canceled reach the feed', async (ctx) => {
  const key = as(ctx, ctx.key);
  const ok = (await key('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '1.00' })).body.data;
  await key('POST', `/v1/transfers/${ok.id}/submit`, { signedXdr: signXdr(ctx.alice.wallet, ok.unsignedXdr).toXDR() });
  const ko = (await key('POST', '/v1/transfers', { from: ctx.poor.id, to: ctx.bob.id, amount: '1.00' })).body.data;
  await key('POST', `/v1/transfers/${ko.id}/submit`, { signedXdr: signXdr(ctx.poor.wallet, ko.unsignedXdr).toXDR() });
  const gone = (await key('POST', '/v1/transfers', { from: ctx.alice.id, to: ctx.bob.id, amount: '1.00' })).body.data;
  await key('POST', `/v1/transfers/${gone.id}/cancel`);
  const typesOf = async (id: string, n: number) =>
    eventually(async () => {
      const items = (await key('GET', `/v1/events?subject=${id}`)).body.data?.items ?? [];
      return items.length >= n ? items : null;
    }, `the public events of ${id}`);
  const settled = await typesOf(ok.id, 2);
  assert.equal(settled.map((e: { type: string }) => e.type), ['transfer.created', 'transfer.settled']);
  assert.equal([settled[0].data.from, settled[0].data.to, settled[0].data.amount, settled[1].data.txHash], [ctx.alice.id, ctx.bob.id, '1.00', ok.txHash]);
  const failed = await typesOf(ko.id, 2);
  assert.equal([failed.map((e: { type: string }) => e.type), failed[1].data.failureCode], [['transfer.created', 'transfer.failed'], 'op_underfunded']);
  assert.equal((await typesOf(gone.id, 2)).map((e: { type: string }) => e.type), ['transfer.created', 'transfer.canceled']);
});

test.run();
