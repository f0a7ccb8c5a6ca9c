import type { PoolUnit, ReservationLine } from '@cagnotte/event-schemas';
import type { FeeRule } from '@cagnotte/event-schemas';
import { parseAmount, type Minor } from '../money';
import { percentHundredths } from '../fees/percent';
import { feeLines } from '../fees/commission';
import { percentRule } from '../fees/schedule';

/**
 * The split of one deposit, exact to the stroop (bigint, 7 decimals). It is computed per reservation, never per pool,
 * so that any subset of reservations settles on its own (a settlement goes round by round, a disputed reservation
 * later than the others) and the parts always add up to the deposit.
 *
 * The rounding rule (docs/fees.md#rounding): the platform fee and the organiser's commission are each rounded DOWN
 * to the cent (an exact invoice amount), VAT on them half-up to the cent; the seller's payout is what remains, so every
 * sub-cent remainder lands in the seller's payout, never lost and never in a fee. Hence fee ≤ its rule and
 * commission ≤ rate × net, always.
 */
export interface DepositSplit {
  deposit: Minor;
  /** The escrow-deposit fee the deposit included: the platform's, whole (it is not a share of the goods). */
  depositFee: Minor;
  /** What the units cost at the final (tier) prices, never more than the goods paid (`deposit − depositFee`). */
  due: Minor;
  /** Paid for the goods above the final price: back to the buyer. */
  tierRefund: Minor;
  /** Agreed in a dispute (or returned by the dispute rule): back to the buyer, out of `due`. */
  disputeRefund: Minor;
  /** `due − disputeRefund`: what the seller side is paid from. */
  net: Minor;
  platformFee: Minor;
  /** VAT withheld on the platform fee (paid to the platform with it). */
  platformFeeVat: Minor;
  commission: Minor;
  /** VAT withheld on the commission (paid to the organiser with it). */
  commissionVat: Minor;
  seller: Minor;
  /** `tierRefund + disputeRefund`. */
  buyerRefund: Minor;
}

export { percentHundredths } from '../fees/percent';

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
  /** The escrow-deposit fee included in the deposit (ReservationPlaced v2); absent: none. */
  depositFee?: Minor | undefined;
  due: Minor;
  disputeRefund: Minor;
  platformFeePercent: string;
  /** The payment fee rule frozen at closing (PoolClosed v2); absent: the bare `platformFeePercent` (v1). */
  platformFee?: FeeRule | undefined;
  /** Null when no commission applies (the seller is the organiser, or no rate or mandate). */
  organiserCommissionPercent: string | null;
  /** VAT rates withheld on the fee and the commission, frozen at closing; absent or null: none. */
  vat?: { platformFee: { rate: string }; commission: { rate: string } | null } | null | undefined;
}

/**
 * The split of one deposit: the escrow-deposit fee it included goes to the platform whole; the goods are split. The
 * fee lines come from domain/src/fees (feeLines, the arithmetic of the commission
 * resolver, so the resolver and the settlement give the same lines): fee and commission down to the cent, VAT half-up
 * to the cent, the seller takes every remainder.
 */
export const splitDeposit = (input: SplitInput): DepositSplit => {
  const { deposit, due } = input;
  const depositFee = input.depositFee ?? 0n;
  if (depositFee < 0n || depositFee > deposit) throw new RangeError('the deposit fee lies between 0 and the deposit');
  const goods = deposit - depositFee;
  if (due < 0n || due > goods) throw new RangeError('the due amount lies between 0 and the goods paid');
  if (input.disputeRefund < 0n || input.disputeRefund > due) throw new RangeError('a dispute refunds at most the due amount');
  const net = due - input.disputeRefund;
  const lines = feeLines({
    amount: net,
    paymentRule: input.platformFee ?? percentRule(input.platformFeePercent),
    platformFeeVatRate: input.vat?.platformFee.rate ?? '0',
    commission: input.organiserCommissionPercent === null ? null : { percent: input.organiserCommissionPercent, vatRate: input.vat?.commission?.rate ?? '0' },
  });
  const tierRefund = goods - due;
  return {
    deposit,
    depositFee,
    due,
    tierRefund,
    disputeRefund: input.disputeRefund,
    net,
    platformFee: lines.platformFee,
    platformFeeVat: lines.platformFeeVat,
    commission: lines.commission,
    commissionVat: lines.commissionVat,
    seller: lines.seller,
    buyerRefund: tierRefund + input.disputeRefund,
  };
};

/** The final unit prices of a GROUPS pool: each unit's best tier reached by its PAID units (else its base price). */
export const finalPricesOf = (units: PoolUnit[], paidUnits: ReadonlyMap<string, number>, tierPrice: (unit: PoolUnit, total: number) => string) =>
  units.map((u) => ({ unitId: u.id, price: tierPrice(u, paidUnits.get(u.id) ?? 0) }));
