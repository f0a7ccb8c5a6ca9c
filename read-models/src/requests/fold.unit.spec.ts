import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { TENANT, USER, at, foldAll, on } from '../spec-events';
import { foldRequest, requestKeyOf } from './fold';
import { paymentRequestView, publicPaymentRequestView } from './view';

const R = '3f2a1c0b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const stream = `request-${R}`;
const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const PAYER = 'GDQNY3PBOJOKYZSRMK2S7LHHGWZIUISD4QORETLMXEWXBI7KFZZMKTL3';
const created: DomainEvent = {
  type: 'PaymentRequestCreated',
  data: {
    requestId: R,
    tenantId: TENANT,
    livemode: false,
    payeeId: USER,
    payeeName: 'Studio SAS',
    payeeWallet: WALLET,
    asset: { code: 'EURC', issuer: WALLET },
    memoHash: 'ab'.repeat(32),
    lines: [{ description: 'Work', quantity: 1, unitAmount: '100', vatCategory: 'S', vatRate: '20' }],
    subtotal: '100.00',
    tax: '20.00',
    amountDue: '120.00',
    currency: 'EUR',
    dueAt: at(30),
    customer: { name: 'Ann', email: 'ann@example.test', country: 'FR' },
    description: null,
    metadata: {},
    createdAt: at(1),
  },
};
const recorded = (tx: string, amount: string, amountPaid: string): DomainEvent => ({
  type: 'PaymentRequestPaymentRecorded',
  data: { requestId: R, livemode: false, txHash: tx.repeat(32), ledger: 3, from: PAYER, amount, amountPaid, late: false, recordedAt: at(2) },
});

test('request: an under-payment shows what remains; the second payment overpays and the request is paid', () => {
  const events = [on(stream, 0, created), on(stream, 1, recorded('aa', '100.00', '100.00'))];
  assert.is(requestKeyOf(events[0]!), R);
  const open = foldAll(foldRequest, events)!;
  const v = paymentRequestView(open);
  assert.equal([v.status, v.amountPaid, v.amountRemaining, v.amountOverpaid, v.underpaid], ['open', '100.00', '20.00', '0.00', true]);
  assert.is(v.id, `req_${R.replace(/-/g, '')}`);
  assert.is(v.url, `/pay/${v.id}`);
  const paid = foldAll(foldRequest, [
    ...events,
    on(stream, 2, recorded('bb', '25.5', '125.50')),
    on(stream, 3, { type: 'PaymentRequestPaid', data: { requestId: R, livemode: false, amountPaid: '125.50', amountOverpaid: '5.50', paidAt: at(3) } }),
  ])!;
  const p = paymentRequestView(paid);
  assert.equal([p.status, p.amountPaid, p.amountRemaining, p.amountOverpaid, p.underpaid, p.paidAt], ['paid', '125.50', '0.00', '5.50', false, at(3)]);
  const pub = publicPaymentRequestView(paid);
  assert.not.ok('customer' in pub);
  assert.not.ok('metadata' in pub);
  assert.is(pub.payeeName, 'Studio SAS');
});

test('request: replaying any event changes nothing', () => {
  const events = [on(stream, 0, created), on(stream, 1, recorded('aa', '100.00', '100.00')), on(stream, 2, { type: 'PaymentRequestVoided', data: { requestId: R, livemode: false, amountPaid: '100.00', voidedAt: at(4) } })];
  const once = foldAll(foldRequest, events);
  assert.is(foldAll(foldRequest, events, once), once);
  assert.equal(foldAll(foldRequest, [events[0]!, events[0]!, events[1]!, events[1]!, events[2]!]), once);
  assert.is(once!.status, 'void');
});

test.run();
