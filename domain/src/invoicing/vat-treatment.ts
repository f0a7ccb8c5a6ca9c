import type { VatCategory } from './model';
import { frenchVatNumber } from './vat-rates';

/**
 * Which VAT category and rate an invoice line takes (docs/invoicing.md#vat). Goods here, from the seller's standing and
 * the EU-27 table (`StandardRate`, domain/src/invoicing/vat-rates.ts); a fee or the commission from the one fee rule
 * with the tenant's rates (`vatOnFee`, domain/src/fees/vat.ts), which answers a `VatTreatment` too.
 */
export interface VatTreatment {
  category: VatCategory;
  /** "20", "5.5"; "0" for every category but S. */
  rate: string;
  /** BT-120 / BT-121, for the categories that need one. */
  exemption: { reason: string; code: string } | null;
}

/** A country's standard rate, or null outside the EU. */
export type StandardRate = (country: string) => string | null;

export interface TaxIdentity {
  /** ISO 3166-1 alpha-2. */
  country: string;
  /** The VAT identifier with its country prefix, or null. */
  vatId: string | null;
}

const NOT_SUBJECT: VatTreatment = { category: 'O', rate: '0', exemption: { reason: 'Not subject to VAT', code: 'VATEX-EU-O' } };

/**
 * The VAT id of a business persona: its `taxId` when it is one (country prefix and all), else for a French business
 * the FR number derived from its SIRET (`frenchVatNumber`). Null for a person (no persona) or a business with neither.
 */
export const vatIdOf = (business: { siret: string | null; taxCountry: string; taxId: string | null } | null): string | null => {
  if (!business) return null;
  const taxId = business.taxId?.replace(/[\s.-]/g, '').toUpperCase() ?? null;
  if (taxId && /^[A-Z]{2}[0-9A-Z+*]{2,13}$/.test(taxId)) return taxId;
  return business.taxCountry === 'FR' && business.siret ? frenchVatNumber(business.siret) : null;
};

/**
 * Goods (seller → buyer, B2C, VAT-inclusive prices): a seller with a VAT id invoices under S at the standard rate of
 * its tax country; a seller without one (a consumer organiser) is not subject to VAT (O).
 */
export const goodsVat = (seller: TaxIdentity, standardRate: StandardRate): VatTreatment => {
  const rate = seller.vatId ? standardRate(seller.country) : null;
  return rate === null ? NOT_SUBJECT : { category: 'S', rate, exemption: null };
};
