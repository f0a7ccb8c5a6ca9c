import type { FeeSchedule } from '@cagnotte/event-schemas';
import type { VatCategory } from '../invoicing/model';
import type { VatTreatment } from '../invoicing/vat-treatment';
import type { Minor } from '../money';
import { percentHundredths } from './percent';
import { percentHalfUpCent } from './rounding';
import { canonicalPercent } from './schedule';
import { isEu } from '../invoicing/vat-rates';

export interface VatParties {
  /** The tenant's VAT rates on fees: its fee schedule's `vat` (`byCountry[country] ?? default`). */
  schedule: Pick<FeeSchedule, 'vat'>;
  /** Who invoices the fee (the platform, or the organiser for a commission). */
  issuerCountry: string;
  issuerVatId: string | null;
  /** Who pays it (the seller, the buyer of a deposit fee, the organiser of a listing or activation fee). */
  payerCountry: string;
  payerVatId: string | null;
}

/** The VAT of a fee: what its fee line withholds and what every invoice of that fee carries (the same category, rate and amount). */
export interface VatOnFee extends VatTreatment {
  /** Stroops, half-up to the cent; 0 for every category but S. */
  amount: Minor;
  /** Why this category and rate, in words. */
  rule: string;
}

/** BT-120 / BT-121 of the categories a fee can take without VAT (S and Z carry none). */
const EXEMPTIONS: Partial<Record<VatCategory, { reason: string; code: string }>> = {
  AE: { reason: 'Reverse charge', code: 'VATEX-EU-AE' },
  G: { reason: 'Services supplied outside the EU', code: 'VATEX-EU-G' },
  O: { reason: 'Not subject to VAT', code: 'VATEX-EU-O' },
};

const isZero = (percent: string) => percentHundredths(percent) === 0n;

/**
 * VAT on a fee (docs/fees.md#vat-on-fees), the one rule the fee lines, the closing and every fee invoice ask, fed the
 * tenant's rates. First that applies:
 * - the issuer has no VAT id: not subject to VAT (O);
 * - payer and issuer in one country (a domestic supply, wherever it is): S at that country's rate in the schedule;
 * - the supply leaves the issuer's VAT area (the EU-27 is one area, any other country its own): G, VAT not charged;
 * - an EU payer in another EU country with a VAT id: reverse charge (AE);
 * - an EU payer in another EU country without one: S at the issuer country's rate in the schedule.
 * A rate of 0 in the schedule is Z (zero rated: the issuer is registered, EN 16931 wants S above 0). The amount is
 * fee × rate, half-up to the cent.
 */
export const vatOnFee = (fee: Minor, p: VatParties): VatOnFee => {
  const none = (category: 'O' | 'G' | 'AE', rule: string): VatOnFee => ({ category, rate: '0', amount: 0n, rule, exemption: EXEMPTIONS[category]! });
  const standard = (country: string, why: string): VatOnFee => {
    const listed = p.schedule.vat.byCountry[country];
    const rate = canonicalPercent(listed ?? p.schedule.vat.default);
    const byTable = listed !== undefined ? `the ${country} rate` : 'the default rate';
    if (isZero(rate)) return { category: 'Z', rate: '0', amount: 0n, rule: `${why}: ${byTable} of the schedule is 0 % (zero rated)`, exemption: null };
    return { category: 'S', rate, amount: percentHalfUpCent(fee, rate), rule: `${why}: ${byTable} of the schedule, ${rate} %`, exemption: null };
  };
  if (!p.issuerVatId) return none('O', 'the issuer has no VAT id: not subject to VAT');
  if (p.payerCountry === p.issuerCountry) return standard(p.payerCountry, `payer and issuer both in ${p.payerCountry}`);
  if (!isEu(p.issuerCountry) || !isEu(p.payerCountry)) {
    return none('G', `the service leaves the issuer's VAT area (${p.issuerCountry} to ${p.payerCountry}): VAT not charged`);
  }
  if (p.payerVatId) return none('AE', `an EU business in ${p.payerCountry} with a VAT id: reverse charge`);
  return standard(p.issuerCountry, `an EU payer in ${p.payerCountry} without a VAT id: the issuer's country (${p.issuerCountry})`);
};

/**
 * The VAT rates a closing freezes with its fees (PoolClosed v2 `fees.vat`): on the platform fee (the platform invoices
 * the seller) and, on a brokered pool, on the commission (the organiser invoices the seller).
 */
export const frozenFeeVat = (p: {
  schedule: Pick<FeeSchedule, 'vat'>;
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

/**
 * The treatment a closing froze for a fee (PoolClosed v2 `fees.vat`, decided by `vatOnFee`): the invoice of that fee
 * carries the very category and rate the settlement withheld, so its VAT is the VAT that left the seller's proceeds.
 */
export const frozenVatTreatment = (frozen: { category: VatCategory; rate: string }): VatTreatment => ({
  category: frozen.category,
  rate: frozen.category === 'S' ? frozen.rate : '0',
  exemption: EXEMPTIONS[frozen.category] ?? null,
});
