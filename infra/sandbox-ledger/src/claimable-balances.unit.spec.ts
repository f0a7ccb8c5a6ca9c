import { createHash } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Account, Asset, Claimant, Keypair, Operation, StrKey, TransactionBuilder, xdr, type Transaction } from '@stellar/stellar-sdk';
import { parseAmount } from './amounts';
import {
  BASE_FEE,
  BASE_RESERVE,
  balanceIdString,
  claimableBalanceHash,
  newAccount,
  parseEnvelope,
  processTransaction,
  touchedAccounts,
  touchedBalances,
  type AccountEntry,
  type AccountsState,
  type BalancesState,
  type LedgerContext,
  type Verdict,
} from './engine';

const PASSPHRASE = 'Claimable Balances Unit Spec Network';
const ctx: LedgerContext = { ledgerSeq: 10, closeTime: 1_900_000_000n, baseFee: BASE_FEE, baseReserve: BASE_RESERVE };
const xlm = (units: string) => parseAmount(units);

const issuer = Keypair.random();
const EURC = new Asset('EURC', issuer.publicKey());

const account = (kp: Keypair, balance: string, extra: Partial<AccountEntry> = {}): AccountEntry => ({ ...newAccount(kp.publicKey(), xlm(balance), 2), seqNum: 5n, ...extra });
const trusting = (kp: Keypair, balance: string, eurc: string, flags = 1): AccountEntry =>
  account(kp, balance, { trustlines: [{ code: 'EURC', issuer: issuer.publicKey(), balance: xlm(eurc), limit: xlm('1000'), flags, lastModifiedLedger: 2 }] });

const build = (source: AccountEntry, ops: xdr.Operation[], signers: Keypair[]): Transaction => {
  const builder = new TransactionBuilder(new Account(source.id, source.seqNum.toString()), { fee: String(100 * ops.length), networkPassphrase: PASSPHRASE });
  for (const op of ops) builder.addOperation(op);
  const tx = builder.setTimeout(0).build();
  for (const kp of signers) tx.sign(kp);
  return tx;
};

/** Runs a transaction against accounts and balances as the ledger does: balances, then every account it touches. */
const run = (accounts: AccountEntry[], balances: BalancesState, tx: Transaction, at: LedgerContext = ctx): Verdict => {
  const env = parseEnvelope(tx.toEnvelope().toXDR('base64'), PASSPHRASE)!;
  const state: AccountsState = new Map(accounts.map((a) => [a.id, a]));
  const loaded: BalancesState = new Map(touchedBalances(env).map((id) => [id, balances.get(id) ?? null]));
  for (const id of touchedAccounts(env, loaded)) if (!state.has(id)) state.set(id, null);
  return processTransaction(env, state, at, loaded);
};

const opCodes = (v: Verdict) => (v.kind === 'applied' ? v.ops.map((o) => o.code) : v.txCode === 'tx_failed' ? v.ops?.map((o) => o.code) : v.txCode);
const applied = (v: Verdict) => {
  if (v.kind !== 'applied' || !v.successful) throw new Error(`not applied: ${JSON.stringify(opCodes(v))}`);
  return v;
};

const test = suite('sandbox ledger engine: claimable balances');

test('the balance id is sha256 of HashIDPreimage ENVELOPE_TYPE_OP_ID (tx source, tx seqNum, op index), as the SDK computes it', () => {
  const [a, b] = [Keypair.random(), Keypair.random()];
  const src = account(a, '100');
  const tx = build(src, [Operation.createClaimableBalance({ asset: Asset.native(), amount: '1', claimants: [new Claimant(b.publicKey())] }), Operation.createClaimableBalance({ asset: Asset.native(), amount: '2', claimants: [new Claimant(b.publicKey())] })], [a]);
  const seq = src.seqNum + 1n;
  for (const index of [0, 1]) {
    const hash = Buffer.from(claimableBalanceHash(a.publicKey(), seq, index)).toString('hex');
    assert.is(balanceIdString(hash), tx.getClaimableBalanceId(index));
    const preimage = xdr.HashIdPreimage.envelopeTypeOpId(
      new xdr.HashIdPreimageOperationId({ sourceAccount: xdr.PublicKey.publicKeyTypeEd25519(a.rawPublicKey()), seqNum: xdr.Int64.fromString(seq.toString()), opNum: index }),
    );
    assert.is(hash, createHash('sha256').update(preimage.toXDR()).digest('hex'));
  }
  // The op result carries the id, like core's CreateClaimableBalanceResult.
  const v = applied(run([src], new Map(), tx));
  const result = v.ops[1]!.result as unknown as { tr: { createClaimableBalanceResult: { balanceId: { v0: Uint8Array } } } };
  assert.is(balanceIdString(Buffer.from(result.tr.createClaimableBalanceResult.balanceId.v0).toString('hex')), tx.getClaimableBalanceId(1));
  assert.equal([...v.balances.keys()].map(balanceIdString), [tx.getClaimableBalanceId(0), tx.getClaimableBalanceId(1)]);
});

test('create: the amount leaves the source, which sponsors base reserve × claimants; relative predicates become absolute at the close time', () => {
  const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
  const src = trusting(a, '100', '500');
  const predicate = Claimant.predicateOr(Claimant.predicateBeforeRelativeTime('3600'), Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime('1000')));
  const tx = build(src, [Operation.createClaimableBalance({ asset: EURC, amount: '120', claimants: [new Claimant(b.publicKey(), predicate), new Claimant(c.publicKey())] })], [a]);
  const v = applied(run([src], new Map(), tx));
  const after = v.state.get(a.publicKey())!;
  assert.is(after.trustlines[0]!.balance, xlm('380'));
  assert.is(after.numSponsoring, 2);
  assert.is(after.balance, xlm('100') - 100n, 'only the fee: the reserve is locked, not paid');
  const entry = [...v.balances.values()][0]!;
  assert.is(entry.sponsor, a.publicKey());
  assert.is(entry.amount, xlm('120'));
  assert.equal(entry.claimants[0]!.predicate, {
    type: 'or',
    predicates: [
      { type: 'before_absolute_time', time: ctx.closeTime + 3600n },
      { type: 'not', predicate: { type: 'before_absolute_time', time: 1000n } },
    ],
  });
  assert.equal(entry.claimants[1]!.predicate, { type: 'unconditional' });
});

test('create result codes: op_malformed, op_underfunded, op_no_trust, op_not_authorized, op_low_reserve', () => {
  const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
  const src = trusting(a, '100', '50');
  const create = (asset: Asset, amount: string, claimants: Claimant[]) => Operation.createClaimableBalance({ asset, amount, claimants });
  const dup = run([src], new Map(), build(src, [create(EURC, '1', [new Claimant(b.publicKey()), new Claimant(b.publicKey())])], [a]));
  assert.equal([dup.kind, opCodes(dup)], ['rejected', ['op_malformed']], 'duplicate claimants');
  const deep = Claimant.predicateNot(Claimant.predicateNot(Claimant.predicateNot(Claimant.predicateNot(Claimant.predicateUnconditional()))));
  const tooDeep = run([src], new Map(), build(src, [create(EURC, '1', [new Claimant(b.publicKey(), deep)])], [a]));
  assert.equal(opCodes(tooDeep), ['op_malformed'], 'predicates nest at most 4 deep');

  assert.equal(opCodes(run([src], new Map(), build(src, [create(EURC, '50.0000001', [new Claimant(b.publicKey())])], [a]))), ['op_underfunded']);
  assert.equal(opCodes(run([src], new Map(), build(src, [create(Asset.native(), '98.5', [new Claimant(b.publicKey())])], [a]))), ['op_underfunded'], 'native keeps the minimum balance');
  assert.equal(opCodes(run([src], new Map(), build(src, [create(new Asset('USDC', issuer.publicKey()), '1', [new Claimant(b.publicKey())])], [a]))), ['op_no_trust']);
  const frozen = trusting(c, '100', '50', 0);
  assert.equal(opCodes(run([frozen], new Map(), build(frozen, [create(EURC, '1', [new Claimant(b.publicKey())])], [c]))), ['op_not_authorized']);
  // 3 XLM + fee: 1 XLM minimum balance + 0.5 (trustline) leaves 1.5 XLM, enough for 3 claimants' reserve, not 4.
  const tight = trusting(c, '3.0000100', '50');
  const claimants = (n: number) => Array.from({ length: n }, () => new Claimant(Keypair.random().publicKey()));
  assert.equal(opCodes(run([tight], new Map(), build(tight, [create(EURC, '1', claimants(4))], [c]))), ['op_low_reserve']);
  assert.equal(opCodes(run([tight], new Map(), build(tight, [create(EURC, '1', claimants(3))], [c]))), ['op_success']);
  // Native: the amount is taken first, then the reserve is checked on what is left.
  assert.equal(opCodes(run([tight], new Map(), build(tight, [create(Asset.native(), '0.6', claimants(2))], [c]))), ['op_low_reserve']);
});

test('claim: the claimant gets the amount and the sponsor its reserve back; codes op_does_not_exist, op_cannot_claim, op_no_trust, op_not_authorized, op_line_full', () => {
  const [a, b, c] = [Keypair.random(), Keypair.random(), Keypair.random()];
  const src = trusting(a, '100', '500');
  const created = applied(
    run(
      [src],
      new Map(),
      build(src, [Operation.createClaimableBalance({ asset: EURC, amount: '120', claimants: [new Claimant(b.publicKey(), Claimant.predicateBeforeRelativeTime('60')), new Claimant(c.publicKey())] })], [a]),
    ),
  );
  const sponsor = created.state.get(a.publicKey())!;
  const balances = created.balances;
  const id = [...balances.keys()][0]!;
  const claim = (kp: Keypair, acc: AccountEntry, balanceId = id, at = ctx) =>
    run([acc, sponsor], balances, build(acc, [Operation.claimClaimableBalance({ balanceId: balanceIdString(balanceId) })], [kp]), at);

  assert.equal(opCodes(claim(b, trusting(b, '10', '0'), 'ab'.repeat(32))), ['op_does_not_exist']);
  assert.equal(opCodes(claim(issuer, account(issuer, '10'))), ['op_cannot_claim'], 'not a claimant');
  const later = { ...ctx, closeTime: ctx.closeTime + 60n };
  assert.equal(opCodes(claim(b, trusting(b, '10', '0'), id, later)), ['op_cannot_claim'], 'before_absolute_time is over when absBefore <= close time');
  assert.equal(opCodes(claim(b, account(b, '10'))), ['op_no_trust']);
  assert.equal(opCodes(claim(b, trusting(b, '10', '0', 0))), ['op_not_authorized']);
  assert.equal(opCodes(claim(b, trusting(b, '10', '880.0000001'))), ['op_line_full']);

  const ok = applied(claim(c, trusting(c, '10', '0')));
  assert.is(ok.state.get(c.publicKey())!.trustlines[0]!.balance, xlm('120'));
  assert.is(ok.state.get(a.publicKey())!.numSponsoring, 0, 'the sponsor gets its reserve back');
  assert.is(ok.balances.get(id), null, 'the entry is gone');
});

test('claim is a low-threshold operation (core), create a medium one', () => {
  const [a, b, cosigner] = [Keypair.random(), Keypair.random(), Keypair.random()];
  const src = trusting(a, '100', '500');
  const created = applied(run([src], new Map(), build(src, [Operation.createClaimableBalance({ asset: EURC, amount: '1', claimants: [new Claimant(b.publicKey())] })], [a])));
  // b: master weight 1, low 1, medium 2: alone it can claim (low) but not create (medium).
  const holder = { ...trusting(b, '10', '5'), lowThreshold: 1, medThreshold: 2, highThreshold: 2, signers: [{ key: cosigner.publicKey(), type: 'ed25519_public_key' as const, weight: 1 }] };
  const claimed = run([holder, created.state.get(a.publicKey())!], created.balances, build(holder, [Operation.claimClaimableBalance({ balanceId: balanceIdString([...created.balances.keys()][0]!) })], [b]));
  assert.equal(opCodes(claimed), ['op_success']);
  const create = run([holder], new Map(), build(holder, [Operation.createClaimableBalance({ asset: EURC, amount: '1', claimants: [new Claimant(a.publicKey())] })], [b]));
  assert.equal([create.kind, opCodes(create)], ['rejected', ['op_bad_auth']]);
});

test('accountMerge as core: signers go with the account, other subentries block it (op_has_sub_entries), a sponsor cannot leave (op_is_sponsor)', () => {
  const [a, b] = [Keypair.random(), Keypair.random()];
  const signers = [{ key: StrKey.encodePreAuthTx(Buffer.alloc(32, 7)), type: 'preauth_tx' as const, weight: 1 }];
  const withSigner = account(a, '50', { signers });
  const dest = account(b, '10');
  const merged = applied(run([withSigner, dest], new Map(), build(withSigner, [Operation.accountMerge({ destination: b.publicKey() })], [a])));
  assert.is(merged.state.get(a.publicKey()), null);
  assert.is(merged.state.get(b.publicKey())!.balance, xlm('60') - 100n);

  const sponsoring = account(a, '50', { numSponsoring: 1 });
  assert.equal(opCodes(run([sponsoring, dest], new Map(), build(sponsoring, [Operation.accountMerge({ destination: b.publicKey() })], [a]))), ['op_is_sponsor']);
  const trusting_ = { ...trusting(a, '50', '0'), signers };
  assert.equal(opCodes(run([trusting_, dest], new Map(), build(trusting_, [Operation.accountMerge({ destination: b.publicKey() })], [a]))), ['op_has_sub_entries']);
});

test.run();
