import type { FeeRule, FeeSchedule } from '@cagnotte/event-schemas';
import { formatAmount, parseAmount } from '../money';
import { percentHundredths } from './percent';

export type { FeeRule, FeeSchedule } from '@cagnotte/event-schemas';

/** The organiser activation fee of the contract: one unit of the euro stablecoin. */
export const ORGANISER_ACTIVATION_FEE = '1';

/** A rule that takes a plain percentage: no fixed part, no minimum, no cap (what the service did before schedules). */
export const percentRule = (percent: string): FeeRule => ({ percent, fixed: '0', min: '0', cap: null });

export const NO_FEE: FeeRule = percentRule('0');

/** The tenant's settings a default schedule is made of (its own, else the service's defaults). */
export interface ScheduleDefaults {
  platformFeePercent: string;
  listingFees: { LISTED: string; FEATURED: string };
  /** The standard VAT rate of the platform's country, for fees; "0" charges none. */
  vatDefault?: string;
}

/**
 * The schedule of a tenant that never set one: exactly what the service charged before schedules existed: the
 * payment fee is the tenant's `platformFeePercent` (no fixed part, no minimum, no cap), no escrow-deposit fee, its
 * listing fees, the contract's activation fee of 1.
 */
export const defaultFeeSchedule = (d: ScheduleDefaults): FeeSchedule => ({
  payment: percentRule(d.platformFeePercent),
  escrowDeposit: NO_FEE,
  listing: { LISTED: d.listingFees.LISTED, FEATURED: d.listingFees.FEATURED },
  organiserActivation: ORGANISER_ACTIVATION_FEE,
  vat: { default: d.vatDefault ?? '20', byCountry: {} },
});

/** A percentage in its shortest form ("2.50" → "2.5", "20.00" → "20"). */
export const canonicalPercent = (percent: string): string => {
  const h = percentHundredths(percent);
  const cents = h % 100n;
  return cents === 0n ? `${h / 100n}` : `${h / 100n}.${cents.toString().padStart(2, '0').replace(/0$/, '')}`;
};

const canonicalRule = (r: FeeRule): FeeRule => ({
  percent: canonicalPercent(r.percent),
  fixed: formatAmount(parseAmount(r.fixed)),
  min: formatAmount(parseAmount(r.min)),
  cap: r.cap === null ? null : formatAmount(parseAmount(r.cap)),
});

/** One spelling per schedule (amounts as formatAmount writes them, percentages shortest), so equal schedules compare equal. */
export const canonicalSchedule = (s: FeeSchedule): FeeSchedule => ({
  payment: canonicalRule(s.payment),
  escrowDeposit: canonicalRule(s.escrowDeposit),
  listing: { LISTED: formatAmount(parseAmount(s.listing.LISTED)), FEATURED: formatAmount(parseAmount(s.listing.FEATURED)) },
  organiserActivation: formatAmount(parseAmount(s.organiserActivation)),
  vat: {
    default: canonicalPercent(s.vat.default),
    byCountry: Object.fromEntries(Object.entries(s.vat.byCountry).sort(([a], [b]) => a.localeCompare(b)).map(([c, p]) => [c, canonicalPercent(p)])),
  },
});
