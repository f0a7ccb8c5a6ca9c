import type { FeeSchedule } from '@cagnotte/event-schemas';
import { ValidationError, type FieldErrors } from '../errors';
import { LEDGER_AMOUNT_EXCEEDED, MAX_LEDGER_AMOUNT, fitsLedger, formatAmount, ledgerBoundMessage, parseAmount, type Minor } from '../money';
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
  const quote = { lines, goods, depositFee, total: goods + depositFee, rule: `escrow-deposit fee ${describeRule(input.schedule.escrowDeposit)} of the goods ${formatAmount(goods)}, down to the cent` };
  requireOnePayment(quote, input.pledge != null);
  return quote;
};

/**
 * A deposit is one ledger payment: each line (price × quantity), the goods (lines summed, or the pledge) and the total
 * with its fee must fit MAX_LEDGER_AMOUNT, or the deposit could never be signed. Refused naming what the buyer chose:
 * the line's quantity, the lines, or the pledge.
 */
const requireOnePayment = (q: DepositQuote, pledged: boolean) => {
  const errors: FieldErrors = {};
  q.lines.forEach((l, i) => {
    if (fitsLedger(l.amount)) return;
    const most = MAX_LEDGER_AMOUNT / parseAmount(l.unitPrice);
    errors[`lines.${i}.quantity`] = [`at most ${most} of ${l.unitId} at ${l.unitPrice} fit one ledger payment (${ledgerBoundMessage('a deposit')})`];
  });
  const field = pledged ? 'pledge' : 'lines';
  if (Object.keys(errors).length === 0 && !fitsLedger(q.goods)) errors[field] = [ledgerBoundMessage(pledged ? 'a pledge' : 'the lines together')];
  if (Object.keys(errors).length === 0 && !fitsLedger(q.total)) errors[field] = [ledgerBoundMessage(`the deposit (${formatAmount(q.goods)} plus a fee of ${formatAmount(q.depositFee)})`)];
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'More than one ledger payment can carry', LEDGER_AMOUNT_EXCEEDED);
};
