import type { FeeSchedule } from '@cagnotte/event-schemas';
import type { VatCategory } from '../invoicing/model';
import type { Minor } from '../money';
import { percentHundredths } from './percent';
import { percentHalfUpCent } from './rounding';
import { isEu } from '../invoicing/vat-rates';

export interface VatParties {
  schedule: FeeSchedule;
  /** Who invoices the fee (the platform, or the organiser for a commission). */
  issuerCountry: string;
  issuerVatId: string | null;
  /** Who pays it (the seller). */
  payerCountry: string;
  payerVatId: string | null;
}

export interface VatOnFee {
  /** The EN 16931 category (UNCL5305) the invoice of this fee carries. */
  category: VatCategory;
  /** Percent, up to 2 decimals; "0" for every category but S. */
  rate: string;
  /** Stroops, half-up to the cent. */
  amount: Minor;
  /** Why this category and rate, in words. */
  rule: string;
}

const rateFor = (schedule: FeeSchedule, country: string) => schedule.vat.byCountry[country] ?? schedule.vat.default;
const isZero = (percent: string) => percentHundredths(percent) === 0n;

/**
 * VAT on a fee (docs/fees.md#vat): an issuer without a VAT id is not subject (O); payer and issuer in one country:
 * S at that country's rate in the schedule; a payer outside the EU: G; an EU payer in another country with a VAT id:
 * reverse charge (AE); an EU payer without one: S at the issuer country's rate. A standard rate of 0 in the schedule
 * is written Z (EN 16931 wants S above 0). Amount = fee × rate, half-up to the cent.
 */
export const vatOnFee = (fee: Minor, p: VatParties): VatOnFee => {
  const none = (category: VatCategory, rule: string): VatOnFee => ({ category, rate: '0', amount: 0n, rule });
  const standard = (country: string, why: string): VatOnFee => {
    const rate = rateFor(p.schedule, country);
    const byTable = p.schedule.vat.byCountry[country] !== undefined ? `the ${country} rate` : 'the default rate';
    if (isZero(rate)) return none('Z', `${why}: ${byTable} of the schedule is 0 % (zero rated)`);
    return { category: 'S', rate, amount: percentHalfUpCent(fee, rate), rule: `${why}: ${byTable} of the schedule, ${rate} %` };
  };
  if (!p.issuerVatId) return none('O', 'the issuer has no VAT id: not subject to VAT');
  if (p.payerCountry === p.issuerCountry) return standard(p.payerCountry, `payer and issuer both in ${p.payerCountry}`);
  if (!isEu(p.payerCountry)) return none('G', `the payer is outside the EU (${p.payerCountry}): services outside the EU`);
  if (p.payerVatId) return none('AE', `an EU business in ${p.payerCountry} with a VAT id: reverse charge`);
  return standard(p.issuerCountry, `an EU payer in ${p.payerCountry} without a VAT id: the issuer's country (${p.issuerCountry})`);
};

/**
 * The VAT rates a closing freezes with its fees (PoolClosed v2 `fees.vat`): on the platform fee (the platform invoices
 * the seller) and, on a brokered pool, on the commission (the organiser invoices the seller).
 */
export const frozenFeeVat = (p: {
  schedule: FeeSchedule;
  platform: { country: string; vatId: string | null };
  seller: { id: string; country: string; vatId: string | null };
  organiser: { id: string; country: string; vatId: string | null };
}): { platformFee: { category: VatCategory; rate: string }; commission: { category: VatCategory; rate: string } | null } => {
  const on = (issuer: { country: string; vatId: string | null }) => {
    const v = vatOnFee(0n, { schedule: p.schedule, issuerCountry: issuer.country, issuerVatId: issuer.vatId, payerCountry: p.seller.country, payerVatId: p.seller.vatId });
    return { category: v.category, rate: v.rate };
  };
  return { platformFee: on(p.platform), commission: p.seller.id === p.organiser.id ? null : on(p.organiser) };
};
