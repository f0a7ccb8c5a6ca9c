import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { reconcileEscrow, type EscrowFacts, type LedgerFacts } from './reconcile';

const B = (n: number) => `00000000${String(n).padStart(64, '0')}`;
const TX = 'ab'.repeat(32);
const SELLER = `G${'S'.repeat(55)}`;
const BUYER = `G${'B'.repeat(55)}`;
const PLATFORM = `G${'P'.repeat(55)}`;
const SENDER = `G${'X'.repeat(55)}`;
const LOCK = 'cd'.repeat(32);

const facts = (o: Partial<EscrowFacts> = {}): EscrowFacts => ({
  poolId: 'p',
  escrowAccount: `G${'E'.repeat(55)}`,
  paid: { count: 2, amount: '30.00' },
  held: [{ reservationId: 'r1', balanceId: B(1), amount: '10.00' }],
  owedBack: [],
  settled: [{ reservationId: 'r2', balanceId: B(2), amount: '20.00', path: 'RELEASE', released: '18.00', refunded: '2.00', txHash: TX }],
  rounds: [{ settlementId: 's', round: 0, path: 'RELEASE', txHash: TX, payments: [{ destination: SELLER, amount: '18.00' }, { destination: BUYER, amount: '2.00' }] }],
  merged: false,
  strays: [],
  ...o,
});
const ledger = (o: Partial<LedgerFacts> = {}): LedgerFacts => ({
  accountExists: true,
  balance: '0',
  deposits: [{ balanceId: B(1), amount: '10.0000000' }],
  transactions: { [TX]: { successful: true, payments: [{ destination: BUYER, amount: '2.0000000' }, { destination: SELLER, amount: '18.0000000' }], claimed: [B(2)] } },
  platform: PLATFORM,
  paidOut: [
    { destination: BUYER, amount: '2.0000000', txHash: TX },
    { destination: SELLER, amount: '18.0000000', txHash: TX },
  ],
  ...o,
});

const test = suite('escrow reconciliation: events against the ledger');

test('events and ledger agree: held deposits stand, settled ones are gone, each round paid exactly what its events say', () => {
  const r = reconcileEscrow(facts(), ledger());
  assert.is(r.ok, true, r.problems.join('; '));
  assert.equal(r.events, { held: '10.00', owedBack: '0.00', released: '18.00', refunded: '2.00', merged: false, straysOwed: '0.00' });
  assert.is(r.ledger.held, '10.00');
});

test('a held deposit missing or short on the ledger does not reconcile', () => {
  assert.is(reconcileEscrow(facts(), ledger({ deposits: [] })).missing.length, 1);
  const short = reconcileEscrow(facts(), ledger({ deposits: [{ balanceId: B(1), amount: '9.9999999' }] }));
  assert.is(short.ok, false);
  assert.equal(short.missing.map((d) => d.balanceId), [B(1)]);
});

test('a round that paid one stroop less to someone, failed, is missing, or did not claim its deposit does not reconcile', () => {
  const tx = ledger().transactions[TX]!;
  const cases: Array<[string, LedgerFacts['transactions'][string]]> = [
    ['short', { ...tx, payments: [{ destination: BUYER, amount: '2.0000000' }, { destination: SELLER, amount: '17.9999999' }] }],
    ['failed', { ...tx, successful: false }],
    ['missing', null],
    ['not claimed', { ...tx, claimed: [] }],
    ['paid someone else', { ...tx, payments: [{ destination: BUYER, amount: '20.0000000' }] }],
  ];
  for (const [what, t] of cases) {
    const r = reconcileEscrow(facts(), ledger({ transactions: { [TX]: t } }));
    assert.is(r.ok, false, what);
    assert.is(r.rounds[0]!.ok, false, what);
  }
});

test('a settled deposit still on the ledger, a merge the ledger does not show, or an escrow gone while holding, does not reconcile', () => {
  assert.is(reconcileEscrow(facts(), ledger({ deposits: [...ledger().deposits, { balanceId: B(2), amount: '20' }] })).notClaimed.length, 1);
  assert.is(reconcileEscrow(facts({ merged: true, held: [] }), ledger({ deposits: [] })).ok, false);
  assert.is(reconcileEscrow(facts(), ledger({ accountExists: false })).ok, false);
  assert.is(reconcileEscrow(facts({ merged: true, held: [] }), ledger({ accountExists: false, deposits: [] })).ok, true);
});

test('claimable balances no event accounts for are listed, not counted; money paid straight into the account is shown as its balance, and is stray payments owed back', () => {
  const stray = { operationId: '12884905985', txHash: 'ef'.repeat(32), from: SENDER, amount: '3.00', status: 'OWED' as const, returnedTxHash: null };
  const r = reconcileEscrow(facts({ strays: [stray] }), ledger({ balance: '3', deposits: [...ledger().deposits, { balanceId: B(9), amount: '1' }] }));
  assert.is(r.ok, true, r.problems.join('; '));
  assert.equal(r.strays, [stray]);
  assert.is(r.events.straysOwed, '3.00');
  assert.equal(r.unexpected, [{ balanceId: B(9), amount: '1.00' }]);
  assert.is(r.ledger.balance, '3.00');
  assert.is(r.ledger.held, '10.00');
  const unrecorded = reconcileEscrow(facts(), ledger({ balance: '3' }));
  assert.equal(unrecorded.problems, ['the escrow holds 3.00 of its own, the stray payments owed back add up to 0.00'], 'money in the account no stray accounts for');
});

test('the platform receives its fee lines and nothing more: a stray swept to it is a mismatch, a stray paid back to its sender is not', () => {
  const fee = { destination: PLATFORM, amount: '0.50' };
  const withFee = facts({ rounds: [{ ...facts().rounds[0]!, payments: [{ destination: SELLER, amount: '17.50' }, fee, { destination: BUYER, amount: '2.00' }] }] });
  const paid = (extra: LedgerFacts['paidOut']) =>
    ledger({
      transactions: { [TX]: { successful: true, payments: [{ destination: BUYER, amount: '2' }, { destination: SELLER, amount: '17.5' }, { destination: PLATFORM, amount: '0.5' }], claimed: [B(2)] } },
      paidOut: [{ destination: BUYER, amount: '2', txHash: TX }, { destination: SELLER, amount: '17.5', txHash: TX }, { destination: PLATFORM, amount: '0.5', txHash: TX }, ...extra],
    });
  const exact = reconcileEscrow(withFee, paid([{ destination: SENDER, amount: '10', txHash: LOCK }]));
  assert.is(exact.ok, true, exact.problems.join('; '));
  assert.equal(exact.platform, { received: '0.50', fees: '0.50' });
  const swept = reconcileEscrow(withFee, paid([{ destination: PLATFORM, amount: '10', txHash: LOCK }]));
  assert.is(swept.ok, false);
  assert.equal(swept.platform, { received: '10.50', fees: '0.50' });
  assert.equal(swept.problems, ['the platform received 10.50 from the escrow, its fee lines are 0.50']);
});

test.run();
