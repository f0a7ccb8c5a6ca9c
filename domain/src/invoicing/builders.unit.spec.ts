import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { activationFeeInvoice, commissionInvoice, depositFeeInvoice, goodsCreditNote, goodsInvoice, listingFeeInvoice, listingRefundCreditNote, platformFeeInvoice } from './builders';
import { computeInvoice } from './compute';
import { parseAmount } from '../money';
import { ann, consumer, feeVat, fromage, goods, item, platform, R1, round, SETTLE_TX, TX } from './fixtures.testing';
import { goodsVat, vatIdOf } from './vat-treatment';
import { standardVatRate } from './vat-rates';
import type { InvoiceParty } from './model';

const test = suite('invoicing builders: from the recorded settlement to the invoice');
const issue = (draft: Parameters<typeof computeInvoice>[0] extends infer I ? Omit<I, 'number' | 'issueDate'> : never) => computeInvoice({ ...draft, number: 'X-2026-000001', issueDate: '2026-03-03' });

test('goods, a seller with a VAT id: the charged VAT-inclusive prices at the standard rate, prepaid by the deposit, nothing due', () => {
  const r = goodsInvoice(goods());
  assert.is(r.sourceKey, `goods:${R1}`);
  const doc = issue(r.draft);
  assert.equal(doc.lines.map((l) => [l.name, l.quantity, l.netUnitPrice, l.vatCategory, l.vatRate, l.netAmount]), [['Comté 1 kg', 2, '15.4167', 'S', '20', '30.83']]);
  assert.equal(doc.vatBreakdown.map((b) => [b.category, b.taxableAmount, b.taxAmount]), [['S', '30.83', '6.17']]);
  assert.equal([doc.totals.grandTotal, doc.totals.prepaid, doc.totals.rounding, doc.totals.duePayable], ['37.00', '37.00', '0.00', '0.00']);
  assert.is(doc.paymentReference, TX);
  assert.is(doc.typeCode, '380');
});

test('goods, a consumer organiser (no VAT id): O, not subject to VAT, with its reason; a FUNDING pledge is one line', () => {
  const doc = issue(goodsInvoice(goods(consumer)).draft);
  assert.equal(doc.vatBreakdown.map((b) => [b.category, b.rate, b.taxAmount, b.exemptionReason, b.exemptionReasonCode]), [['O', '0', '0.00', 'Not subject to VAT', 'VATEX-EU-O']]);
  assert.is(doc.seller.vatId ?? null, null);
  const pledge = issue(goodsInvoice(goods(fromage, { lines: [], deposit: '50.0000000' })).draft);
  assert.equal(pledge.lines.map((l) => [l.name, l.quantity, l.netUnitPrice]), [['Pledge to “Fromages du Jura”', 1, '41.6667']]);
  assert.is(pledge.totals.prepaid, '50.00');
});

test('credit note: a line per unit whose tier came below the charged price, the dispute refund as the rest of the BUYER payout; it refers to the invoice', () => {
  const settled = item(R1, '37.00', [['SELLER', '22.50'], ['PLATFORM', '0.60'], ['BUYER', '13.50']]);
  const r = goodsCreditNote({
    goods: goods(),
    corrects: { invoiceId: '44444444-4444-4444-8444-444444444444', number: 'F-2026-000001', issueDate: '2026-03-03' },
    finalPrices: new Map([['comte', parseAmount('16.00')]]),
    item: settled,
    settlementTxHash: SETTLE_TX,
    disputeReason: 'DAMAGED',
  })!;
  assert.equal([r.kind, r.sourceKey, r.corrects], ['CREDIT_NOTE', `credit:${R1}`, '44444444-4444-4444-8444-444444444444']);
  const doc = issue(r.draft);
  assert.is(doc.typeCode, '381');
  assert.equal(doc.lines.map((l) => [l.name, l.quantity, l.netAmount]), [
    ['Tier price reached: Comté 1 kg, 16.00 instead of 18.50', 2, '4.17'],
    ['Dispute refund (damaged)', 1, '7.08'],
  ]);
  assert.equal([doc.totals.grandTotal, doc.totals.prepaid, doc.totals.duePayable], ['13.50', '13.50', '0.00']);
  assert.equal(doc.precedingInvoice, { number: 'F-2026-000001', issueDate: '2026-03-03' });
  assert.is(doc.paymentReference, SETTLE_TX);
});

test('credit note: none when nothing went back to the buyer; a refund below the tier difference is refused', () => {
  const base = { goods: goods(), corrects: { invoiceId: R1, number: 'F-2026-000001', issueDate: '2026-03-03' }, settlementTxHash: SETTLE_TX, disputeReason: null };
  assert.is(goodsCreditNote({ ...base, finalPrices: new Map(), item: item(R1, '37.00', [['SELLER', '36.00'], ['PLATFORM', '1.00']]) }), null);
  assert.throws(() => goodsCreditNote({ ...base, finalPrices: new Map([['comte', parseAmount('16.00')]]), item: item(R1, '37.00', [['SELLER', '34.00'], ['BUYER', '3.00']]) }));
});

test('platform fee: one line for the round (its reservations named), net + VAT = the PLATFORM payouts to the cent', () => {
  const r = platformFeeInvoice(round(fromage))!;
  assert.is(r.sourceKey, 'fee:33333333-3333-4333-8333-333333333333:0');
  const doc = issue(r.draft);
  assert.equal(doc.lines.map((l) => [l.name, l.netAmount]), [['Platform fee 2.5 % on 2 reservations (11111111, 22222222)', '1.33']]);
  assert.equal([doc.totals.taxBasisTotal, doc.totals.taxTotal, doc.totals.grandTotal, doc.totals.prepaid, doc.totals.rounding, doc.totals.duePayable], ['1.33', '0.27', '1.60', '1.60', '0.00', '0.00']);
  assert.equal([doc.seller.name, doc.buyer.name], ['Cagnotte SAS', 'Fromagerie du Jura SAS']);
  assert.ok(doc.notes!.includes(`Reservation ${R1}: 0.80 EUR.`));
  assert.is(platformFeeInvoice(round(fromage, { items: [item(R1, '5.00', [['BUYER', '5.00']])] })), null, 'no fee, no invoice');
});

test('platform fee: a PLATFORM payout that carried an escrow-deposit fee is invoiced without it (the buyer’s invoice has it)', () => {
  const facts = round(fromage);
  const withFees = platformFeeInvoice({ ...facts, items: facts.items.map((i) => (i.reservationId === R1 ? { ...i, payouts: i.payouts.map((p) => (p.role === 'PLATFORM' ? { ...p, amount: '1.30' } : p)) } : i)), depositFees: new Map([[R1, parseAmount('0.50')]]) })!;
  const doc = issue(withFees.draft);
  assert.equal([doc.totals.grandTotal, doc.totals.prepaid], ['1.60', '1.60'], 'the same fee as without the deposit fee');
  assert.ok(doc.notes!.includes(`Reservation ${R1}: 0.80 EUR.`));
});

test('escrow-deposit fee: platform → buyer, one VAT-inclusive line prepaid in full; none without a fee', () => {
  const vat = feeVat(platform, ann);
  const facts = { pool: goods().pool, platform, payer: ann, vat, reservationId: R1, amount: '0.6200000', txHash: TX, paidOn: '2026-03-03' };
  const r = depositFeeInvoice(facts)!;
  assert.equal([r.kind, r.sourceKey, r.reservationId], ['DEPOSIT_FEE', `deposit-fee:${R1}`, R1]);
  const doc = issue(r.draft);
  assert.equal([doc.seller.name, doc.buyer.name], [platform.name, ann.name]);
  assert.equal(doc.vatBreakdown.map((b) => [b.category, b.rate]), [['S', '20']]);
  assert.equal([doc.totals.taxBasisTotal, doc.totals.taxTotal, doc.totals.grandTotal, doc.totals.prepaid, doc.totals.duePayable], ['0.52', '0.10', '0.62', '0.62', '0.00']);
  assert.is(doc.paymentReference, TX);
  assert.is(depositFeeInvoice({ ...facts, amount: '0.00' }), null);
});

test('listing fee: platform → organiser, prepaid by the ledger payment; its refund is a 381 correcting it; a free listing invoices nothing', () => {
  const pool = { poolId: goods().pool.poolId, title: 'Fromages du Jura', unitLabels: new Map<string, string>() };
  const base = { platform, payer: fromage, vat: feeVat(platform, fromage), amount: '5.00', txHash: TX, paidOn: '2026-03-01', pool, listingId: R1, tier: 'LISTED' };
  const r = listingFeeInvoice(base)!;
  assert.equal([r.kind, r.sourceKey, r.poolId], ['LISTING_FEE', `listing:${R1}`, pool.poolId]);
  const doc = issue(r.draft);
  assert.equal([doc.totals.taxBasisTotal, doc.totals.taxTotal, doc.totals.grandTotal, doc.totals.duePayable], ['4.17', '0.83', '5.00', '0.00']);
  const note = listingRefundCreditNote({ ...base, txHash: SETTLE_TX, corrects: { invoiceId: '44444444-4444-4444-8444-444444444444', number: 'L-2026-000001', issueDate: '2026-03-01' } })!;
  assert.equal([note.kind, note.sourceKey, note.corrects], ['CREDIT_NOTE', `listing-refund:${R1}`, '44444444-4444-4444-8444-444444444444']);
  const credit = issue(note.draft);
  assert.equal([credit.typeCode, credit.totals.grandTotal, credit.precedingInvoice?.number, credit.paymentReference], ['381', '5.00', 'L-2026-000001', SETTLE_TX]);
  assert.is(listingFeeInvoice({ ...base, amount: '0' }), null);
});

test('activation fee: platform → the new organiser, no pool, prepaid by the grant payment', () => {
  const r = activationFeeInvoice({ platform, payer: ann, vat: feeVat(platform, ann), amount: '1.0000000', txHash: TX, paidOn: '2026-03-01', grantId: R1 })!;
  assert.equal([r.kind, r.sourceKey, r.poolId], ['ACTIVATION_FEE', `activation:${R1}`, undefined]);
  const doc = issue(r.draft);
  assert.equal([doc.totals.grandTotal, doc.totals.prepaid, doc.buyer.name], ['1.00', '1.00', ann.name]);
});

test('commission: organiser → seller, issued by the platform on their behalf: the note names the mandate', () => {
  const organiser: InvoiceParty = { name: 'Olga Courtage SARL', id: 'org', vatId: 'FR40303265045', address: { country: 'FR' } };
  const facts = round(fromage, {
    issuer: organiser,
    vat: feeVat(organiser, fromage),
    items: [item(R1, '40.00', [['SELLER', '34.00'], ['ORGANISER', '4.00'], ['PLATFORM', '2.00']])],
    percent: '10',
  });
  const r = commissionInvoice({ ...facts, mandate: { id: '55555555-5555-4555-8555-555555555555', acceptedAt: '2026-02-01T10:00:00Z' } })!;
  assert.is(r.kind, 'COMMISSION');
  const doc = issue(r.draft);
  assert.equal([doc.seller.name, doc.lines[0]!.name, doc.totals.prepaid], ['Olga Courtage SARL', 'Organiser commission 10 % on reservation 11111111', '4.00']);
  assert.ok(doc.notes!.some((n) => n.includes('COMMISSION mandate 55555555-5555-4555-8555-555555555555') && n.includes('on behalf of Olga Courtage SARL')));
});

test('VAT of goods: S at the seller country\'s standard rate with a VAT id, else O (fees: domain/src/fees and fee-vat.property.unit.spec.ts)', () => {
  assert.equal(goodsVat({ country: 'BE', vatId: 'BE0123456789' }, standardVatRate), { category: 'S', rate: '21', exemption: null });
  assert.is(goodsVat({ country: 'FR', vatId: null }, standardVatRate).category, 'O');
});

test('VAT id of a persona: its taxId when it is one, else the FR number from the SIRET, else none', () => {
  assert.is(vatIdOf({ siret: null, taxCountry: 'DE', taxId: 'de 123 456 789' }), 'DE123456789');
  assert.is(vatIdOf({ siret: '73282932000074', taxCountry: 'FR', taxId: null }), 'FR44732829320');
  assert.is(vatIdOf({ siret: null, taxCountry: 'FR', taxId: null }), null);
  assert.is(vatIdOf(null), null);
  assert.is(ann.vatId, undefined);
  assert.is(platform.address.country, 'FR');
});

test.run();
