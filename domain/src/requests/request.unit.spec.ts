import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { PaymentRequestLine } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import type { ObservedPayment } from '../personas/organiser-grant';
import { parseCents } from '../invoicing/compute';
import { requestTotals } from './amounts';
import { balanceOf, decidePaymentRequest, paymentRequestAggregate, type CreateRequestInput, type PaymentRequestCommand } from './request';
import { paidRequestInvoice } from './invoice';

const test = suite('payment requests: the decider');

const REQ = '3f2a1c0b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const PAYEE = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const ISSUER = 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG';
const PAYER = 'GDQNY3PBOJOKYZSRMK2S7LHHGWZIUISD4QORETLMXEWXBI7KFZZMKTL3';
const MEMO = 'ab'.repeat(32);
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-02T10:00:00.000Z';
const DUE = '2026-03-10T10:00:00.000Z';
const LATER = '2026-03-11T10:00:00.000Z';

const { given } = deciderSpec({ ...paymentRequestAggregate, decide: decidePaymentRequest });

const lines: PaymentRequestLine[] = [
  { description: 'Design work', quantity: 3, unitAmount: '33.3333', vatCategory: 'S', vatRate: '20' },
  { description: 'Book', quantity: 1, unitAmount: '10.00', vatCategory: 'S', vatRate: '5.5' },
];

const input = (over: Partial<CreateRequestInput> = {}): CreateRequestInput => ({
  requestId: REQ,
  tenantId: TENANT,
  livemode: false,
  payeeId: PAYEE,
  payeeName: 'Studio SAS',
  payeeWallet: WALLET,
  payeeVatId: 'FR11123456782',
  asset: { code: 'EURC', issuer: ISSUER },
  memoHash: MEMO,
  lines,
  dueAt: DUE,
  customer: { name: 'Ann Client', email: 'ann@example.test', country: 'FR' },
  description: 'March work',
  metadata: { order: '42' },
  ...over,
});

const create = (over: Partial<CreateRequestInput> = {}): PaymentRequestCommand => ({ type: 'CreateRequest', data: input(over), metadata: { now: T0 } });

// 3 × 33.3333 = 99.9999 → 100.00 net at 20 % (VAT 20.00); 10.00 at 5.5 % (VAT 0.55): 110.00 + 20.55 = 130.55.
const created = given().when(create()).then([
  {
    type: 'PaymentRequestCreated',
    data: {
      requestId: REQ,
      tenantId: TENANT,
      livemode: false,
      payeeId: PAYEE,
      payeeName: 'Studio SAS',
      payeeWallet: WALLET,
      asset: { code: 'EURC', issuer: ISSUER },
      memoHash: MEMO,
      lines,
      subtotal: '110.00',
      tax: '20.55',
      amountDue: '130.55',
      currency: 'EUR',
      dueAt: DUE,
      customer: { name: 'Ann Client', email: 'ann@example.test', country: 'FR' },
      description: 'March work',
      metadata: { order: '42' },
      createdAt: T0,
    },
  },
]);
const createdEvent = decidePaymentRequest(create(), { status: 'none' })[0]!;

const payment = (over: Partial<ObservedPayment> = {}): ObservedPayment => ({
  txHash: 'ef'.repeat(32),
  ledger: 7,
  successful: true,
  from: PAYER,
  to: WALLET,
  assetCode: 'EURC',
  assetIssuer: ISSUER,
  amount: '130.5500000',
  memoHash: MEMO,
  paymentCount: 1,
  ...over,
});
const pay = (p: ObservedPayment, now = T1): PaymentRequestCommand => ({ type: 'RecordPayment', data: { payment: p }, metadata: { now } });

test('create: the totals are exact (net rounded per line, VAT once per rate) and the request is open', () => {
  assert.is(created.status, 'open');
  if (created.status === 'none') return;
  assert.equal(balanceOf(created), { remaining: 1_305_500_000n, overpaid: 0n });
});

test('create: a payee without a linked wallet, a past dueAt, a payee without VAT id using S, AE without the customer VAT id are refused', () => {
  given().when(create({ payeeWallet: null })).thenThrows(ValidationError, 'payee_wallet_required');
  given().when(create({ dueAt: '2026-02-01T00:00:00Z' })).thenThrows(ValidationError, 'validation_failed');
  given().when(create({ payeeVatId: null })).thenThrows(ValidationError, 'invalid_vat_category');
  given().when(create({ lines: [{ description: 'x', quantity: 1, unitAmount: '5', vatCategory: 'O', vatRate: '0' }] })).thenThrows(ValidationError, 'invalid_vat_category');
  given().when(create({ lines: [{ description: 'x', quantity: 1, unitAmount: '5', vatCategory: 'AE', vatRate: '0' }] })).thenThrows(ValidationError, 'invalid_vat_category');
  const e = given().when(create({ lines: [{ description: 'x', quantity: 1, unitAmount: '5', vatCategory: 'S', vatRate: '0' }] })).thenThrows(ValidationError, 'invalid_line_items');
  assert.ok(e.errors['lineItems.0']);
  given().when(create({ lines: [{ description: 'x', quantity: 1, unitAmount: '0', vatCategory: 'Z', vatRate: '0' }] })).thenThrows(ValidationError, 'invalid_line_items');
  // More than one ledger payment can carry (2^63 − 1 stroops = 922337203685.4775807).
  given().when(create({ lines: [{ description: 'x', quantity: 1000, unitAmount: '922337203.6855', vatCategory: 'Z', vatRate: '0' }] })).thenThrows(ValidationError, 'invalid_line_items');
  assert.is(decidePaymentRequest(create({ lines: [{ description: 'x', quantity: 1000, unitAmount: '922337203.6854', vatCategory: 'Z', vatRate: '0' }] }), { status: 'none' }).length, 1);
});

test('create: a payee without VAT id invoices O only; the request is created', () => {
  const [e] = decidePaymentRequest(create({ payeeVatId: null, lines: [{ description: 'x', quantity: 2, unitAmount: '7.5', vatCategory: 'O', vatRate: '0' }] }), { status: 'none' });
  assert.is(e?.type === 'PaymentRequestCreated' && e.data.amountDue, '15.00');
});

test('a payment of exactly the amount due: recorded, then paid', () => {
  const state = given(createdEvent).when(pay(payment())).then([
    { type: 'PaymentRequestPaymentRecorded', data: { requestId: REQ, livemode: false, txHash: 'ef'.repeat(32), ledger: 7, from: PAYER, amount: '130.55', amountPaid: '130.55', late: false, recordedAt: T1 } },
    { type: 'PaymentRequestPaid', data: { requestId: REQ, livemode: false, amountPaid: '130.55', amountOverpaid: '0.00', paidAt: T1 } },
  ]);
  assert.is(state.status, 'paid');
  // The same transaction again records nothing.
  given(createdEvent, ...decidePaymentRequest(pay(payment()), given(createdEvent).state())).when(pay(payment())).then([]);
});

test('an under-payment keeps the request open with what remains; a second payment completes it, overpaying', () => {
  const first = decidePaymentRequest(pay(payment({ amount: '100' })), given(createdEvent).state());
  assert.equal(first.map((e) => e.type), ['PaymentRequestPaymentRecorded']);
  const open = given(createdEvent, ...first).state();
  assert.is(open.status, 'open');
  if (open.status === 'none') return;
  assert.equal(balanceOf(open), { remaining: 305_500_000n, overpaid: 0n });
  const second = given(createdEvent, ...first).when(pay(payment({ txHash: 'cd'.repeat(32), amount: '31.0000001' }))).then([
    { type: 'PaymentRequestPaymentRecorded', data: { requestId: REQ, livemode: false, txHash: 'cd'.repeat(32), ledger: 7, from: PAYER, amount: '31.0000001', amountPaid: '131.0000001', late: false, recordedAt: T1 } },
    { type: 'PaymentRequestPaid', data: { requestId: REQ, livemode: false, amountPaid: '131.0000001', amountOverpaid: '0.4500001', paidAt: T1 } },
  ]);
  if (second.status === 'none') return;
  assert.equal(balanceOf(second), { remaining: 0n, overpaid: 4_500_001n });
});

test('a payment that is not this request’s is refused: memo, destination, asset, failed, several payments', () => {
  const cases: Array<[Partial<ObservedPayment>, string]> = [
    [{ memoHash: 'cd'.repeat(32) }, 'memo'],
    [{ memoHash: null }, 'memo'],
    [{ to: PAYER }, 'destination'],
    [{ assetIssuer: PAYER }, 'asset'],
    [{ assetCode: 'XLM', assetIssuer: null }, 'asset'],
    [{ successful: false }, 'transaction'],
    [{ paymentCount: 2 }, 'transaction'],
  ];
  for (const [over, field] of cases) {
    const e = given(createdEvent).when(pay(payment(over))).thenThrows(ValidationError, 'payment_mismatch');
    assert.ok(e.errors[field], `${JSON.stringify(over)} → ${field}`);
  }
  given().when(pay(payment())).thenThrows(NotFoundError, 'request_not_found');
});

test('expiry: nothing before dueAt; at dueAt an open request expires; a later payment is recorded as late and pays nothing', () => {
  given(createdEvent).when({ type: 'ExpireRequest', data: { requestId: REQ }, metadata: { now: T1 } }).then([]);
  const expired = given(createdEvent).when({ type: 'ExpireRequest', data: { requestId: REQ }, metadata: { now: LATER } }).then([
    { type: 'PaymentRequestExpired', data: { requestId: REQ, livemode: false, amountPaid: '0.00', expiredAt: LATER } },
  ]);
  assert.is(expired.status, 'expired');
  const expiredEvent = { type: 'PaymentRequestExpired' as const, data: { requestId: REQ, livemode: false, amountPaid: '0.00', expiredAt: LATER } };
  given(createdEvent, expiredEvent).when({ type: 'ExpireRequest', data: { requestId: REQ }, metadata: { now: LATER } }).then([]);
  given(createdEvent, expiredEvent).when(pay(payment(), LATER)).then([
    { type: 'PaymentRequestPaymentRecorded', data: { requestId: REQ, livemode: false, txHash: 'ef'.repeat(32), ledger: 7, from: PAYER, amount: '130.55', amountPaid: '0.00', late: true, recordedAt: LATER } },
  ]);
  given(createdEvent, expiredEvent).when({ type: 'VoidRequest', data: { requestId: REQ }, metadata: { now: LATER } }).thenThrows(IllegalStateError, 'request_not_open');
});

test('void: an open request only; twice is one void; a paid request cannot be voided', () => {
  const voided = given(createdEvent).when({ type: 'VoidRequest', data: { requestId: REQ }, metadata: { now: T1 } }).then([
    { type: 'PaymentRequestVoided', data: { requestId: REQ, livemode: false, amountPaid: '0.00', voidedAt: T1 } },
  ]);
  assert.is(voided.status, 'void');
  const paid = decidePaymentRequest(pay(payment()), given(createdEvent).state());
  given(createdEvent, ...paid).when({ type: 'VoidRequest', data: { requestId: REQ }, metadata: { now: T1 } }).thenThrows(IllegalStateError, 'request_not_open');
});

test('the invoice of a paid request: its lines as asked, prepaid the amount due, the totals the request showed', () => {
  const paid = given(createdEvent, ...decidePaymentRequest(pay(payment({ amount: '140' })), given(createdEvent).state())).state();
  if (paid.status === 'none') return assert.unreachable();
  const facts = paidRequestInvoice(paid, { seller: { name: 'Studio SAS', id: PAYEE, vatId: 'FR11123456782', address: { country: 'FR' } }, requestRef: 'req_x' });
  assert.is(facts.sourceKey, `request:${REQ}`);
  assert.is(facts.draft.prepaid, '130.55');
  assert.is(facts.draft.buyer.name, 'Ann Client');
  assert.is(facts.draft.paymentReference, 'ef'.repeat(32));
});

// The amount due is Σ over (category, rate) of taxable + round(taxable × rate), taxable = Σ round(quantity × unit);
// recomputed here independently in bigint over random lines.
const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 300);
const HUNDREDTHS: Record<string, bigint> = { '20': 2000n, '5.5': 550n, '10': 1000n, '2.1': 210n, '0': 0n };
test('property: amountDue = subtotal + tax, each exactly the per-rate rounding of the lines (bigint, no float)', () => {
  const line = fc.record({
    quantity: fc.integer({ min: 1, max: 1000 }),
    tenThousandths: fc.bigInt({ min: 1n, max: 100_000_000n }),
    rate: fc.constantFrom('20', '5.5', '10', '2.1', '0'),
  });
  fc.assert(
    fc.property(fc.array(line, { minLength: 1, maxLength: 10 }), (raw) => {
      const ls: PaymentRequestLine[] = raw.map((l, k) => ({
        description: `l${k}`,
        quantity: l.quantity,
        unitAmount: `${l.tenThousandths / 10_000n}.${(l.tenThousandths % 10_000n).toString().padStart(4, '0')}`,
        vatCategory: l.rate === '0' ? 'Z' : 'S',
        vatRate: l.rate,
      }));
      const totals = requestTotals(ls);
      const byRate = new Map<string, bigint>();
      for (const l of raw) {
        const net = (BigInt(l.quantity) * l.tenThousandths * 2n + 100n) / 200n; // half-up to the cent
        byRate.set(l.rate, (byRate.get(l.rate) ?? 0n) + net);
      }
      let subtotal = 0n;
      let tax = 0n;
      for (const [rate, taxable] of byRate) {
        const hundredths = HUNDREDTHS[rate]!;
        subtotal += taxable;
        tax += (taxable * hundredths * 2n + 10_000n) / 20_000n;
      }
      assert.is(parseCents(totals.subtotal), subtotal);
      assert.is(parseCents(totals.tax), tax);
      assert.is(parseCents(totals.amountDue), subtotal + tax);
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

test.run();
