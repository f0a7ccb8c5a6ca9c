/**
 * What a non-custodial escrow per pool needs from the sandbox network, through the SDK against the sandbox
 * Horizon: claimable balances, the sandbox clock (time bounds and claim predicates), and the escrow's signer
 * layout (master key off, pre-authorised release and recovery on one sequence number, organiser and platform
 * cosigners). This file runs its own network (its own passphrase): it moves that network's clock.
 */
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Account, Asset, Claimant, Horizon, Keypair, Operation, StrKey, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { createSandboxHorizonRouter, SandboxLedger, sandboxKeys } from './index';
import { onTestTeardown, testKnex } from './testing';

const PASSPHRASE = `Cagnotte escrow spec ${randomUUID()}`;
const ledger = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
const keys = sandboxKeys(PASSPHRASE);
const EURC = new Asset('EURC', keys.issuer.publicKey());
let horizon: Horizon.Server;

const start = async () => {
  if (horizon) return;
  const app = express();
  app.use('/sandbox/horizon', createSandboxHorizonRouter(ledger));
  const server = await new Promise<import('node:http').Server>((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  horizon = new Horizon.Server(`http://127.0.0.1:${(server.address() as AddressInfo).port}/sandbox/horizon`, { allowHttp: true });
  onTestTeardown(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
};

interface Build {
  signers?: Keypair[];
  /** The sequence number the transaction follows (default: the account's, as Horizon reports it). */
  after?: bigint;
  timebounds?: { minTime: number | string; maxTime: number | string };
}

/** No time bounds unless asked (the network's clock moves in this file: a local-clock timeout would expire). */
const build = async (source: Keypair | string, ops: xdr.Operation[], o: Build = {}): Promise<Transaction> => {
  const id = typeof source === 'string' ? source : source.publicKey();
  const sequence = o.after ?? BigInt((await horizon.loadAccount(id)).sequence);
  const builder = new TransactionBuilder(new Account(id, sequence.toString()), { fee: String(100 * ops.length), networkPassphrase: PASSPHRASE, ...(o.timebounds ? { timebounds: o.timebounds } : {}) });
  for (const op of ops) builder.addOperation(op);
  if (!o.timebounds) builder.setTimeout(0);
  const tx = builder.build();
  for (const kp of o.signers ?? (typeof source === 'string' ? [] : [source])) tx.sign(kp);
  return tx;
};

interface Failure {
  status: number;
  data: { extras?: { result_codes?: { transaction: string; operations?: string[] } } };
}

const codesOf = async (tx: Transaction): Promise<{ transaction: string; operations?: string[] } | undefined> => {
  try {
    await horizon.submitTransaction(tx);
  } catch (e) {
    const response = (e as { response?: Failure }).response;
    if (!response) throw e;
    return response.data.extras?.result_codes;
  }
  throw new Error('the transaction was accepted');
};

const funded = async (): Promise<Keypair> => {
  const kp = Keypair.random();
  await horizon.friendbot(kp.publicKey()).call();
  return kp;
};

/** Funded and trusting EURC; with `eurc`, friendbot's 1,000 EURC too. */
const trusting = async (eurc = false): Promise<Keypair> => {
  const kp = await funded();
  await horizon.submitTransaction(await build(kp, [Operation.changeTrust({ asset: EURC })]));
  if (eurc) await horizon.friendbot(kp.publicKey()).call();
  return kp;
};

const account = (kp: Keypair | string) => horizon.loadAccount(typeof kp === 'string' ? kp : kp.publicKey());
const eurcOf = async (kp: Keypair | string) => {
  const line = (await account(kp)).balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  return line?.balance;
};
const unix = (d: Date) => Math.floor(d.getTime() / 1000);
const is404 = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    return (e as { response?: { status?: number } }).response?.status === 404;
  }
  return false;
};

const test = suite('sandbox network: what the escrow needs (claimable balances, clock, signers)');
test.before(start);

test('claimable balances through Horizon.Server: create (id in the result as core), read, list by claimant and sponsor, claim; reserves', async () => {
  const sponsor = await trusting(true);
  const [b, c] = [await trusting(), await funded()];
  const create = await build(sponsor, [
    Operation.createClaimableBalance({ asset: EURC, amount: '100', claimants: [new Claimant(b.publicKey()), new Claimant(c.publicKey(), Claimant.predicateBeforeRelativeTime('3600'))] }),
  ]);
  const record = await horizon.submitTransaction(create);
  const id = create.getClaimableBalanceId(0);
  const result = xdr.TransactionResult.fromXDR(record.result_xdr, 'base64').toXdrObject() as unknown as {
    result: { results: Array<{ tr: { createClaimableBalanceResult: { balanceId: Parameters<typeof xdr.ClaimableBalanceId.fromXdrObject>[0] } } }> };
  };
  assert.is(xdr.ClaimableBalanceId.fromXdrObject(result.result.results[0]!.tr.createClaimableBalanceResult.balanceId).toXDR('hex'), id);

  const cb = await horizon.claimableBalances().claimableBalance(id).call();
  const closeTime = BigInt(unix(new Date((await horizon.transactions().transaction(record.hash).call()).created_at)));
  assert.is(cb.id, id);
  assert.ok(id.startsWith('00000000') && id.length === 72);
  assert.is(cb.asset, `EURC:${keys.issuer.publicKey()}`);
  assert.is(cb.amount, '100.0000000');
  assert.is(cb.sponsor, sponsor.publicKey());
  assert.is(cb.last_modified_ledger, record.ledger);
  assert.is(cb.paging_token, `${record.ledger}-${id}`);
  assert.equal(cb.claimants[0], { destination: b.publicKey(), predicate: { unconditional: true } });
  assert.equal(cb.claimants[1]!.predicate, { abs_before: new Date(Number(closeTime + 3600n) * 1000).toISOString().replace('.000Z', 'Z'), abs_before_epoch: (closeTime + 3600n).toString() });
  assert.equal((cb as unknown as { flags: unknown }).flags, { clawback_enabled: false });

  const sponsorAcc = await account(sponsor);
  assert.is(sponsorAcc.num_sponsoring, 2, 'base reserve × 2 claimants');
  assert.is(await eurcOf(sponsor), '900.0000000');
  assert.equal(
    (await horizon.claimableBalances().claimant(c.publicKey()).call()).records.map((r) => r.id),
    [id],
  );
  assert.equal(
    (await horizon.claimableBalances().sponsor(sponsor.publicKey()).call()).records.map((r) => r.id),
    [id],
  );
  assert.is((await horizon.claimableBalances().claimant(sponsor.publicKey()).call()).records.length, 0);
  const op = (await horizon.operations().forTransaction(record.hash).call()).records[0] as unknown as Record<string, unknown>;
  assert.is(op.type, 'create_claimable_balance');
  assert.is(op.amount, '100.0000000');
  assert.equal((op.claimants as Array<{ predicate: unknown }>)[1]!.predicate, { rel_before: '3600' });

  // c has no trustline: op_no_trust (fee and sequence taken, nothing else); b claims.
  assert.equal(await codesOf(await build(c, [Operation.claimClaimableBalance({ balanceId: id })])), { transaction: 'tx_failed', operations: ['op_no_trust'] });
  const claimed = await horizon.submitTransaction(await build(b, [Operation.claimClaimableBalance({ balanceId: id })]));
  assert.ok(claimed.successful);
  assert.is(await eurcOf(b), '100.0000000');
  assert.is((await account(sponsor)).num_sponsoring, 0, 'the reserve comes back to the sponsor');
  assert.ok(await is404(horizon.claimableBalances().claimableBalance(id).call()));
  assert.equal(await codesOf(await build(b, [Operation.claimClaimableBalance({ balanceId: id })])), { transaction: 'tx_failed', operations: ['op_does_not_exist'] });
  const claimOp = (await horizon.operations().forTransaction(claimed.hash).call()).records[0] as unknown as Record<string, unknown>;
  assert.equal([claimOp.type, claimOp.balance_id, claimOp.claimant], ['claim_claimable_balance', id, b.publicKey()]);
});

test('the sandbox clock: minTime in the future is tx_too_early, then applies once the clock moved; close times follow the clock', async () => {
  const kp = await funded();
  const before = await ledger.networkTime();
  const minTime = unix(before) + 600;
  const later = await build(kp, [Operation.bumpSequence({ bumpTo: '0' })], { timebounds: { minTime, maxTime: 0 } });
  assert.equal(await codesOf(later), { transaction: 'tx_too_early' });
  const moved = await ledger.advanceTime(601);
  assert.ok(unix(moved) >= minTime);
  const record = await horizon.submitTransaction(later);
  assert.ok(record.successful);
  const closed = (await horizon.ledgers().ledger(record.ledger).call()) as unknown as { closed_at: string };
  assert.ok(unix(new Date(closed.closed_at)) >= minTime);
  // Persisted: another SandboxLedger on the same network sees the same clock; the offset only grows.
  const again = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
  assert.ok(unix(await again.networkTime()) >= minTime);
  for (const bad of [0, -5, 1.5]) {
    try {
      await ledger.advanceTime(bad);
      assert.unreachable(`advanceTime(${bad})`);
    } catch (e) {
      assert.match((e as Error).message, /positive whole number/);
    }
  }
});

test('refund as a claimable balance: the backer claims before_absolute_time, after it only the platform (not) can', async () => {
  const [platform, backer] = [await trusting(true), await trusting()];
  const deadline = unix(await ledger.networkTime()) + 300;
  const create = await build(platform, [
    Operation.createClaimableBalance({
      asset: EURC,
      amount: '25',
      claimants: [new Claimant(backer.publicKey(), Claimant.predicateBeforeAbsoluteTime(String(deadline))), new Claimant(platform.publicKey(), Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime(String(deadline))))],
    }),
  ]);
  await horizon.submitTransaction(create);
  const balanceId = create.getClaimableBalanceId(0);
  assert.equal(await codesOf(await build(platform, [Operation.claimClaimableBalance({ balanceId })])), { transaction: 'tx_failed', operations: ['op_cannot_claim'] }, 'not yet');
  await ledger.advanceTime(301);
  assert.equal(await codesOf(await build(backer, [Operation.claimClaimableBalance({ balanceId })])), { transaction: 'tx_failed', operations: ['op_cannot_claim'] }, 'too late');
  assert.ok((await horizon.submitTransaction(await build(platform, [Operation.claimClaimableBalance({ balanceId })]))).successful);
  assert.is(await eurcOf(platform), '1000.0000000');
});

/**
 * The escrow: master weight 0; pre-authorised release R and recovery Q on the same sequence number (weight 2
 * each); organiser and platform (weight 1 each); thresholds 3 = pre-auth + one cosigner. R needs the organiser,
 * Q the platform (and its minTime); neither cosigner alone, nor both together, reaches 3.
 */
const escrow = async (recoveryDelaySeconds: number) => {
  const [platform, organiser] = [await trusting(true), await trusting()];
  const e = await funded();
  await horizon.submitTransaction(await build(e, [Operation.changeTrust({ asset: EURC })]));
  await horizon.submitTransaction(await build(platform, [Operation.payment({ destination: e.publicKey(), asset: EURC, amount: '100' })]));
  const s = BigInt((await account(e)).sequence);
  // Built before the escrow is locked: both follow the locking transaction (s + 1), so both are s + 2.
  const release = await build(e.publicKey(), [Operation.payment({ destination: organiser.publicKey(), asset: EURC, amount: '100' })], { after: s + 1n });
  const minTime = unix(await ledger.networkTime()) + recoveryDelaySeconds;
  const recovery = await build(
    e.publicKey(),
    [Operation.payment({ destination: platform.publicKey(), asset: EURC, amount: '100' }), Operation.changeTrust({ asset: EURC, limit: '0' }), Operation.accountMerge({ destination: platform.publicKey() })],
    { after: s + 1n, timebounds: { minTime, maxTime: 0 } },
  );
  assert.is(release.sequence, (s + 2n).toString());
  assert.is(recovery.sequence, release.sequence);
  await horizon.submitTransaction(
    await build(e, [
      Operation.setOptions({ signer: { preAuthTx: release.hash(), weight: 2 } }),
      Operation.setOptions({ signer: { preAuthTx: recovery.hash(), weight: 2 } }),
      Operation.setOptions({ signer: { ed25519PublicKey: organiser.publicKey(), weight: 1 } }),
      Operation.setOptions({ signer: { ed25519PublicKey: platform.publicKey(), weight: 1 } }),
      Operation.setOptions({ masterWeight: 0, lowThreshold: 3, medThreshold: 3, highThreshold: 3 }),
    ]),
  );
  return { e, platform, organiser, release, recovery, minTime, s };
};

const signed = (tx: Transaction, ...kps: Keypair[]) => {
  const copy = TransactionBuilder.fromXDR(tx.toXDR(), PASSPHRASE) as Transaction;
  for (const kp of kps) copy.sign(kp);
  return copy;
};

test('escrow release: master key locked, the pre-authorised release alone and each cosigner alone are tx_bad_auth; release + organiser applies, its signer is removed, the recovery on the same sequence is then tx_bad_seq', async () => {
  const { e, platform, organiser, release, recovery, s } = await escrow(86_400);
  const acc = await account(e);
  assert.equal(
    acc.signers.map((x) => [x.type, x.weight]).sort(),
    [['ed25519_public_key', 1], ['ed25519_public_key', 1], ['preauth_tx', 2], ['preauth_tx', 2]],
    'no master key among the signers',
  );
  assert.equal(acc.thresholds, { low_threshold: 3, med_threshold: 3, high_threshold: 3 });

  // Not the release itself (same source, sequence and operation would be the same hash, hence pre-authorised).
  const move = (...kps: Keypair[]) => build(e.publicKey(), [Operation.payment({ destination: organiser.publicKey(), asset: EURC, amount: '99' })], { signers: kps });
  assert.equal(await codesOf(await move(e)), { transaction: 'tx_bad_auth' }, 'the master key is locked (weight 0)');
  assert.equal(await codesOf(release), { transaction: 'tx_bad_auth' }, 'the pre-authorised release alone');
  assert.equal(await codesOf(await move(organiser)), { transaction: 'tx_bad_auth' }, 'the organiser alone');
  assert.equal(await codesOf(await move(platform)), { transaction: 'tx_bad_auth' }, 'the platform alone');
  assert.equal(await codesOf(await move(organiser, platform)), { transaction: 'tx_bad_auth' }, 'organiser and platform together');
  assert.equal(await codesOf(signed(recovery, platform)), { transaction: 'tx_too_early' }, 'the recovery before its time');
  assert.is((await account(e)).sequence, (s + 1n).toString(), 'refused transactions consume nothing');

  const done = await horizon.submitTransaction(signed(release, organiser));
  assert.ok(done.successful);
  assert.is(await eurcOf(organiser), '100.0000000');
  const after = await account(e);
  assert.is(after.sequence, (s + 2n).toString());
  assert.equal(
    after.signers.filter((x) => x.type === 'preauth_tx').map((x) => x.key),
    [StrKey.encodePreAuthTx(recovery.hash())],
    'the release signer is consumed, the recovery one stays',
  );

  await ledger.advanceTime(86_401);
  assert.equal(await codesOf(signed(recovery, platform)), { transaction: 'tx_bad_seq' }, 'only one of release and recovery can ever run');
});

test('escrow recovery: after its minTime, recovery + platform pays back, removes the trustline and merges the escrow (its signers go with it); the release is then dead', async () => {
  const { e, platform, organiser, release, recovery, minTime } = await escrow(3_600);
  const before = await account(platform);
  const xlmBefore = before.balances.find((b) => b.asset_type === 'native')!.balance;
  await ledger.advanceTime(3_601);
  assert.ok(unix(await ledger.networkTime()) >= minTime);
  const done = await horizon.submitTransaction(signed(recovery, platform));
  assert.ok(done.successful);
  assert.ok(await is404(account(e)), 'merged');
  assert.is(await eurcOf(platform), '1000.0000000');
  const xlmAfter = (await account(platform)).balances.find((b) => b.asset_type === 'native')!.balance;
  assert.ok(Number(xlmAfter) > Number(xlmBefore), 'the escrow’s XLM went to the platform');
  assert.equal(await codesOf(signed(release, organiser)), { transaction: 'tx_no_source_account' });
});

test('a pre-authorised transaction that fails once applied still consumes the sequence number and its signer: the other one on that sequence is dead too', async () => {
  const { e, platform, organiser, release, recovery } = await escrow(60);
  // The organiser drops its trustline: the release's payment fails (op_no_trust) when applied.
  await horizon.submitTransaction(await build(organiser, [Operation.changeTrust({ asset: EURC, limit: '0' })]));
  assert.equal(await codesOf(signed(release, organiser)), { transaction: 'tx_failed', operations: ['op_no_trust'] });
  const acc = await account(e);
  assert.equal(acc.signers.filter((x) => x.type === 'preauth_tx').length, 1, 'the release signer is gone although it failed');
  assert.is(await eurcOf(e), '100.0000000');
  await ledger.advanceTime(61);
  assert.equal(await codesOf(signed(recovery, platform)), { transaction: 'tx_bad_seq' });
});

test('closing an account: accountMerge is op_has_sub_entries while a trustline remains, removing a trustline with a balance is op_invalid_limit, a sponsor of claimable balances cannot merge (op_is_sponsor)', async () => {
  const [platform, organiser] = [await trusting(true), await funded()];
  const e = await trusting();
  await horizon.submitTransaction(await build(platform, [Operation.payment({ destination: e.publicKey(), asset: EURC, amount: '40' })]));
  await horizon.submitTransaction(
    await build(e, [
      Operation.setOptions({ signer: { ed25519PublicKey: organiser.publicKey(), weight: 1 } }),
      Operation.setOptions({ signer: { ed25519PublicKey: platform.publicKey(), weight: 1 } }),
      Operation.setOptions({ masterWeight: 0, lowThreshold: 2, medThreshold: 2, highThreshold: 2 }),
    ]),
  );
  const both = { signers: [organiser, platform] };
  const merge = Operation.accountMerge({ destination: platform.publicKey() });
  assert.equal(await codesOf(await build(e.publicKey(), [merge], both)), { transaction: 'tx_failed', operations: ['op_has_sub_entries'] });
  assert.equal(await codesOf(await build(e.publicKey(), [Operation.changeTrust({ asset: EURC, limit: '0' })], both)), { transaction: 'tx_failed', operations: ['op_invalid_limit'] });

  // Refunds as claimable balances: the escrow sponsors them (reserve) and cannot leave until they are claimed.
  const refund = await build(e.publicKey(), [Operation.createClaimableBalance({ asset: EURC, amount: '40', claimants: [new Claimant(platform.publicKey())] }), Operation.changeTrust({ asset: EURC, limit: '0' })], both);
  await horizon.submitTransaction(refund);
  assert.equal(await codesOf(await build(e.publicKey(), [merge], both)), { transaction: 'tx_failed', operations: ['op_is_sponsor'] });
  await horizon.submitTransaction(await build(platform, [Operation.claimClaimableBalance({ balanceId: refund.getClaimableBalanceId(0) })]));
  const merged = await horizon.submitTransaction(await build(e.publicKey(), [merge], both));
  assert.ok(merged.successful, 'signers do not block a merge');
  assert.ok(await is404(account(e)));
  assert.is(await eurcOf(platform), '1000.0000000');
});

test('GET /claimable_balances: bad filters and cursors are Horizon problems; an unknown id is 404', async () => {
  const base = horizon.serverURL.toString().replace(/\/$/, '');
  const get = async (path: string) => {
    const r = await fetch(`${base}${path}`);
    return { status: r.status, body: (await r.json()) as { extras?: { invalid_field?: string } } };
  };
  assert.is((await get('/claimable_balances?claimant=nope')).body.extras?.invalid_field, 'claimant');
  assert.is((await get('/claimable_balances?cursor=12')).status, 400);
  assert.is((await get(`/claimable_balances/00000000${'ab'.repeat(32)}`)).status, 404);
  assert.is((await get('/claimable_balances/xyz')).status, 400);
});

test.run();
