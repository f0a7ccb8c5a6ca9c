/**
 * The per-pool escrow through the SDK against a sandbox Horizon over HTTP (docs/escrow.md). This file runs its own
 * network (its own passphrase) because it moves that network's clock: the reclaim test comes last.
 */
import { createHash, randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Asset, BASE_FEE, Keypair, Memo, Operation, TransactionBuilder, type Transaction, type xdr } from '@stellar/stellar-sdk';
import { depositMismatch } from '@cagnotte/domain';
import { SandboxLedger, sandboxKeys } from '@cagnotte/sandbox-ledger';
import { serveSandboxHorizon } from '../testing/sandbox-horizon';
import { testKnex } from '../testing/resources';
import { EscrowLedger } from './escrow';
import { LedgerGateway, LedgerRejectedError } from './gateway';

const PASSPHRASE = `Cagnotte escrow ledger spec ${randomUUID()}`;
const keys = sandboxKeys(PASSPHRASE);
const sandbox = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
const EURC = new Asset('EURC', keys.issuer.publicKey());
let url = '';
const gateway = new LedgerGateway({
  horizonUrl: () => url,
  networkPassphrase: PASSPHRASE,
  assetCode: 'EURC',
  assetIssuer: keys.issuer.publicKey(),
  platformAccount: keys.platform.publicKey(),
  platformKeypair: keys.platform,
  signingKeypair: keys.signing,
  homeDomain: 'cagnotte.local',
  allowHttp: true,
});
const escrow = new EscrowLedger(gateway);

const start = async () => {
  if (url) return;
  url = await serveSandboxHorizon(sandbox);
  await gateway.server.friendbot(keys.platform.publicKey()).call(); // the platform's EURC, for refunds
};

const buyer = async (): Promise<Keypair> => {
  const kp = Keypair.random();
  await gateway.server.friendbot(kp.publicKey()).call();
  await gateway.submit(await build(kp.publicKey(), [Operation.changeTrust({ asset: EURC })], [kp]));
  await gateway.server.friendbot(kp.publicKey()).call();
  return kp;
};

const build = async (source: string, ops: xdr.Operation[], signers: Keypair[], memo?: string): Promise<Transaction> => {
  const b = new TransactionBuilder((await gateway.loadAccount(source))!, { fee: BASE_FEE, networkPassphrase: PASSPHRASE }).setTimeout(0);
  for (const op of ops) b.addOperation(op);
  if (memo) b.addMemo(Memo.hash(memo));
  const tx = b.build();
  tx.sign(...signers);
  return tx;
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

const memo = (s: string) => createHash('sha256').update(s).digest('hex');
const signed = (x: string, kp: Keypair): Transaction => {
  const tx = TransactionBuilder.fromXDR(x, PASSPHRASE) as Transaction;
  tx.sign(kp);
  return tx;
};
const eurcOf = async (id: string) => (await gateway.loadAccount(id))?.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC')?.balance;

const test = suite('EscrowLedger on a sandbox network of its own');
test.before(start);

const DAY = 86_400;

test('openEscrow: master key off, organiser and platform weight 1, thresholds 2, the stablecoin trusted; a second call finds the same account and submits nothing', async () => {
  const organiser = await buyer();
  const poolId = randomUUID();
  const first = await escrow.openEscrow({ poolId, organiserAccount: organiser.publicKey() });
  assert.ok(first.setupTxHash);
  const again = await escrow.openEscrow({ poolId, organiserAccount: organiser.publicKey() });
  assert.equal({ ...again, setupTxHash: null }, { ...first, setupTxHash: null });
  assert.is(again.setupTxHash, null, 'nothing submitted twice');
  const account = (await gateway.loadAccount(first.accountId))!;
  assert.equal(account.thresholds, { low_threshold: 2, med_threshold: 2, high_threshold: 2 });
  assert.equal(
    account.signers.map((s) => [s.key, s.weight]).sort(),
    [[organiser.publicKey(), 1], [keys.platform.publicKey(), 1]].sort(),
    'the master key is off (Horizon lists no signer of weight 0)',
  );
  assert.ok(account.balances.some((b) => 'asset_code' in b && b.asset_code === 'EURC' && b.asset_issuer === keys.issuer.publicKey()));
  const other = await buyer();
  try {
    await escrow.openEscrow({ poolId, organiserAccount: other.publicKey() });
    assert.unreachable('openEscrow accepted an existing account for another organiser');
  } catch (e) {
    assert.match((e as Error).message, /another layout/);
  }
});

test('a deposit: verified exactly; platform alone and organiser alone cannot claim it, both together can; holdings sum it; payFromPlatform pays once per memo', async () => {
  const organiser = await buyer();
  const b = await buyer();
  const { accountId: e } = await escrow.openEscrow({ poolId: randomUUID(), organiserAccount: organiser.publicKey() });
  const now = (await sandbox.networkTime()).getTime();
  const reclaimAfter = new Date(Math.ceil((now + 30 * DAY * 1000) / 1000) * 1000);
  const make = async (amount: string, m: string) => {
    const d = await escrow.buildDeposit({ source: b.publicKey(), escrowAccount: e, amount, memoHash: m, reclaimAfter, validUntil: new Date(now + 3_600_000) });
    await gateway.submit(signed(d.xdr, b));
    return d;
  };
  const d1 = await make('12.5', memo('one'));
  const observed = (await escrow.observeDeposit(d1.hash))!;
  const expected = { source: b.publicKey(), escrowAccount: e, assetCode: 'EURC', assetIssuer: keys.issuer.publicKey(), amount: '12.50', memoHash: memo('one'), reclaimAfter: reclaimAfter.toISOString() };
  assert.is(depositMismatch(expected, observed), null);
  assert.is(observed.balanceId, d1.balanceId);
  assert.is(depositMismatch({ ...expected, amount: '12.51' }, observed)?.field, 'amount');
  assert.is(depositMismatch({ ...expected, memoHash: memo('two') }, observed)?.field, 'memo');

  const d2 = await make('7', memo('two'));
  const holdings = await escrow.holdings(e);
  assert.equal(holdings.deposits.map((d) => d.amount).sort(), ['12.5000000', '7.0000000']);

  const claim = (balanceId: string) => Operation.claimClaimableBalance({ balanceId, source: e });
  const refused = (codes: unknown) => ['tx_bad_auth', 'tx_failed'].includes((codes as { transaction: string }).transaction);
  assert.ok(refused(await rejection(gateway.submit(await build(keys.platform.publicKey(), [claim(d1.balanceId)], [keys.platform])))), 'the platform alone');
  assert.ok(refused(await rejection(gateway.submit(await build(organiser.publicKey(), [claim(d1.balanceId)], [organiser])))), 'the organiser alone');
  await gateway.submit(await build(keys.platform.publicKey(), [claim(d2.balanceId)], [keys.platform, organiser]));
  assert.is(await eurcOf(e), '7.0000000', 'both together claim a deposit into the escrow (the lock of the release path)');

  const before = Number(await eurcOf(organiser.publicKey()));
  const refund = { destination: organiser.publicKey(), amount: '3', memoHash: memo(`refund-${randomUUID()}`) };
  const p1 = await escrow.payFromPlatform(refund);
  const p2 = await escrow.payFromPlatform(refund);
  assert.is(p2.hash, p1.hash, 'the same memo answers the first payment');
  assert.is(Number(await eurcOf(organiser.publicKey())), before + 3);
});

test('missingTrustlines: no account, no trustline, or a trustline to another issuer’s EURC are missing; the issuer is not; transactionOutcome: null when unknown, successful false when it failed once applied', async () => {
  const trusting = await buyer();
  const bare = Keypair.random();
  await gateway.server.friendbot(bare.publicKey()).call();
  const otherIssuer = Keypair.random();
  await gateway.server.friendbot(otherIssuer.publicKey()).call();
  const wrongIssuer = Keypair.random();
  await gateway.server.friendbot(wrongIssuer.publicKey()).call();
  await gateway.submit(await build(wrongIssuer.publicKey(), [Operation.changeTrust({ asset: new Asset('EURC', otherIssuer.publicKey()) })], [wrongIssuer]));
  const nowhere = Keypair.random().publicKey();
  const asked = [trusting.publicKey(), bare.publicKey(), nowhere, keys.issuer.publicKey(), wrongIssuer.publicKey(), trusting.publicKey(), 'not-an-account'];
  assert.equal(await escrow.missingTrustlines(asked), [bare.publicKey(), nowhere, wrongIssuer.publicKey(), 'not-an-account']);
  assert.equal(await escrow.missingTrustlines([]), []);

  assert.is(await escrow.transactionOutcome('ab'.repeat(32)), null);
  const failing = await build(trusting.publicKey(), [Operation.claimClaimableBalance({ balanceId: `00000000${'cd'.repeat(32)}` })], [trusting]);
  assert.equal(await rejection(escrow.submitSigned(failing)), { transaction: 'tx_failed', operations: ['op_does_not_exist'] });
  const outcome = await escrow.transactionOutcome(Buffer.from(failing.hash()).toString('hex'));
  assert.equal({ ...outcome!, ledger: outcome!.ledger > 0, closedAt: typeof outcome!.closedAt }, { hash: Buffer.from(failing.hash()).toString('hex'), successful: false, ledger: true, closedAt: 'string' });
  assert.is(await escrow.balanceExists(`00000000${'cd'.repeat(32)}`), false);
});

// Last: it moves this network's clock.
test('the buyer’s reclaim: refused before reclaimAfter (tx_too_early), accepted after; the escrow can no longer claim then', async () => {
  const organiser = await buyer();
  const b = await buyer();
  const { accountId: e } = await escrow.openEscrow({ poolId: randomUUID(), organiserAccount: organiser.publicKey() });
  const now = (await sandbox.networkTime()).getTime();
  const reclaimAfter = new Date(Math.ceil((now + DAY * 1000) / 1000) * 1000);
  const d = await escrow.buildDeposit({ source: b.publicKey(), escrowAccount: e, amount: '20', memoHash: memo('late'), reclaimAfter, validUntil: new Date(now + 3_600_000) });
  const back = await escrow.buildReclaim({ buyer: b.publicKey(), balanceId: d.balanceId, reclaimAfter: reclaimAfter.toISOString(), afterSequence: d.sequence });
  await gateway.submit(signed(d.xdr, b));
  assert.equal(await rejection(gateway.submit(signed(back.xdr, b))), { transaction: 'tx_too_early' });
  await sandbox.advanceTime(DAY + 1);
  const claim = Operation.claimClaimableBalance({ balanceId: d.balanceId, source: e });
  const late = await rejection(gateway.submit(await build(keys.platform.publicKey(), [claim], [keys.platform, organiser])));
  assert.equal(late, { transaction: 'tx_failed', operations: ['op_cannot_claim'] }, 'the escrow’s predicate has run out');
  const fresh = await escrow.buildReclaim({ buyer: b.publicKey(), balanceId: d.balanceId, reclaimAfter: reclaimAfter.toISOString() });
  const before = Number(await eurcOf(b.publicKey()));
  await gateway.submit(signed(fresh.xdr, b));
  assert.is(Number(await eurcOf(b.publicKey())), before + 20, 'the buyer has their money back, with nobody’s cooperation');
});

test.run();
