import { BASE_FEE, Operation, TransactionBuilder, type Keypair } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { sandboxKeys } from '@cagnotte/infra';
import { startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * The escrow's guarantees, tried on the ledger itself: the platform alone cannot move a buyer's deposit, nor can
 * the organiser alone; the buyer cannot take it back before `reclaimAfter`. (The settlement's lock, release and
 * recovery, and the refusals after a lock, are in escrow.e2e.spec.ts.)
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
}

const test = suite<Ctx>('escrow guard on the ledger');
test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser' });
});
test.after(async (ctx) => ctx.api.stop());

const codesOf = async (submit: () => Promise<unknown>): Promise<unknown> => {
  try {
    await submit();
  } catch (e) {
    return (e as { response?: { data?: { extras?: { result_codes?: unknown } } } }).response?.data?.extras?.result_codes;
  }
  return 'accepted';
};

test('a paid deposit: the platform alone and the organiser alone are refused (tx_bad_auth), the buyer before reclaimAfter too (tx_too_early); both cosigners together could claim it into the escrow', async (ctx) => {
  const call = (user: TestUser, method: string, path: string, body?: unknown) => ctx.api.call(method, path, { token: user.token, tenant: ctx.tenant, body });
  const created = await call(ctx.organiser, 'POST', '/api/pools', { type: 'GROUPS', title: 'Guard', config: { units: [{ id: 'u', label: 'U', price: '7' }] } });
  const poolId = created.body.data.id as string;
  assert.is((await call(ctx.organiser, 'POST', `/api/pools/${poolId}/publish`)).status, 200);
  const buyer = await ctx.api.user(ctx.tenant, { wallet: true });
  const r = await call(buyer, 'POST', `/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'u', quantity: 1 }] });
  assert.is(r.status, 201, r.text);
  const t = (await call(buyer, 'GET', `/api/pools/${poolId}/terms`)).body.data;
  const signed = (await call(buyer, 'POST', `/api/pools/${poolId}/reservations/${r.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash })).body.data;
  await buyer.wallet!.horizon.submitTransaction(signXdr(buyer.wallet!, signed.payment.xdr));
  assert.is((await call(buyer, 'POST', `/api/pools/${poolId}/reservations/${r.body.data.id}/pay`, { txHash: signed.payment.hash })).body.data.paid, true);

  const horizon = buyer.wallet!.horizon;
  const passphrase = buyer.wallet!.passphrase;
  const escrow = signed.payment.escrowAccount as string;
  const platform = sandboxKeys(passphrase).platform;
  const claimBy = async (payer: Keypair) => {
    const source = await horizon.loadAccount(payer.publicKey());
    const tx = new TransactionBuilder(source, { fee: String(Number(BASE_FEE) * 2), networkPassphrase: passphrase })
      .addOperation(Operation.claimClaimableBalance({ balanceId: signed.payment.balanceId, source: escrow }))
      .setTimeout(60)
      .build();
    tx.sign(payer);
    return codesOf(() => horizon.submitTransaction(tx));
  };
  // The escrow's own signature is missing in both: weight 1 of the 2 its thresholds need (core answers the
  // operation's missing signatures as tx_bad_auth, or op_bad_auth inside tx_failed).
  const refused = (codes: unknown) =>
    JSON.stringify(codes) === JSON.stringify({ transaction: 'tx_bad_auth' }) || JSON.stringify(codes) === JSON.stringify({ transaction: 'tx_failed', operations: ['op_bad_auth'] });
  const byPlatform = await claimBy(platform);
  assert.ok(refused(byPlatform), `the platform alone cannot move the deposit: ${JSON.stringify(byPlatform)}`);
  const byOrganiser = await claimBy(ctx.organiser.wallet!.keypair);
  assert.ok(refused(byOrganiser), `nor the organiser alone: ${JSON.stringify(byOrganiser)}`);

  const reclaim = signXdr(buyer.wallet!, signed.reclaim.xdr);
  assert.equal(await codesOf(() => horizon.submitTransaction(reclaim)), { transaction: 'tx_too_early' }, 'the buyer cannot reclaim before reclaimAfter');

  const stillThere = await horizon.claimableBalances().claimableBalance(signed.payment.balanceId).call();
  assert.is(stillThere.amount, '7.0000000', 'the deposit is untouched');
});

test.run();
