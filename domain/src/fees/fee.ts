import type { FeeRule } from '@cagnotte/event-schemas';
import { formatAmount, parseAmount, type Minor } from '../money';
import { floorCent, maxOf, minOf, percentFloorCent } from './rounding';

/**
 * The fee a rule takes from `base` (stroops in, stroops out): `percent × base + fixed`, raised to `min`, lowered to
 * `cap`, never above `base`, rounded DOWN to the cent. A base of 0 pays no fee (nothing to take it from).
 */
export const feeOf = (rule: FeeRule, base: Minor): Minor => {
  if (base <= 0n) return 0n;
  let fee = percentFloorCent(base, rule.percent) + parseAmount(rule.fixed);
  fee = maxOf(fee, parseAmount(rule.min));
  if (rule.cap !== null) fee = minOf(fee, parseAmount(rule.cap));
  return floorCent(minOf(fee, base));
};

/** The rule in words, for the `rule` of a line: "2.5 % + 0.30, min 0.50, cap 20.00". */
export const describeRule = (rule: FeeRule): string => {
  const parts = [`${rule.percent} %`];
  if (parseAmount(rule.fixed) > 0n) parts[0] += ` + ${formatAmount(parseAmount(rule.fixed))}`;
  if (parseAmount(rule.min) > 0n) parts.push(`min ${formatAmount(parseAmount(rule.min))}`);
  if (rule.cap !== null) parts.push(`cap ${formatAmount(parseAmount(rule.cap))}`);
  return parts.join(', ');
};

/** Which bound decided the fee, in words (for the line's rule). */
export const feeBound = (rule: FeeRule, base: Minor, fee: Minor): string | null => {
  if (base <= 0n) return 'nothing to take it from';
  const raw = percentFloorCent(base, rule.percent) + parseAmount(rule.fixed);
  if (fee === floorCent(base) && raw > base) return 'limited to the amount';
  if (rule.cap !== null && fee === floorCent(parseAmount(rule.cap)) && raw > parseAmount(rule.cap)) return 'the cap applies';
  if (fee === floorCent(parseAmount(rule.min)) && raw < parseAmount(rule.min)) return 'the minimum applies';
  return null;
};
