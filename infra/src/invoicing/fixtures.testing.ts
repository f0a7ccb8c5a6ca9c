/**
 * One invoice document of each kind the service emits, built through computeInvoice as the issuer builds them: the
 * cases the CII and Factur-X specs prove valid (each VAT category, a credit note, a tier discount, buyers outside
 * France). Test-only.
 */
import { computeInvoice, netUnitPriceFromInclusive, type ComputeInvoiceInput, type InvoiceDocument, type InvoiceParty } from '@cagnotte/domain';

export const frenchBusiness: InvoiceParty = {
  name: 'Ferme du Val & Fils <SARL>',
  id: 'acct-0f3c9a',
  siret: '40483304800022',
  vatId: 'FR83404833048',
  taxRegistrationId: '404 833 048 RCS Lyon',
  address: { line1: '1 rue des Prés', city: 'Lyon', postcode: '69001', country: 'FR' },
  email: 'factures@ferme-du-val.example',
};

export const platform: InvoiceParty = {
  name: 'Cagnotte SAS',
  id: 'platform',
  siret: '55208131700036',
  vatId: 'FR03552081317',
  address: { line1: '10 avenue de France', city: 'Paris', postcode: '75013', country: 'FR' },
  email: 'billing@cagnotte.example',
};

export const frenchConsumer: InvoiceParty = { name: 'Alice Martin', id: 'acct-alice', address: { line1: '3 place Bellecour', city: 'Lyon', postcode: '69002', country: 'FR' }, email: 'alice@example.org' };
export const belgianConsumer: InvoiceParty = { name: 'Bram Peeters', id: 'acct-bram', address: { city: 'Gent', postcode: '9000', country: 'BE' } };
export const germanBusiness: InvoiceParty = {
  name: 'Hofladen Müller GmbH',
  id: 'merchant-7a1',
  vatId: 'DE123456789',
  address: { line1: 'Hauptstraße 5', city: 'Köln', postcode: '50667', country: 'DE' },
  email: 'rechnung@hofladen.example',
};
export const belgianBusiness: InvoiceParty = { name: 'Marché Bio SRL', id: 'merchant-be1', vatId: 'BE0123456749', address: { line1: 'Rue Haute 12', city: 'Bruxelles', postcode: '1000', country: 'BE' } };
export const swissMerchant: InvoiceParty = { name: 'Alpkäserei AG', id: 'merchant-ch1', address: { line1: 'Dorfstrasse 1', city: 'Bern', postcode: '3011', country: 'CH' } };
/** A consumer organiser: no SIRET, no VAT id. */
export const consumerOrganiser: InvoiceParty = { name: 'Camille Durand', id: 'acct-camille', address: { city: 'Nantes', postcode: '44000', country: 'FR' }, email: 'camille@example.org' };

const base = (number: string): Pick<ComputeInvoiceInput, 'typeCode' | 'number' | 'issueDate' | 'currency' | 'paymentReference' | 'buyerReference' | 'notes'> => ({
  typeCode: '380',
  number,
  issueDate: '2025-09-15',
  currency: 'EUR',
  paymentReference: '9f2c4b1e7a3d5f60c8e1b2a4d6f8091a3c5e7b9d1f2a4c6e8b0d2f4a6c8e0b2d',
  buyerReference: 'pool-01J8Z3',
  notes: ['Pool "Paniers d\'automne" — prices VAT included, paid through the escrow.'],
});

/** Goods at two rates, VAT-inclusive prices paid through the escrow (S 20 % and S 5.5 %), with a sub-cent rounding. */
export const goodsTwoRates = (): InvoiceDocument =>
  computeInvoice({
    ...base('ACCT-0F3C9A-2025-000001'),
    seller: frenchBusiness,
    buyer: frenchConsumer,
    deliveryDate: '2025-09-12',
    lines: [
      { id: '1', name: 'Panier de légumes', quantity: 3, netUnitPrice: netUnitPriceFromInclusive('9.99', '5.5'), vatCategory: 'S', vatRate: '5.5' },
      { id: '2', name: 'Cidre brut 75 cl', quantity: 3, netUnitPrice: netUnitPriceFromInclusive('9.99', '20'), vatCategory: 'S', vatRate: '20' },
    ],
    // 3 × 9.99 + 3 × 9.99, to the stroop, as the ledger moved it; the invoice's net × rate comes to 59.95.
    prepaid: '59.9400000',
  });

/** A multi-line invoice where a tier was reached: the gross (list) price, the tier discount, the net price. */
export const goodsTierDiscount = (): InvoiceDocument =>
  computeInvoice({
    ...base('ACCT-0F3C9A-2025-000002'),
    seller: frenchBusiness,
    buyer: frenchConsumer,
    lines: [
      { id: '1', name: 'Huile d\'olive 1 L (tier 2: 10 units)', quantity: 4, grossUnitPrice: netUnitPriceFromInclusive('12.00', '5.5'), netUnitPrice: netUnitPriceFromInclusive('10.80', '5.5'), vatCategory: 'S', vatRate: '5.5' },
      { id: '2', name: 'Miel 500 g', quantity: 1, netUnitPrice: netUnitPriceFromInclusive('8.40', '5.5'), vatCategory: 'S', vatRate: '5.5' },
      { id: '3', name: 'Savon artisanal', quantity: 5, grossUnitPrice: netUnitPriceFromInclusive('4.00', '20'), netUnitPrice: netUnitPriceFromInclusive('3.60', '20'), vatCategory: 'S', vatRate: '20' },
    ],
    prepaid: '69.6000000',
  });

export const zeroRated = (): InvoiceDocument =>
  computeInvoice({ ...base('ACCT-0F3C9A-2025-000003'), seller: frenchBusiness, buyer: frenchConsumer, lines: [{ id: '1', name: 'Livre scolaire (zero-rated)', quantity: 2, netUnitPrice: '15.00', vatCategory: 'Z', vatRate: '0' }], prepaid: '30' });

export const exempt = (): InvoiceDocument =>
  computeInvoice({
    ...base('ACCT-0F3C9A-2025-000004'),
    seller: frenchBusiness,
    buyer: frenchConsumer,
    lines: [{ id: '1', name: 'Cours de cuisine (formation)', quantity: 1, netUnitPrice: '45.00', vatCategory: 'E', vatRate: '0' }],
    prepaid: '45',
    exemptions: { E: { reason: 'Exonération de TVA, article 261-4-4° du CGI', code: 'VATEX-FR-CGI261-4' } },
  });

/** The platform's fee to a Belgian business with a VAT id: reverse charge. */
export const reverseChargeFee = (): InvoiceDocument =>
  computeInvoice({
    ...base('PLATFORM-2025-000101'),
    seller: platform,
    buyer: belgianBusiness,
    notes: ['Platform fee on the settlement of pool pool-01J8Z3.'],
    lines: [{ id: '1', name: 'Platform fee (2.5 % of 1 240.00)', quantity: 1, netUnitPrice: '31.00', vatCategory: 'AE', vatRate: '0' }],
    prepaid: '31.0000000',
  });

/** Goods shipped from France to a German business with a VAT id: intra-community supply, delivered on a date. */
export const intraCommunitySupply = (): InvoiceDocument =>
  computeInvoice({
    ...base('ACCT-0F3C9A-2025-000005'),
    seller: frenchBusiness,
    buyer: germanBusiness,
    deliveryDate: '2025-09-10',
    lines: [{ id: '1', name: 'Fromage de chèvre (carton de 12)', quantity: 10, netUnitPrice: '54.00', vatCategory: 'K', vatRate: '0' }],
    prepaid: '540',
  });

/** The platform's fee to a Swiss merchant: a service outside the EU. */
export const exportFee = (): InvoiceDocument =>
  computeInvoice({
    ...base('PLATFORM-2025-000102'),
    seller: platform,
    buyer: swissMerchant,
    lines: [{ id: '1', name: 'Platform fee (2.5 % of 800.00)', quantity: 1, netUnitPrice: '20.00', vatCategory: 'G', vatRate: '0' }],
    prepaid: '20',
  });

/** A consumer organiser selling to a consumer: not subject to VAT, no VAT id anywhere (a business buyer's is dropped). */
export const notSubject = (): InvoiceDocument =>
  computeInvoice({
    ...base('ACCT-CAMILLE-2025-000001'),
    seller: consumerOrganiser,
    buyer: { ...germanBusiness },
    lines: [
      { id: '1', name: 'Confiture maison', quantity: 6, netUnitPrice: '4.50', vatCategory: 'O', vatRate: '0' },
      { id: '2', name: 'Pain d\'épices', quantity: 2, netUnitPrice: '7.25', vatCategory: 'O', vatRate: '0' },
    ],
    prepaid: '41.5',
  });

/** A credit note for a tier difference on goodsTwoRates: refunded through the ledger, referencing the invoice. */
export const creditNote = (): InvoiceDocument => {
  const corrected = goodsTwoRates();
  return computeInvoice({
    ...base('ACCT-0F3C9A-2025-000006'),
    typeCode: '381',
    seller: frenchBusiness,
    buyer: frenchConsumer,
    precedingInvoice: { number: corrected.number, issueDate: corrected.issueDate },
    notes: ['Tier difference refunded: the pool reached its 2nd tier.'],
    lines: [{ id: '1', name: 'Panier de légumes, tier difference', quantity: 3, netUnitPrice: netUnitPriceFromInclusive('1.00', '5.5'), vatCategory: 'S', vatRate: '5.5' }],
    prepaid: '3.0000000',
  });
};

/** The platform's fee to a Belgian consumer organiser (EU, no VAT id): S at the issuer's rate. */
export const feeToEuConsumer = (): InvoiceDocument =>
  computeInvoice({
    ...base('PLATFORM-2025-000103'),
    seller: platform,
    buyer: belgianConsumer,
    lines: [{ id: '1', name: 'Organiser activation fee', quantity: 1, netUnitPrice: '10.00', vatCategory: 'S', vatRate: '20' }],
    prepaid: '12',
  });

/** Goods from France to a German business under S (not shipped cross-border by the seller), and nothing paid yet. */
export const unpaidToGermanBusiness = (): InvoiceDocument =>
  computeInvoice({
    ...base('ACCT-0F3C9A-2025-000007'),
    paymentReference: null,
    seller: frenchBusiness,
    buyer: germanBusiness,
    lines: [{ id: '1', name: 'Panier dégustation', quantity: 2, netUnitPrice: '25.00', vatCategory: 'S', vatRate: '20' }],
    prepaid: '0',
  });

export const ALL_CASES: Record<string, () => InvoiceDocument> = {
  'goods at two S rates, VAT included, with a rounding': goodsTwoRates,
  'goods with a tier discount on several lines': goodsTierDiscount,
  'Z zero-rated goods': zeroRated,
  'E exempt service with its own reason and code': exempt,
  'AE reverse-charge fee to a Belgian business': reverseChargeFee,
  'K intra-community supply to a German business': intraCommunitySupply,
  'G fee to a Swiss merchant (outside the EU)': exportFee,
  'O consumer organiser, not subject to VAT': notSubject,
  '381 credit note referencing the invoice it corrects': creditNote,
  'S fee to a Belgian consumer (no VAT id)': feeToEuConsumer,
  'S goods to a German business, unpaid (payment terms)': unpaidToGermanBusiness,
};
