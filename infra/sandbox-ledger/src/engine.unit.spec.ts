import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Account, Asset, Keypair, Operation, TransactionBuilder, type xdr } from '@stellar/stellar-sdk';
import { formatAmount, parseAmount } from './amounts';
import { BASE_FEE, BASE_RESERVE, newAccount, parseEnvelope, processTransaction, touchedAccounts, type AccountEntry, type AccountsState, type LedgerContext } from './engine';

const PASSPHRASE = 'Engine Unit Spec Network';
const ctx: LedgerContext = { ledgerSeq: 10, closeTime: 1_900_000_000n, baseFee: BASE_FEE, baseReserve: BASE_RESERVE };

const xlm = (units: string) => parseAmount(units);

const state = (...accounts: AccountEntry[]): AccountsState => new Map(accounts.map((a) => [a.id, a]));

const envelope = (source: AccountEntry, ops: xdr.Operation[], signers: Keypair[], extra: { ledgerbounds?: { minLedger: number; maxLedger: number }; minAccountSequence?: string } = {}) => {
  const builder = new TransactionBuilder(new Account(source.id, source.seqNum.toString()), { fee: '100', networkPassphrase: PASSPHRASE, ...extra });
  for (const op of ops) builder.addOperation(op);
  const tx = builder.setTimeout(0).build();
  for (const kp of signers) tx.sign(kp);
  return parseEnvelope(tx.toEnvelope().toXDR('base64'), PASSPHRASE)!;
};

const run = (s: AccountsState, source: AccountEntry, ops: xdr.Operation[], signers: Keypair[], extra = {}) => {
  const env = envelope(source, ops, signers, extra);
  for (const id of touchedAccounts(env)) if (!s.has(id)) s.set(id, null);
  return processTransaction(env, s, ctx);
};

const test = suite('sandbox ledger engine');

test('amounts: 7 decimals both ways, exact, no floats', () => {
  assert.is(formatAmount(0n), '0.0000000');
  assert.is(formatAmount(1n), '0.0000001');
  assert.is(formatAmount(123_456_789n), '12.3456789');
  assert.is(formatAmount(9_223_372_036_854_775_807n), '922337203685.4775807');
  assert.is(formatAmount(-5n), '-0.0000005');
  assert.is(parseAmount('10'), 100_000_000n);
  assert.is(parseAmount('0.1'), 1_000_000n);
  assert.is(parseAmount('922337203685.4775807'), 9_223_372_036_854_775_807n);
  assert.throws(() => parseAmount('1.00000001'));
  assert.throws(() => parseAmount('1e3'));
  assert.throws(() => parseAmount('922337203685.4775808'));
});

test('setOptions: a new signer that would break the minimum balance is op_low_reserve; the 21st is op_too_many_signers', () => {
  const kp = Keypair.random();
  // 1 XLM + the fee: exactly the minimum balance of an account without subentries once the fee is paid.
  const acc = { ...newAccount(kp.publicKey(), xlm('1.0000100'), 2), seqNum: 5n };
  const low = run(state(acc), acc, [Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } })], [kp]);
  assert.is(low.kind, 'applied');
  if (low.kind === 'applied') {
    assert.is(low.successful, false);
    assert.equal(
      low.ops.map((o) => o.code),
      ['op_low_reserve'],
    );
    assert.is(low.state.get(kp.publicKey())!.balance, xlm('1'), 'the fee is charged');
  }

  const rich = { ...newAccount(kp.publicKey(), xlm('100'), 2), seqNum: 5n };
  rich.signers = Array.from({ length: 20 }, () => ({ key: Keypair.random().publicKey(), type: 'ed25519_public_key' as const, weight: 1 }));
  const many = run(state(rich), rich, [Operation.setOptions({ signer: { ed25519PublicKey: Keypair.random().publicKey(), weight: 1 } })], [kp]);
  assert.equal(many.kind === 'applied' ? many.ops.map((o) => o.code) : many, ['op_too_many_signers']);
});

test('accountMerge: refused with subentries, else moves the whole balance and deletes the source', () => {
  const [a, b] = [Keypair.random(), Keypair.random()];
  const src = { ...newAccount(a.publicKey(), xlm('50'), 2), seqNum: 5n, data: [{ name: 'x', value: new Uint8Array([1]), lastModifiedLedger: 2 }] };
  const dest = newAccount(b.publicKey(), xlm('10'), 2);
  const refused = run(state(src, dest), src, [Operation.accountMerge({ destination: b.publicKey() })], [a]);
  assert.equal(refused.kind === 'applied' ? refused.ops.map((o) => o.code) : refused, ['op_has_sub_entries']);

  const clean = { ...src, data: [] };
  const merged = run(state(clean, dest), clean, [Operation.accountMerge({ destination: b.publicKey() })], [a]);
  assert.is(merged.kind, 'applied');
  if (merged.kind === 'applied') {
    assert.is(merged.successful, true);
    assert.is(merged.state.get(a.publicKey()), null);
    assert.is(merged.state.get(b.publicKey())!.balance, xlm('60') - 100n);
  }
});

test('preconditions: ledger bounds and minSeqNum', () => {
  const kp = Keypair.random();
  const acc = { ...newAccount(kp.publicKey(), xlm('100'), 2), seqNum: 5n };
  const op = [Operation.bumpSequence({ bumpTo: '0' })];
  const late = run(state(acc), acc, op, [kp], { ledgerbounds: { minLedger: 0, maxLedger: ctx.ledgerSeq } });
  assert.equal(late.kind === 'rejected' ? late.txCode : late, 'tx_too_late');
  const early = run(state(acc), acc, op, [kp], { ledgerbounds: { minLedger: ctx.ledgerSeq + 1, maxLedger: 0 } });
  assert.equal(early.kind === 'rejected' ? early.txCode : early, 'tx_too_early');
  // With minSeqNum, a gap in sequence numbers is allowed: account at 5, transaction at 10.
  const gapped = { ...acc, seqNum: 9n };
  const env = envelope(gapped, op, [kp], { minAccountSequence: '3' });
  const relaxed = processTransaction(env, state(acc), ctx);
  assert.is(relaxed.kind, 'applied');
  if (relaxed.kind === 'applied') assert.is(relaxed.state.get(kp.publicKey())!.seqNum, 10n);
});

test('the issuer mints and burns its own asset without a trustline', () => {
  const [issuer, holder] = [Keypair.random(), Keypair.random()];
  const asset = new Asset('EURC', issuer.publicKey());
  const iss = { ...newAccount(issuer.publicKey(), xlm('100'), 2), seqNum: 5n };
  const hol = { ...newAccount(holder.publicKey(), xlm('100'), 2), seqNum: 7n };
  hol.trustlines = [{ code: 'EURC', issuer: issuer.publicKey(), balance: 0n, limit: xlm('1000'), flags: 1, lastModifiedLedger: 2 }];
  const minted = run(state(iss, hol), iss, [Operation.payment({ destination: holder.publicKey(), asset, amount: '25' })], [issuer]);
  assert.ok(minted.kind === 'applied' && minted.successful);
  const after = minted.kind === 'applied' ? minted.state : new Map();
  const h2 = after.get(holder.publicKey())!;
  assert.is(h2.trustlines[0]!.balance, xlm('25'));
  const burnt = run(after, h2, [Operation.payment({ destination: issuer.publicKey(), asset, amount: '5' })], [holder]);
  assert.ok(burnt.kind === 'applied' && burnt.successful);
  if (burnt.kind === 'applied') assert.is(burnt.state.get(holder.publicKey())!.trustlines[0]!.balance, xlm('20'));
});

test.run();
