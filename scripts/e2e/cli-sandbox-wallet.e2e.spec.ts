import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { BASE_FEE, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { ownDatabase, runCliWith, startApi, type TestApi } from './harness';
import { horizonOf } from './wallet';

/**
 * `pnpm cli sandbox wallet create|link|sign|show` as a newcomer runs them beside a service: a wallet made, funded
 * and trusting the stablecoin; linked to an account through the service's own challenge (the API then shows it);
 * transactions signed and submitted with it; and every wrong use answered in one line with exit 2 (usage) or 1
 * (refused by the ledger), never a stack trace.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
}
const test = suite<Ctx>('cli: sandbox wallet create, link, sign, show');
const cli = (...args: string[]) => runCliWith({}, ...args);
const json = (out: string) => JSON.parse(out) as Record<string, any>;

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
});
test.after(async (ctx) => ctx.api.stop());

test('create --fund 250: a new account holding 10,000 XLM less a fee and 250 EURC, its secret printed once', async (ctx) => {
  const r = await cli('sandbox', 'wallet', 'create', '--fund', '250');
  assert.is(r.code, 0, r.err);
  const w = json(r.out);
  assert.match(w.publicKey, /^G[A-Z2-7]{55}$/);
  assert.is(Keypair.fromSecret(w.secret).publicKey(), w.publicKey);
  assert.equal(w.balances, { EURC: '250.0000000', XLM: '9999.9999900' });
  assert.equal(w.asset, { code: 'EURC', issuer: ctx.api.services.ledger.asset.getIssuer() });
  // The service's own Horizon shows the same account.
  const seen = await horizonOf(ctx.api.url).loadAccount(w.publicKey);
  assert.ok(seen.balances.some((b) => 'asset_code' in b && b.asset_code === 'EURC' && b.balance === '250.0000000'));
  // Without --fund: the friendbot's 1,000; --fund 0: the trustline alone.
  assert.is(json((await cli('sandbox', 'wallet', 'create')).out).balances.EURC, '1000.0000000');
  assert.is(json((await cli('sandbox', 'wallet', 'create', '--fund', '0')).out).balances.EURC, '0.0000000');
});

test('create refuses a bad or oversized --fund in one line, exit 2', async () => {
  for (const fund of ['-5', '12.345678901', 'lots', '2000000']) {
    const r = await cli('sandbox', 'wallet', 'create', `--fund=${fund}`);
    assert.is(r.code, 2, `${fund}: ${r.out}${r.err}`);
    assert.match(r.err, /^error: --fund /);
    assert.not.match(r.err, /\n\s+at /, 'no stack trace');
  }
});

test('link: the service’s challenge signed with the wallet’s key links it; /api/auth/me shows it', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant, { name: 'Lia' });
  const w = json((await cli('sandbox', 'wallet', 'create', '--fund', '10')).out);
  const linked = await runCliWith({ WALLET_SECRET: w.secret }, 'sandbox', 'wallet', 'link', '--tenant', ctx.tenant, '--email', user.email);
  assert.is(linked.code, 0, linked.err);
  assert.equal(json(linked.out), { userId: user.id, email: user.email, tenant: ctx.tenant, ledgerAccount: w.publicKey });
  const me = await ctx.api.call('GET', '/api/auth/me', { token: user.token });
  assert.is(me.body.data.wallet.ledgerAccount, w.publicKey, me.text);
  // The account's stream records the link, by the operator.
  const events = await ctx.api.services.store.readStream(`account-${user.id}`);
  const link = events.find((e) => e.type === 'LedgerAccountLinked');
  assert.ok(link, events.map((e) => e.type).join(','));
  assert.is(link!.metadata.actor.kind, 'operator');
});

test('link refuses what it cannot do, in one line: no secret, a bad secret, an unknown user or tenant (exit 2)', async (ctx) => {
  const user = await ctx.api.user(ctx.tenant);
  const cases: Array<[Record<string, string>, string[], RegExp]> = [
    [{}, ['--tenant', ctx.tenant, '--email', user.email], /needs the wallet’s secret/],
    [{ WALLET_SECRET: 'SNOTASECRET' }, ['--tenant', ctx.tenant, '--email', user.email], /not a Stellar secret seed/],
    [{ WALLET_SECRET: Keypair.random().secret() }, ['--tenant', ctx.tenant, '--email', `nobody-${randomUUID()}@example.test`], /no user /],
    [{ WALLET_SECRET: Keypair.random().secret() }, ['--tenant', `no-${randomUUID().slice(0, 8)}`, '--email', user.email], /no tenant /],
    [{ WALLET_SECRET: Keypair.random().secret() }, ['--email', user.email], /needs --tenant and --email/],
  ];
  for (const [env, args, message] of cases) {
    const r = await runCliWith({ WALLET_SECRET: '', ...env }, 'sandbox', 'wallet', 'link', ...args);
    assert.is(r.code, 2, `${args.join(' ')}: ${r.out}${r.err}`);
    assert.match(r.err, message);
  }
});

test('sign: signs envelopes of this network; --submit sends them in order; a refused one is exit 1 with its codes', async (ctx) => {
  const from = json((await cli('sandbox', 'wallet', 'create', '--fund', '40')).out);
  const to = json((await cli('sandbox', 'wallet', 'create', '--fund', '0')).out);
  const horizon = horizonOf(ctx.api.url);
  const source = await horizon.loadAccount(from.publicKey);
  const payment = (amount: string, sequenceFrom = source) =>
    new TransactionBuilder(sequenceFrom, { fee: BASE_FEE, networkPassphrase: ctx.api.services.config.STELLAR_NETWORK_PASSPHRASE })
      .addOperation(Operation.payment({ destination: to.publicKey, asset: ctx.api.services.ledger.asset, amount }))
      .setTimeout(300)
      .build();
  const first = payment('15');
  const second = payment('5');
  const signedOnly = await runCliWith({ WALLET_SECRET: from.secret }, 'sandbox', 'wallet', 'sign', first.toXDR());
  assert.is(signedOnly.code, 0, signedOnly.err);
  const out = json(signedOnly.out);
  assert.is(out.signer, from.publicKey);
  assert.is(out.transactions[0].hash, Buffer.from(first.hash()).toString('hex'));
  assert.ok(TransactionBuilder.fromXDR(out.transactions[0].xdr, ctx.api.services.config.STELLAR_NETWORK_PASSPHRASE).signatures.length === 1);

  const submitted = await runCliWith({ WALLET_SECRET: from.secret }, 'sandbox', 'wallet', 'sign', '--submit', first.toXDR(), second.toXDR());
  assert.is(submitted.code, 0, submitted.err);
  assert.equal(json(submitted.out).transactions.map((t: { ledger?: number }) => typeof t.ledger), ['number', 'number']);
  assert.is(json((await cli('sandbox', 'wallet', 'show', to.publicKey)).out).balances.EURC, '20.0000000');

  // The same envelope again is the ledger's answer to it (Horizon's way); more than the account holds is refused:
  // exit 1 with the ledger's codes on stderr, and nothing after it is sent.
  const replay = await runCliWith({ WALLET_SECRET: from.secret }, 'sandbox', 'wallet', 'sign', '--submit', first.toXDR());
  assert.is(replay.code, 0, replay.err);
  const next = await horizon.loadAccount(from.publicKey);
  const tooMuch = payment('1000', next);
  const after = payment('1', next);
  const refused = await runCliWith({ WALLET_SECRET: from.secret }, 'sandbox', 'wallet', 'sign', '--submit', tooMuch.toXDR(), after.toXDR());
  assert.is(refused.code, 1, refused.out + refused.err);
  assert.is(json(refused.err).code, 'ledger_rejected');
  assert.equal(json(refused.err).resultCodes, { transaction: 'tx_failed', operations: ['op_underfunded'] });
  assert.is(json(refused.out).transactions.length, 1, 'the second was not sent');
  assert.is(json((await cli('sandbox', 'wallet', 'show', to.publicKey)).out).balances.EURC, '20.0000000');

  const garbage = await runCliWith({ WALLET_SECRET: from.secret }, 'sandbox', 'wallet', 'sign', 'not-an-envelope');
  assert.is(garbage.code, 2);
  assert.match(garbage.err, /not a transaction envelope of this network/);
});

test('show: an unknown account or a bad key is exit 2; the help names every verb; off the sandbox network it refuses', async () => {
  assert.is((await cli('sandbox', 'wallet', 'show', Keypair.random().publicKey())).code, 2);
  assert.is((await cli('sandbox', 'wallet', 'show', 'GNOPE')).code, 2);
  const help = await cli('sandbox', 'wallet', '--help');
  assert.is(help.code, 0);
  for (const verb of ['create', 'link', 'sign', 'show']) assert.match(help.out, `sandbox wallet ${verb}`);
  const typo = await cli('sandbox', 'wallet', 'craete');
  assert.is(typo.code, 2);
  assert.match(typo.err, /did you mean 'sandbox wallet create'/);
  const horizon = await runCliWith(
    { LEDGER_MODE: 'horizon', HORIZON_URL: 'http://127.0.0.1:9/', STELLAR_ASSET_ISSUER: Keypair.random().publicKey(), PLATFORM_ACCOUNT: Keypair.random().publicKey(), LEDGER_SIGNING_SECRET: Keypair.random().secret(), PLATFORM_SECRET: Keypair.random().secret(), ANCHOR_SIGNING_SECRET: Keypair.random().secret() },
    'sandbox', 'wallet', 'create',
  );
  assert.is(horizon.code, 2, horizon.out + horizon.err);
  assert.match(horizon.err, /embedded sandbox network only/);
});

test('after the sandbox clock moved 30 days, create and link still work (their transactions are bound by the sandbox clock)', async () => {
  // A network, a key prefix and a database of this test's own: the advance moves no other spec's ledger or timers,
  // and the CLI's catch-up under this prefix applies no other spec's events.
  const own = {
    STELLAR_NETWORK_PASSPHRASE: `Cagnotte wallet cli e2e ${randomUUID()}`,
    REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX ?? ''}walletclock${randomUUID().slice(0, 8)}:`,
    DATABASE_URL: await ownDatabase('walletclock'),
  };
  const api = await startApi(own);
  try {
    const tenant = (await api.tenant()).slug;
    const user = await api.user(tenant, { name: 'Tom' });
    const moved = await runCliWith(own, 'sandbox', 'clock', 'advance', '30d');
    assert.is(moved.code, 0, moved.err);
    assert.is(JSON.parse(moved.out).offsetSeconds, 30 * 86_400);
    const created = await runCliWith(own, 'sandbox', 'wallet', 'create', '--fund', '5');
    assert.is(created.code, 0, created.err);
    const w = json(created.out);
    assert.is(w.balances.EURC, '5.0000000');
    const linked = await runCliWith({ ...own, WALLET_SECRET: w.secret }, 'sandbox', 'wallet', 'link', '--tenant', tenant, '--email', user.email);
    assert.is(linked.code, 0, linked.err);
    assert.is(json(linked.out).ledgerAccount, w.publicKey);
  } finally {
    await api.stop();
  }
});

test.run();
