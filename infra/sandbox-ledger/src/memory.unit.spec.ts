import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Account, Asset, Claimant, Keypair, Operation, TransactionBuilder } from '@stellar/stellar-sdk';
import { MemoryLedger } from './memory';

const PASSPHRASE = 'Memory Ledger Unit Spec';
const CLOSE = 1_900_000_000n;
const issuer = Keypair.random();
const USD = { code: 'USD', issuer: issuer.publicKey() };

const funded = () => {
  const ledger = new MemoryLedger(PASSPHRASE, CLOSE);
  const [a, b] = [Keypair.random(), Keypair.random()];
  for (const kp of [a, b]) {
    ledger.createAccount(kp.publicKey(), 100n * 10_000_000n);
    ledger.fundAsset(kp.publicKey(), USD, 50n * 10_000_000n);
  }
  return { ledger, a, b };
};

const tx = (ledger: MemoryLedger, source: Keypair, ops: Parameters<TransactionBuilder['addOperation']>[0][], maxTime = 0) => {
  const builder = new TransactionBuilder(new Account(source.publicKey(), ledger.account(source.publicKey())!.seqNum.toString()), {
    fee: '100',
    networkPassphrase: PASSPHRASE,
    timebounds: { minTime: 0, maxTime },
  });
  for (const op of ops) builder.addOperation(op);
  const built = builder.build();
  built.sign(source);
  return built;
};

const test = suite('memory ledger');

test('an applied transaction closes a ledger and keeps its effects; submitted again it answers the same', () => {
  const { ledger, a, b } = funded();
  const pay = tx(ledger, a, [Operation.payment({ destination: b.publicKey(), asset: new Asset(USD.code, USD.issuer), amount: '12.5' })]);
  const first = ledger.submit(pay);
  assert.equal(first, { applied: true, hash: Buffer.from(pay.hash()).toString('hex'), ledger: 2, successful: true, codes: { transaction: 'tx_success' } });
  assert.is(ledger.assetBalance(a.publicKey(), USD), 375_000_000n);
  assert.is(ledger.assetBalance(b.publicKey(), USD), 625_000_000n);
  assert.equal(ledger.submit(pay), first);
  assert.is(ledger.latestLedger, 2);
  assert.is(ledger.transaction(Buffer.from(pay.hash()).toString('hex'))?.closeTime, CLOSE);
});

test('a rejected transaction changes nothing and leaves no trace; a failed one keeps only its fee and sequence', () => {
  const { ledger, a, b } = funded();
  const late = tx(ledger, a, [Operation.payment({ destination: b.publicKey(), asset: new Asset(USD.code, USD.issuer), amount: '1' })], Number(CLOSE) - 1);
  const before = ledger.account(a.publicKey());
  assert.equal(ledger.submit(late), { applied: false, hash: Buffer.from(late.hash()).toString('hex'), codes: { transaction: 'tx_too_late' } });
  assert.equal(ledger.account(a.publicKey()), before);
  assert.is(ledger.transaction(Buffer.from(late.hash()).toString('hex')), null);

  const tooMuch = tx(ledger, a, [Operation.payment({ destination: b.publicKey(), asset: new Asset(USD.code, USD.issuer), amount: '51' })]);
  const failed = ledger.submit(tooMuch);
  assert.equal(failed.applied && { successful: failed.successful, codes: failed.codes }, { successful: false, codes: { transaction: 'tx_failed', operations: ['op_underfunded'] } });
  assert.is(ledger.account(a.publicKey())!.seqNum, before!.seqNum + 1n);
  assert.is(ledger.account(a.publicKey())!.balance, before!.balance - 100n);
  assert.is(ledger.assetBalance(a.publicKey(), USD), 500_000_000n);
});

test('claimable balances: listed by claimant with Horizon’s ids, claimed only by whom the predicate lets, at the close time set', () => {
  const { ledger, a, b } = funded();
  const at = String(CLOSE + 100n);
  const create = tx(ledger, a, [
    Operation.createClaimableBalance({
      asset: new Asset(USD.code, USD.issuer),
      amount: '5',
      claimants: [new Claimant(b.publicKey(), Claimant.predicateBeforeAbsoluteTime(at)), new Claimant(a.publicKey(), Claimant.predicateNot(Claimant.predicateBeforeAbsoluteTime(at)))],
    }),
  ]);
  assert.ok(ledger.submit(create).applied);
  const [balance] = ledger.claimableBalances({ claimant: b.publicKey() });
  assert.is(balance?.balanceId, create.getClaimableBalanceId(0));
  assert.is(balance?.amount, 50_000_000n);
  assert.equal(ledger.claimableBalances({ claimant: issuer.publicKey() }), []);

  const early = ledger.submit(tx(ledger, a, [Operation.claimClaimableBalance({ balanceId: balance!.balanceId })]));
  assert.equal(early.applied && early.codes, { transaction: 'tx_failed', operations: ['op_cannot_claim'] });
  ledger.setCloseTime(CLOSE + 100n);
  ledger.setCloseTime(CLOSE);
  assert.is(ledger.closeTime, CLOSE + 100n, 'the close time never goes back');
  const reclaimed = ledger.submit(tx(ledger, a, [Operation.claimClaimableBalance({ balanceId: balance!.balanceId })]));
  assert.ok(reclaimed.applied && reclaimed.successful);
  assert.is(ledger.assetBalance(a.publicKey(), USD), 500_000_000n);
  assert.equal(ledger.claimableBalances(), []);
});

test.run();
