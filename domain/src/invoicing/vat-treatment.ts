import type { VatCategory } from './model';
import { frenchVatNumber } from './vat-rates';

/**
 * Which VAT category and rate an invoice line takes (docs/invoicing.md#vat), from the parties alone. The rates come
 * from a lookup the caller passes (`StandardRate`: the EU-27 table of domain/src/invoicing/vat-rates.ts, or the tenant
 * fee schedule's VAT table), so this file decides categories, not percentages.
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

/**
 * A fee or the commission (a service from `issuer` to `payer`): an issuer without VAT id → O; a payer outside the EU
 * → G; an EU payer in another country with a VAT id → AE (reverse charge); otherwise S at `feeRate(payer country)`
 * when both are in the same country, else at the issuer's country rate. `feeRate` is where the tenant fee schedule's
 * VAT table (`vat.byCountry[country] ?? vat.default`) plugs in; it defaults to the standard rate.
 */
export const serviceVat = (issuer: TaxIdentity, payer: TaxIdentity, standardRate: StandardRate, feeRate: StandardRate = standardRate): VatTreatment => {
  if (!issuer.vatId) return NOT_SUBJECT;
  if (standardRate(payer.country) === null) return { category: 'G', rate: '0', exemption: { reason: 'Services supplied outside the EU', code: 'VATEX-EU-G' } };
  if (payer.country !== issuer.country && payer.vatId) return { category: 'AE', rate: '0', exemption: { reason: 'Reverse charge', code: 'VATEX-EU-AE' } };
  const rate = payer.country === issuer.country ? feeRate(payer.country) : standardRate(issuer.country);
  return rate === null ? NOT_SUBJECT : { category: 'S', rate, exemption: null };
};

const EXEMPTIONS: Partial<Record<VatCategory, { reason: string; code: string }>> = {
  E: { reason: 'Exempt from VAT', code: 'VATEX-EU-132' },
  AE: { reason: 'Reverse charge', code: 'VATEX-EU-AE' },
  K: { reason: 'Intra-community supply', code: 'VATEX-EU-IC' },
  G: { reason: 'Services supplied outside the EU', code: 'VATEX-EU-G' },
  O: { reason: 'Not subject to VAT', code: 'VATEX-EU-O' },
};

/**
 * The treatment a closing froze for a fee (PoolClosed v2 `fees.vat`): the invoice of that fee carries the very category
 * and rate the settlement withheld, so its VAT is the VAT that left the seller's proceeds.
 */
export const frozenVatTreatment = (frozen: { category: VatCategory; rate: string }): VatTreatment => ({
  category: frozen.category,
  rate: frozen.category === 'S' ? frozen.rate : '0',
  exemption: EXEMPTIONS[frozen.category] ?? null,
});
