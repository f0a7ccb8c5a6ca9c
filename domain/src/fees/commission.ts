import type { AccountType, FeeRule, FeeSchedule } from '@cagnotte/event-schemas';
import type { VatCategory } from '../invoicing/model';
import { formatAmount, type Minor } from '../money';
import { describeRule, feeBound, feeOf } from './fee';
import { floorCent, minOf, percentFloorCent, percentHalfUpCent } from './rounding';
import { vatOnFee } from './vat';

export type CommissionLineKind = 'SELLER_PAYOUT' | 'ORGANISER_COMMISSION' | 'VAT_ON_ORGANISER_COMMISSION' | 'PLATFORM_FEE' | 'VAT_ON_PLATFORM_FEE';
export const COMMISSION_LINE_KINDS: readonly CommissionLineKind[] = ['SELLER_PAYOUT', 'ORGANISER_COMMISSION', 'VAT_ON_ORGANISER_COMMISSION', 'PLATFORM_FEE', 'VAT_ON_PLATFORM_FEE'];

export interface FeeParty {
  id: string;
  /** ISO 3166-1 alpha-2: where the party is taxed. */
  country: string;
  vatId: string | null;
}

export interface CommissionLine {
  kind: CommissionLineKind;
  /** Stroops. */
  amount: Minor;
  recipient: { role: 'SELLER' | 'ORGANISER' | 'PLATFORM'; id: string };
  /** The rule that produced the line, in words. */
  rule: string;
  /** On VAT lines: the category and rate the fee's invoice carries. */
  vat?: { category: VatCategory; rate: string };
}

export interface CommissionInput {
  /** What is split (stroops): a reservation's net due amount, or any amount asked about. */
  amount: Minor;
  schedule: FeeSchedule;
  /** The payment rule to apply instead of the schedule's (the one a closing froze). */
  paymentRule?: FeeRule;
  platform: FeeParty;
  seller: FeeParty;
  organiser: FeeParty & { accountType: AccountType };
  organiserCommissionPercent: string | null;
  /** The organiser accepted the COMMISSION mandate for this pool. */
  commissionMandate: boolean;
}

export interface CommissionResolution {
  amount: Minor;
  /** In the order SELLER_PAYOUT, ORGANISER_COMMISSION, VAT_ON_ORGANISER_COMMISSION, PLATFORM_FEE, VAT_ON_PLATFORM_FEE; they sum to `amount`. */
  lines: CommissionLine[];
  /** Whether an organiser commission applies, and why (not). */
  commission: { applies: boolean; rule: string };
}

export interface FeeLinesInput {
  amount: Minor;
  paymentRule: FeeRule;
  /** VAT rate on the platform fee ("0" when none is charged: every category but S). */
  platformFeeVatRate: string;
  /** Null when no commission applies. */
  commission: { percent: string; vatRate: string } | null;
}

export interface FeeLines {
  platformFee: Minor;
  platformFeeVat: Minor;
  commission: Minor;
  commissionVat: Minor;
  seller: Minor;
  /** What each line would have been had the amount been enough (equal to the line unless limited). */
  wanted: { platformFeeVat: Minor; commission: Minor; commissionVat: Minor };
}

/**
 * The arithmetic both the resolver and the split at closing use (so the same inputs give the same lines): the platform
 * fee (feeOf), its VAT (half-up to the cent), the commission (percent × amount, down to the cent), its VAT; each
 * takes at most the whole cents left, in that order; the seller takes the remainder.
 */
export const feeLines = (i: FeeLinesInput): FeeLines => {
  if (i.amount < 0n) throw new RangeError('the amount is not negative');
  let left = i.amount;
  // A fee line is a whole number of cents: it takes at most the whole cents left.
  const take = (wanted: Minor) => {
    const got = minOf(wanted, floorCent(left));
    left -= got;
    return got;
  };
  const platformFee = take(feeOf(i.paymentRule, i.amount));
  const wantedFeeVat = percentHalfUpCent(platformFee, i.platformFeeVatRate);
  const platformFeeVat = take(wantedFeeVat);
  const wantedCommission = i.commission ? percentFloorCent(i.amount, i.commission.percent) : 0n;
  const commission = take(wantedCommission);
  const wantedCommissionVat = i.commission ? percentHalfUpCent(commission, i.commission.vatRate) : 0n;
  const commissionVat = take(wantedCommissionVat);
  return { platformFee, platformFeeVat, commission, commissionVat, seller: left, wanted: { platformFeeVat: wantedFeeVat, commission: wantedCommission, commissionVat: wantedCommissionVat } };
};

/** Why no commission applies, or null when it does. */
const noCommissionReason = (i: CommissionInput): string | null => {
  if (i.seller.id === i.organiser.id) return 'no commission: the organiser sells their own goods (not a brokered pool)';
  if (i.organiserCommissionPercent === null || percentFloorCent(10n ** 9n, i.organiserCommissionPercent) === 0n) return 'no commission: the pool sets no organiserCommissionPercent';
  if (i.organiser.accountType !== 'BUSINESS') return 'no commission: the organiser is not a BUSINESS account';
  if (!i.commissionMandate) return 'no commission: the organiser has not accepted the COMMISSION mandate';
  return null;
};

/**
 * Who gets what of `amount` (docs/fees.md#the-commission-resolver). The platform fee (the payment rule) and its VAT
 * come first, then the organiser's commission (a BUSINESS organiser with the COMMISSION mandate on a brokered pool:
 * percent × amount, down to the cent) and its VAT; each takes at most the whole cents left, so no line is ever negative;
 * the seller's payout is the remainder (every sub-cent included), so the lines sum exactly to the amount.
 * VAT is added to each fee and paid by the seller, who is invoiced for both.
 */
export const resolveCommission = (i: CommissionInput): CommissionResolution => {
  if (i.amount < 0n) throw new RangeError('the amount is not negative');
  const rule = i.paymentRule ?? i.schedule.payment;
  const capped = (wanted: Minor, got: Minor) => (got < wanted ? `, limited to what was left (${formatAmount(got)} of ${formatAmount(wanted)})` : '');
  const reason = noCommissionReason(i);
  // The categories and rates do not depend on the fee's amount: resolved once, on 0.
  const feeVat = vatOnFee(0n, { schedule: i.schedule, issuerCountry: i.platform.country, issuerVatId: i.platform.vatId, payerCountry: i.seller.country, payerVatId: i.seller.vatId });
  const commissionVat =
    reason === null
      ? vatOnFee(0n, { schedule: i.schedule, issuerCountry: i.organiser.country, issuerVatId: i.organiser.vatId, payerCountry: i.seller.country, payerVatId: i.seller.vatId })
      : null;
  const f = feeLines({
    amount: i.amount,
    paymentRule: rule,
    platformFeeVatRate: feeVat.rate,
    commission: reason === null ? { percent: i.organiserCommissionPercent!, vatRate: commissionVat!.rate } : null,
  });
  const bound = feeBound(rule, i.amount, f.platformFee);
  const commissionLines: CommissionLine[] = [];
  if (reason === null) {
    const percent = i.organiserCommissionPercent!;
    const organiser = { role: 'ORGANISER' as const, id: i.organiser.id };
    commissionLines.push(
      { kind: 'ORGANISER_COMMISSION', amount: f.commission, recipient: organiser, rule: `organiserCommissionPercent ${percent} % of ${formatAmount(i.amount)}, down to the cent (COMMISSION mandate)${capped(f.wanted.commission, f.commission)}` },
      { kind: 'VAT_ON_ORGANISER_COMMISSION', amount: f.commissionVat, recipient: organiser, rule: `${commissionVat!.category}: ${commissionVat!.rule}${capped(f.wanted.commissionVat, f.commissionVat)}`, vat: { category: commissionVat!.category, rate: commissionVat!.rate } },
    );
  }
  const platform = { role: 'PLATFORM' as const, id: i.platform.id };
  return {
    amount: i.amount,
    lines: [
      { kind: 'SELLER_PAYOUT', amount: f.seller, recipient: { role: 'SELLER', id: i.seller.id }, rule: 'the seller takes what remains after the fees, their VAT and any commission (every sub-cent included)' },
      ...commissionLines,
      { kind: 'PLATFORM_FEE', amount: f.platformFee, recipient: platform, rule: `payment fee ${describeRule(rule)} of ${formatAmount(i.amount)}, down to the cent${bound ? ` (${bound})` : ''}` },
      { kind: 'VAT_ON_PLATFORM_FEE', amount: f.platformFeeVat, recipient: platform, rule: `${feeVat.category}: ${feeVat.rule}${capped(f.wanted.platformFeeVat, f.platformFeeVat)}`, vat: { category: feeVat.category, rate: feeVat.rate } },
    ],
    commission: { applies: reason === null, rule: reason ?? `organiserCommissionPercent ${i.organiserCommissionPercent} % (BUSINESS organiser, COMMISSION mandate, brokered pool)` },
  };
};
