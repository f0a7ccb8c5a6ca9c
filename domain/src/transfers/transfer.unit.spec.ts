import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent, EventData } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { decideTransfer, transferAggregate, type LedgerOutcome, type TransferCommand } from './transfer';

const TRANSFER = '5a1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const FROM = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TO = '8e1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const FROM_WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const TO_WALLET = 'GAAZI4TCR3TY5OJHCTJC2A4QSY6CJWJH5IAJTGKIN2ER7LBNVKOCCWN7';
const HASH = 'ab'.repeat(32);
const T0 = '2026-01-01T09:00:00+01:00';
const T1 = '2026-01-01T09:01:00+01:00';

const { given } = deciderSpec({ ...transferAggregate, decide: decideTransfer });

const built: Omit<EventData<'TransferCreated'>, 'createdAt'> = {
  transferId: TRANSFER,
  tenantId: TENANT,
  livemode: false,
  fromUserId: FROM,
  fromWallet: FROM_WALLET,
  to: { kind: 'account', userId: TO, wallet: TO_WALLET },
  amount: '12.5',
  currency: 'EUR',
  memo: 'rent',
  unsignedXdr: 'AAAA',
  txHash: HASH,
  expiresAt: '2026-01-01T09:15:00+01:00',
  createdVia: 'k1',
};
const createCmd = (over: Partial<typeof built> = {}): TransferCommand => ({ type: 'CreateTransfer', data: { ...built, ...over }, metadata: { now: T0 } });
const createdEvent: DomainEvent = { type: 'TransferCreated', data: { ...built, createdAt: T0 } };
const submit = (outcome: LedgerOutcome, txHash = HASH, via: 'signedXdr' | 'txHash' = 'signedXdr'): TransferCommand => ({ type: 'SubmitTransfer', data: { txHash, via, outcome }, metadata: { now: T1 } });
const cancel: TransferCommand = { type: 'CancelTransfer', metadata: { now: T1 } };
const submitted: DomainEvent = { type: 'TransferSubmitted', data: { transferId: TRANSFER, livemode: false, txHash: HASH, via: 'signedXdr', submittedAt: T1 } };
const settled: DomainEvent = { type: 'TransferSettled', data: { transferId: TRANSFER, livemode: false, txHash: HASH, ledger: 7, settledAt: T1 } };

const test = suite('transfer decider');

test('created: requires a signature; a zero amount or a payment to its own sender is refused', () => {
  const state = given().when(createCmd()).then([createdEvent as never]);
  assert.is(state.status, 'requires_signature');
  given().when(createCmd({ amount: '0.00' })).thenThrows(ValidationError, 'validation_failed');
  given().when(createCmd({ to: { kind: 'address', wallet: FROM_WALLET } })).thenThrows(ValidationError, 'transfer_to_self');
});

test('submitted and applied at once: submitted then settled, in one decision', () => {
  const state = given(createdEvent).when(submit({ kind: 'settled', ledger: 7 })).then([submitted as never, settled as never]);
  assert.is(state.status, 'settled');
});

test('refused by the ledger: failed with the first failing operation code, all codes kept', () => {
  const state = given(createdEvent)
    .when(submit({ kind: 'failed', ledger: null, resultCodes: ['tx_failed', 'op_underfunded'] }))
    .then([
      submitted as never,
      { type: 'TransferFailed', data: { transferId: TRANSFER, livemode: false, txHash: HASH, ledger: null, failureCode: 'op_underfunded', resultCodes: ['tx_failed', 'op_underfunded'], failedAt: T1 } },
    ]);
  assert.is(state.status, 'failed');
  given(createdEvent)
    .when(submit({ kind: 'failed', ledger: null, resultCodes: ['tx_bad_seq'] }))
    .then([submitted as never, { type: 'TransferFailed', data: { transferId: TRANSFER, livemode: false, txHash: HASH, ledger: null, failureCode: 'tx_bad_seq', resultCodes: ['tx_bad_seq'], failedAt: T1 } }]);
});

test('a ledger that has not answered leaves it submitted; a later submit records the outcome; after it, a submit changes nothing', () => {
  const state = given(createdEvent).when(submit(null, HASH, 'txHash')).then([{ type: 'TransferSubmitted', data: { transferId: TRANSFER, livemode: false, txHash: HASH, via: 'txHash', submittedAt: T1 } }]);
  assert.is(state.status, 'submitted');
  given(createdEvent, submitted).when(submit({ kind: 'settled', ledger: 7 })).then([settled as never]);
  given(createdEvent, submitted).when(submit(null)).then([]);
  given(createdEvent, submitted, settled).when(submit({ kind: 'settled', ledger: 7 })).then([]);
});

test('another transaction than the one built is refused, on the field it came in', () => {
  const err = given(createdEvent).when(submit({ kind: 'settled', ledger: 7 }, 'cd'.repeat(32))).thenThrows(ValidationError, 'transfer_transaction_mismatch');
  assert.ok(err.errors.signedXdr);
  const byHash = given(createdEvent).when(submit(null, 'cd'.repeat(32), 'txHash')).thenThrows(ValidationError, 'transfer_transaction_mismatch');
  assert.ok(byHash.errors.txHash);
  given().when(submit(null)).thenThrows(NotFoundError, 'transfer_not_found');
});

test('cancel: only while it requires a signature; twice changes nothing; a cancelled transfer cannot be submitted', () => {
  const cancelled: DomainEvent = { type: 'TransferCancelled', data: { transferId: TRANSFER, livemode: false, cancelledAt: T1 } };
  const state = given(createdEvent).when(cancel).then([cancelled as never]);
  assert.is(state.status, 'canceled');
  given(createdEvent, cancelled).when(cancel).then([]);
  given(createdEvent, submitted).when(cancel).thenThrows(IllegalStateError, 'transfer_not_cancelable');
  given(createdEvent, cancelled).when(submit(null)).thenThrows(IllegalStateError, 'transfer_canceled');
});

test.run();
