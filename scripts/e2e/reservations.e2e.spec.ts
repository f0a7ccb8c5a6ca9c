import { randomUUID } from 'node:crypto';
import { Asset, BASE_FEE, Claimant, Keypair, Memo, Operation, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { EscrowLedger } from '@cagnotte/infra';
import { expireReservation, reconcileAll } from '@cagnotte/command-api';
import { eventually, runCli, startApi, type TestApi, type TestUser } from './harness';
import { signXdr, type Wallet } from './wallet';

const cli = runCli;

/**
 * Reserve, sign, pay end to end on the embedded sandbox Stellar network, the way a partner front end does it:
 * the buyer's keys stay here, the SDK signs, transactions go through Horizon's HTTP API or through `signedXdr`.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
  escrow: EscrowLedger;
}

const test = suite<Ctx>('reservations: reserve, sign, pay on the ledger');

test.before(async (ctx) => {
  ctx.api = await startApi();
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Anne' });
  ctx.escrow = new EscrowLedger(ctx.api.services.ledger);
});
test.after(async (ctx) => ctx.api.stop());

const as = (ctx: Ctx, user: TestUser) => ({
  post: (path: string, body: unknown = {}, headers: Record<string, string> = {}) => ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body, headers }),
  get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: ctx.tenant }),
});

const groups = (quantity = 5) => ({
  type: 'GROUPS',
  title: 'Fromages du Jura',
  config: {
    units: [
      { id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity, maxPerBuyer: 4, tiers: [{ minQuantity: 4, price: '16.00' }] },
      { id: 'morbier', label: 'Morbier', price: '9.90' },
    ],
    relais: [{ id: 'r1', name: 'Fromagerie', city: 'Lyon' }],
  },
});

const openPool = async (ctx: Ctx, body: Record<string, unknown> = groups()) => {
  const created = await as(ctx, ctx.organiser).post('/api/pools', body);
  assert.is(created.status, 201, created.text);
  const published = await as(ctx, ctx.organiser).post(`/api/pools/${created.body.data.id}/publish`);
  assert.is(published.status, 200, published.text);
  return published.body.data as { id: string };
};

const buyer = async (ctx: Ctx, name = 'Bea') => ctx.api.user(ctx.tenant, { wallet: true, name });

const terms = async (ctx: Ctx, user: TestUser, poolId: string) => {
  const t = await as(ctx, user).get(`/api/pools/${poolId}/terms`);
  assert.is(t.status, 200, t.text);
  return { acceptTerms: true, termsVersion: t.body.data.version, termsHash: t.body.data.hash };
};

const reserve = async (ctx: Ctx, user: TestUser, poolId: string, body: unknown) => {
  const res = await as(ctx, user).post(`/api/pools/${poolId}/reservations`, body, { 'Idempotency-Key': randomUUID() });
  return res;
};

const sign = async (ctx: Ctx, user: TestUser, poolId: string, reservationId: string) => {
  const res = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${reservationId}/sign`, await terms(ctx, user, poolId));
  assert.is(res.status, 200, res.text);
  return res.body.data as { payment: { xdr: string; hash: string; balanceId: string; amount: string; escrowAccount: string }; reclaim: { xdr: string; validAfter: string }; reservation: Record<string, unknown> };
};

const pay = (ctx: Ctx, user: TestUser, poolId: string, reservationId: string, body: unknown) => as(ctx, user).post(`/api/pools/${poolId}/reservations/${reservationId}/pay`, body);

test('GROUPS: reserve → sign → the buyer submits the deposit → pay with txHash → PAID, and the escrow holds it on the ledger', async (ctx) => {
  const pool = await openPool(ctx);
  const bea = await buyer(ctx);
  const placed = await reserve(ctx, bea, pool.id, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' });
  assert.is(placed.status, 201, placed.text);
  const r = placed.body.data;
  assert.is(r.status, 'PENDING');
  assert.is(r.amount, '37.00');
  assert.equal(r.actions, ['sign', 'cancel']);

  const signed = await sign(ctx, bea, pool.id, r.id);
  assert.is(signed.payment.amount, '37.00');
  assert.is(signed.reservation.status, 'PENDING');
  assert.equal(signed.reservation.actions, ['pay', 'cancel']);
  const tx = signXdr(bea.wallet!, signed.payment.xdr);
  await bea.wallet!.horizon.submitTransaction(tx);

  const paid = await pay(ctx, bea, pool.id, r.id, { txHash: signed.payment.hash });
  assert.is(paid.status, 200, paid.text);
  assert.is(paid.body.data.paid, true);
  assert.is(paid.body.data.reservation.status, 'PAID');
  assert.is(paid.body.data.reservation.payment.txHash, signed.payment.hash);
  assert.is(paid.body.data.reservation.payment.balanceId, signed.payment.balanceId);
  assert.not.ok('reclaim' in paid.body.data.reservation, 'the reclaim is never part of a reservation');

  const again = await pay(ctx, bea, pool.id, r.id, { txHash: signed.payment.hash });
  assert.is(again.body.data.idempotent, true);

  // The pool as the buyer reads it, and as a command on it answers: the same members and the buyer's reservation.
  const read = await as(ctx, bea).get(`/api/pools/${pool.id}`);
  assert.equal(read.body.data.myReservations.map((m: { id: string; status: string }) => [m.id, m.status]), [[r.id, 'PAID']]);
  assert.equal(read.body.data.members.map((m: { displayName: string }) => m.displayName), ['Org Anne', 'Bea']);
  const patched = await ctx.api.call('PATCH', `/api/pools/${pool.id}`, { token: ctx.organiser.token, tenant: ctx.tenant, body: { country: 'BE' } });
  const owner = await ctx.api.call('GET', `/api/pools/${pool.id}`, { token: ctx.organiser.token, tenant: ctx.tenant });
  assert.equal(patched.body.data.members, owner.body.data.members, 'a command answers the members its read shows');

  const holdings = await ctx.escrow.holdings(signed.payment.escrowAccount);
  assert.equal(holdings.deposits.map((d) => [d.balanceId, d.amount]), [[signed.payment.balanceId, '37.0000000']]);
  assert.is(holdings.balance, '0.0000000', 'nothing is in the escrow account itself before the release');
});

test('the signedXdr path: the service submits exactly this deposit; FUNDING pledges', async (ctx) => {
  const pool = await openPool(ctx, { type: 'FUNDING', title: 'Four à pain', targetAmount: '500.00', config: { pledge: { min: '5', max: '200' } } });
  const bob = await buyer(ctx, 'Bob');
  assert.is((await reserve(ctx, bob, pool.id, { pledge: '2.00' })).status, 400, 'under the minimum pledge');
  const placed = await reserve(ctx, bob, pool.id, { pledge: '25.5' });
  assert.is(placed.status, 201, placed.text);
  assert.is(placed.body.data.amount, '25.50');
  const signed = await sign(ctx, bob, pool.id, placed.body.data.id);
  const paid = await pay(ctx, bob, pool.id, placed.body.data.id, { signedXdr: signXdr(bob.wallet!, signed.payment.xdr).toXDR() });
  assert.is(paid.status, 200, paid.text);
  assert.is(paid.body.data.paid, true);
  assert.is(paid.body.data.reservation.payment.via, 'signedXdr');
});

/** A deposit built by hand: what a forger would sign. */
const forged = async (w: Wallet, o: { escrow: string; amount: string; memoHash: string; asset: Asset; reclaimAt: number; claimants?: Claimant[] }): Promise<Transaction> => {
  const account = await w.horizon.loadAccount(w.keypair.publicKey());
  const claimants = o.claimants ?? [
    new Claimant(o.escrow, Claimant.predicateBeforeAbsoluteTime(String(o.reclaimAt))),
    new Claimant(w.keypair.publicKey(), Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime(String(o.reclaimAt)))),
  ];
  const tx = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: w.passphrase })
    .addOperation(Operation.createClaimableBalance({ asset: o.asset, amount: o.amount, claimants }))
    .addMemo(Memo.hash(o.memoHash))
    .setTimeout(300)
    .build();
  tx.sign(w.keypair);
  return tx;
};

test('forgeries never mark anything PAID: short, wrong memo, wrong issuer, extra claimant, unconditional escrow, another reservation’s deposit, a plain payment', async (ctx) => {
  const pool = await openPool(ctx);
  const cleo = await buyer(ctx, 'Cleo');
  const placed = await reserve(ctx, cleo, pool.id, { lines: [{ unitId: 'morbier', quantity: 1 }], relaisId: 'r1' });
  const id = placed.body.data.id;
  const signed = await sign(ctx, cleo, pool.id, id);
  const memo = Buffer.from(new (await import('@stellar/stellar-sdk')).Transaction(signed.payment.xdr, cleo.wallet!.passphrase).memo.value as Buffer).toString('hex');
  const reclaimAt = Math.floor(Date.parse(signed.reclaim.validAfter) / 1000);
  const eurc = ctx.api.services.ledger.asset;
  const base = { escrow: signed.payment.escrowAccount, amount: '9.90', memoHash: memo, asset: eurc, reclaimAt };
  const fakeIssuer = Keypair.random().publicKey();
  const cases: Array<[string, Promise<Transaction>]> = [
    ['short', forged(cleo.wallet!, { ...base, amount: '9.89' })],
    ['memo', forged(cleo.wallet!, { ...base, memoHash: 'ab'.repeat(32) })],
    ['issuer', forged(cleo.wallet!, { ...base, asset: new Asset('EURC', fakeIssuer) })],
    ['extra claimant', forged(cleo.wallet!, { ...base, claimants: [new Claimant(base.escrow, Claimant.predicateBeforeAbsoluteTime(String(reclaimAt))), new Claimant(cleo.wallet!.keypair.publicKey(), Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime(String(reclaimAt)))), new Claimant(Keypair.random().publicKey())] })],
    ['unconditional', forged(cleo.wallet!, { ...base, claimants: [new Claimant(base.escrow), new Claimant(cleo.wallet!.keypair.publicKey())] })],
  ];
  for (const [what, txp] of cases) {
    const res = await pay(ctx, cleo, pool.id, id, { signedXdr: (await txp).toXDR() });
    assert.is(res.status, 400, `${what}: ${res.text}`);
    assert.is(res.body.code, 'payment_mismatch', what);
  }
  // Submitted by the forger, then offered as a hash: refused too, and the money is not counted.
  const short = await forged(cleo.wallet!, { ...base, amount: '1.00' });
  await cleo.wallet!.horizon.submitTransaction(short);
  const byHash = await pay(ctx, cleo, pool.id, id, { txHash: Buffer.from(short.hash()).toString('hex') });
  assert.is(byHash.body.code, 'payment_mismatch');

  // Another reservation's genuine deposit does not pay this one (replay across reservations).
  const other = await reserve(ctx, cleo, pool.id, { lines: [{ unitId: 'morbier', quantity: 1 }], relaisId: 'r1' });
  const otherSigned = await sign(ctx, cleo, pool.id, other.body.data.id);
  const theirs = signXdr(cleo.wallet!, otherSigned.payment.xdr);
  await cleo.wallet!.horizon.submitTransaction(theirs);
  const replay = await pay(ctx, cleo, pool.id, id, { txHash: Buffer.from(theirs.hash()).toString('hex') });
  assert.is(replay.body.code, 'payment_mismatch');
  assert.ok(replay.body.errors.memo);

  // A plain payment to the escrow is not a deposit.
  const account = await cleo.wallet!.horizon.loadAccount(cleo.wallet!.keypair.publicKey());
  const plain = new TransactionBuilder(account, { fee: BASE_FEE, networkPassphrase: cleo.wallet!.passphrase })
    .addOperation(Operation.payment({ destination: base.escrow, asset: eurc, amount: '9.90' }))
    .addMemo(Memo.hash(memo))
    .setTimeout(300)
    .build();
  plain.sign(cleo.wallet!.keypair);
  assert.is((await pay(ctx, cleo, pool.id, id, { signedXdr: plain.toXDR() })).body.code, 'payment_mismatch');

  const view = await as(ctx, cleo).post(`/api/pools/${pool.id}/reservations/${id}/cancel`);
  assert.is(view.body.data.status, 'CANCELLED', 'still unpaid: it can be cancelled');
});

test('no oversell: stock is held, a refused reservation is a 409 that says what is left; per-buyer max; cancel frees units', async (ctx) => {
  const pool = await openPool(ctx, groups(5));
  const [a, b] = [await buyer(ctx, 'A'), await buyer(ctx, 'B')];
  assert.is((await reserve(ctx, a, pool.id, { lines: [{ unitId: 'comte', quantity: 5 }], relaisId: 'r1' })).status, 400, 'max 4 per buyer');
  const first = await reserve(ctx, a, pool.id, { lines: [{ unitId: 'comte', quantity: 4 }], relaisId: 'r1' });
  assert.is(first.status, 201);
  assert.is(first.body.data.lines[0].unitPrice, '16.00', 'the tier is reached with these 4 units');
  const refused = await reserve(ctx, b, pool.id, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' });
  assert.is(refused.status, 409, refused.text);
  assert.is(refused.body.code, 'insufficient_stock');
  assert.equal(refused.body.errors, { 'lines.0.quantity': ['only 1 of comte left'] });
  assert.is((await as(ctx, a).post(`/api/pools/${pool.id}/reservations/${first.body.data.id}/cancel`)).status, 200);
  assert.is((await reserve(ctx, b, pool.id, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' })).status, 201, 'the cancelled units are free again');
  assert.is((await reserve(ctx, b, pool.id, { lines: [{ unitId: 'comte', quantity: 1 }] })).status, 400, 'a pick-up point is required');
  assert.is((await reserve(ctx, ctx.organiser, pool.id, { lines: [{ unitId: 'morbier', quantity: 1 }], relaisId: 'r1' })).status, 403);
});

/** Dan reserves both comté units and signs: the deposit to submit, and when the job runs (a second after the expiry). */
const dansReservation = async (ctx: Ctx) => {
  const pool = await openPool(ctx, groups(2));
  const dan = await buyer(ctx, 'Dan');
  const placed = await reserve(ctx, dan, pool.id, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' });
  assert.is(placed.status, 201, placed.text);
  const id = placed.body.data.id as string;
  const signed = await sign(ctx, dan, pool.id, id);
  const deposit = signXdr(dan.wallet!, signed.payment.xdr);
  // The job runs at the expiry (here: told that the time has come; the ledger's clock is not moved).
  const jobRunsAt = new Date(Date.parse(placed.body.data.expiresAt) + 1000);
  return { pool, dan, id, signed, deposit, jobRunsAt, expire: () => expireReservation(ctx.api.services, { poolId: pool.id, reservationId: id }, jobRunsAt) };
};

test('expiry: the job asks the ledger first; a deposit it shows before expiresAt is the payment, not an expiry, and /pay reported after finds it PAID', async (ctx) => {
  const { pool, dan, id, signed, deposit, expire } = await dansReservation(ctx);
  await dan.wallet!.horizon.submitTransaction(deposit);
  assert.equal((await expire()).events.map((e) => e.type), ['ReservationPaid']);
  assert.equal((await expire()).events, [], 'a second run changes nothing');

  const paid = await pay(ctx, dan, pool.id, id, { txHash: signed.payment.hash });
  assert.is(paid.status, 200, paid.text);
  assert.is(paid.body.data.paid, true, paid.text);
  assert.is(paid.body.data.reservation.status, 'PAID');
  assert.is(paid.body.data.reservation.payment.txHash, signed.payment.hash);
  assert.equal(paid.body.data.reservation.latePayments, []);
  const eve = await buyer(ctx, 'Eve');
  assert.is((await reserve(ctx, eve, pool.id, { lines: [{ unitId: 'comte', quantity: 1 }], relaisId: 'r1' })).status, 409, 'the paid units are counted');
});

test('expiry recorded before the deposit was seen: a deposit the ledger closed before expiresAt is PAID while its units are free', async (ctx) => {
  const { pool, dan, id, signed, deposit, expire } = await dansReservation(ctx);
  assert.equal((await expire()).events.map((e) => e.type), ['ReservationExpired'], 'nothing on the ledger yet');
  // The deposit was signed with maxTime = expiresAt: the ledger closes it in time (its clock has not reached expiresAt).
  await dan.wallet!.horizon.submitTransaction(deposit);
  const paid = await pay(ctx, dan, pool.id, id, { txHash: signed.payment.hash });
  assert.is(paid.status, 200, paid.text);
  assert.is(paid.body.data.paid, true, paid.text);
  assert.is(paid.body.data.reservation.status, 'PAID');
  assert.is(paid.body.data.reservation.endedAt, null);
  assert.ok(!('latePayment' in paid.body.data));
  const read = await eventually(async () => {
    const r = await as(ctx, dan).get(`/api/me/reservations/${id}`);
    return r.status === 200 && r.body.data.status === 'PAID' ? r : null;
  }, 'the reservations read model shows it PAID');
  assert.is(read.body.data.payment.txHash, signed.payment.hash);
});

const eurcOf = async (ctx: Ctx, account: string): Promise<bigint> => {
  const a = await ctx.api.services.ledger.loadAccount(account);
  const line = a?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  return BigInt((line?.balance ?? '0.0000000').replace('.', ''));
};

test('expiry, then the units went to another buyer: a deposit the ledger shows in time is owed back and refunded at once, while the pool is still OPEN', async (ctx) => {
  const { pool, dan, id, signed, deposit, expire } = await dansReservation(ctx);
  assert.equal((await expire()).events.map((e) => e.type), ['ReservationExpired'], 'nothing on the ledger yet');
  const eve = await buyer(ctx, 'Eve');
  const eves = await reserve(ctx, eve, pool.id, { lines: [{ unitId: 'comte', quantity: 2 }], relaisId: 'r1' });
  assert.is(eves.status, 201, 'the units are free again: Eve takes them');
  await dan.wallet!.horizon.submitTransaction(deposit);
  const danBefore = await eurcOf(ctx, dan.wallet!.keypair.publicKey());

  const late = await pay(ctx, dan, pool.id, id, { txHash: signed.payment.hash });
  assert.is(late.status, 200, late.text);
  assert.is(late.body.data.paid, false);
  assert.is(late.body.data.latePayment, true);
  assert.is(late.body.data.reservation.status, 'EXPIRED');
  assert.is(late.body.data.reservation.latePayments[0].txHash, signed.payment.hash);
  assert.equal(late.body.data.reservation.latePayments[0].refund, { status: 'DUE', txHash: null, refundedAt: null }, 'the view says the refund is due now');
  const reclaims = await as(ctx, dan).get(`/api/pools/${pool.id}/reservations/${id}/reclaim`);
  assert.is(reclaims.status, 200, reclaims.text);
  assert.is(reclaims.body.data.reclaims[0].amount, '37.00', 'and the buyer keeps their own reclaim from reclaimAfter');

  // Promptly: the organiser refunds it now, the pool still OPEN (a settlement of the deposits owed back, cosigned).
  const headers = { 'Idempotency-Key': randomUUID() };
  const plan = await as(ctx, ctx.organiser).post(`/api/pools/${pool.id}/escrow/settlement`, {}, headers);
  assert.is(plan.status, 201, plan.text);
  assert.is(plan.body.data.kind, 'REFUND');
  assert.is(plan.body.data.final, false, 'an open pool’s escrow is never merged');
  assert.equal(plan.body.data.rounds.map((r: { reservations: string[] }) => r.reservations), [[`late:${signed.payment.balanceId}`]]);
  assert.equal(plan.body.data.rounds[0].payouts, [{ destination: dan.wallet!.keypair.publicKey(), amount: '37.00' }]);
  const signedXdrs = plan.body.data.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [
    signXdr(ctx.organiser.wallet!, r.lock.xdr).toXDR(),
    signXdr(ctx.organiser.wallet!, r.release.xdr).toXDR(),
  ]);
  const submitted = await as(ctx, ctx.organiser).post(`/api/pools/${pool.id}/escrow/settlement/submit`, { settlementId: plan.body.data.settlementId, signedXdrs }, { 'Idempotency-Key': randomUUID() });
  assert.is(submitted.status, 200, submitted.text);
  assert.is(submitted.body.data.pending, false, submitted.text);
  assert.is((await eurcOf(ctx, dan.wallet!.keypair.publicKey())) - danBefore, 370_000_000n, 'Dan has his 37.00 back');
  const refunded = await eventually(async () => {
    const r = await as(ctx, dan).get(`/api/me/reservations/${id}`);
    return r.status === 200 && r.body.data.latePayments[0]?.refund.status === 'REFUNDED' ? r : null;
  }, 'the view shows the refund');
  assert.is(refunded.body.data.latePayments[0].refund.txHash, submitted.body.data.rounds[0].settled.txHash);
  assert.equal(refunded.body.data.settlements.map((x: { kind: string; refunded: string }) => [x.kind, x.refunded]), [['LATE_DEPOSIT', '37.00']]);

  // The escrow is armed again as it was (organiser and platform, 2 of 2): the pool takes Eve's deposit.
  const state = await ctx.escrow.escrowState(signed.payment.escrowAccount);
  assert.equal(state.thresholds, { low: 2, med: 2, high: 2 });
  assert.equal(state.signers.filter((x) => x.weight > 0).map((x) => x.weight), [1, 1]);
  const eveSigned = await sign(ctx, eve, pool.id, eves.body.data.id);
  await eve.wallet!.horizon.submitTransaction(signXdr(eve.wallet!, eveSigned.payment.xdr));
  const evePaid = await pay(ctx, eve, pool.id, eves.body.data.id, { txHash: eveSigned.payment.hash });
  assert.is(evePaid.body.data.paid, true, evePaid.text);
});

test('reconciliation: every published pool’s escrow holds exactly its PAID deposits (function and CLI verb); a stray deposit is listed, not counted', async (ctx) => {
  const pool = await openPool(ctx, groups(10));
  const fay = await buyer(ctx, 'Fay');
  const placed = await reserve(ctx, fay, pool.id, { lines: [{ unitId: 'comte', quantity: 3 }], relaisId: 'r1' });
  const signed = await sign(ctx, fay, pool.id, placed.body.data.id);
  assert.is((await pay(ctx, fay, pool.id, placed.body.data.id, { signedXdr: signXdr(fay.wallet!, signed.payment.xdr).toXDR() })).body.data.paid, true);
  const deps = { ...ctx.api.services, escrow: ctx.escrow };
  const one = await reconcileAll(deps, { poolId: pool.id });
  assert.is(one.ok, true, JSON.stringify(one));
  assert.equal(one.pools[0]!.paid, { count: 1, amount: '55.50' });
  assert.is(one.pools[0]!.ledger.held, '55.50');

  // Someone sends the escrow an unexpected claimable balance: listed, not counted, the pool still reconciles.
  const stray = await forged(fay.wallet!, { escrow: signed.payment.escrowAccount, amount: '1.00', memoHash: 'ab'.repeat(32), asset: ctx.api.services.ledger.asset, reclaimAt: Math.floor(Date.now() / 1000) + 3600 });
  await fay.wallet!.horizon.submitTransaction(stray);
  const withStray = (await reconcileAll(deps, { poolId: pool.id })).pools[0]!;
  assert.is(withStray.ok, true);
  assert.is(withStray.unexpected.length, 1);

  // The CLI verb an operator runs (its own process, its own sandbox Horizon on a loopback port).
  const out = await cli('escrow', 'reconcile', '--pool', pool.id);
  assert.is(out.code, 0, out.err);
  assert.is(JSON.parse(out.out).pools[0].ledger.held, '55.50');
  const all = await cli('escrow', 'reconcile');
  assert.ok(all.out.trim().startsWith('{'), `the report is JSON (exit ${all.code}): ${all.err.slice(-2000)}`);
  const report = JSON.parse(all.out) as { pools: Array<{ poolId: string; ok: boolean }>; failed?: Array<{ poolId: string }> };
  assert.ok(report.pools.some((p) => p.poolId === pool.id && p.ok));
  assert.is((await cli('escrow', 'reconcile', '--pool', 'nope')).code, 2);
});

test.run();
