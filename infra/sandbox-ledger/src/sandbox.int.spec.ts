import { createHash, randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Account, Asset, Horizon, Keypair, Memo, Operation, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { createSandboxHorizonRouter, SandboxLedger, SANDBOX_PASSPHRASE_DEFAULT, sandboxKeys } from './index';
import { onTestTeardown, testKnex } from './testing';

const PASSPHRASE = SANDBOX_PASSPHRASE_DEFAULT;
const ledger = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
const keys = sandboxKeys(PASSPHRASE);
const EURC = new Asset('EURC', keys.issuer.publicKey());

let server: Server | null = null;
let base = '';
let horizon: Horizon.Server;

const startServer = async (l: SandboxLedger) => {
  const app = express();
  app.use('/sandbox/horizon', createSandboxHorizonRouter(l));
  const s = await new Promise<Server>((resolve) => {
    const srv = app.listen(0, '127.0.0.1', () => resolve(srv));
  });
  const url = `http://127.0.0.1:${(s.address() as AddressInfo).port}/sandbox/horizon`;
  const close = () =>
    new Promise<void>((resolve) => {
      s.closeAllConnections();
      s.close(() => resolve());
    });
  return { server: s, url, close };
};

const ensureServer = async () => {
  if (server) return;
  const started = await startServer(ledger);
  server = started.server;
  base = started.url;
  horizon = new Horizon.Server(base, { allowHttp: true });
  onTestTeardown(started.close);
};

interface Build {
  signers?: Keypair[];
  fee?: string;
  memo?: Memo;
  timebounds?: { minTime: number | string; maxTime: number | string };
  /** Added to the account's next sequence number (0 = the right one). */
  seqOffset?: bigint;
  /** When the account does not exist: build from this sequence number. */
  sequence?: string;
}

/** A transaction built by the SDK from the account as the sandbox Horizon reports it, signed in the test. */
const build = async (source: Keypair, ops: xdr.Operation[], o: Build = {}): Promise<Transaction> => {
  const sequence = o.sequence ?? (await horizon.loadAccount(source.publicKey())).sequence;
  const account = new Account(source.publicKey(), (BigInt(sequence) + (o.seqOffset ?? 0n)).toString());
  const builder = new TransactionBuilder(account, {
    fee: o.fee ?? '100',
    networkPassphrase: PASSPHRASE,
    ...(o.timebounds ? { timebounds: o.timebounds } : {}),
    ...(o.memo ? { memo: o.memo } : {}),
  });
  for (const op of ops) builder.addOperation(op);
  if (!o.timebounds) builder.setTimeout(120);
  const tx = builder.build();
  for (const kp of o.signers ?? [source]) tx.sign(kp);
  return tx;
};

interface HorizonFailure {
  status: number;
  data: { type: string; title: string; status: number; extras?: { result_codes?: { transaction: string; operations?: string[] }; result_xdr?: string; envelope_xdr?: string } };
}

/** Submits through the SDK, expecting Horizon to refuse: the SDK's error response (status and problem body). */
const refused = async (tx: Transaction): Promise<HorizonFailure> => {
  try {
    await horizon.submitTransaction(tx);
  } catch (e) {
    const response = (e as { response?: HorizonFailure }).response;
    if (!response) throw e;
    return response;
  }
  throw new Error('the transaction was accepted');
};

const codes = (f: HorizonFailure) => f.data.extras?.result_codes;

const funded = async (): Promise<Keypair> => {
  const kp = Keypair.random();
  await horizon.friendbot(kp.publicKey()).call();
  return kp;
};

/** A funded account trusting EURC and holding 1,000 of it (friendbot → changeTrust → friendbot). */
const holder = async (): Promise<Keypair> => {
  const kp = await funded();
  await horizon.submitTransaction(await build(kp, [Operation.changeTrust({ asset: EURC })]));
  await horizon.friendbot(kp.publicKey()).call();
  return kp;
};

const balanceOf = async (kp: Keypair, asset: 'native' | Asset) => {
  const acc = await horizon.loadAccount(kp.publicKey());
  const line = acc.balances.find((b) =>
    asset === 'native' ? b.asset_type === 'native' : 'asset_code' in b && b.asset_code === asset.code && b.asset_issuer === asset.issuer,
  );
  return line?.balance;
};

const test = suite('sandbox Stellar network through Horizon.Server');

test.before(ensureServer);

test('the SDK keeps the /sandbox/horizon prefix; root, fee stats and genesis accounts look like Horizon', async () => {
  const root = await horizon.root();
  assert.is(root.network_passphrase, PASSPHRASE);
  assert.ok(root.history_latest_ledger >= 2);
  assert.is(await horizon.fetchBaseFee(), 100);
  const platform = await horizon.loadAccount(keys.platform.publicKey());
  const line = platform.balances.find((b) => 'asset_code' in b && b.asset_code === 'EURC');
  assert.ok(line, 'the platform trusts the stablecoin from genesis');
  assert.is((line as { limit: string }).limit, '922337203685.4775807');
  const rootAccount = await horizon.loadAccount(keys.root.publicKey());
  assert.ok(rootAccount.balances.some((b) => b.asset_type === 'native' && b.balance.startsWith('999999')), 'root holds (almost) the whole supply');
  await ledger.ensureGenesis(); // idempotent
  assert.is((await horizon.loadAccount(keys.issuer.publicKey())).sequence, (await horizon.loadAccount(keys.issuer.publicKey())).sequence);
});

test('friendbot, changeTrust signed by the user, friendbot again, then a stablecoin payment: exact 7-decimal balances', async () => {
  const alice = await funded();
  const bob = await funded();
  assert.is(await balanceOf(alice, 'native'), '10000.0000000');
  const created = await horizon.loadAccount(alice.publicKey());
  assert.is(typeof created.sequence, 'string');
  assert.is(BigInt(created.sequence) % (1n << 32n), 0n, 'new accounts start at ledger << 32');
  assert.equal(created.thresholds, { low_threshold: 0, med_threshold: 0, high_threshold: 0 });
  assert.equal(created.signers, [{ weight: 1, key: alice.publicKey(), type: 'ed25519_public_key' }]);

  for (const kp of [alice, bob]) await horizon.submitTransaction(await build(kp, [Operation.changeTrust({ asset: EURC })]));
  await horizon.friendbot(alice.publicKey()).call();
  assert.is(await balanceOf(alice, EURC), '1000.0000000');

  const sent = await horizon.submitTransaction(await build(alice, [Operation.payment({ destination: bob.publicKey(), asset: EURC, amount: '12.3456789' })]));
  assert.is(sent.successful, true);
  assert.ok(sent.ledger > 0);
  const result = xdr.TransactionResult.fromXdr(sent.result_xdr, 'base64');
  assert.is(result.feeCharged, 100n);
  assert.is(result.result.type, 'txSuccess');

  assert.is(await balanceOf(alice, EURC), '987.6543211');
  assert.is(await balanceOf(bob, EURC), '12.3456789');
  assert.is(await balanceOf(alice, 'native'), '9999.9999800', 'two fees of 100 stroops');
  assert.is((await horizon.loadAccount(alice.publicKey())).subentry_count, 1);

  const payments = await horizon.payments().forAccount(bob.publicKey()).call();
  const types = payments.records.map((p) => p.type);
  assert.equal(types, ['create_account', 'payment']);
  const payment = payments.records[1] as unknown as { from: string; to: string; amount: string; asset_code: string };
  assert.equal([payment.from, payment.to, payment.amount, payment.asset_code], [alice.publicKey(), bob.publicKey(), '12.3456789', 'EURC']);
  const ops = await horizon.operations().forTransaction(sent.hash).call();
  assert.is(ops.records.length, 1);
  assert.is(ops.records[0]!.transaction_hash, sent.hash);
});

test('friendbot refuses an account it already funded that does not trust the stablecoin', async () => {
  const kp = await funded();
  const res = await fetch(`${base}/friendbot?addr=${kp.publicKey()}`);
  assert.is(res.status, 400);
  const body = (await res.json()) as { type: string; extras: { reason: string } };
  assert.is(body.type, 'https://stellar.org/horizon-errors/bad_request');
  assert.match(body.extras.reason, /already funded/);
});

test('multisig 2-of-3: one signature short is op_bad_auth (or tx_bad_auth with none), two apply, a spare one is tx_bad_auth_extra', async () => {
  const owner = await funded();
  const [s1, s2] = [Keypair.random(), Keypair.random()];
  await horizon.submitTransaction(
    await build(owner, [
      Operation.setOptions({ signer: { ed25519PublicKey: s1.publicKey(), weight: 1 } }),
      Operation.setOptions({ signer: { ed25519PublicKey: s2.publicKey(), weight: 1 } }),
      Operation.setOptions({ masterWeight: 1, lowThreshold: 1, medThreshold: 2, highThreshold: 2 }),
    ]),
  );
  const acc = await horizon.loadAccount(owner.publicKey());
  assert.is(acc.signers.length, 3);
  assert.equal(acc.thresholds, { low_threshold: 1, med_threshold: 2, high_threshold: 2 });
  assert.is(acc.subentry_count, 2);

  const dest = await funded();
  const pay = () => [Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '1' })];
  const before = (await horizon.loadAccount(owner.publicKey())).sequence;

  const oneShort = await refused(await build(owner, pay(), { signers: [s1] }));
  assert.is(oneShort.status, 400);
  assert.is(oneShort.data.type, 'https://stellar.org/horizon-errors/transaction_failed');
  assert.is(oneShort.data.title, 'Transaction Failed');
  assert.equal(codes(oneShort), { transaction: 'tx_failed', operations: ['op_bad_auth'] });

  assert.equal(codes(await refused(await build(owner, pay(), { signers: [] }))), { transaction: 'tx_bad_auth' });
  assert.equal(codes(await refused(await build(owner, pay(), { signers: [Keypair.random()] }))), { transaction: 'tx_bad_auth' });
  assert.is((await horizon.loadAccount(owner.publicKey())).sequence, before, 'rejected transactions consume nothing');

  // Core stops counting once a check's weight is reached: a third signature nobody needed is an error.
  assert.equal(codes(await refused(await build(owner, pay(), { signers: [s1, s2, owner] }))), { transaction: 'tx_bad_auth_extra' });

  const ok = await horizon.submitTransaction(await build(owner, pay(), { signers: [s1, s2] }));
  assert.is(ok.successful, true);
  assert.is(await balanceOf(dest, 'native'), '10001.0000000');

  // Changing signers needs the high threshold (2): the master alone is not enough.
  const high = await refused(await build(owner, [Operation.setOptions({ signer: { ed25519PublicKey: s2.publicKey(), weight: 0 } })], { signers: [owner] }));
  assert.equal(codes(high), { transaction: 'tx_failed', operations: ['op_bad_auth'] });
});

test('master weight 0 disables the master key', async () => {
  const kp = await funded();
  const other = Keypair.random();
  await horizon.submitTransaction(
    await build(kp, [Operation.setOptions({ signer: { ed25519PublicKey: other.publicKey(), weight: 1 } }), Operation.setOptions({ masterWeight: 0 })]),
  );
  const acc = await horizon.loadAccount(kp.publicKey());
  assert.equal(
    acc.signers.map((s) => s.key),
    [other.publicKey()],
  );
  assert.equal(codes(await refused(await build(kp, [Operation.bumpSequence({ bumpTo: '0' })]))), { transaction: 'tx_bad_auth' });
  assert.ok((await horizon.submitTransaction(await build(kp, [Operation.bumpSequence({ bumpTo: '0' })], { signers: [other] }))).successful);
});

test('a pre-authorised transaction applies without signatures and its signer is consumed', async () => {
  const kp = await funded();
  const dest = await funded();
  const current = BigInt((await horizon.loadAccount(kp.publicKey())).sequence);
  // The transaction to pre-authorise uses the sequence number after the one adding the signer.
  const preAuthorised = await build(kp, [Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '5' })], { signers: [], seqOffset: 1n });
  await horizon.submitTransaction(
    await build(kp, [
      Operation.setOptions({ signer: { preAuthTx: preAuthorised.hash(), weight: 1 } }),
      Operation.setOptions({ masterWeight: 1, lowThreshold: 1, medThreshold: 1, highThreshold: 1 }),
    ]),
  );
  const withSigner = await horizon.loadAccount(kp.publicKey());
  assert.ok(withSigner.signers.some((s) => s.type === 'preauth_tx'));
  assert.is(withSigner.subentry_count, 1);

  const applied = await horizon.submitTransaction(preAuthorised);
  assert.is(applied.successful, true);
  assert.is(applied.hash, Buffer.from(preAuthorised.hash()).toString('hex'));
  const after = await horizon.loadAccount(kp.publicKey());
  assert.not.ok(
    after.signers.some((s) => s.type === 'preauth_tx'),
    'the pre-auth signer is gone',
  );
  assert.is(after.subentry_count, 0);
  assert.is(after.sequence, (current + 2n).toString());
  assert.is(await balanceOf(dest, 'native'), '10005.0000000');

  // Another unsigned transaction cannot ride on it.
  const unsigned = await build(kp, [Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '5' })], { signers: [] });
  assert.equal(codes(await refused(unsigned)), { transaction: 'tx_bad_auth' });

  // The same envelope again: Horizon finds it in its history and answers the stored result; nothing is applied twice.
  const again = await horizon.submitTransaction(preAuthorised);
  assert.is(again.hash, applied.hash);
  assert.is(again.ledger, applied.ledger);
  assert.is((await horizon.loadAccount(kp.publicKey())).sequence, (current + 2n).toString());
  assert.is(await balanceOf(dest, 'native'), '10005.0000000');
});

test('a pre-auth signer is consumed when its transaction fails too', async () => {
  const kp = await funded();
  const dest = await funded();
  const doomed = await build(kp, [Operation.payment({ destination: dest.publicKey(), asset: EURC, amount: '5' })], { signers: [], seqOffset: 1n });
  await horizon.submitTransaction(await build(kp, [Operation.setOptions({ signer: { preAuthTx: doomed.hash(), weight: 1 } })]));
  const failed = await refused(doomed);
  // Core credits the destination before debiting the source: the missing destination line is reported.
  assert.equal(codes(failed), { transaction: 'tx_failed', operations: ['op_no_trust'] });
  const acc = await horizon.loadAccount(kp.publicKey());
  assert.is(acc.signers.length, 1, 'only the master key is left');
  assert.is(await balanceOf(kp, 'native'), '9999.9999800');
});

test('a hash(x) signer is satisfied by its preimage; fee bumps are tx_not_supported', async () => {
  const kp = await funded();
  const preimage = Buffer.from('cagnotte escrow release secret');
  await horizon.submitTransaction(
    await build(kp, [Operation.setOptions({ signer: { sha256Hash: createHash('sha256').update(preimage).digest(), weight: 1 } }), Operation.setOptions({ masterWeight: 0 })]),
  );
  const acc = await horizon.loadAccount(kp.publicKey());
  assert.equal(
    acc.signers.map((s) => s.type),
    ['sha256_hash'],
  );
  const tx = await build(kp, [Operation.manageData({ name: 'released', value: 'yes' })], { signers: [] });
  assert.equal(codes(await refused(tx)), { transaction: 'tx_bad_auth' });
  tx.signHashX(preimage);
  assert.ok((await horizon.submitTransaction(tx)).successful);

  const payer = await funded();
  const inner = await build(payer, [Operation.bumpSequence({ bumpTo: '0' })]);
  const bump = TransactionBuilder.buildFeeBumpTransaction(payer, '200', inner, PASSPHRASE);
  bump.sign(payer);
  const res = await refused(bump as unknown as Transaction);
  assert.equal(codes(res), { transaction: 'tx_not_supported' });
});

test('bad sequence number is tx_bad_seq; expired and future time bounds are tx_too_late and tx_too_early', async () => {
  const kp = await funded();
  const op = [Operation.manageData({ name: 'k', value: 'v' })];
  assert.equal(codes(await refused(await build(kp, op, { seqOffset: 5n }))), { transaction: 'tx_bad_seq' });
  assert.equal(codes(await refused(await build(kp, op, { seqOffset: -1n }))), { transaction: 'tx_bad_seq' });
  const now = Math.floor(Date.now() / 1000);
  const late = await refused(await build(kp, op, { timebounds: { minTime: 0, maxTime: now - 60 } }));
  assert.equal(codes(late), { transaction: 'tx_too_late' });
  assert.is(xdr.TransactionResult.fromXdr(late.data.extras!.result_xdr!, 'base64').result.type, 'txTooLate');
  assert.equal(codes(await refused(await build(kp, op, { timebounds: { minTime: now + 3600, maxTime: 0 } }))), { transaction: 'tx_too_early' });
  assert.ok((await horizon.submitTransaction(await build(kp, op))).successful);
});

test('a payment to an account without the trustline fails with op_no_trust, and still consumes fee and sequence', async () => {
  const alice = await holder();
  const stranger = await funded();
  const before = await horizon.loadAccount(alice.publicKey());
  const tx = await build(alice, [Operation.payment({ destination: stranger.publicKey(), asset: EURC, amount: '1' })], { memo: Memo.text('no trust') });
  const hash = Buffer.from(tx.hash()).toString('hex');
  const failure = await refused(tx);
  assert.equal(codes(failure), { transaction: 'tx_failed', operations: ['op_no_trust'] });
  assert.is(xdr.TransactionResult.fromXdr(failure.data.extras!.result_xdr!, 'base64').result.type, 'txFailed');

  const after = await horizon.loadAccount(alice.publicKey());
  assert.is(after.sequence, (BigInt(before.sequence) + 1n).toString(), 'the sequence number is consumed');
  assert.is(await balanceOf(alice, 'native'), '9999.9999800', 'the fee is charged');
  assert.is(await balanceOf(alice, EURC), '1000.0000000', 'nothing moved');
  const recorded = await horizon.transactions().transaction(hash).call();
  assert.is(recorded.successful, false);
  assert.is(recorded.memo, 'no trust');
  assert.is(recorded.fee_charged, '100');
  // Failed transactions are left out of listings unless asked for, as Horizon does.
  const listed = await horizon.transactions().forAccount(alice.publicKey()).order('desc').call();
  assert.not.ok(listed.records.some((r) => r.hash === hash));
  const withFailed = await horizon.transactions().forAccount(alice.publicKey()).includeFailed(true).order('desc').call();
  assert.ok(withFailed.records.some((r) => r.hash === hash));
});

test('insufficient balance is op_underfunded (credit and native, the reserve counts); atomicity keeps earlier operations out', async () => {
  const alice = await holder();
  const bob = await holder();
  assert.equal(codes(await refused(await build(alice, [Operation.payment({ destination: bob.publicKey(), asset: EURC, amount: '1000.0000001' })]))), {
    transaction: 'tx_failed',
    operations: ['op_underfunded'],
  });
  // 10,000 XLM minus two fees, one trustline: spending 9,999 would break the 1.5 XLM minimum balance.
  assert.equal(codes(await refused(await build(alice, [Operation.payment({ destination: bob.publicKey(), asset: Asset.native(), amount: '9999' })]))), {
    transaction: 'tx_failed',
    operations: ['op_underfunded'],
  });
  const both = await refused(
    await build(alice, [
      Operation.payment({ destination: bob.publicKey(), asset: EURC, amount: '10' }),
      Operation.payment({ destination: bob.publicKey(), asset: EURC, amount: '5000' }),
    ]),
  );
  assert.equal(codes(both), { transaction: 'tx_failed', operations: ['op_success', 'op_underfunded'] });
  assert.is(await balanceOf(alice, EURC), '1000.0000000', 'the first payment is rolled back');
  assert.is(await balanceOf(bob, EURC), '1000.0000000');
  assert.is(await balanceOf(alice, 'native'), '9999.9999500', 'changeTrust (100) and three failed transactions (100 + 100 + 200 stroops)');
});

test('fee below 100 stroops per operation is tx_insufficient_fee; an unknown source is tx_no_source_account', async () => {
  const kp = await funded();
  const two = [Operation.manageData({ name: 'a', value: '1' }), Operation.manageData({ name: 'b', value: '2' })];
  // The SDK's `fee` is per operation: 99 x 2 = 198 < 200.
  assert.equal(codes(await refused(await build(kp, two, { fee: '99' }))), { transaction: 'tx_insufficient_fee' });
  const ok = (await horizon.submitTransaction(await build(kp, two, { fee: '500' }))) as unknown as { fee_charged: string; max_fee: string };
  assert.is(ok.fee_charged, '200', 'the base fee is charged, not the bid');
  assert.is(ok.max_fee, '1000');

  const ghost = Keypair.random();
  const res = await refused(await build(ghost, [Operation.bumpSequence({ bumpTo: '1' })], { sequence: '0' }));
  assert.equal(codes(res), { transaction: 'tx_no_source_account' });
});

test('createAccount below the 1 XLM reserve is op_low_reserve; an existing destination is op_already_exists', async () => {
  const kp = await funded();
  const existing = await funded();
  assert.equal(codes(await refused(await build(kp, [Operation.createAccount({ destination: Keypair.random().publicKey(), startingBalance: '0.9999999' })]))), {
    transaction: 'tx_failed',
    operations: ['op_low_reserve'],
  });
  assert.equal(codes(await refused(await build(kp, [Operation.createAccount({ destination: existing.publicKey(), startingBalance: '1' })]))), {
    transaction: 'tx_failed',
    operations: ['op_already_exists'],
  });
  const fresh = Keypair.random();
  await horizon.submitTransaction(await build(kp, [Operation.createAccount({ destination: fresh.publicKey(), startingBalance: '1' })]));
  // Exactly at the minimum balance: a trustline would need 0.5 XLM more.
  const lowReserve = await refused(await build(fresh, [Operation.changeTrust({ asset: EURC })], { fee: '100' }));
  assert.equal(codes(lowReserve), { transaction: 'tx_insufficient_balance' }, 'the fee itself cannot be paid above the reserve');
});

test('changeTrust: limit below the balance is op_invalid_limit; a zero-balance line is removed with limit 0', async () => {
  const alice = await holder();
  assert.equal(codes(await refused(await build(alice, [Operation.changeTrust({ asset: EURC, limit: '999' })]))), {
    transaction: 'tx_failed',
    operations: ['op_invalid_limit'],
  });
  assert.equal(codes(await refused(await build(alice, [Operation.changeTrust({ asset: EURC, limit: '0' })]))), {
    transaction: 'tx_failed',
    operations: ['op_invalid_limit'],
  });
  const bob = await holder();
  // Paying back to the issuer burns; then the empty line can go.
  await horizon.submitTransaction(await build(bob, [Operation.payment({ destination: keys.issuer.publicKey(), asset: EURC, amount: '1000' })]));
  await horizon.submitTransaction(await build(bob, [Operation.changeTrust({ asset: EURC, limit: '0' })]));
  const acc = await horizon.loadAccount(bob.publicKey());
  assert.is(acc.balances.length, 1);
  assert.is(acc.subentry_count, 0);
  // The line is full at its limit.
  await horizon.submitTransaction(await build(bob, [Operation.changeTrust({ asset: EURC, limit: '10' })]));
  assert.equal(codes(await refused(await build(alice, [Operation.payment({ destination: bob.publicKey(), asset: EURC, amount: '10.0000001' })]))), {
    transaction: 'tx_failed',
    operations: ['op_line_full'],
  });
});

test('operations with their own source account need that account’s signature; manageData and bumpSequence apply', async () => {
  const alice = await funded();
  const bob = await funded();
  const op = Operation.manageData({ name: 'club', value: 'cagnotte', source: bob.publicKey() });
  assert.equal(codes(await refused(await build(alice, [op]))), { transaction: 'tx_failed', operations: ['op_bad_auth'] });
  const bumpTo = (BigInt((await horizon.loadAccount(alice.publicKey())).sequence) + 1000n).toString();
  await horizon.submitTransaction(await build(alice, [op, Operation.bumpSequence({ bumpTo })], { signers: [alice, bob] }));
  const b = await horizon.loadAccount(bob.publicKey());
  assert.equal(b.data_attr, { club: Buffer.from('cagnotte').toString('base64') });
  assert.is((await horizon.loadAccount(alice.publicKey())).sequence, bumpTo);
  assert.equal(codes(await refused(await build(bob, [Operation.manageData({ name: 'missing', value: null })]))), {
    transaction: 'tx_failed',
    operations: ['op_data_name_not_found'],
  });
  const unsupported = await refused(await build(alice, [Operation.manageSellOffer({ selling: Asset.native(), buying: EURC, amount: '1', price: '1' })]));
  assert.equal(codes(unsupported), { transaction: 'tx_failed', operations: ['op_not_supported'] });
});

test('GET /transactions/:hash is 404 until the transaction is in a ledger, then 200 with its memo', async () => {
  const kp = await funded();
  const tx = await build(kp, [Operation.bumpSequence({ bumpTo: '0' })], { memo: Memo.text('cagnotte #42') });
  const hash = Buffer.from(tx.hash()).toString('hex');
  const missing = await fetch(`${base}/transactions/${hash}`);
  assert.is(missing.status, 404);
  const problem = (await missing.json()) as { type: string; title: string; status: number };
  assert.equal([problem.type, problem.title, problem.status], ['https://stellar.org/horizon-errors/not_found', 'Resource Missing', 404]);
  try {
    await horizon.transactions().transaction(hash).call();
    assert.unreachable('found before submission');
  } catch (e) {
    assert.instance(e, Error);
    assert.is((e as Error).constructor.name, 'NotFoundError');
  }
  await horizon.submitTransaction(tx);
  const found = await horizon.transactions().transaction(hash).call();
  assert.is(found.successful, true);
  assert.is(found.memo, 'cagnotte #42');
  assert.is(found.memo_type, 'text');
  assert.is(found.source_account, kp.publicKey());
  assert.is(found.envelope_xdr, tx.toEnvelope().toXDR('base64'));
  const account404 = await fetch(`${base}/accounts/${Keypair.random().publicKey()}`);
  assert.is(account404.status, 404);
  assert.is(((await account404.json()) as { title: string }).title, 'Resource Missing');
});

test('malformed envelopes are a 400 transaction_malformed, never a 500; JSON bodies are accepted too', async () => {
  for (const body of ['tx=not-base64!!', `tx=${encodeURIComponent(Buffer.from('garbage').toString('base64'))}`]) {
    const res = await fetch(`${base}/transactions`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body });
    assert.is(res.status, 400);
    assert.is(((await res.json()) as { type: string }).type, 'https://stellar.org/horizon-errors/transaction_malformed');
  }
  const missing = await fetch(`${base}/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  assert.is(missing.status, 400);
  const kp = await funded();
  const tx = await build(kp, [Operation.bumpSequence({ bumpTo: '0' })]);
  const res = await fetch(`${base}/transactions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ tx: tx.toEnvelope().toXDR('base64') }) });
  assert.is(res.status, 200);
  assert.is(((await res.json()) as { successful: boolean }).successful, true);
});

test('concurrent submissions from two accounts both apply, in distinct ledgers', async () => {
  const [a, b, dest] = await Promise.all([funded(), funded(), funded()]);
  const pay = (kp: Keypair) => build(kp, [Operation.payment({ destination: dest.publicKey(), asset: Asset.native(), amount: '2' })]);
  const [ta, tb] = await Promise.all([pay(a), pay(b)]);
  const [ra, rb] = await Promise.all([horizon.submitTransaction(ta), horizon.submitTransaction(tb)]);
  assert.ok(ra.successful && rb.successful);
  assert.is.not(ra.ledger, rb.ledger);
  assert.is(await balanceOf(dest, 'native'), '10004.0000000');
  const la = await horizon.ledgers().ledger(ra.ledger).call();
  assert.is((la as unknown as { successful_transaction_count: number }).successful_transaction_count, 1);
});

test('collections page like Horizon (cursor, limit, order); bad parameters and unknown paths are Horizon problems', async () => {
  const kp = await funded();
  for (const name of ['a', 'b', 'c']) await horizon.submitTransaction(await build(kp, [Operation.manageData({ name, value: name })]));
  const first = await horizon.operations().forAccount(kp.publicKey()).limit(2).call();
  assert.equal(
    first.records.map((r) => r.type),
    ['create_account', 'manage_data'],
  );
  const second = await first.next();
  assert.equal(
    second.records.map((r) => (r as unknown as { name: string }).name),
    ['b', 'c'],
  );
  const back = await second.prev();
  assert.equal(
    back.records.map((r) => r.type),
    ['manage_data', 'create_account'],
  );
  const desc = await horizon.transactions().forAccount(kp.publicKey()).order('desc').limit(1).call();
  assert.is(desc.records.length, 1);
  assert.is(desc.records[0]!.operation_count, 1);
  for (const url of [`${base}/operations?cursor=abc`, `${base}/operations?limit=500`, `${base}/accounts/nope`, `${base}/transactions/xyz`]) {
    const res = await fetch(url);
    assert.is(res.status, 400, url);
    assert.is(((await res.json()) as { type: string }).type, 'https://stellar.org/horizon-errors/bad_request');
  }
  const unknown = await fetch(`${base}/effects`);
  assert.is(unknown.status, 404);
  assert.is(((await unknown.json()) as { title: string }).title, 'Resource Missing');
});

test('state persists: a new SandboxLedger on the same database continues the same network', async () => {
  const alice = await holder();
  await horizon.submitTransaction(await build(alice, [Operation.manageData({ name: 'persist', value: 'yes' })]));
  const restarted = new SandboxLedger(testKnex(), { passphrase: PASSPHRASE, assetCode: 'EURC' });
  const other = await startServer(restarted);
  try {
    const h2 = new Horizon.Server(other.url, { allowHttp: true });
    const acc = await h2.loadAccount(alice.publicKey());
    assert.is(acc.balances.find((b) => b.asset_type !== 'native')?.balance, '1000.0000000');
    assert.equal(acc.data_attr, { persist: Buffer.from('yes').toString('base64') });
    const tx = new TransactionBuilder(acc, { fee: '100', networkPassphrase: PASSPHRASE })
      .addOperation(Operation.payment({ destination: keys.platform.publicKey(), asset: EURC, amount: '0.5' }))
      .setTimeout(60)
      .build();
    tx.sign(alice);
    const r = await h2.submitTransaction(tx);
    assert.ok(r.successful);
    assert.is(await balanceOf(alice, EURC), '999.5000000', 'the first instance sees the second one’s ledger');
    assert.is(await restarted.latestLedger(), await ledger.latestLedger());
  } finally {
    await other.close();
  }
});

test('genesis is idempotent and safe to run concurrently on a fresh network', async () => {
  const passphrase = `Cagnotte Spec Network ${randomUUID()}`;
  const instances = [1, 2, 3].map(() => new SandboxLedger(testKnex(), { passphrase, assetCode: 'EURC' }));
  await Promise.all(instances.map((l) => l.ensureGenesis()));
  await instances[0]!.ensureGenesis();
  assert.is(await instances[1]!.latestLedger(), 2, 'ledger 1 (root) and one genesis transaction');
  const platform = await instances[2]!.account(sandboxKeys(passphrase).platform.publicKey());
  assert.ok(platform);
  const k = sandboxKeys(passphrase);
  assert.is(k.root.publicKey(), Keypair.master(passphrase).publicKey());
  assert.is.not(k.issuer.publicKey(), keys.issuer.publicKey(), 'keys are derived from the passphrase');
});

test.run();
