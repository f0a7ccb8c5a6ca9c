import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TENANT, USER, OTHER_USER, at, foldAll, on } from '../spec-events';
import { foldV1Transfer, v1TransferKeyOf } from './fold';
import { toV1Transfer } from './view';

const TRANSFER = '5a1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const stream = `transfer-${TRANSFER}`;
const HASH = 'ab'.repeat(32);
const created = on(stream, 0, {
  type: 'TransferCreated',
  data: {
    transferId: TRANSFER,
    tenantId: TENANT,
    livemode: false,
    fromUserId: USER,
    fromWallet: `G${'A'.repeat(55)}`,
    to: { kind: 'account', userId: OTHER_USER, wallet: `G${'B'.repeat(55)}` },
    amount: '12.50',
    currency: 'EUR',
    memo: null,
    unsignedXdr: 'AAAA',
    txHash: HASH,
    expiresAt: at(15),
    createdVia: null,
    createdAt: at(0),
  },
});
const submitted = on(stream, 1, { type: 'TransferSubmitted', data: { transferId: TRANSFER, livemode: false, txHash: HASH, via: 'signedXdr', submittedAt: at(1) } });
const failed = on(stream, 2, {
  type: 'TransferFailed',
  data: { transferId: TRANSFER, livemode: false, txHash: HASH, ledger: 9, failureCode: 'op_underfunded', resultCodes: ['tx_failed', 'op_underfunded'], failedAt: at(1) },
});

test('transfer: created, submitted, failed fold into one document; a replayed event changes nothing', () => {
  const doc = foldAll(foldV1Transfer, [created, submitted, failed]);
  assert.ok(doc);
  assert.equal([doc.status, doc.failureCode, doc.ledger, doc.endedAt, doc.revision], ['failed', 'op_underfunded', 9, at(1), 2n]);
  assert.is(foldAll(foldV1Transfer, [created, submitted], doc), doc);
  assert.is(v1TransferKeyOf(failed), TRANSFER);
  const view = toV1Transfer(doc);
  assert.equal([view.id, view.from, view.to, view.unsignedXdr, view.status], [`tr_${TRANSFER.replace(/-/g, '')}`, `acct_${USER.replace(/-/g, '')}`, `acct_${OTHER_USER.replace(/-/g, '')}`, null, 'failed']);
  assert.is(toV1Transfer(foldAll(foldV1Transfer, [created])!).unsignedXdr, 'AAAA', 'shown while it requires a signature');
});

test.run();
