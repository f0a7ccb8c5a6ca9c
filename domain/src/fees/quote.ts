import type { FeeSchedule } from '@cagnotte/event-schemas';
import { formatAmount, parseAmount, type Minor } from '../money';
import { describeRule, feeOf } from './fee';

export interface QuoteLineInput {
  unitId: string;
  quantity: number;
  /** The unit price a reservation placed now is charged (tier-aware), a decimal string. */
  unitPrice: string;
}

export interface QuotedLine extends QuoteLineInput {
  /** quantity × unitPrice, stroops. */
  amount: Minor;
}

export interface DepositQuote {
  lines: QuotedLine[];
  /** Σ line amounts (GROUPS), or the pledge (FUNDING). */
  goods: Minor;
  /** The escrow-deposit fee, on top of the goods (its rule on the schedule). */
  depositFee: Minor;
  /** goods + depositFee: what the buyer pays into escrow. */
  total: Minor;
  rule: string;
}

/**
 * What a buyer pays into escrow: Σ quantity × unit price (the prices the reservation's placement charges), or the
 * pledge of a FUNDING pool (`pledge`, no lines), plus the escrow-deposit fee of the schedule (on the goods, down to the
 * cent, prices being VAT-inclusive).
 */
export const quoteDeposit = (input: { lines: QuoteLineInput[]; pledge?: Minor | null; schedule: Pick<FeeSchedule, 'escrowDeposit'> }): DepositQuote => {
  const lines = input.lines.map((l) => {
    if (!Number.isSafeInteger(l.quantity) || l.quantity < 1) throw new RangeError('a quantity is a whole number of units, at least 1');
    return { ...l, amount: parseAmount(l.unitPrice) * BigInt(l.quantity) };
  });
  if (lines.length > 0 && input.pledge != null) throw new RangeError('a quote is for units or for a pledge, not both');
  const goods = input.pledge ?? lines.reduce((sum, l) => sum + l.amount, 0n);
  if (goods < 0n) throw new RangeError('the goods amount is not negative');
  const depositFee = feeOf(input.schedule.escrowDeposit, goods);
  return { lines, goods, depositFee, total: goods + depositFee, rule: `escrow-deposit fee ${describeRule(input.schedule.escrowDeposit)} of the goods ${formatAmount(goods)}, down to the cent` };
};
