import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { ConflictError } from '../errors';
import { foldPool } from '../pools/pool';
import { ESCROW, POLICY, PREPARED_AT, at, existing, lockedPool, prepareSettlement, recordRound, roundHashes, thenSettle } from './fixtures.testing';
import { decideSettlement } from './settlement';
import { owedStrays } from './state';
import { decideStrays, strayReturnsFor, type LedgerPayment } from './strays';

// Money paid straight into the escrow account (docs/escrow.md, "Stray payments"): recorded once per ledger operation
// with its sender, owed back, paid back by the next settlement's first lock, marked returned when that round lands.

const E = ESCROW.accountId;
const BOB = `G${'B'.repeat(55)}`;
const DAN = `G${'D'.repeat(55)}`;
const payment = (n: number, from: string, amount: string, to = E): LedgerPayment => ({
  operationId: String(4294967296n * BigInt(n) + 4097n),
  txHash: n.toString(16).padStart(64, '0'),
  from,
  to,
  amount,
  at: '2026-03-09T10:00:00Z',
});
const record = (payments: LedgerPayment[], now = at(PREPARED_AT, -3600)) => ({ type: 'RecordStrayPayments' as const, data: { payments }, metadata: { now } });
const releasedAtClose = () => lockedPool({ release: { after: 'CLOSE', inspectionDays: POLICY.inspectionDays, disputeResponseDays: POLICY.disputeResponseDays } });
const withStrays = (history: PoolEvent[], payments: LedgerPayment[]) => [...history, ...decideStrays(record(payments), foldPool(history))];

const test = suite('stray payments: recorded with their sender, paid back by the next settlement');

test('a payment into the escrow from anyone is recorded with its sender and amount; payments out of it, and the same operation seen again, record nothing', () => {
  const history = releasedAtClose();
  const payments = [payment(1, BOB, '10.0000000'), payment(2, E, '3.0000000', DAN), payment(3, DAN, '0.0000001')];
  const events = decideStrays(record([...payments, payments[0]!]), foldPool(history));
  assert.equal(
    events.map((e) => e.type === 'EscrowStrayPaymentRecorded' && [e.data.from, e.data.amount, e.data.operationId, e.data.receivedAt]),
    [
      [BOB, '10.00', payments[0]!.operationId, '2026-03-09T10:00:00.000Z'],
      [DAN, '0.0000001', payments[2]!.operationId, '2026-03-09T10:00:00.000Z'],
    ],
  );
  const after = [...history, ...events];
  assert.equal(decideStrays(record(payments), foldPool(after)), [], 'recording the same ledger operations again yields nothing');
  assert.equal(owedStrays(existing(foldPool(after)).settlement).map((s) => [s.from, s.amount]), [[BOB, '10.00'], [DAN, '0.0000001']]);
});

test('what a new settlement pays back: every stray owed, exactly the escrow’s own balance; a balance no stray accounts for is a conflict; without a trustline nothing', () => {
  const pool = existing(foldPool(withStrays(releasedAtClose(), [payment(1, BOB, '10'), payment(2, DAN, '2.5')])));
  assert.equal(strayReturnsFor(pool, { strayBalance: 125_000_000n, hasTrustline: true }), [
    { operationId: payment(1, BOB, '10').operationId, destination: BOB, amount: '10.00' },
    { operationId: payment(2, DAN, '2.5').operationId, destination: DAN, amount: '2.50' },
  ]);
  assert.throws(() => strayReturnsFor(pool, { strayBalance: 125_000_001n, hasTrustline: true }), (e: unknown) => e instanceof ConflictError && e.code === 'stray_payments_unrecorded');
  assert.equal(strayReturnsFor(pool, { strayBalance: 0n, hasTrustline: false }), []);
});

test('the settlement must pay every stray back (else settlement_changed); once its first round lands, each is marked returned to its sender by the lock, once', () => {
  const history = withStrays(releasedAtClose(), [payment(1, BOB, '10')]);
  const pool = foldPool(history);
  const without = prepareSettlement(pool);
  const balance = { ...without, data: { ...without.data, strayBalance: '10.00' } } as typeof without;
  assert.throws(() => decideSettlement(balance, pool), (e: unknown) => e instanceof ConflictError && e.code === 'settlement_changed', 'a plan that keeps the stray');
  const returns = [{ operationId: payment(1, BOB, '10').operationId, destination: BOB, amount: '10.00' }];
  const settled = thenSettle(history, () => ({ ...balance, data: { ...balance.data, strayReturns: returns } }) as typeof balance, () => recordRound());
  const returned = settled.filter((e) => e.type === 'EscrowStrayPaymentReturned');
  assert.equal(
    returned.map((e) => e.type === 'EscrowStrayPaymentReturned' && [e.data.to, e.data.amount, e.data.txHash]),
    [[BOB, '10.00', roundHashes(1, 0).lockHash]],
  );
  const after = existing(foldPool(settled));
  assert.equal(owedStrays(after.settlement), []);
  assert.equal(decideSettlement(recordRound(), after), [], 'the round recorded again: nothing twice');
});

test.run();
