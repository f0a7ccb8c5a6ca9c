import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Keypair } from '@stellar/stellar-sdk';
import { eventually, startApi, type ApiResponse, type TestApi, type TestUser } from './harness';
import { fundedWallet, signXdr, type Wallet } from './wallet';

/**
 * /v1/accounts as a partner's back end drives it with an API key: its end customers created without a password, listed
 * newest first, updated, their wallets linked non-custodially (the holder signs the challenge, the key never leaves
 * them), balances read from the ledger, requirements Stripe-like; another tenant's account and the other mode's are a
 * 404; the public events reach the feed.
 */

type Envelope = { success: boolean; data: any; code?: string; param?: string; errors?: Record<string, string[]> };

interface Ctx {
  api: TestApi;
  tenant: string;
  ana: TestUser;
  key: string;
  liveKey: string;
  otherKey: string;
  buyer: TestUser;
}

const test = suite<Ctx>('e2e: /v1/accounts');

const as =
  (ctx: Ctx, secret: string) =>
  (method: string, path: string, body?: unknown): Promise<ApiResponse<Envelope>> =>
    ctx.api.call<Envelope>(method, path, { headers: { authorization: `Bearer ${secret}` }, ...(body !== undefined ? { body } : {}) });

const email = () => `${Math.random().toString(36).slice(2, 10)}@customer.test`;

test.before(async (ctx) => {
  ctx.api = await startApi();
  const t = await ctx.api.tenant();
  ctx.tenant = t.slug;
  ctx.ana = await ctx.api.user(t.slug, { role: 'organiser', wallet: false, name: 'Ana' });
  ctx.buyer = await ctx.api.user(t.slug, { name: 'Buyer' });
  ctx.key = (await ctx.api.apiKey(ctx.ana)).secret;
  ctx.liveKey = (await ctx.api.apiKey(ctx.ana, { mode: 'live' })).secret;
  const other = await ctx.api.tenant();
  const carla = await ctx.api.user(other.slug, { role: 'organiser', wallet: false, name: 'Carla' });
  ctx.otherKey = (await ctx.api.apiKey(carla)).secret;
});

test.after(async (ctx) => ctx.api.stop());

/** The holder's side of a wallet link: ask a challenge, sign its hash with the wallet's own key, send the signature. */
const link = async (ctx: Ctx, id: string, wallet: Wallet | Keypair) => {
  const keypair = wallet instanceof Keypair ? wallet : wallet.keypair;
  const ch = await as(ctx, ctx.key)('POST', `/v1/accounts/${id}/wallet/challenge`, { publicKey: keypair.publicKey() });
  assert.is(ch.status, 200, JSON.stringify(ch.body));
  assert.is(ch.body.data.object, 'wallet_challenge');
  const signature = Buffer.from(keypair.sign(Buffer.from(ch.body.data.hash, 'hex'))).toString('base64');
  return { challenge: ch.body.data, res: await as(ctx, ctx.key)('POST', `/v1/accounts/${id}/wallet`, { publicKey: keypair.publicKey(), signature }) };
};

test('a key creates an individual account: no wallet yet, zero balances, the wallet currently due; it reads back and lists newest first', async (ctx) => {
  const mail = email();
  const res = await as(ctx, ctx.key)('POST', '/v1/accounts', { email: mail, name: 'Zoé', type: 'individual', metadata: { crm: 'C-1' } });
  assert.is(res.status, 200, res.text);
  const a = res.body.data;
  assert.match(a.id, /^acct_[0-9a-f]{32}$/);
  assert.equal(
    [a.object, a.livemode, a.email, a.name, a.type, a.country, a.wallet, a.business, a.metadata],
    ['account', false, mail, 'Zoé', 'individual', 'FR', null, null, { crm: 'C-1' }],
  );
  assert.equal(a.balances, [{ currency: 'EUR', available: '0.00', pending: '0.00', inEscrow: '0.00' }]);
  assert.equal(a.requirements, { currentlyDue: ['wallet'], pendingVerification: [], disabledReason: 'requirements.wallet_missing' });
  assert.ok(Date.parse(a.created) > 0);

  const got = await as(ctx, ctx.key)('GET', `/v1/accounts/${a.id}`);
  assert.is(got.status, 200, got.text);
  assert.equal(got.body.data, a);

  const second = (await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'individual' })).body.data;
  assert.is(second.name, null);
  const page = await as(ctx, ctx.key)('GET', '/v1/accounts?limit=1');
  assert.is(page.status, 200, page.text);
  assert.equal([page.body.data.object, page.body.data.url, page.body.data.items.map((i: { id: string }) => i.id), page.body.data.hasMore], ['list', '/v1/accounts', [second.id], true]);
  const next = await as(ctx, ctx.key)('GET', `/v1/accounts?limit=1&startingAfter=${second.id}`);
  assert.equal(next.body.data.items.map((i: { id: string }) => i.id), [a.id]);
  const back = await as(ctx, ctx.key)('GET', `/v1/accounts?limit=1&endingBefore=${a.id}`);
  assert.equal(back.body.data.items.map((i: { id: string }) => i.id), [second.id]);
  const bad = await as(ctx, ctx.key)('GET', `/v1/accounts?startingAfter=acct_${'0'.repeat(32)}`);
  assert.equal([bad.status, bad.body.param], [400, 'startingAfter']);

  // A retry with the same Idempotency-Key is the same account, not a second one (nor an email_taken).
  const body = { email: email(), type: 'individual' };
  const headers = { authorization: `Bearer ${ctx.key}`, 'idempotency-key': `acct-${Date.now()}` };
  const first = await ctx.api.call<Envelope>('POST', '/v1/accounts', { headers, body });
  const replay = await ctx.api.call<Envelope>('POST', '/v1/accounts', { headers, body });
  assert.equal([replay.status, replay.headers.get('idempotent-replayed'), replay.body.data.id], [200, 'true', first.body.data.id]);

  // Its email is taken in the tenant, as a signup's would be; the account has no password to sign in with.
  const dup = await as(ctx, ctx.key)('POST', '/v1/accounts', { email: mail.toUpperCase(), type: 'individual' });
  assert.equal([dup.status, dup.body.code], [409, 'email_taken']);
  const login = await ctx.api.call('POST', '/api/auth/login/password', { tenant: ctx.tenant, body: { email: mail, password: 'correct horse battery' } });
  assert.is(login.status, 401, login.text);
});

test('a business account: its DAC7 identity recorded when given, refused when incomplete, currently due when absent', async (ctx) => {
  const ok = await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), name: 'Acme', type: 'business', business: { companyName: 'Acme SAS', siret: '73282932000074' } });
  assert.is(ok.status, 200, ok.text);
  assert.equal([ok.body.data.type, ok.body.data.business], ['business', { companyName: 'Acme SAS', siret: '73282932000074', taxCountry: 'FR', taxId: null, rccm: null }]);
  assert.equal(ok.body.data.requirements.currentlyDue, ['wallet']);
  const incomplete = await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'business', business: { companyName: 'Acme SAS' } });
  assert.equal([incomplete.status, incomplete.body.code, incomplete.body.param], [400, 'business_identity_invalid', 'siret']);
  const missing = await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'business' });
  assert.equal(missing.body.data.requirements.currentlyDue, ['business.companyName', 'business.siret', 'wallet']);
  // Given later: recorded once.
  const given = await as(ctx, ctx.key)('POST', `/v1/accounts/${missing.body.data.id}`, { business: { companyName: 'Later SARL', taxCountry: 'SN', rccm: 'SN-DKR-2026-B-1' } });
  assert.is(given.status, 200, given.text);
  assert.equal([given.body.data.business?.companyName, given.body.data.requirements.currentlyDue], ['Later SARL', ['wallet']]);
  const twice = await as(ctx, ctx.key)('POST', `/v1/accounts/${missing.body.data.id}`, { business: { companyName: 'Other', siret: '73282932000074' } });
  assert.equal([twice.status, twice.body.code], [400, 'business_identity_recorded']);
  const wrong = await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'individual', business: { companyName: 'X', siret: '73282932000074' } });
  assert.equal([wrong.status, wrong.body.param], [400, 'business']);
});

test('an update renames the account and merges its metadata ("" removes a key)', async (ctx) => {
  const a = (await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), name: 'Old', type: 'individual', metadata: { a: '1', b: '2' } })).body.data;
  const res = await as(ctx, ctx.key)('POST', `/v1/accounts/${a.id}`, { name: 'New', metadata: { a: '', c: '3' } });
  assert.is(res.status, 200, res.text);
  assert.equal([res.body.data.name, res.body.data.metadata], ['New', { b: '2', c: '3' }]);
  assert.equal((await as(ctx, ctx.key)('GET', `/v1/accounts/${a.id}`)).body.data.metadata, { b: '2', c: '3' });
});

test('the holder links a wallet by signing the challenge: available is the ledger’s balance, nothing is due; a challenge works once, for its key only', async (ctx) => {
  const a = (await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'individual' })).body.data;
  const wallet = await fundedWallet(ctx.api.url, ctx.api.services);
  const { challenge, res } = await link(ctx, a.id, wallet);
  assert.is(res.status, 200, res.text);
  assert.equal(res.body.data.wallet, { publicKey: wallet.keypair.publicKey() });
  assert.equal(res.body.data.balances, [{ currency: 'EUR', available: '1000.00', pending: '0.00', inEscrow: '0.00' }]);
  assert.equal(res.body.data.requirements, { currentlyDue: [], pendingVerification: [], disabledReason: null });
  assert.equal((await as(ctx, ctx.key)('GET', `/v1/accounts/${a.id}`)).body.data.wallet, { publicKey: wallet.keypair.publicKey() });

  // The same signature again: the challenge is spent.
  const again = await as(ctx, ctx.key)('POST', `/v1/accounts/${a.id}/wallet`, {
    publicKey: wallet.keypair.publicKey(),
    signature: Buffer.from(wallet.keypair.sign(Buffer.from(challenge.hash, 'hex'))).toString('base64'),
  });
  assert.equal([again.status, again.body.code], [400, 'invalid_challenge']);
  // A signature by another key than the wallet's.
  const ch = (await as(ctx, ctx.key)('POST', `/v1/accounts/${a.id}/wallet/challenge`, { publicKey: wallet.keypair.publicKey() })).body.data;
  const forged = await as(ctx, ctx.key)('POST', `/v1/accounts/${a.id}/wallet`, { publicKey: wallet.keypair.publicKey(), signature: Buffer.from(Keypair.random().sign(Buffer.from(ch.hash, 'hex'))).toString('base64') });
  assert.equal([forged.status, forged.body.code], [400, 'challenge_not_signed']);

  // A wallet that exists but cannot hold the stablecoin yet: pending verification.
  const b = (await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'individual' })).body.data;
  const bare = Keypair.random();
  await wallet.horizon.friendbot(bare.publicKey()).call();
  const linked = (await link(ctx, b.id, bare)).res;
  assert.is(linked.status, 200, linked.text);
  assert.equal(linked.body.data.requirements, { currentlyDue: [], pendingVerification: ['wallet.trustline'], disabledReason: 'requirements.pending_verification' });
});

test('another tenant’s account, the other mode’s, and a malformed id are each a 404; a buyer’s session is a 403', async (ctx) => {
  const a = (await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), type: 'individual' })).body.data;
  for (const [secret, path] of [
    [ctx.otherKey, `/v1/accounts/${a.id}`],
    [ctx.liveKey, `/v1/accounts/${a.id}`],
    [ctx.key, '/v1/accounts/acct_nope'],
  ] as const) {
    const res = await as(ctx, secret)('GET', path);
    assert.is(res.status, 404, `${path}: ${res.text}`);
  }
  assert.equal([(await as(ctx, ctx.otherKey)('POST', `/v1/accounts/${a.id}`, { name: 'x' })).status, (await as(ctx, ctx.liveKey)('POST', `/v1/accounts/${a.id}`, { name: 'x' })).status], [404, 404]);
  const live = await as(ctx, ctx.liveKey)('GET', '/v1/accounts?limit=100');
  assert.not.ok(live.body.data.items.some((i: { id: string }) => i.id === a.id), 'a live key does not list test accounts');
  const mine = await as(ctx, ctx.otherKey)('GET', '/v1/accounts?limit=100');
  assert.not.ok(mine.body.data.items.some((i: { id: string }) => i.id === a.id), 'another tenant does not list them');
  const buyer = await ctx.api.call<Envelope>('GET', '/v1/accounts', { token: ctx.buyer.token, tenant: ctx.tenant });
  assert.equal([buyer.status, buyer.body.code], [403, 'organiser_required']);
  // The organiser's own session reaches the same accounts (the key acts as its owner).
  const session = await ctx.api.call<Envelope>('GET', `/v1/accounts/${a.id}`, { token: ctx.ana.token, tenant: ctx.tenant });
  assert.is(session.status, 200, session.text);
});

test('inEscrow: a buyer’s paid deposit in a pool counts until it is released or refunded; available is what the wallet keeps', async (ctx) => {
  const org = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org' });
  const bea = await ctx.api.user(ctx.tenant, { wallet: true, name: 'Bea' });
  const post = (user: TestUser, path: string, body: unknown = {}) =>
    ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': `${Math.random()}`.slice(2) + 'idem' } });
  const created = await post(org, '/api/pools', {
    type: 'GROUPS',
    title: 'Fromages du Jura',
    config: { units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50' }], relais: [{ id: 'r1', name: 'Fromagerie', city: 'Lyon' }] },
  });
  assert.is(created.status, 201, created.text);
  const poolId = created.body.data.id as string;
  assert.is((await post(org, `/api/pools/${poolId}/publish`)).status, 200);
  const placed = await post(bea, `/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' });
  assert.is(placed.status, 201, placed.text);
  const terms = (await ctx.api.call('GET', `/api/pools/${poolId}/terms`, { token: bea.token, tenant: ctx.tenant })).body.data;
  const signed = await post(bea, `/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: terms.version, termsHash: terms.hash });
  assert.is(signed.status, 200, signed.text);
  const paid = await post(bea, `/api/pools/${poolId}/reservations/${placed.body.data.id}/pay`, { signedXdr: signXdr(bea.wallet!, signed.body.data.payment.xdr).toXDR() });
  assert.is(paid.status, 200, paid.text);

  // Bea signed up through /api: her acct_ id is her user id, of the deployment's mode.
  const id = `acct_${bea.id.replace(/-/g, '')}`;
  const account = await eventually(async () => {
    const res = await as(ctx, ctx.key)('GET', `/v1/accounts/${id}`);
    return res.status === 200 && res.body.data.balances[0].inEscrow === '37.00' ? res.body.data : null;
  }, 'the deposit in escrow');
  assert.equal([account.livemode, account.wallet, account.balances[0].available], [false, { publicKey: bea.wallet!.keypair.publicKey() }, '963.00']);
});

test('account.created, account.updated and account.wallet_linked reach the feed', async (ctx) => {
  const a = (await as(ctx, ctx.key)('POST', '/v1/accounts', { email: email(), name: 'Feed', type: 'individual' })).body.data;
  await as(ctx, ctx.key)('POST', `/v1/accounts/${a.id}`, { metadata: { k: 'v' } });
  await link(ctx, a.id, await fundedWallet(ctx.api.url, ctx.api.services));
  const events = await eventually(async () => {
    const res = await as(ctx, ctx.key)('GET', `/v1/events?subject=${a.id}`);
    const items = res.body.data?.items ?? [];
    return items.length >= 3 ? items : null;
  }, 'the account’s public events');
  assert.equal(
    events.map((e: { type: string }) => e.type),
    ['account.created', 'account.updated', 'account.wallet_linked'],
  );
  assert.equal(events[0].data.accountId, a.id);
  assert.is(events[0].data.livemode, false);
  assert.match(events[0].data.createdVia, /^key_[0-9a-f]{32}$/);
  assert.equal(events[1].data.fields, ['metadata']);
  assert.equal([events[1].data.livemode, events[2].data.livemode, events[2].data.accountId], [false, false, a.id]);
  // A live key reads live events only: none of these.
  const live = await as(ctx, ctx.liveKey)('GET', `/v1/events?subject=${a.id}`);
  assert.equal(live.body.data?.items ?? [], []);
});

test.run();
