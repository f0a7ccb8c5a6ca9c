import type { PoolUnit, ReservationLine } from '@cagnotte/event-schemas';
import { parseAmount, type Minor } from '../money';

/**
 * The split of one deposit, exact to the stroop (bigint, 7 decimals). It is computed per reservation, never per pool,
 * so that any subset of reservations settles on its own (a settlement goes round by round, a disputed reservation
 * later than the others) and the parts always add up to the deposit.
 *
 * The rounding rule (docs/escrow.md#the-split): the platform fee and the organiser's commission are each rounded
 * DOWN to the stroop; the seller's payout is what remains, so every sub-stroop remainder lands in the seller's payout,
 * never lost and never in a fee. Hence fee ≤ rate × net and commission ≤ rate × net, always.
 */
export interface DepositSplit {
  deposit: Minor;
  /** What the units cost at the final (tier) prices, never more than was paid. */
  due: Minor;
  /** Paid above the final price: back to the buyer. */
  tierRefund: Minor;
  /** Agreed in a dispute (or returned by the dispute rule): back to the buyer, out of `due`. */
  disputeRefund: Minor;
  /** `due − disputeRefund`: what the seller side is paid from. */
  net: Minor;
  platformFee: Minor;
  commission: Minor;
  seller: Minor;
  /** `tierRefund + disputeRefund`. */
  buyerRefund: Minor;
}

/** Basis points of a basis point: "2.5" → 250 (hundredths of a percent). The Percent schema allows two decimals. */
export const percentHundredths = (percent: string): bigint => {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(percent);
  if (!m) throw new RangeError(`not a percentage with at most two decimals: ${percent}`);
  const value = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  if (value > 10_000n) throw new RangeError(`a percentage above 100: ${percent}`);
  return value;
};

/** `amount × percent`, rounded down to the stroop. */
export const percentOf = (amount: Minor, percent: string): Minor => (amount * percentHundredths(percent)) / 10_000n;

/**
 * What a GROUPS reservation owes at the final prices: Σ quantity × (the final price of its unit, or the price it was
 * charged when that was lower), line by line. A buyer never pays more for a line than they were charged: when the
 * tier they were charged was reached by holds that later lapsed, they keep their price and the seller bears it (and
 * one line's lapsed tier never eats another line's discount). Capped at the deposit; a FUNDING pledge owes itself.
 */
export const dueOf = (lines: ReservationLine[], deposit: Minor, finalPrices: ReadonlyMap<string, Minor>): Minor => {
  if (lines.length === 0) return deposit;
  let due = 0n;
  for (const l of lines) {
    const charged = parseAmount(l.unitPrice);
    const final = finalPrices.get(l.unitId) ?? charged;
    due += (final < charged ? final : charged) * BigInt(l.quantity);
  }
  return due < deposit ? due : deposit;
};

export interface SplitInput {
  deposit: Minor;
  due: Minor;
  disputeRefund: Minor;
  platformFeePercent: string;
  /** Null when no commission applies (the seller is the organiser, or no rate or mandate). */
  organiserCommissionPercent: string | null;
}

export const splitDeposit = (input: SplitInput): DepositSplit => {
  const { deposit, due } = input;
  if (due < 0n || due > deposit) throw new RangeError('the due amount lies between 0 and the deposit');
  if (input.disputeRefund < 0n || input.disputeRefund > due) throw new RangeError('a dispute refunds at most the due amount');
  const net = due - input.disputeRefund;
  const platformFee = percentOf(net, input.platformFeePercent);
  const commission = input.organiserCommissionPercent === null ? 0n : percentOf(net, input.organiserCommissionPercent);
  // Two rates above 100 % in all would leave the seller negative: the fee is taken first, the commission from what is left.
  const cappedCommission = commission > net - platformFee ? net - platformFee : commission;
  const tierRefund = deposit - due;
  return {
    deposit,
    due,
    tierRefund,
    disputeRefund: input.disputeRefund,
    net,
    platformFee,
    commission: cappedCommission,
    seller: net - platformFee - cappedCommission,
    buyerRefund: tierRefund + input.disputeRefund,
  };
};

/** The final unit prices of a GROUPS pool: each unit's best tier reached by its PAID units (else its base price). */
export const finalPricesOf = (units: PoolUnit[], paidUnits: ReadonlyMap<string, number>, tierPrice: (unit: PoolUnit, total: number) => string) =>
  units.map((u) => ({ unitId: u.id, price: tierPrice(u, paidUnits.get(u.id) ?? 0) }));
