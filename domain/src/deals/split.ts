import type { DealSplitLine } from '@cagnotte/event-schemas';
import { ValidationError } from '../errors';

/** The whole, in basis points: a split's lines sum to exactly this. */
export const TOTAL_BPS = 10_000;

/** Why a split is refused (null when it is a valid one): lines of positive basis points, each account once, summing to 10,000. */
export const splitProblem = (split: ReadonlyArray<Pick<DealSplitLine, 'accountId' | 'bps'>>): string | null => {
  if (split.length === 0) return 'at least one line';
  if (split.some((l) => !Number.isInteger(l.bps) || l.bps <= 0 || l.bps > TOTAL_BPS)) return 'each line takes from 1 to 10000 basis points';
  if (new Set(split.map((l) => l.accountId)).size !== split.length) return 'each account appears once';
  const sum = split.reduce((s, l) => s + l.bps, 0);
  if (sum !== TOTAL_BPS) return `the basis points sum to ${sum}, not ${TOTAL_BPS}`;
  return null;
};

/**
 * The funded amount (stroops) shared by the split: each line gets ⌊amount × bps / 10,000⌋, and the remainder (fewer
 * stroops than there are lines) goes to the seller's line, or to the first line when the seller takes no part. So the
 * parts always sum to the amount exactly, to the stroop, and nobody but the seller ever gets more than their share.
 */
export const splitAmount = <L extends Pick<DealSplitLine, 'bps' | 'role'>>(amount: bigint, split: readonly L[]): Array<L & { amount: bigint }> => {
  const problem = split.length === 0 ? 'at least one line' : split.reduce((s, l) => s + l.bps, 0) !== TOTAL_BPS ? 'the basis points must sum to 10000' : null;
  if (problem || amount < 0n) throw new ValidationError({ split: [problem ?? 'the amount is negative'] }, 'Invalid split', 'invalid_split');
  const parts = split.map((l) => ({ ...l, amount: (amount * BigInt(l.bps)) / BigInt(TOTAL_BPS) }));
  const remainder = amount - parts.reduce((s, p) => s + p.amount, 0n);
  const sellerAt = parts.findIndex((p) => p.role === 'seller');
  const to = sellerAt === -1 ? 0 : sellerAt;
  parts[to] = { ...parts[to]!, amount: parts[to]!.amount + remainder };
  return parts;
};
