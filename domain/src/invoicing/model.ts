/**
 * An invoice or credit note as the service issues it: the EN 16931 semantic model, reduced to what we emit, in the
 * shape the CII renderer (infra/src/invoicing/cii.ts) turns into a Factur-X `factur-x.xml`. Amounts are decimal
 * strings with exactly 2 decimals (unit prices up to 4), computed in bigint cents by `computeInvoice`; nothing here is
 * a float. This is the `document` an `InvoiceIssued` event carries, so it is a published shape: change it only by
 * adding optional fields.
 */

/** UNCL5305 VAT category codes the service emits (docs/invoicing.md says when each applies). */
export type VatCategory = 'S' | 'Z' | 'E' | 'AE' | 'K' | 'G' | 'O';
export const VAT_CATEGORIES: readonly VatCategory[] = ['S', 'Z', 'E', 'AE', 'K', 'G', 'O'];

/** UNCL1001: 380 commercial invoice, 381 credit note. */
export type InvoiceTypeCode = '380' | '381';

export interface PostalAddress {
  line1?: string | null;
  city?: string | null;
  postcode?: string | null;
  /** ISO 3166-1 alpha-2 (BT-40 / BT-55): always present. */
  country: string;
}

export interface InvoiceParty {
  /** BT-27 / BT-44. */
  name: string;
  /** Our own id of the party (account, merchant or the platform): BT-29 / BT-46 without a scheme. */
  id: string;
  /** BT-30 / BT-47 with scheme 0002 (SIREN/SIRET) when French. */
  siret?: string | null;
  /** BT-31 / BT-48: the VAT identifier, with its country prefix. */
  vatId?: string | null;
  /** BT-32: a tax registration id that is not a VAT id (scheme FC). Seller only. */
  taxRegistrationId?: string | null;
  address: PostalAddress;
  email?: string | null;
}

export interface InvoiceLineInput {
  /** BT-126, unique in the invoice. */
  id: string;
  /** BT-153. */
  name: string;
  /** BT-129, a positive integer count (unit code C62). */
  quantity: number;
  /** BT-146, the net unit price (VAT excluded), up to 4 decimals. */
  netUnitPrice: string;
  /** BT-148, the gross unit price before the price discount (a tier discount shows as gross − net, BT-147). */
  grossUnitPrice?: string | null;
  vatCategory: VatCategory;
  /** BT-152, percent with up to 2 decimals ("20", "5.5"); "0" for every category but S. */
  vatRate: string;
}

export interface InvoiceLine extends InvoiceLineInput {
  /** BT-131 = quantity × net unit price, rounded half-up to the cent. */
  netAmount: string;
}

export interface VatBreakdown {
  category: VatCategory;
  rate: string;
  /** BT-116: Σ line net amounts of the category and rate. */
  taxableAmount: string;
  /** BT-117: taxable × rate / 100, rounded half-up to the cent. */
  taxAmount: string;
  /** BT-120 / BT-121: the exemption reason, required for E, AE, K, G and O. */
  exemptionReason?: string | null;
  exemptionReasonCode?: string | null;
}

export interface InvoiceTotals {
  /** BT-106 Σ line net amounts. */
  lineTotal: string;
  /** BT-109 (no document-level allowances or charges: equals lineTotal). */
  taxBasisTotal: string;
  /** BT-110. */
  taxTotal: string;
  /** BT-112 = taxBasisTotal + taxTotal. */
  grandTotal: string;
  /** BT-113: paid already (through the escrow). */
  prepaid: string;
  /** BT-114: the sub-cent rounding that makes grandTotal − prepaid + rounding = duePayable. */
  rounding: string;
  /** BT-115. */
  duePayable: string;
}

export interface InvoiceDocument {
  typeCode: InvoiceTypeCode;
  /** BT-1: the issuer's gapless number. */
  number: string;
  /** BT-2: YYYY-MM-DD. */
  issueDate: string;
  /** BT-5. */
  currency: 'EUR';
  seller: InvoiceParty;
  buyer: InvoiceParty;
  lines: InvoiceLine[];
  vatBreakdown: VatBreakdown[];
  totals: InvoiceTotals;
  /** BT-25 / BT-26: the invoice a credit note corrects. */
  precedingInvoice?: { number: string; issueDate: string } | null;
  /** BT-83: the ledger transaction hash that paid (or refunded) it. */
  paymentReference?: string | null;
  /** BT-10: the pool, so a buyer and a seller find it. */
  buyerReference?: string | null;
  /** BT-72: when the goods or service were delivered (YYYY-MM-DD). Required by category K. */
  deliveryDate?: string | null;
  /** BT-22 notes (free text: the pool, the rule applied). */
  notes?: string[];
}
