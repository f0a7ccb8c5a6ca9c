import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import {
  computeInvoice,
  formatUnitPrice,
  grossFromInclusive,
  invoiceAmountFromLedger,
  netUnitPriceFromInclusive,
  parseUnitPrice,
  type ComputeInvoiceInput,
} from './compute';
import type { InvoiceLineInput } from './model';

const seller = { name: 'Ferme du Val', id: 'acct-seller', siret: '40483304800022', vatId: 'FR83404833048', address: { line1: '1 rue des Prés', city: 'Lyon', postcode: '69001', country: 'FR' } };
const buyer = { name: 'Alice Martin', id: 'acct-alice', address: { country: 'FR' } };

const input = (lines: InvoiceLineInput[], prepaid = '0', more: Partial<ComputeInvoiceInput> = {}): ComputeInvoiceInput => ({
  typeCode: '380',
  number: 'F-2025-000001',
  issueDate: '2025-09-01',
  currency: 'EUR',
  seller,
  buyer,
  lines,
  prepaid,
  ...more,
});

const line = (id: string, quantity: number, netUnitPrice: string, vatCategory: InvoiceLineInput['vatCategory'] = 'S', vatRate = '20', grossUnitPrice: string | null = null): InvoiceLineInput => ({
  id,
  name: `item ${id}`,
  quantity,
  netUnitPrice,
  grossUnitPrice,
  vatCategory,
  vatRate,
});

const lines = suite('invoicing: computeInvoice, the lines');

lines('given a quantity and a 4-decimal net price, when computed, then the line net is rounded half-up to the cent', () => {
  const doc = computeInvoice(input([line('1', 3, '8.325'), line('2', 1, '0.0049'), line('3', 1, '0.005')]));
  assert.equal(
    doc.lines.map((l) => l.netAmount),
    ['24.98', '0.00', '0.01'],
  );
});

lines('given prices and rates in loose forms, when computed, then the document carries them in canonical form', () => {
  const doc = computeInvoice(input([line('1', 2, '10', 'S', '5.50', '12.5')]));
  assert.is(doc.lines[0]!.netUnitPrice, '10.00');
  assert.is(doc.lines[0]!.grossUnitPrice, '12.50');
  assert.is(doc.lines[0]!.vatRate, '5.5');
  assert.is(doc.vatBreakdown[0]!.rate, '5.5');
});

lines('given malformed lines, when computed, then it throws rather than issue a wrong invoice', () => {
  assert.throws(() => computeInvoice(input([])), /at least one line/);
  assert.throws(() => computeInvoice(input([line('1', 1, '1'), line('1', 1, '2')])), /appears twice/);
  assert.throws(() => computeInvoice(input([line('1', 0, '1')])), /positive integer/);
  assert.throws(() => computeInvoice(input([line('1', 1.5, '1')])), /positive integer/);
  assert.throws(() => computeInvoice(input([line('1', 1, '1.00001')])), /4 decimals/);
  assert.throws(() => computeInvoice(input([line('1', 1, '-1')])), /4 decimals/);
  assert.throws(() => computeInvoice(input([line('1', 1, '10', 'S', '20', '9')])), /gross unit price/);
  assert.throws(() => computeInvoice(input([line('1', 1, '10', 'S', '0')])), /rate above 0/);
  assert.throws(() => computeInvoice(input([line('1', 1, '10', 'Z', '20')])), /rate of 0/);
  assert.throws(() => computeInvoice(input([line('1', 1, '10', 'O', '0'), line('2', 1, '10', 'S', '20')])), /BR-O-11/);
});

lines.run();

const breakdown = suite('invoicing: computeInvoice, the VAT breakdown');

breakdown('given lines at two rates, when computed, then there is one entry per (category, rate) in first-use order, tax rounded once per entry', () => {
  // 3 × 0.333 = 0.999 → 1.00 (line), + 1.00 → 2.00 at 5.5 %: 0.11; 10.00 at 20 %: 2.00.
  const doc = computeInvoice(input([line('1', 1, '10', 'S', '20'), line('2', 3, '0.333', 'S', '5.5'), line('3', 1, '1', 'S', '5.5')]));
  assert.equal(doc.vatBreakdown, [
    { category: 'S', rate: '20', taxableAmount: '10.00', taxAmount: '2.00' },
    { category: 'S', rate: '5.5', taxableAmount: '2.00', taxAmount: '0.11' },
  ]);
  assert.equal({ lineTotal: doc.totals.lineTotal, taxTotal: doc.totals.taxTotal, grandTotal: doc.totals.grandTotal }, { lineTotal: '12.00', taxTotal: '2.11', grandTotal: '14.11' });
});

breakdown('given a tax of exactly half a cent, when computed, then it rounds up', () => {
  // 0.25 × 2 % = 0.005 → 0.01; 0.24 × 2 % = 0.0048 → 0.00.
  assert.is(computeInvoice(input([line('1', 1, '0.25', 'S', '2')])).vatBreakdown[0]!.taxAmount, '0.01');
  assert.is(computeInvoice(input([line('1', 1, '0.24', 'S', '2')])).vatBreakdown[0]!.taxAmount, '0.00');
});

breakdown('given categories without VAT, when computed, then each carries its exemption reason (default or given), S and Z none', () => {
  const doc = computeInvoice(
    input([line('1', 1, '5', 'Z', '0'), line('2', 1, '5', 'E', '0'), line('3', 1, '5', 'AE', '0'), line('4', 1, '5', 'K', '0'), line('5', 1, '5', 'G', '0')], '0', {
      exemptions: { E: { reason: 'Article 261 D du CGI', code: 'VATEX-FR-CGI261D-1' } },
    }),
  );
  assert.equal(
    doc.vatBreakdown.map((b) => [b.category, b.exemptionReason ?? null, b.exemptionReasonCode ?? null]),
    [
      ['Z', null, null],
      ['E', 'Article 261 D du CGI', 'VATEX-FR-CGI261D-1'],
      ['AE', 'Reverse charge', 'VATEX-EU-AE'],
      ['K', 'Intra-community supply', 'VATEX-EU-IC'],
      ['G', 'Export outside the EU', 'VATEX-EU-G'],
    ],
  );
  assert.is(doc.totals.taxTotal, '0.00');
  const o = computeInvoice(input([line('1', 1, '5', 'O', '0')]));
  assert.equal([o.vatBreakdown[0]!.exemptionReason, o.vatBreakdown[0]!.exemptionReasonCode], ['Not subject to VAT', 'VATEX-EU-O']);
});

breakdown('given an invoice not subject to VAT (O), when computed, then neither party carries a VAT id (BR-O-02)', () => {
  const doc = computeInvoice(input([line('1', 1, '5', 'O', '0')], '0', { buyer: { ...buyer, vatId: 'DE123456789' } }));
  assert.is(doc.seller.vatId, null);
  assert.is(doc.buyer.vatId, null);
  assert.is(doc.seller.siret, seller.siret, 'the legal registration stays');
  const s = computeInvoice(input([line('1', 1, '5')], '0', { buyer: { ...buyer, vatId: 'DE123456789' } }));
  assert.is(s.seller.vatId, seller.vatId);
  assert.is(s.buyer.vatId, 'DE123456789');
});

breakdown.run();

const totals = suite('invoicing: computeInvoice, prepaid, rounding and due (BR-CO-16)');

totals('given nothing paid, when computed, then the whole grand total is due and there is no rounding', () => {
  const t = computeInvoice(input([line('1', 2, '10')])).totals;
  assert.equal(t, { lineTotal: '20.00', taxBasisTotal: '20.00', taxTotal: '4.00', grandTotal: '24.00', prepaid: '0.00', rounding: '0.00', duePayable: '24.00' });
});

totals('given a VAT-inclusive price paid, when the net price × rate drifts a cent above it, then rounding absorbs it and nothing is due', () => {
  // 3 × 9.99 paid, VAT included at 20 %: net 8.325 a unit, 24.98 the line, VAT 5.00, 29.98 in all; 29.97 was paid.
  const net = netUnitPriceFromInclusive('9.99', '20');
  assert.is(net, '8.325');
  const t = computeInvoice(input([line('1', 3, net)], '29.9700000')).totals;
  assert.equal(t, { lineTotal: '24.98', taxBasisTotal: '24.98', taxTotal: '5.00', grandTotal: '29.98', prepaid: '29.97', rounding: '-0.01', duePayable: '0.00' });
});

totals('given a ledger amount with sub-cent digits paid, when computed, then it is rounded half-up to the cent', () => {
  const t = computeInvoice(input([line('1', 1, '10', 'O', '0')], '10.0049999')).totals;
  assert.equal([t.prepaid, t.rounding, t.duePayable], ['10.00', '0.00', '0.00']);
  const u = computeInvoice(input([line('1', 1, '10', 'O', '0')], '9.995')).totals;
  assert.equal([u.prepaid, u.rounding, u.duePayable], ['10.00', '0.00', '0.00']);
});

totals('given a paid amount far from the invoice, when computed, then it throws (the wrong amount was passed)', () => {
  assert.throws(() => computeInvoice(input([line('1', 1, '10', 'O', '0')], '9.98')), /not the payment/);
  assert.throws(() => computeInvoice(input([line('1', 1, '10', 'O', '0')], '10.02')), /not the payment/);
  assert.not.throws(() => computeInvoice(input([line('1', 1, '10', 'O', '0')], '10.01')));
});

totals.run();

const helpers = suite('invoicing: prices from VAT-inclusive ledger amounts');

helpers('given an inclusive price, when converted, then the net price is inclusive / (1 + rate) rounded half-up to 4 decimals', () => {
  assert.is(netUnitPriceFromInclusive('12.00', '20'), '10.00');
  assert.is(netUnitPriceFromInclusive('10', '5.5'), '9.4787'); // 9.478672…
  assert.is(netUnitPriceFromInclusive('1.0000001', '0'), '1.00');
  assert.is(netUnitPriceFromInclusive('0.00006', '20'), '0.0001'); // 0.00005 exactly: half-up
  assert.is(netUnitPriceFromInclusive('0.0000599', '20'), '0.00');
  assert.is(grossFromInclusive, netUnitPriceFromInclusive);
});

helpers('given a ledger amount, when made an invoice amount, then it is rounded half-up to the cent', () => {
  assert.is(invoiceAmountFromLedger('12.3450000'), '12.35');
  assert.is(invoiceAmountFromLedger('12.3449999'), '12.34');
  assert.is(invoiceAmountFromLedger('0'), '0.00');
});

helpers('unit prices round-trip in canonical form (2 to 4 decimals)', () => {
  for (const [text, canonical] of [['8.325', '8.325'], ['8.3250', '8.325'], ['10', '10.00'], ['0.0001', '0.0001'], ['1.1', '1.10']] as const) {
    assert.is(formatUnitPrice(parseUnitPrice(text)), canonical);
  }
});

helpers.run();
