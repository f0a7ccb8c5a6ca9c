/**
 * The settlement's lock, release and recovery (settlement.ts) on a real escrow (EscrowLedger.openEscrow) with real
 * deposits (EscrowLedger.buildDeposit), through the SDK against a sandbox Horizon over HTTP, every key held here.
 * This file runs its own network (its own passphrase) because it moves that network's clock: those tests come last.
 */
import { createHash, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Asset, BASE_FEE, Keypair, Operation, StrKey, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { formatAmount, parseAmount } from '@cagnotte/domain';
import { SandboxLedger, sandboxKeys } from '@cagnotte/sandbox-ledger';
import { serveSandboxHorizon } from '../testing/sandbox-horizon';
import { testKnex } from '../testing/resources';
import { EscrowLedger } from './escrow';
import { LedgerGateway, LedgerRejectedError } from './gateway';
import { planSettlement, type SettlementItem, type SettlementRound } from './settlement';

const PASSPHRASE = `Cagnotte settlement spec ${randomUUID()}`;
const keys = sandboxKeys(PASSPHRASE);
const sandbox = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
const EURC = new Asset('EURC', keys.issuer.publicKey());
const P = keys.platform.publicKey();
let url = '';
const gateway = new LedgerGateway({
  horizonUrl: () => url,
  networkPassphrase: PASSPHRASE,
  assetCode: 'EURC',
  assetIssuer: keys.issuer.publicKey(),
  platformAccount: P,
  platformKeypair: keys.platform,
  signingKeypair: keys.signing,
  homeDomain: 'cagnotte.local',
  allowHttp: true,
});
const escrow = new EscrowLedger(gateway);

const start = async () => {
  if (url) return;
  url = await serveSandboxHorizon(sandbox);
  await gateway.server.friendbot(P).call();
};

const DAY = 86_400;
const unix = (d: Date) => Math.floor(d.getTime() / 1000);
const memo = (s: string) => createHash('sha256').update(s).digest('hex');

/** Funded, trusting EURC, with friendbot's 1,000 EURC. */
const wallet = async (): Promise<Keypair> => {
  const kp = Keypair.random();
  await gateway.server.friendbot(kp.publicKey()).call();
  const tx = new TransactionBuilder((await gateway.loadAccount(kp.publicKey()))!, { fee: BASE_FEE, networkPassphrase: PASSPHRASE })
    .addOperation(Operation.changeTrust({ asset: EURC }))
    .setTimeout(0)
    .build();
  tx.sign(kp);
  await gateway.submit(tx);
  await gateway.server.friendbot(kp.publicKey()).call();
  return kp;
};

const signed = (tx: Transaction | string, ...kps: Keypair[]): Transaction => {
  const copy = TransactionBuilder.fromXDR(typeof tx === 'string' ? tx : tx.toXDR(), PASSPHRASE) as Transaction;
  for (const kp of kps) copy.sign(kp);
  return copy;
};

const rejection = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof LedgerRejectedError) return e.resultCodes;
    throw e;
  }
  throw new Error('the transaction was accepted');
};

const eurcOf = async (id: string): Promise<bigint> => {
  const line = (await gateway.loadAccount(id))?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC' && b.asset_issuer === EURC.getIssuer());
  return line ? parseAmount(line.balance) : 0n;
};
const xlmOf = async (id: string): Promise<bigint> => parseAmount((await gateway.loadAccount(id))!.balances.find((b) => b.asset_type === 'native')!.balance);

/** A pool: its escrow opened for the organiser, a seller, and the reclaim time of its deposits. */
const pool = async (reclaimInDays = 30) => {
  const organiser = await wallet();
  const seller = await wallet();
  const { accountId: e } = await escrow.openEscrow({ poolId: randomUUID(), organiserAccount: organiser.publicKey() });
  const now = unix(await sandbox.networkTime());
  return { organiser, seller, e, reclaimAfter: new Date((now + reclaimInDays * DAY) * 1000) };
};
type Pool = Awaited<ReturnType<typeof pool>>;

/** Escrows for the tests that move the clock, opened before it moves: openEscrow bounds its setup by the wall clock. */
let early: { recovery: Pool; deadSigner: Pool; rearm: Pool };

/** A deposit exactly as a buyer signs it (EscrowLedger.buildDeposit), and the item that settles it: 5 % platform, 10 % organiser, the rest seller. */
const deposit = async (p: Pool, buyer: Keypair, amount: bigint): Promise<SettlementItem> => {
  const validUntil = new Date((await sandbox.networkTime()).getTime() + 3_600_000);
  const d = await escrow.buildDeposit({ source: buyer.publicKey(), escrowAccount: p.e, amount: formatAmount(amount), memoHash: memo(randomUUID()), reclaimAfter: p.reclaimAfter, validUntil });
  await gateway.submit(signed(d.xdr, buyer));
  const fee = (amount * 5n) / 100n;
  const commission = (amount * 10n) / 100n;
  return {
    ref: randomUUID(),
    balanceId: d.balanceId,
    amount,
    refundTo: buyer.publicKey(),
    payouts: [
      { destination: p.seller.publicKey(), amount: amount - fee - commission },
      { destination: p.organiser.publicKey(), amount: commission },
      { destination: P, amount: fee },
    ],
  };
};

const plan = async (p: Pool, items: SettlementItem[], final: boolean, deadPreAuthSigners?: string[], strayReturns: Array<{ destination: string; amount: bigint }> = []) => {
  const state = await escrow.escrowState(p.e);
  const now = unix(await sandbox.networkTime());
  return planSettlement({
    networkPassphrase: PASSPHRASE,
    asset: EURC,
    escrowAccount: p.e,
    escrowSequence: state.sequence,
    platform: P,
    strayBalance: state.strayBalance,
    strayReturns,
    hasTrustline: state.hasTrustline,
    items,
    final,
    releaseUntil: now + DAY,
    recoveryFrom: now + 2 * DAY,
    recoveryUntil: now + 3 * DAY,
    deadPreAuthSigners,
  });
};

const lock = (p: Pool, round: SettlementRound) => escrow.submitSigned(signed(escrow.platformSign(round.lock), p.organiser));

const balancesOf = async (ids: string[]) => new Map(await Promise.all(ids.map(async (id) => [id, await eurcOf(id)] as const)));

/**
 * Applies `tx` (a release or a recovery of `round`) and checks it: applied successfully, each destination got
 * exactly its aggregated amount, and on the ledger's own record Σ claimed = Σ paid out, to the stroop.
 */
const settle = async (round: SettlementRound, tx: Transaction, transfers: SettlementRound['payouts'], items: SettlementItem[]) => {
  const before = await balancesOf(transfers.map((t) => t.destination));
  const { hash } = await escrow.submitSigned(tx);
  assert.ok((await escrow.transactionOutcome(hash))?.successful);
  for (const t of transfers) assert.is((await eurcOf(t.destination)) - before.get(t.destination)!, t.amount, `${t.destination} got exactly its share`);
  const records = (await gateway.server.operations().forTransaction(hash).limit(200).call()).records as unknown as Array<Record<string, string>>;
  const mine = items.filter((i) => round.refs.includes(i.ref));
  assert.equal(records.filter((r) => r.type === 'claim_claimable_balance').map((r) => r.balance_id), mine.map((i) => i.balanceId));
  const paid = records.filter((r) => r.type === 'payment').reduce((s, r) => s + parseAmount(r.amount!), 0n);
  assert.is(paid, mine.reduce((s, i) => s + i.amount, 0n), 'Σ claimed = Σ paid out');
  for (const i of mine) assert.not.ok(await escrow.balanceExists(i.balanceId));
  return hash;
};
const release = (p: Pool, round: SettlementRound, items: SettlementItem[]) => settle(round, signed(round.release, p.organiser), round.payouts, items);
const recover = (round: SettlementRound, items: SettlementItem[]) => settle(round, round.recovery, round.refunds, items);

const layout = async (e: string) => {
  const s = await escrow.escrowState(e);
  return { signers: s.signers.filter((x) => x.weight > 0).map((x) => [x.key, x.weight]).sort(), thresholds: s.thresholds, hasTrustline: s.hasTrustline };
};
const armed = (p: Pool) => ({
  signers: [[p.organiser.publicKey(), 1], [P, 1]].sort(),
  thresholds: { low: 2, med: 2, high: 2 },
  hasTrustline: false,
});

const test = suite('the settlement on a sandbox network of its own');
test.before(async () => {
  await start();
  early = { recovery: await pool(), deadSigner: await pool(), rearm: await pool(10) };
});

test('release: platform and organiser lock, the organiser cosigns the release; payouts exact to the stroop, the escrow merged into the platform with its XLM', async () => {
  const p = await pool();
  const [b1, b2] = [await wallet(), await wallet()];
  const items = [await deposit(p, b1, 125_000_000n), await deposit(p, b2, 73_333_333n), await deposit(p, b1, 1n)];
  const [round, ...more] = await plan(p, items, true);
  assert.is(more.length, 0);
  assert.equal(round!.payouts, [
    { destination: p.seller.publicKey(), amount: 106_250_000n + 62_333_334n + 1n },
    { destination: p.organiser.publicKey(), amount: 12_500_000n + 7_333_333n },
    { destination: P, amount: 6_250_000n + 3_666_666n },
  ]);

  await lock(p, round!);
  const locked = await escrow.escrowState(p.e);
  assert.equal(locked.thresholds, { low: 3, med: 3, high: 3 });
  assert.equal(
    locked.signers.filter((s) => s.weight > 0).map((s) => [s.key, s.weight]).sort(),
    [[p.organiser.publicKey(), 1], [StrKey.encodePreAuthTx(round!.release.hash()), 2], [StrKey.encodePreAuthTx(round!.recovery.hash()), 3]].sort(),
    'the platform is gone',
  );
  assert.is(locked.hasTrustline, false, 'nobody can pay the escrow directly');

  const [platformXlm, escrowXlm] = [await xlmOf(P), await xlmOf(p.e)];
  await release(p, round!, items);
  assert.is((await escrow.escrowState(p.e)).exists, false, 'merged');
  assert.is(await gateway.loadAccount(p.e), null, '404');
  assert.is(await xlmOf(P), platformXlm + escrowXlm - BigInt(round!.release.fee), 'the platform got the escrow’s XLM (less the release’s fee)');
});

test('refused without the organiser: the lock signed by one of them, the release bare or with the platform, any payment out of the locked escrow by either or both; nothing moved', async () => {
  const p = await pool();
  const b = await wallet();
  const items = [await deposit(p, b, 40_000_000n)];
  const [round] = await plan(p, items, true);
  const s = (await escrow.escrowState(p.e)).sequence;
  assert.equal(await rejection(escrow.submitSigned(escrow.platformSign(round!.lock))), { transaction: 'tx_bad_auth' }, 'the lock, platform only');
  assert.equal(await rejection(escrow.submitSigned(signed(round!.lock, p.organiser))), { transaction: 'tx_bad_auth' }, 'the lock, organiser only');
  assert.is((await escrow.escrowState(p.e)).sequence, s);

  await lock(p, round!);
  assert.equal(await rejection(escrow.submitSigned(round!.release)), { transaction: 'tx_bad_auth' }, 'the release alone (pre-auth 2 of 3)');
  assert.equal(await rejection(escrow.submitSigned(escrow.platformSign(round!.release))), { transaction: 'tx_bad_auth' }, 'the release with the platform (weight 0 now)');
  const steal = async (...kps: Keypair[]) => {
    const tx = new TransactionBuilder((await gateway.loadAccount(p.e))!, { fee: BASE_FEE, networkPassphrase: PASSPHRASE })
      .addOperation(Operation.claimClaimableBalance({ balanceId: items[0]!.balanceId }))
      .addOperation(Operation.accountMerge({ destination: P }))
      .setTimeout(0)
      .build();
    return rejection(escrow.submitSigned(signed(tx, ...kps)));
  };
  assert.equal(await steal(keys.platform), { transaction: 'tx_bad_auth' }, 'the platform alone');
  assert.equal(await steal(p.organiser), { transaction: 'tx_bad_auth' }, 'the organiser alone');
  assert.equal(await steal(keys.platform, p.organiser), { transaction: 'tx_bad_auth' }, 'both together (1 of 3)');
  assert.equal(await rejection(escrow.submitSigned(round!.recovery)), { transaction: 'tx_too_early' }, 'the recovery before its time');
  assert.is((await escrow.escrowState(p.e)).sequence, s + 1n, 'only the lock consumed a sequence number');
  assert.ok(await escrow.balanceExists(items[0]!.balanceId), 'the deposit is where it was');
  assert.is(await eurcOf(p.seller.publicKey()), 1_000n * 10_000_000n);

  await release(p, round!, items);
});

test('a stray payment into the escrow before the lock is paid back to its sender by the lock (the platform gets nothing of it), which then removes the trustline', async () => {
  const p = await pool();
  const [b, stranger] = [await wallet(), await wallet()];
  const items = [await deposit(p, b, 20_000_000n)];
  const pay = new TransactionBuilder((await gateway.loadAccount(stranger.publicKey()))!, { fee: BASE_FEE, networkPassphrase: PASSPHRASE })
    .addOperation(Operation.payment({ destination: p.e, asset: EURC, amount: '3.0000001' }))
    .setTimeout(0)
    .build();
  await gateway.submit(signed(pay, stranger));
  const state = await escrow.escrowState(p.e);
  assert.equal([state.strayBalance, state.hasTrustline], [30_000_001n, true]);

  const [round] = await plan(p, items, true, undefined, [{ destination: stranger.publicKey(), amount: 30_000_001n }]);
  const before = { platform: await eurcOf(P), stranger: await eurcOf(stranger.publicKey()) };
  await lock(p, round!);
  assert.is((await eurcOf(stranger.publicKey())) - before.stranger, 30_000_001n, 'back to its sender, to the stroop');
  assert.is(await eurcOf(P), before.platform, 'the platform gets nothing of it');
  assert.equal([(await escrow.escrowState(p.e)).hasTrustline, (await escrow.escrowState(p.e)).strayBalance], [false, 0n]);
  await release(p, round!, items);
  assert.is((await escrow.escrowState(p.e)).exists, false);
});

test('multi-round: 120 deposits from 3 buyers take 2 rounds (93 + 27); the first re-arms, the second merges; every payout exact', async () => {
  const p = await pool();
  const buyers = [await wallet(), await wallet(), await wallet()];
  const perBuyer = await Promise.all(buyers.map(async (b, j) => {
    const mine: SettlementItem[] = [];
    for (let i = 0; i < 40; i++) mine.push(await deposit(p, b, 1_000_000n + BigInt(i * 3 + j) * 12_345n));
    return mine;
  }));
  const items = perBuyer[0]!.flatMap((_, i) => perBuyer.map((m) => m[i]!));
  const rounds = await plan(p, items, true);
  assert.equal(rounds.map((r) => r.refs.length), [93, 27]);
  assert.equal(rounds.map((r) => [r.release.operations.length, r.recovery.operations.length]), [[100, 99], [34, 33]]);
  const sellerBefore = await eurcOf(p.seller.publicKey());

  await lock(p, rounds[0]!);
  await release(p, rounds[0]!, items);
  assert.equal(await layout(p.e), armed(p), 'round 0 re-armed the escrow');
  await lock(p, rounds[1]!);
  await release(p, rounds[1]!, items);
  assert.is((await escrow.escrowState(p.e)).exists, false, 'round 1 merged it');
  const sellerShare = items.reduce((s, i) => s + i.payouts[0]!.amount, 0n);
  assert.is((await eurcOf(p.seller.publicKey())) - sellerBefore, sellerShare);
});

// From here on the tests move this network's clock.

test('recovery: after the lock and no release, the recovery is too early, then runs with no signature once its time comes; every buyer refunded in full; the release is dead', async () => {
  const p = early.recovery;
  const [b1, b2] = [await wallet(), await wallet()];
  const items = [await deposit(p, b1, 50_000_000n), await deposit(p, b2, 12_345_678n), await deposit(p, b1, 7n)];
  const [round] = await plan(p, items, true);
  assert.equal(round!.refunds, [
    { destination: b1.publicKey(), amount: 50_000_007n },
    { destination: b2.publicKey(), amount: 12_345_678n },
  ]);
  await lock(p, round!);
  assert.equal(await rejection(escrow.submitSigned(round!.recovery)), { transaction: 'tx_too_early' });
  await sandbox.advanceTime(2 * DAY + 1);
  await recover(round!, items);
  assert.is((await escrow.escrowState(p.e)).exists, false, 'the final recovery merged the escrow');
  // Its window closed before the recovery's opened, and its source account is gone.
  assert.equal(await rejection(escrow.submitSigned(signed(round!.release, p.organiser))), { transaction: 'tx_too_late' });
});

test('a non-final recovery re-arms the escrow and leaves the release’s dead signer; the next plan’s first lock removes it and that plan settles', async () => {
  const p = early.deadSigner;
  const b = await wallet();
  const items = [await deposit(p, b, 30_000_000n), await deposit(p, b, 45_000_000n)];
  const [first] = await plan(p, items.slice(0, 1), false);
  await lock(p, first!);
  await sandbox.advanceTime(2 * DAY + 1);
  await recover(first!, items);
  const state = await escrow.escrowState(p.e);
  assert.is(state.sequence, BigInt(first!.release.sequence), 'the release’s sequence number is consumed: it can never run');
  const dead = StrKey.encodePreAuthTx(first!.release.hash());
  assert.equal(
    state.signers.filter((s) => s.type === 'preauth_tx').map((s) => [s.key, s.weight]),
    [[dead, 2]],
  );
  assert.equal({ ...(await layout(p.e)), signers: (await layout(p.e)).signers.filter(([k]) => k !== dead) }, armed(p));

  const [second] = await plan(p, items.slice(1), true, state.signers.filter((s) => s.type === 'preauth_tx').map((s) => s.key));
  await lock(p, second!);
  const keysNow = (await escrow.escrowState(p.e)).signers.map((s) => s.key);
  assert.not.ok(keysNow.includes(dead), 'the dead signer is gone');
  await release(p, second!, items);
  assert.is((await escrow.escrowState(p.e)).exists, false);
});

test('a non-final release re-arms (O 1, P 1, thresholds 2); its recovery is then tx_bad_seq; a leftover deposit is settled by a second, final plan; a deposit no plan claimed goes back by the buyer’s own reclaim', async () => {
  const p = early.rearm;
  const [b1, b2] = [await wallet(), await wallet()];
  const planned = [await deposit(p, b1, 11_000_000n), await deposit(p, b2, 22_000_000n)];
  const leftover = await deposit(p, b1, 33_000_000n);
  const unclaimed = await deposit(p, b2, 44_000_000n);
  const [first] = await plan(p, planned, false);
  await lock(p, first!);
  await release(p, first!, planned);
  assert.equal(await layout(p.e), armed(p));
  assert.ok(await escrow.balanceExists(leftover.balanceId));
  await sandbox.advanceTime(2 * DAY + 1);
  assert.equal(await rejection(escrow.submitSigned(first!.recovery)), { transaction: 'tx_bad_seq' }, 'the release consumed the sequence number');

  const [second] = await plan(p, [leftover], true);
  await lock(p, second!);
  await release(p, second!, [leftover]);
  assert.is((await escrow.escrowState(p.e)).exists, false);
  assert.ok(await escrow.balanceExists(unclaimed.balanceId), 'merging the escrow leaves a deposit it never claimed');

  const reclaim = await escrow.buildReclaim({ buyer: b2.publicKey(), balanceId: unclaimed.balanceId, reclaimAfter: p.reclaimAfter.toISOString() });
  assert.equal(await rejection(escrow.submitSigned(signed(reclaim.xdr, b2))), { transaction: 'tx_too_early' });
  await sandbox.advanceTime(8 * DAY);
  const before = await eurcOf(b2.publicKey());
  await escrow.submitSigned(signed(reclaim.xdr, b2));
  assert.is((await eurcOf(b2.publicKey())) - before, 44_000_000n, 'the buyer has it back, with nobody’s cooperation');
});

test.run();
