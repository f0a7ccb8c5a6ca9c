import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { activationFeeInvoice, computeInvoice, listingFeeInvoice, vatOnFee, type InvoiceDocument, type InvoiceParty } from '@cagnotte/domain';
import { renderCii } from './cii';
import { ALL_CASES, belgianBusiness, belgianConsumer, consumerOrganiser, creditNote, frenchBusiness, frenchConsumer, germanBusiness, goodsTierDiscount, goodsTwoRates, notSubject, platform, swissMerchant } from './fixtures.testing';
import { describeValidation, validateCii } from './validate.testing';

const expectValid = async (doc: InvoiceDocument) => {
  const xml = renderCii(doc);
  const v = await validateCii(xml);
  assert.ok(v.xsdValid, `XSD:\n${describeValidation(v)}`);
  assert.equal(v.fatal.map((f) => f.id), [], `fatal EN 16931 rules:\n${describeValidation(v)}`);
  return { xml, v };
};

const valid = suite('invoicing: renderCii, validated by the EU XSD and the CEN EN 16931 Schematron');

for (const [name, build] of Object.entries(ALL_CASES)) {
  valid(`given ${name}, when rendered, then the XSD passes and 0 fatal rules fail (nor any warning)`, async () => {
    const { v } = await expectValid(build());
    assert.equal(v.warnings.map((w) => w.id), [], v.warnings.map((w) => `${w.id}: ${w.text}`).join('\n'));
  });
}

valid('given every VAT category, then the cases above cover S (two rates in one invoice), Z, E, AE, K, G and O', () => {
  const docs = Object.values(ALL_CASES).map((b) => b());
  const categories = new Set(docs.flatMap((d) => d.vatBreakdown.map((b) => b.category)));
  assert.equal([...categories].sort(), ['AE', 'E', 'G', 'K', 'O', 'S', 'Z']);
  assert.ok(docs.some((d) => new Set(d.vatBreakdown.filter((b) => b.category === 'S').map((b) => b.rate)).size >= 2));
  assert.ok(docs.some((d) => d.buyer.address.country !== 'FR' && d.buyer.vatId));
  assert.ok(docs.some((d) => d.buyer.address.country !== 'FR' && !d.buyer.vatId));
});

valid('given a rendered reverse-charge invoice stripped of its exemption reason, then the validator fails BR-AE-10 (it checks our output, not nothing)', async () => {
  const xml = renderCii(ALL_CASES['AE reverse-charge fee to a Belgian business']!())
    .replace(/<ram:ExemptionReason>.*<\/ram:ExemptionReason>/, '')
    .replace(/<ram:ExemptionReasonCode>.*<\/ram:ExemptionReasonCode>/, '');
  const v = await validateCii(xml);
  assert.ok(v.xsdValid);
  assert.equal(v.fatal.map((f) => f.id), ['BR-AE-10']);
});

valid.run();

const mapping = suite('invoicing: renderCii, what lands where');

mapping('the EN 16931 profile, the number, type, date and totals are written as the document says', async () => {
  const doc = goodsTwoRates();
  const { xml } = await expectValid(doc);
  assert.ok(xml.includes('<ram:ID>urn:cen.eu:en16931:2017</ram:ID>'));
  assert.ok(xml.includes(`<ram:ID>${doc.number}</ram:ID>`));
  assert.ok(xml.includes('<udt:DateTimeString format="102">20250915</udt:DateTimeString>'));
  assert.is(doc.totals.rounding, '-0.01', 'the fixture exercises a rounding');
  assert.ok(xml.includes('<ram:RoundingAmount>-0.01</ram:RoundingAmount>'));
  assert.ok(xml.includes(`<ram:GrandTotalAmount>${doc.totals.grandTotal}</ram:GrandTotalAmount>`));
  assert.ok(xml.includes('<ram:TaxTotalAmount currencyID="EUR">'));
  assert.ok(xml.includes('<ram:DuePayableAmount>0.00</ram:DuePayableAmount>'));
  assert.ok(xml.includes(`<ram:PaymentReference>${doc.paymentReference}</ram:PaymentReference>`));
  assert.ok(xml.includes('<ram:ID schemeID="0002">40483304800022</ram:ID>'));
  assert.ok(xml.includes('<ram:ID schemeID="VA">FR83404833048</ram:ID>'));
  assert.ok(xml.includes('<ram:ID schemeID="FC">404 833 048 RCS Lyon</ram:ID>'));
  assert.ok(xml.includes('<ram:URIID schemeID="EM">factures@ferme-du-val.example</ram:URIID>'));
  assert.ok(xml.includes('<ram:OccurrenceDateTime>'));
});

mapping('every text is escaped: a name with & < > and quotes stays data', async () => {
  const { xml } = await expectValid(goodsTwoRates());
  assert.ok(xml.includes('Ferme du Val &amp; Fils &lt;SARL&gt;'));
  assert.not.ok(xml.includes('<SARL>'));
  const hostile = computeInvoice({
    ...goodsTwoRates(),
    seller: { ...frenchBusiness, name: ']]></ram:Name><ram:Injected/>' },
    lines: [{ id: '1', name: '<!-- x -->', quantity: 1, netUnitPrice: '1', vatCategory: 'S', vatRate: '20' }],
    prepaid: '0',
  });
  const { xml: escaped } = await expectValid(hostile);
  assert.not.ok(escaped.includes('<ram:Injected/>'));
});

mapping('a tier discount is the gross price with its allowance, then the net price', async () => {
  const doc = goodsTierDiscount();
  const { xml } = await expectValid(doc);
  const l = doc.lines[0]!;
  assert.ok(l.grossUnitPrice && l.grossUnitPrice !== l.netUnitPrice);
  const gross = new RegExp(`<ram:GrossPriceProductTradePrice>\\s*<ram:ChargeAmount>${l.grossUnitPrice}</ram:ChargeAmount>\\s*<ram:AppliedTradeAllowanceCharge>\\s*<ram:ChargeIndicator>\\s*<udt:Indicator>false</udt:Indicator>\\s*</ram:ChargeIndicator>\\s*<ram:ActualAmount>([\\d.]+)</ram:ActualAmount>`);
  const m = gross.exec(xml);
  assert.ok(m, 'gross price with an allowance');
  // 11.3744 − 10.2370 = 1.1374
  assert.is(m![1], '1.1374');
  assert.ok(xml.includes('<ram:BilledQuantity unitCode="C62">4</ram:BilledQuantity>'));
});

mapping('a credit note is type 381 and references the invoice it corrects', async () => {
  const doc = creditNote();
  const { xml } = await expectValid(doc);
  assert.ok(xml.includes('<ram:TypeCode>381</ram:TypeCode>'));
  assert.match(xml, /<ram:InvoiceReferencedDocument>\s*<ram:IssuerAssignedID>ACCT-0F3C9A-2025-000001<\/ram:IssuerAssignedID>\s*<ram:FormattedIssueDateTime>\s*<qdt:DateTimeString format="102">20250915<\/qdt:DateTimeString>/);
});

mapping('an invoice not subject to VAT shows no VAT id and no rate, and says why', async () => {
  const { xml } = await expectValid(notSubject());
  assert.not.ok(xml.includes('schemeID="VA"'));
  assert.not.ok(xml.includes('RateApplicablePercent'));
  assert.ok(xml.includes('<ram:ExemptionReason>Not subject to VAT</ram:ExemptionReason>'));
  assert.ok(xml.includes('<ram:ExemptionReasonCode>VATEX-EU-O</ram:ExemptionReasonCode>'));
});

mapping('the same document always renders to the same XML', () => {
  assert.is(renderCii(goodsTwoRates()), renderCii(goodsTwoRates()));
});

mapping.run();

const feeRule = suite('invoicing: every VAT the fee rule (vatOnFee) decides makes a valid fee invoice');

const swissPlatform: InvoiceParty = { ...platform, siret: null, vatId: 'CHE123456789', address: { line1: 'Bahnhofstrasse 1', city: 'Zürich', postcode: '8001', country: 'CH' } };
const swissBusiness: InvoiceParty = { ...swissMerchant, vatId: 'CHE987654321' };
const american: InvoiceParty = { name: 'Acme Inc.', id: 'acct-us', address: { city: 'Boston', country: 'US' } };
const tenantVat = { default: '20', byCountry: { CH: '8.1', BE: '0' } };
const feeCases: Array<[string, InvoiceParty, InvoiceParty, string]> = [
  ['both in France', platform, frenchConsumer, 'S 20'],
  ['both in Switzerland (a domestic supply outside the EU)', swissPlatform, swissMerchant, 'S 8.1'],
  ['a Swiss issuer to a French business (leaves its VAT area)', swissPlatform, frenchBusiness, 'G 0'],
  ['a French issuer to a US payer', platform, american, 'G 0'],
  ['a French issuer to a Swiss business', platform, swissBusiness, 'G 0'],
  ['a French issuer to a German business (reverse charge)', platform, germanBusiness, 'AE 0'],
  ['a French issuer to a Belgian consumer (the issuer country rate)', platform, belgianConsumer, 'S 20'],
  ['an issuer without a VAT id', consumerOrganiser, germanBusiness, 'O 0'],
];
for (const [name, issuer, payer, expected] of feeCases) {
  feeRule(`given ${name}, then ${expected}, and the listing fee invoice validates`, async () => {
    const { category, rate, exemption } = vatOnFee(0n, { schedule: { vat: tenantVat }, issuerCountry: issuer.address.country, issuerVatId: issuer.vatId ?? null, payerCountry: payer.address.country, payerVatId: payer.vatId ?? null });
    assert.is(`${category} ${rate}`, expected);
    const pool = { poolId: 'pool-01J8Z3', title: 'Paniers', unitLabels: new Map<string, string>() };
    const r = listingFeeInvoice({ platform: issuer, payer, vat: { category, rate, exemption }, amount: '5.00', txHash: 'f'.repeat(64), paidOn: '2025-09-15', pool, listingId: 'l1', tier: 'LISTED' })!;
    await expectValid(computeInvoice({ ...r.draft, number: 'L-2025-000001', issueDate: '2025-09-15' }));
  });
}
feeRule('given the tenant rate of 0 % (Belgium listed at 0) for a domestic Belgian fee, then Z, and it validates', async () => {
  const be: InvoiceParty = { ...belgianBusiness };
  const v = vatOnFee(0n, { schedule: { vat: tenantVat }, issuerCountry: 'BE', issuerVatId: be.vatId!, payerCountry: 'BE', payerVatId: null });
  assert.is(`${v.category} ${v.rate}`, 'Z 0');
  const r = activationFeeInvoice({ platform: be, payer: belgianConsumer, vat: v, amount: '1', txHash: 'f'.repeat(64), paidOn: '2025-09-15', grantId: 'g1' })!;
  await expectValid(computeInvoice({ ...r.draft, number: 'O-2025-000001', issueDate: '2025-09-15' }));
});

feeRule.run();
