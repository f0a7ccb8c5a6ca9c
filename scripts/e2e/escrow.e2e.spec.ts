import { randomUUID } from 'node:crypto';
import { BASE_FEE, Operation, TransactionBuilder, type Keypair } from '@stellar/stellar-sdk';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { closeAtDeadline, endInspection, grantAuditor, lapseDisputes, recoverSettlements, escrowJobDeps, reconcilePool } from '@cagnotte/command-api';
import { EscrowLedger, sandboxKeys } from '@cagnotte/infra';
import { startApi, type TestApi, type TestUser } from './harness';
import { signXdr } from './wallet';

/**
 * The escrow's money path end to end on a sandbox network of this spec's own (its clock moves): closing, the split,
 * the organiser's cosigned release, refusals without the organiser, the platform alone refused by the ledger, failure
 * and refunds, tier differences, the buyer's own reclaim, the keyless recovery and its exclusion with the release,
 * disputes, auto-accept. The service's clock moves with the ledger's; no test sleeps.
 */
interface Ctx {
  api: TestApi;
  tenant: string;
  organiser: TestUser;
  /** Milliseconds the command clock runs ahead of the wall clock (kept equal to the ledger's offset). */
  offsetMs: number;
}

const ctxRef: { offsetMs: number } = { offsetMs: 0 };
const DAY = 86_400;
const test = suite<Ctx>('escrow: close, release, refund, recover, dispute on the ledger');

test.before(async (ctx) => {
  ctx.api = await startApi(
    { STELLAR_NETWORK_PASSPHRASE: `Cagnotte escrow e2e ${randomUUID()}`, ESCROW_RECLAIM_AFTER_DAYS: 1, PLATFORM_FEE_PERCENT: '2.5' },
    { clock: () => new Date(Date.now() + ctxRef.offsetMs) },
  );
  ctx.tenant = (await ctx.api.tenant()).slug;
  ctx.organiser = await ctx.api.user(ctx.tenant, { role: 'organiser', name: 'Org Olga' });
});
test.after(async (ctx) => ctx.api.stop());

/** Moves the ledger's clock and the command clock together. */
const advance = async (ctx: Ctx, seconds: number) => {
  await ctx.api.services.sandboxLedger!.advanceTime(seconds);
  ctxRef.offsetMs += seconds * 1000;
};
const now = () => new Date(Date.now() + ctxRef.offsetMs);

const as = (ctx: Ctx, user: TestUser) => ({
  post: (path: string, body: unknown = {}) => ctx.api.call('POST', path, { token: user.token, tenant: ctx.tenant, body, headers: { 'Idempotency-Key': randomUUID() } }),
  get: (path: string) => ctx.api.call('GET', path, { token: user.token, tenant: ctx.tenant }),
});

const cheese = (o: { quantity?: number; release?: 'CLOSE' | 'RECEIPT'; deadline?: string | null; minimumUnits?: number } = {}) => ({
  type: 'GROUPS',
  title: 'Fromages du Jura',
  deadline: o.deadline ?? null,
  config: {
    units: [{ id: 'comte', label: 'Comté 1 kg', price: '18.50', quantity: o.quantity ?? 20, tiers: [{ minQuantity: 4, price: '16.00' }] }],
    ...(o.minimumUnits ? { minimumUnits: o.minimumUnits } : {}),
    release: { after: o.release ?? 'CLOSE' },
  },
});

const openPool = async (ctx: Ctx, body: Record<string, unknown>) => {
  const created = await as(ctx, ctx.organiser).post('/api/pools', body);
  assert.is(created.status, 201, created.text);
  const published = await as(ctx, ctx.organiser).post(`/api/pools/${created.body.data.id}/publish`);
  assert.is(published.status, 200, published.text);
  return published.body.data.id as string;
};

interface Paid {
  buyer: TestUser;
  reservationId: string;
  balanceId: string;
  reclaimXdr: string;
  escrowAccount: string;
}

/** Reserve, sign, submit the deposit with the buyer's key, pay by hash: PAID. */
const buy = async (ctx: Ctx, poolId: string, quantity: number, name: string, buyer?: TestUser): Promise<Paid> => {
  const user = buyer ?? (await ctx.api.user(ctx.tenant, { wallet: true, name }));
  const placed = await as(ctx, user).post(`/api/pools/${poolId}/reservations`, { lines: [{ unitId: 'comte', quantity }] });
  assert.is(placed.status, 201, placed.text);
  const t = (await as(ctx, user).get(`/api/pools/${poolId}/terms`)).body.data;
  const signed = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/sign`, { acceptTerms: true, termsVersion: t.version, termsHash: t.hash });
  assert.is(signed.status, 200, signed.text);
  await user.wallet!.horizon.submitTransaction(signXdr(user.wallet!, signed.body.data.payment.xdr));
  const paid = await as(ctx, user).post(`/api/pools/${poolId}/reservations/${placed.body.data.id}/pay`, { txHash: signed.body.data.payment.hash });
  assert.is(paid.body.data.paid, true, paid.text);
  return { buyer: user, reservationId: placed.body.data.id, balanceId: signed.body.data.payment.balanceId, reclaimXdr: signed.body.data.reclaim.xdr, escrowAccount: signed.body.data.payment.escrowAccount };
};

const eurc = async (ctx: Ctx, account: string): Promise<string> => {
  const a = await ctx.api.services.ledger.loadAccount(account);
  const line = a?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  return line?.balance ?? '0.0000000';
};
const stroops = (s: string) => BigInt(s.replace('.', '').padEnd(s.indexOf('.') + 8, '0'));
const diff = (after: string, before: string) => stroops(after) - stroops(before);

const codesOf = async (submit: () => Promise<unknown>): Promise<unknown> => {
  try {
    await submit();
  } catch (e) {
    return (e as { response?: { data?: { extras?: { result_codes?: unknown } } } }).response?.data?.extras?.result_codes ?? String(e);
  }
  return 'accepted';
};

/** The organiser prepares the settlement and signs every lock and release of it, in order. */
const prepareAndSign = async (ctx: Ctx, poolId: string) => {
  const plan = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`);
  assert.ok(plan.status === 201 || plan.status === 200, plan.text);
  const signed = plan.body.data.rounds.flatMap((r: { lock: { xdr: string }; release: { xdr: string } }) => [
    signXdr(ctx.organiser.wallet!, r.lock.xdr).toXDR(),
    signXdr(ctx.organiser.wallet!, r.release.xdr).toXDR(),
  ]);
  return { plan: plan.body.data, signed };
};

const submit = (ctx: Ctx, poolId: string, body: Record<string, unknown>) => as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement/submit`, body);

test('success and release: the organiser closes early, cosigns the release; the split is exact (tier refund, platform fee, seller), a settlement event per recipient, SETTLED, the escrow merged', async (ctx) => {
  const poolId = await openPool(ctx, cheese());
  const ann = await buy(ctx, poolId, 2, 'Ann'); // 2 × 18.50 = 37.00 (below the tier)
  const ben = await buy(ctx, poolId, 2, 'Ben'); // the 4th unit reaches the tier: 2 × 16.00 = 32.00
  const escrowAccount = ann.escrowAccount;
  const platform = ctx.api.services.ledger.settings.platformAccount;
  const seller = ctx.organiser.wallet!.keypair.publicKey();
  const before = { ann: await eurc(ctx, ann.buyer.wallet!.keypair.publicKey()), ben: await eurc(ctx, ben.buyer.wallet!.keypair.publicKey()), seller: await eurc(ctx, seller), platform: await eurc(ctx, platform) };

  const closed = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`);
  assert.is(closed.status, 200, closed.text);
  assert.is(closed.body.data.status, 'LOCKED');
  assert.equal(closed.body.data.closing.finalPrices, [{ unitId: 'comte', price: '16.00' }]);

  const { plan, signed } = await prepareAndSign(ctx, poolId);
  assert.is(plan.kind, 'RELEASE');
  assert.is(plan.final, true);
  assert.is(plan.rounds.length, 1);
  const done = await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: signed });
  assert.is(done.status, 200, done.text);
  assert.is(done.body.data.status, 'SETTLED');
  assert.is(done.body.data.rounds[0].settled.path, 'RELEASE');

  // Ann paid 37.00 for what now costs 32.00: 5.00 back. Due in all 64.00: platform 2.5 % of each reservation's due
  // (0.80 + 0.80), the seller the rest (31.20 + 31.20).
  assert.is(diff(await eurc(ctx, ann.buyer.wallet!.keypair.publicKey()), before.ann), stroops('5.00'));
  assert.is(diff(await eurc(ctx, ben.buyer.wallet!.keypair.publicKey()), before.ben), 0n);
  assert.is(diff(await eurc(ctx, platform), before.platform), stroops('1.60'));
  assert.is(diff(await eurc(ctx, seller), before.seller), stroops('62.40'));
  assert.is(await ctx.api.services.ledger.loadAccount(escrowAccount), null, 'the escrow account is merged back');

  const pool = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`);
  assert.is(pool.body.data.status, 'SETTLED');
  const events = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => e.type);
  assert.equal(events.filter((t) => t === 'EscrowPayoutSettled').length, 3, 'seller, platform and Ann: one event per recipient');
  assert.equal(events.filter((t) => t === 'ReservationSettled').length, 2);
  assert.ok(events.includes('PoolSettled'));
  const again = await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: signed });
  assert.is(again.body.data.status, 'SETTLED', 'a repeat records nothing new');
  assert.equal((await ctx.api.services.store.readStream(`pool-${poolId}`)).length, events.length);

  // The auditor's check: the stream replayed against the ledger, round by round, to the stroop.
  const report = (await reconcilePool({ ...ctx.api.services, escrow: new EscrowLedger(ctx.api.services.ledger) }, poolId))!;
  assert.is(report.ok, true, JSON.stringify(report, null, 1));
  assert.equal(report.events, { held: '0.00', owedBack: '0.00', released: '64.00', refunded: '5.00', merged: true, straysOwed: '0.00' });
  assert.equal(report.rounds.map((r) => [r.path, r.ok]), [['RELEASE', true]]);
});

test('without the organiser nothing moves: a release without their signature is refused by the ledger, the platform alone is refused before and after the lock', async (ctx) => {
  const poolId = await openPool(ctx, cheese());
  const cid = await buy(ctx, poolId, 1, 'Cid');
  const horizon = cid.buyer.wallet!.horizon;
  const passphrase = cid.buyer.wallet!.passphrase;
  const platform: Keypair = sandboxKeys(passphrase).platform;
  const platformTries = async () => {
    const source = await horizon.loadAccount(platform.publicKey());
    const tx = new TransactionBuilder(source, { fee: String(Number(BASE_FEE) * 3), networkPassphrase: passphrase })
      .addOperation(Operation.claimClaimableBalance({ balanceId: cid.balanceId, source: cid.escrowAccount }))
      .addOperation(Operation.payment({ source: cid.escrowAccount, destination: platform.publicKey(), asset: ctx.api.services.ledger.asset, amount: '18.50' }))
      .setTimeout(60)
      .build();
    tx.sign(platform);
    return codesOf(() => horizon.submitTransaction(tx));
  };
  const refused = (codes: unknown) => ['tx_bad_auth', 'tx_failed'].includes((codes as { transaction?: string }).transaction ?? '');
  assert.ok(refused(await platformTries()), 'the platform alone, before the lock');

  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  const plan = (await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`)).body.data;
  // The lock cosigned, the release sent as the service handed it out (no organiser signature).
  const lock = signXdr(ctx.organiser.wallet!, plan.rounds[0].lock.xdr).toXDR();
  const bare = await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: [lock, plan.rounds[0].release.xdr] });
  assert.is(bare.status, 400, bare.text);
  assert.is(bare.body.code, 'ledger_rejected');
  assert.ok(Object.values(bare.body.errors).flat().includes('tx_bad_auth'), bare.text);
  assert.ok(refused(await platformTries()), 'the platform alone, after the lock (its weight is 0)');
  assert.is((await horizon.claimableBalances().claimableBalance(cid.balanceId).call()).amount, '18.5000000', 'the deposit is untouched');

  // A lock of another settlement, or anything else, is not accepted.
  const stray = await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: [signXdr(cid.buyer.wallet!, plan.rounds[0].recovery.xdr).toXDR()] });
  assert.is(stray.body.code, 'not_in_settlement');

  // The organiser signs the release now: it goes through (the lock is already on the ledger).
  const release = signXdr(ctx.organiser.wallet!, plan.rounds[0].release.xdr);
  await ctx.organiser.wallet!.horizon.submitTransaction(release);
  const byHash = await submit(ctx, poolId, { settlementId: plan.settlementId, txHashes: [Buffer.from(release.hash()).toString('hex')] });
  assert.is(byHash.body.data.status, 'SETTLED', byHash.text);
});

test('nothing is settled before a pool closes: a DRAFT (no escrow) is 400 escrow_not_open, an OPEN pool 400 pool_not_closed; a stranger 404', async (ctx) => {
  const draft = await as(ctx, ctx.organiser).post('/api/pools', cheese());
  const onDraft = await as(ctx, ctx.organiser).post(`/api/pools/${draft.body.data.id}/escrow/settlement`);
  assert.equal([onDraft.status, onDraft.body.code], [400, 'escrow_not_open'], onDraft.text);
  const poolId = await openPool(ctx, cheese());
  const onOpen = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`);
  assert.equal([onOpen.status, onOpen.body.code], [400, 'pool_not_closed'], onOpen.text);
  const stranger = await ctx.api.user(ctx.tenant, { role: 'organiser', wallet: false });
  assert.is((await as(ctx, stranger).post(`/api/pools/${poolId}/escrow/settlement`)).status, 404);
});

test('failure: at the deadline the job closes a pool below its minimum as FAILED; the organiser cosigns the refund and every buyer gets their deposit back in full', async (ctx) => {
  const deadline = new Date(now().getTime() + 3_600_000).toISOString();
  const poolId = await openPool(ctx, cheese({ deadline, minimumUnits: 5 }));
  const dee = await buy(ctx, poolId, 2, 'Dee');
  const eli = await buy(ctx, poolId, 1, 'Eli');
  const balances = { dee: await eurc(ctx, dee.buyer.wallet!.keypair.publicKey()), eli: await eurc(ctx, eli.buyer.wallet!.keypair.publicKey()) };
  const early = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`);
  assert.is(early.status, 400);
  assert.is(early.body.code, 'minimum_not_reached');
  const job = { poolId, tenantId: (await ctx.api.services.store.readStream(`pool-${poolId}`))[0]!.metadata.tenantId };
  const deps = escrowJobDeps(ctx.api.services);
  assert.equal((await closeAtDeadline(deps, job, now())).events, [], 'before the deadline the job does nothing');
  const closed = await closeAtDeadline(deps, job, new Date(Date.parse(deadline) + 1000));
  assert.equal(closed.events.map((e) => e.type), ['PoolClosed']);
  assert.equal((await closeAtDeadline(deps, job, new Date(Date.parse(deadline) + 2000))).events, [], 'a second run changes nothing');
  await ctx.api.runner.catchUp(closed.position!);
  assert.is((await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`)).body.data.status, 'FAILED');

  const { plan, signed } = await prepareAndSign(ctx, poolId);
  assert.is(plan.kind, 'REFUND');
  const done = await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: signed });
  assert.is(done.body.data.status, 'SETTLED', done.text);
  assert.is(diff(await eurc(ctx, dee.buyer.wallet!.keypair.publicKey()), balances.dee), stroops('37.00'));
  assert.is(diff(await eurc(ctx, eli.buyer.wallet!.keypair.publicKey()), balances.eli), stroops('18.50'));
  assert.is((await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`)).body.data.status, 'FAILED', 'a failed pool stays FAILED once refunded');
});

test('cancel: a cancelled pool refunds everyone; a cancelled pool cannot be closed', async (ctx) => {
  const poolId = await openPool(ctx, cheese());
  const fay = await buy(ctx, poolId, 3, 'Fay');
  const before = await eurc(ctx, fay.buyer.wallet!.keypair.publicKey());
  const cancelled = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/cancel`, { reason: 'the farm closed' });
  assert.is(cancelled.body.data.status, 'CANCELLED', cancelled.text);
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 400);
  const { plan, signed } = await prepareAndSign(ctx, poolId);
  assert.is(plan.kind, 'REFUND');
  assert.is((await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: signed })).body.data.status, 'SETTLED');
  assert.is(diff(await eurc(ctx, fay.buyer.wallet!.keypair.publicKey()), before), stroops('55.50'));
});

test('disputes hold their reservation only; receipt; a partial refund; auto-accept after the inspection period (the job, told the time)', async (ctx) => {
  const poolId = await openPool(ctx, cheese({ release: 'RECEIPT' }));
  const [gus, hal, ivy] = [await buy(ctx, poolId, 1, 'Gus'), await buy(ctx, poolId, 1, 'Hal'), await buy(ctx, poolId, 1, 'Ivy')];
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  const nothing = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`);
  assert.is(nothing.body.code, 'nothing_to_settle', 'nothing is released before receipt');
  const delivered = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/delivered`, { note: 'at the farm shop' });
  assert.ok(delivered.body.data.closing.inspectionEndsAt, delivered.text);

  const receipt = await as(ctx, gus.buyer).post(`/api/pools/${poolId}/reservations/${gus.reservationId}/receipt`);
  assert.is(receipt.status, 200, receipt.text);
  assert.is((await as(ctx, hal.buyer).post(`/api/pools/${poolId}/reservations/${gus.reservationId}/receipt`)).status, 404, 'another buyer’s reservation');
  const opened = await as(ctx, hal.buyer).post(`/api/pools/${poolId}/reservations/${hal.reservationId}/disputes`, { reason: 'DAMAGED', details: 'the cheese was mouldy', evidence: ['https://photos.example/1'] });
  assert.is(opened.status, 201, opened.text);
  const disputeId = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => e.data as { disputeId?: string }).find((d) => d.disputeId)!.disputeId!;

  // Gus accepted: his deposit is released now; Hal's is held by the dispute, Ivy's by her inspection period.
  const first = await prepareAndSign(ctx, poolId);
  assert.is(first.plan.final, false);
  assert.equal(first.plan.rounds[0].reservations, [gus.reservationId]);
  assert.is((await submit(ctx, poolId, { settlementId: first.plan.settlementId, signedXdrs: first.signed })).body.data.status, 'SETTLED');
  assert.ok(await ctx.api.services.ledger.loadAccount(gus.escrowAccount), 'the escrow stays: it still holds Hal’s and Ivy’s deposits');
  assert.is((await gus.buyer.wallet!.horizon.claimableBalances().claimableBalance(hal.balanceId).call()).amount, '18.5000000');

  // The organiser refunds part of Hal's dispute; Ivy's inspection period passes (the job, told the time).
  const bad = await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/disputes/${disputeId}/refund`, { amount: '99.00' });
  assert.is(bad.body.code, 'refund_out_of_bounds');
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/disputes/${disputeId}/refund`, { amount: '8.50' })).status, 200);
  const job = { poolId, tenantId: null };
  assert.equal((await endInspection(ctx.api.services, job, now())).events, [], 'not before the inspection period ends');
  const ended = await endInspection(ctx.api.services, job, new Date(Date.parse(delivered.body.data.closing.inspectionEndsAt) + 1000));
  assert.equal(ended.events.map((e) => e.type), ['ReservationAutoAccepted'], 'Ivy only: Gus confirmed, Hal disputed');
  await ctx.api.runner.catchUp(ended.position!);

  const halBefore = await eurc(ctx, hal.buyer.wallet!.keypair.publicKey());
  const second = await prepareAndSign(ctx, poolId);
  assert.is(second.plan.final, true);
  assert.equal([...second.plan.rounds[0].reservations].sort(), [hal.reservationId, ivy.reservationId].sort());
  assert.is((await submit(ctx, poolId, { settlementId: second.plan.settlementId, signedXdrs: second.signed })).body.data.status, 'SETTLED');
  assert.is(diff(await eurc(ctx, hal.buyer.wallet!.keypair.publicKey()), halBefore), stroops('8.50'), 'Hal gets the agreed part back');
  assert.is(await ctx.api.services.ledger.loadAccount(gus.escrowAccount), null, 'merged once nothing is left');
  assert.is((await as(ctx, ctx.organiser).get(`/api/pools/${poolId}`)).body.data.status, 'SETTLED');
});

test('a dispute nobody answers lapses to the buyer (the job, told the time): refunded in full at settlement', async (ctx) => {
  const poolId = await openPool(ctx, cheese({ release: 'RECEIPT' }));
  const jo = await buy(ctx, poolId, 2, 'Jo');
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  const opened = await as(ctx, jo.buyer).post(`/api/pools/${poolId}/reservations/${jo.reservationId}/disputes`, { reason: 'NOT_RECEIVED' });
  assert.is(opened.status, 201, opened.text);
  const respondBy = opened.body.data.dispute?.respondBy ?? new Date(now().getTime() + 8 * DAY * 1000).toISOString();
  const lapsed = await lapseDisputes(ctx.api.services, { poolId, tenantId: null }, new Date(Date.parse(respondBy) + 1000));
  assert.equal(lapsed.events.map((e) => e.type), ['DisputeResolved']);
  await ctx.api.runner.catchUp(lapsed.position!);
  const before = await eurc(ctx, jo.buyer.wallet!.keypair.publicKey());
  const { plan, signed } = await prepareAndSign(ctx, poolId);
  assert.is((await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: signed })).body.data.status, 'SETTLED');
  assert.is(diff(await eurc(ctx, jo.buyer.wallet!.keypair.publicKey()), before), stroops('37.00'));
});

test('what each one sees: the escrow (organiser, auditor, buyer, stranger), disputes, the escrow history with verified links, time travel before and after the release, reconciliation over HTTP', async (ctx) => {
  const auditor = await ctx.api.user(ctx.tenant, { name: 'Audrey' });
  const granted = await grantAuditor(ctx.api.services, { slug: ctx.tenant, userId: auditor.id }, { actor: { kind: 'operator', id: 'e2e' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });
  await ctx.api.runner.catchUp(granted.position!);
  const stranger = await ctx.api.user(ctx.tenant, { name: 'Stan' });
  const poolId = await openPool(ctx, cheese({ release: 'RECEIPT' }));
  const [nia, oto] = [await buy(ctx, poolId, 2, 'Nia'), await buy(ctx, poolId, 1, 'Oto')];
  assert.is((await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/close`)).status, 200);
  await as(ctx, nia.buyer).post(`/api/pools/${poolId}/reservations/${nia.reservationId}/receipt`);
  const dispute = await as(ctx, oto.buyer).post(`/api/pools/${poolId}/reservations/${oto.reservationId}/disputes`, { reason: 'NOT_AS_DESCRIBED', details: 'too young' });
  assert.is(dispute.status, 201, dispute.text);
  // The organiser, the auditor and the other buyer read what others wrote: once the projections have it.
  await ctx.api.runner.catchUp();

  const escrowOf = (u: TestUser) => as(ctx, u).get(`/api/pools/${poolId}/escrow`);
  const byOrganiser = await escrowOf(ctx.organiser);
  assert.is(byOrganiser.status, 200, byOrganiser.text);
  assert.equal([byOrganiser.body.data.view, byOrganiser.body.data.status, byOrganiser.body.data.held], ['ORGANISER', 'HELD', { count: 2, amount: '55.50' }]);
  const byAuditor = await escrowOf(auditor);
  assert.equal([byAuditor.body.data.view, byAuditor.body.data.disputes.length], ['AUDITOR', 1]);
  const byNia = await escrowOf(nia.buyer);
  assert.equal([byNia.body.data.view, byNia.body.data.disputes.length, 'settlements' in byNia.body.data], ['BUYER', 0, false], 'a buyer sees the summary and only their own disputes');
  assert.is((await escrowOf(stranger)).status, 404);
  const disputes = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}/disputes`);
  assert.equal(disputes.body.data.items.map((d: { status: string; reservationId: string }) => [d.status, d.reservationId]), [['OPEN', oto.reservationId]]);

  const first = await prepareAndSign(ctx, poolId);
  const before = (await ctx.api.services.store.readStream(`pool-${poolId}`)).at(-1)!;
  assert.is((await submit(ctx, poolId, { settlementId: first.plan.settlementId, signedXdrs: first.signed })).body.data.status, 'SETTLED');
  await ctx.api.runner.catchUp((await ctx.api.services.store.readStream(`pool-${poolId}`)).at(-1)!.position);

  // The escrow's history: closing, receipt, dispute, the settlement and a payout event per recipient, every link verified.
  const history = await as(ctx, auditor).get(`/api/pools/${poolId}/escrow/history?limit=100`);
  assert.is(history.status, 200, history.text);
  const types = history.body.data.items.map((i: { type: string }) => i.type);
  for (const t of ['PoolEscrowOpened', 'ReservationPaid', 'PoolClosed', 'ReservationReceiptConfirmed', 'DisputeOpened', 'EscrowSettlementPrepared', 'EscrowRoundSettled', 'EscrowPayoutSettled', 'ReservationSettled']) {
    assert.ok(types.includes(t), `${t} in the escrow history`);
  }
  assert.ok(!types.includes('ReservationPlaced'), 'only the escrow’s events');
  assert.is(history.body.data.chain.verified, true);
  assert.ok(history.body.data.items.every((i: { verified: boolean }) => i.verified));
  assert.ok(
    history.body.data.items.filter((i: { actor: { kind: string } }) => i.actor.kind === 'user').every((i: { metadata: { ip?: string } }) => i.metadata.ip !== '[withheld]'),
    'an auditor sees the request IPs',
  );
  const organiserHistory = await as(ctx, ctx.organiser).get(`/api/pools/${poolId}/escrow/history?limit=100`);
  assert.ok(organiserHistory.body.data.items.some((i: { redacted: string[] }) => i.redacted.includes('metadata.ip')), 'an organiser does not');
  assert.is((await as(ctx, stranger).get(`/api/pools/${poolId}/escrow/history`)).status, 404);

  // Time travel: the escrow as of the event before the release was recorded, then now.
  const then = await as(ctx, auditor).get(`/api/pools/${poolId}/state?at=${before.position.commit}-${before.position.prepare}`);
  assert.is(then.status, 200, then.text);
  assert.equal([then.body.data.escrow.status, then.body.data.escrow.held.count], ['SETTLING', 2]);
  const nowState = await as(ctx, auditor).get(`/api/pools/${poolId}/state`);
  assert.equal([nowState.body.data.escrow.status, nowState.body.data.escrow.held.count, nowState.body.data.escrow.released], ['HELD', 1, '37.00'], 'Nia released (2 × 18.50: the tier was not reached; the platform fee is part of what is released), Oto still held by the dispute');

  // Reconciliation over HTTP: the pool (organiser, auditor), and every escrow of the tenant (auditors only).
  const report = await as(ctx, auditor).get(`/api/pools/${poolId}/escrow/reconciliation`);
  assert.is(report.status, 200, report.text);
  assert.is(report.body.data.ok, true, JSON.stringify(report.body.data.problems));
  assert.equal([report.body.data.events.held, report.body.data.ledger.held, report.body.data.rounds.length], ['18.50', '18.50', 1]);
  assert.is((await as(ctx, ctx.organiser).get(`/api/pools/${poolId}/escrow/reconciliation`)).body.data.ok, true);
  assert.is((await as(ctx, stranger).get(`/api/pools/${poolId}/escrow/reconciliation`)).status, 404);
  const all = await as(ctx, auditor).get('/api/audit/reconciliation?limit=100');
  assert.is(all.status, 200, all.text);
  assert.ok(all.body.data.items.some((r: { poolId: string }) => r.poolId === poolId));
  assert.is(all.body.data.ok, true, JSON.stringify(all.body.data.items.filter((r: { ok: boolean }) => !r.ok)));
  assert.is((await as(ctx, ctx.organiser).get('/api/audit/reconciliation')).status, 404, 'auditors only');
});

// The clocks move from here on (a user's wallet set-up uses this machine's clock: create them before).
test('recovery and release are mutually exclusive; the buyer’s own reclaim is refused before reclaimAfter and accepted after', async (ctx) => {
  // Its deadline is near, so reclaimAfter (deadline + 1 day here) is within reach of the moved clock.
  const deadline = new Date(now().getTime() + 600_000).toISOString();
  const poolId = await openPool(ctx, cheese({ deadline }));
  const kim = await buy(ctx, poolId, 2, 'Kim');
  const lou = await buy(ctx, poolId, 1, 'Lou');
  // A second pool, opened before the clocks move, whose deposit nobody settles: its buyer reclaims it alone.
  const other = await openPool(ctx, cheese({ deadline: new Date(now().getTime() + 60_000).toISOString() }));
  const max = await buy(ctx, other, 1, 'Max');
  const horizon = kim.buyer.wallet!.horizon;
  const early = signXdr(kim.buyer.wallet!, kim.reclaimXdr);
  assert.equal(await codesOf(() => horizon.submitTransaction(early)), { transaction: 'tx_too_early' }, 'the reclaim before reclaimAfter');

  await advance(ctx, 601);
  const job = { poolId, tenantId: null };
  const closed = await closeAtDeadline(escrowJobDeps(ctx.api.services), job, now());
  await ctx.api.runner.catchUp(closed.position!);
  const plan = (await as(ctx, ctx.organiser).post(`/api/pools/${poolId}/escrow/settlement`)).body.data;
  // Only the lock reaches the ledger: the organiser signs it and then vanishes.
  const lock = signXdr(ctx.organiser.wallet!, plan.rounds[0].lock.xdr).toXDR();
  assert.is((await submit(ctx, poolId, { settlementId: plan.settlementId, signedXdrs: [lock] })).body.data.status, 'PREPARED');
  const tooEarly = await as(ctx, lou.buyer).post(`/api/pools/${poolId}/escrow/recovery`);
  assert.equal(tooEarly.body.data.attempts.map((a: { result: string }) => a.result), ['too_early'], tooEarly.text);

  // Past recoveryFrom the keyless recovery runs (the job here); every deposit goes back whole.
  await advance(ctx, Math.ceil((Date.parse(plan.recoveryFrom) - now().getTime()) / 1000) + 5);
  const kimBefore = await eurc(ctx, kim.buyer.wallet!.keypair.publicKey());
  const recovered = await recoverSettlements(escrowJobDeps(ctx.api.services), job, now());
  assert.equal(recovered.attempts.map((a) => a.result), ['submitted']);
  assert.is(recovered.recorded, 1);
  assert.is(diff(await eurc(ctx, kim.buyer.wallet!.keypair.publicKey()), kimBefore), stroops('37.00'));
  // The release, even cosigned, can never run now: one sequence number, one of the two.
  const release = signXdr(ctx.organiser.wallet!, plan.rounds[0].release.xdr);
  const codes = (await codesOf(() => horizon.submitTransaction(release))) as { transaction: string };
  assert.ok(['tx_bad_seq', 'tx_too_late', 'tx_no_source_account'].includes(codes.transaction), JSON.stringify(codes));
  const events = (await ctx.api.services.store.readStream(`pool-${poolId}`)).map((e) => e.data as { path?: string });
  assert.ok(events.some((d) => d.path === 'RECOVERY'));
  const report = (await reconcilePool({ ...ctx.api.services, escrow: new EscrowLedger(ctx.api.services.ledger) }, poolId))!;
  assert.is(report.ok, true, JSON.stringify(report, null, 1));
  assert.equal([report.events.released, report.events.refunded, report.events.merged], ['0.00', '55.50', true]);

  // Max's deposit (the other pool, never settled): refused before reclaimAfter, his alone after it.
  const refusedNow = await codesOf(() => max.buyer.wallet!.horizon.submitTransaction(signXdr(max.buyer.wallet!, max.reclaimXdr)));
  assert.equal(refusedNow, { transaction: 'tx_too_early' });
  await advance(ctx, DAY + 120);
  const maxBefore = await eurc(ctx, max.buyer.wallet!.keypair.publicKey());
  const reclaimed = await max.buyer.wallet!.horizon.submitTransaction(signXdr(max.buyer.wallet!, (await as(ctx, max.buyer).get(`/api/pools/${other}/reservations/${max.reservationId}/reclaim`)).body.data.reclaims[0].xdr));
  assert.ok(reclaimed.successful, 'after reclaimAfter the buyer alone takes the deposit back');
  assert.is(diff(await eurc(ctx, max.buyer.wallet!.keypair.publicKey()), maxBefore), stroops('18.50'));
});

test.run();
