import { Asset, BASE_FEE, Keypair, Memo, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventually, startApi, type TestApi, type TestUser } from './harness';
import { signXdr, type Wallet } from './wallet';

/**
 * The paid listing on the sandbox ledger: the organiser signs the fee payment client-side; the service verifies it
 * before the pool is LISTED or FEATURED; an eligible delist pays the fee back on the ledger.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
}

const test = suite<Ctx>('the paid listing');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant({ listingFees: { LISTED: '5', FEATURED: '20' } })).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser' });
});
test.after(async (ctx) => ctx.api.stop());

const post = (ctx: Ctx, path: string, body: unknown = {}, user = ctx.organiser) => ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body });

const openPool = async (ctx: Ctx) => {
  const created = await post(ctx, '/api/pools', { type: 'GROUPS', title: 'Huile d’olive', config: { units: [{ id: 'u', label: 'Bidon', price: '30' }] } });
  assert.is(created.status, 201, created.text);
  assert.is((await post(ctx, `/api/pools/${created.body.data.id}/publish`)).status, 200);
  return created.body.data.id as string;
};

const eurc = async (w: Wallet) => (await w.horizon.loadAccount(w.keypair.publicKey())).balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC')?.balance;

test('LISTED for the tenant’s fee: prepare, the organiser submits, submit with txHash lists; a repeat is idempotent; FEATURED is an upgrade through signedXdr', async (ctx) => {
  const id = await openPool(ctx);
  const before = await eurc(ctx.organiser.wallet!);
  const prepared = await post(ctx, `/api/pools/${id}/list`, { tier: 'LISTED' });
  assert.is(prepared.status, 200, prepared.text);
  assert.is(prepared.body.data.listed, false);
  const listing = prepared.body.data.listing;
  assert.is(listing.amount, '5.00');
  assert.is((await post(ctx, `/api/pools/${id}/list`, { tier: 'LISTED' })).body.data.listing.listingId, listing.listingId, 'the same open listing');
  const tx = signXdr(ctx.organiser.wallet!, listing.xdr);
  await ctx.organiser.wallet!.horizon.submitTransaction(tx);
  const done = await post(ctx, `/api/pools/${id}/list/submit`, { listingId: listing.listingId, txHash: listing.hash });
  assert.is(done.status, 200, done.text);
  assert.is(done.body.data.listed, true);
  assert.is(done.body.data.pool.marketplaceVisibility, 'LISTED');
  assert.is((await post(ctx, `/api/pools/${id}/list/submit`, { listingId: listing.listingId, txHash: listing.hash })).body.data.idempotent, true);
  assert.is(Number(before) - Number(await eurc(ctx.organiser.wallet!)), 5);
  assert.is((await post(ctx, `/api/pools/${id}/list`, { tier: 'LISTED' })).body.code, 'already_listed');

  const up = (await post(ctx, `/api/pools/${id}/list`, { tier: 'FEATURED' })).body.data.listing;
  assert.is(up.amount, '20.00');
  const featured = await post(ctx, `/api/pools/${id}/list/submit`, { listingId: up.listingId, signedXdr: signXdr(ctx.organiser.wallet!, up.xdr).toXDR() });
  assert.is(featured.body.data.pool?.marketplaceVisibility, 'FEATURED', featured.text);
});

test('forged fee payments never list: short, wrong memo, wrong issuer, from another account; another organiser’s listing is 404', async (ctx) => {
  const id = await openPool(ctx);
  const listing = (await post(ctx, `/api/pools/${id}/list`, { tier: 'LISTED' })).body.data.listing;
  const w = ctx.organiser.wallet!;
  const platform = ctx.api.services.ledger.settings.platformAccount;
  const memo = Buffer.from((TransactionBuilder.fromXDR(listing.xdr, w.passphrase) as unknown as { memo: { value: Buffer } }).memo.value).toString('hex');
  const pay = async (o: { amount?: string; memoHash?: string; asset?: Asset; from?: Keypair }) => {
    const from = o.from ?? w.keypair;
    const account = await w.horizon.loadAccount(from.publicKey());
    const tx = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: w.passphrase })
      .addOperation(Operation.payment({ destination: platform, asset: o.asset ?? ctx.api.services.ledger.asset, amount: o.amount ?? '5' }))
      .addMemo(Memo.hash(o.memoHash ?? memo))
      .setTimeout(300)
      .build();
    tx.sign(from);
    return tx.toXDR();
  };
  const stranger = await ctx.api.user(ctx.tenant, { wallet: true });
  for (const [what, xdr] of [
    ['short', await pay({ amount: '4.99' })],
    ['memo', await pay({ memoHash: 'ab'.repeat(32) })],
    ['issuer', await pay({ asset: new Asset('EURC', Keypair.random().publicKey()) })],
    ['another account', await pay({ from: stranger.wallet!.keypair })],
  ] as const) {
    const res = await post(ctx, `/api/pools/${id}/list/submit`, { listingId: listing.listingId, signedXdr: xdr });
    assert.is(res.body.code, 'payment_mismatch', `${what}: ${res.text}`);
  }
  assert.is((await post(ctx, `/api/pools/${id}/list/submit`, { listingId: listing.listingId, txHash: 'ab'.repeat(32) })).body.data.pending, true);
  const other = await ctx.api.user(ctx.tenant, { role: 'organiser' });
  assert.is((await post(ctx, `/api/pools/${id}/list/submit`, { listingId: listing.listingId, txHash: listing.hash }, other)).status, 404);
  assert.is((await post(ctx, `/api/pools/${id}/list`, { tier: 'LISTED' }, other)).status, 404);
  const view = await ctx.api.call('GET', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.is(view.body.data.marketplaceVisibility, 'PRIVATE');
});

test('delist within the window refunds the fee on the ledger (refund answered, the money comes back, recorded once); a free tenant lists at once and refunds nothing', async (ctx) => {
  const id = await openPool(ctx);
  const listing = (await post(ctx, `/api/pools/${id}/list`, { tier: 'LISTED' })).body.data.listing;
  assert.is((await post(ctx, `/api/pools/${id}/list/submit`, { listingId: listing.listingId, signedXdr: signXdr(ctx.organiser.wallet!, listing.xdr).toXDR() })).body.data.listed, true);
  const before = Number(await eurc(ctx.organiser.wallet!));
  const stopRefunds = (await import('@cagnotte/command-api')).startListingRefunds(ctx.api.services, new (await import('@cagnotte/infra')).EscrowLedger(ctx.api.services.ledger));
  try {
    const delist = await ctx.api.call('PATCH', `/api/pools/${id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { marketplaceVisibility: 'PRIVATE' } });
    assert.is(delist.status, 200, delist.text);
    assert.equal(delist.body.data.refund, { amount: '5.00', source: listing.hash });
    await eventually(async () => Number(await eurc(ctx.organiser.wallet!)) === before + 5, 'the fee paid back on the ledger', 20_000);
    await eventually(async () => (await ctx.api.services.store.readStream(`pool-${id}`)).some((e) => e.type === 'PoolListingFeeRefunded'), 'the refund recorded', 20_000);
    assert.is(Number(await eurc(ctx.organiser.wallet!)), before + 5, 'paid back once');
  } finally {
    await stopRefunds();
  }
  const free = (await ctx.api.tenant()).slug;
  const org = await ctx.api.user(free, { role: 'organiser' });
  const created = await ctx.api.call('POST', '/api/pools', { token: org.token, tenant: free, body: { type: 'GROUPS', title: 'Free', config: { units: [{ id: 'u', label: 'U', price: '1' }] } } });
  await ctx.api.call('POST', `/api/pools/${created.body.data.id}/publish`, { token: org.token, tenant: free });
  const listed = await ctx.api.call('POST', `/api/pools/${created.body.data.id}/list`, { token: org.token, tenant: free, body: { tier: 'FEATURED' } });
  assert.is(listed.body.data.listed, true, listed.text);
  const delisted = await ctx.api.call('PATCH', `/api/pools/${created.body.data.id}`, { token: org.token, tenant: free, body: { marketplaceVisibility: 'PRIVATE' } });
  assert.is(delisted.body.data.refund, null);
});

test.run();
