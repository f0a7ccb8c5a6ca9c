/**
 * An invoice document as UN/CEFACT Cross Industry Invoice D16B XML, EN 16931 profile: the `factur-x.xml` of a
 * Factur-X PDF and the XML the service serves alone. Built with xmlbuilder2 so every text is escaped; the element
 * order is the XSD's (a sequence: the validator rejects anything else). infra/src/invoicing/cii.int.spec.ts proves
 * every kind of invoice passes the XSD and the CEN EN 16931 Schematron; docs/invoicing.md#the-document maps the fields.
 */
import { create } from 'xmlbuilder2';
import type { XMLBuilder } from 'xmlbuilder2/lib/interfaces';
import { formatUnitPrice, parseUnitPrice, type InvoiceDocument, type InvoiceLine, type InvoiceParty, type VatBreakdown } from '@cagnotte/domain';

const NS = {
  rsm: 'urn:un:unece:uncefact:data:standard:CrossIndustryInvoice:100',
  ram: 'urn:un:unece:uncefact:data:standard:ReusableAggregateBusinessInformationEntity:100',
  qdt: 'urn:un:unece:uncefact:data:standard:QualifiedDataType:100',
  udt: 'urn:un:unece:uncefact:data:standard:UnqualifiedDataType:100',
} as const;

/** The EN 16931 profile of Factur-X (BT-24). */
export const EN16931_GUIDELINE = 'urn:cen.eu:en16931:2017';

/** UNCL4461 ZZZ "mutually defined": the payment is a transfer on the Stellar ledger, not a bank transfer (30 would need an IBAN, BR-61). */
export const PAYMENT_MEANS_CODE = 'ZZZ';
export const PAYMENT_MEANS_TEXT = 'Transfer on the Stellar network (euro stablecoin), through the escrow';

type Attrs = Record<string, string>;

/** A child in its namespace, with an optional text (escaped by the builder) and attributes. */
const add = (parent: XMLBuilder, qname: `${keyof typeof NS}:${string}`, text?: string | null, attrs?: Attrs): XMLBuilder => {
  const prefix = qname.slice(0, qname.indexOf(':')) as keyof typeof NS;
  const el = parent.ele(NS[prefix], qname);
  for (const [k, v] of Object.entries(attrs ?? {})) el.att(k, v);
  if (text != null) el.txt(text);
  return el;
};

/** YYYY-MM-DD → the format 102 date (YYYYMMDD). */
const date102 = (isoDate: string): string => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(isoDate)) throw new RangeError(`not a YYYY-MM-DD date: ${isoDate}`);
  return isoDate.replace(/-/g, '');
};

const dateTime = (parent: XMLBuilder, qname: `ram:${string}`, isoDate: string, type: 'udt' | 'qdt' = 'udt') =>
  add(add(parent, qname), `${type}:DateTimeString`, date102(isoDate), { format: '102' });

const isPresent = (s: string | null | undefined): s is string => s != null && s.trim() !== '';

const party = (parent: XMLBuilder, qname: 'ram:SellerTradeParty' | 'ram:BuyerTradeParty', p: InvoiceParty, seller: boolean) => {
  const el = add(parent, qname);
  add(el, 'ram:ID', p.id); // BT-29 / BT-46, our own id, no scheme
  add(el, 'ram:Name', p.name); // BT-27 / BT-44
  if (isPresent(p.siret)) add(add(el, 'ram:SpecifiedLegalOrganization'), 'ram:ID', p.siret, { schemeID: '0002' }); // BT-30 / BT-47
  const address = add(el, 'ram:PostalTradeAddress'); // BG-5 / BG-8
  if (isPresent(p.address.postcode)) add(address, 'ram:PostcodeCode', p.address.postcode);
  if (isPresent(p.address.line1)) add(address, 'ram:LineOne', p.address.line1);
  if (isPresent(p.address.city)) add(address, 'ram:CityName', p.address.city);
  add(address, 'ram:CountryID', p.address.country.toUpperCase());
  if (isPresent(p.email)) add(add(el, 'ram:URIUniversalCommunication'), 'ram:URIID', p.email, { schemeID: 'EM' }); // BT-34 / BT-49
  if (isPresent(p.vatId)) add(add(el, 'ram:SpecifiedTaxRegistration'), 'ram:ID', p.vatId, { schemeID: 'VA' }); // BT-31 / BT-48
  if (seller && isPresent(p.taxRegistrationId)) add(add(el, 'ram:SpecifiedTaxRegistration'), 'ram:ID', p.taxRegistrationId, { schemeID: 'FC' }); // BT-32
};

/** Category O carries no rate at all (BR-O-05, BR-O-14 … the rate of "not subject" is meaningless); every other one does. */
const rate = (parent: XMLBuilder, category: string, value: string) => {
  if (category !== 'O') add(parent, 'ram:RateApplicablePercent', value);
};

const line = (parent: XMLBuilder, l: InvoiceLine) => {
  const item = add(parent, 'ram:IncludedSupplyChainTradeLineItem');
  add(add(item, 'ram:AssociatedDocumentLineDocument'), 'ram:LineID', l.id); // BT-126
  add(add(item, 'ram:SpecifiedTradeProduct'), 'ram:Name', l.name); // BT-153
  const agreement = add(item, 'ram:SpecifiedLineTradeAgreement');
  if (isPresent(l.grossUnitPrice)) {
    const gross = add(agreement, 'ram:GrossPriceProductTradePrice');
    add(gross, 'ram:ChargeAmount', l.grossUnitPrice); // BT-148
    const discount = parseUnitPrice(l.grossUnitPrice) - parseUnitPrice(l.netUnitPrice);
    if (discount > 0n) {
      const allowance = add(gross, 'ram:AppliedTradeAllowanceCharge');
      add(add(allowance, 'ram:ChargeIndicator'), 'udt:Indicator', 'false');
      add(allowance, 'ram:ActualAmount', formatUnitPrice(discount)); // BT-147
    }
  }
  add(add(agreement, 'ram:NetPriceProductTradePrice'), 'ram:ChargeAmount', l.netUnitPrice); // BT-146
  add(add(item, 'ram:SpecifiedLineTradeDelivery'), 'ram:BilledQuantity', String(l.quantity), { unitCode: 'C62' }); // BT-129/130
  const settlement = add(item, 'ram:SpecifiedLineTradeSettlement');
  const tax = add(settlement, 'ram:ApplicableTradeTax');
  add(tax, 'ram:TypeCode', 'VAT');
  add(tax, 'ram:CategoryCode', l.vatCategory); // BT-151
  rate(tax, l.vatCategory, l.vatRate); // BT-152
  add(add(settlement, 'ram:SpecifiedTradeSettlementLineMonetarySummation'), 'ram:LineTotalAmount', l.netAmount); // BT-131
};

const breakdown = (parent: XMLBuilder, b: VatBreakdown) => {
  const tax = add(parent, 'ram:ApplicableTradeTax'); // BG-23
  add(tax, 'ram:CalculatedAmount', b.taxAmount); // BT-117
  add(tax, 'ram:TypeCode', 'VAT');
  if (isPresent(b.exemptionReason)) add(tax, 'ram:ExemptionReason', b.exemptionReason); // BT-120
  add(tax, 'ram:BasisAmount', b.taxableAmount); // BT-116
  add(tax, 'ram:CategoryCode', b.category); // BT-118
  if (isPresent(b.exemptionReasonCode)) add(tax, 'ram:ExemptionReasonCode', b.exemptionReasonCode); // BT-121
  rate(tax, b.category, b.rate); // BT-119
};

export const renderCii = (doc: InvoiceDocument): string => {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(NS.rsm, 'rsm:CrossIndustryInvoice');
  for (const [prefix, uri] of Object.entries(NS)) root.att('http://www.w3.org/2000/xmlns/', `xmlns:${prefix}`, uri);

  add(add(add(root, 'rsm:ExchangedDocumentContext'), 'ram:GuidelineSpecifiedDocumentContextParameter'), 'ram:ID', EN16931_GUIDELINE);

  const header = add(root, 'rsm:ExchangedDocument');
  add(header, 'ram:ID', doc.number); // BT-1
  add(header, 'ram:TypeCode', doc.typeCode); // BT-3
  dateTime(header, 'ram:IssueDateTime', doc.issueDate); // BT-2
  for (const note of doc.notes ?? []) if (isPresent(note)) add(add(header, 'ram:IncludedNote'), 'ram:Content', note); // BT-22

  const transaction = add(root, 'rsm:SupplyChainTradeTransaction');
  for (const l of doc.lines) line(transaction, l);

  const agreement = add(transaction, 'ram:ApplicableHeaderTradeAgreement');
  if (isPresent(doc.buyerReference)) add(agreement, 'ram:BuyerReference', doc.buyerReference); // BT-10
  party(agreement, 'ram:SellerTradeParty', doc.seller, true);
  party(agreement, 'ram:BuyerTradeParty', doc.buyer, false);

  const delivery = add(transaction, 'ram:ApplicableHeaderTradeDelivery');
  // An intra-community supply names where the goods went (BR-IC-12: BT-80): the buyer's country.
  if (doc.vatBreakdown.some((b) => b.category === 'K')) {
    add(add(add(delivery, 'ram:ShipToTradeParty'), 'ram:PostalTradeAddress'), 'ram:CountryID', doc.buyer.address.country.toUpperCase());
  }
  if (isPresent(doc.deliveryDate)) dateTime(add(delivery, 'ram:ActualDeliverySupplyChainEvent'), 'ram:OccurrenceDateTime', doc.deliveryDate); // BT-72

  const settlement = add(transaction, 'ram:ApplicableHeaderTradeSettlement');
  if (isPresent(doc.paymentReference)) add(settlement, 'ram:PaymentReference', doc.paymentReference); // BT-83
  add(settlement, 'ram:InvoiceCurrencyCode', doc.currency); // BT-5
  const means = add(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans'); // BG-16
  add(means, 'ram:TypeCode', PAYMENT_MEANS_CODE); // BT-81
  add(means, 'ram:Information', PAYMENT_MEANS_TEXT); // BT-82
  for (const b of doc.vatBreakdown) breakdown(settlement, b);
  const t = doc.totals;
  // BR-CO-25: an amount still due needs a due date or payment terms.
  if (t.duePayable !== '0.00') add(add(settlement, 'ram:SpecifiedTradePaymentTerms'), 'ram:Description', 'Payable on receipt'); // BT-20
  const sums = add(settlement, 'ram:SpecifiedTradeSettlementHeaderMonetarySummation'); // BG-22
  add(sums, 'ram:LineTotalAmount', t.lineTotal); // BT-106
  add(sums, 'ram:TaxBasisTotalAmount', t.taxBasisTotal); // BT-109
  add(sums, 'ram:TaxTotalAmount', t.taxTotal, { currencyID: doc.currency }); // BT-110
  if (t.rounding !== '0.00') add(sums, 'ram:RoundingAmount', t.rounding); // BT-114
  add(sums, 'ram:GrandTotalAmount', t.grandTotal); // BT-112
  add(sums, 'ram:TotalPrepaidAmount', t.prepaid); // BT-113
  add(sums, 'ram:DuePayableAmount', t.duePayable); // BT-115
  if (doc.precedingInvoice) {
    const preceding = add(settlement, 'ram:InvoiceReferencedDocument'); // BG-3
    add(preceding, 'ram:IssuerAssignedID', doc.precedingInvoice.number); // BT-25
    dateTime(preceding, 'ram:FormattedIssueDateTime', doc.precedingInvoice.issueDate, 'qdt'); // BT-26
  }
  return root.end({ prettyPrint: true });
};
