import type { InvoiceKind, ReservationLine, SettlementItem } from '@cagnotte/event-schemas';
import { ValidationError } from '../errors';
import { formatAmount, parseAmount, type Minor } from '../money';
import { invoiceAmountFromLedger, netUnitPriceFromInclusive } from './compute';
import type { InvoiceDocument, InvoiceLineInput, InvoiceParty, VatCategory } from './model';
import type { VatTreatment } from './vat-treatment';

/**
 * From the recorded facts of a settlement to what `computeInvoice` needs, less the number and the issue date (the
 * issuer's stream gives those: ./issuer.ts). Every amount comes from the settlement as recorded (the prepared item's
 * payouts, the reservation's deposit), so an invoice's total is what the ledger moved, to the cent.
 */
export type InvoiceDraft = Omit<InvoiceDocument, 'lines' | 'vatBreakdown' | 'totals' | 'number' | 'issueDate'> & {
  lines: InvoiceLineInput[];
  /** Paid already (through the escrow): the ledger amount (computeInvoice rounds it to the cent). */
  prepaid: string;
  exemptions?: Partial<Record<VatCategory, { reason: string; code?: string | null }>>;
};

/** What the issuer needs besides the document: what it invoices and for whom. */
export interface InvoiceRequestFacts {
  kind: InvoiceKind;
  sourceKey: string;
  /** Absent for what no pool is invoiced for (the organiser activation fee). */
  poolId?: string;
  reservationId?: string;
  draft: InvoiceDraft;
}

export interface PoolFacts {
  poolId: string;
  title: string;
  /** Unit labels by unit id (GROUPS). */
  unitLabels: ReadonlyMap<string, string>;
}

const exemptions = (vat: VatTreatment): InvoiceDraft['exemptions'] => (vat.exemption ? { [vat.category]: vat.exemption } : {});

const line = (id: string, name: string, quantity: number, inclusiveUnit: Minor, vat: VatTreatment): InvoiceLineInput => ({
  id,
  name: name.slice(0, 300),
  quantity,
  netUnitPrice: netUnitPriceFromInclusive(formatAmount(inclusiveUnit), vat.rate),
  vatCategory: vat.category,
  vatRate: vat.rate,
});

const payoutOf = (item: SettlementItem, role: SettlementItem['payouts'][number]['role']): Minor =>
  item.payouts.filter((p) => p.role === role).reduce((sum, p) => sum + parseAmount(p.amount), 0n);

const shortId = (id: string) => id.slice(0, 8);

export interface GoodsFacts {
  pool: PoolFacts;
  seller: InvoiceParty;
  buyer: InvoiceParty;
  vat: VatTreatment;
  reservationId: string;
  /** The reservation's lines at the prices it was charged (empty for a FUNDING pledge). */
  lines: ReservationLine[];
  /** What the deposit paid for the goods (the deposit less its escrow-deposit fee, invoiced apart) and its transaction. */
  deposit: string;
  depositTxHash: string;
  /** When the goods were handed over (PoolDelivered), else the settlement's day. */
  deliveryDate: string;
}

/**
 * Seller → buyer for a settled reservation: its lines at the VAT-inclusive prices it was CHARGED (a FUNDING pledge:
 * one line), prepaid by the deposit. A tier reached later, or a dispute refund, is the credit note's business.
 */
export const goodsInvoice = (f: GoodsFacts): InvoiceRequestFacts => {
  const lines =
    f.lines.length === 0
      ? [line('1', `Pledge to “${f.pool.title}”`, 1, parseAmount(f.deposit), f.vat)]
      : f.lines.map((l, k) => line(String(k + 1), f.pool.unitLabels.get(l.unitId) ?? l.unitId, l.quantity, parseAmount(l.unitPrice), f.vat));
  return {
    kind: 'GOODS',
    sourceKey: `goods:${f.reservationId}`,
    poolId: f.pool.poolId,
    reservationId: f.reservationId,
    draft: {
      typeCode: '380',
      currency: 'EUR',
      seller: f.seller,
      buyer: f.buyer,
      lines,
      prepaid: f.deposit,
      exemptions: exemptions(f.vat),
      paymentReference: f.depositTxHash,
      buyerReference: f.pool.poolId,
      deliveryDate: f.deliveryDate,
      notes: [`Pool “${f.pool.title}”, reservation ${f.reservationId}: paid into escrow, released at settlement.`],
    },
  };
};

export interface CreditNoteFacts {
  goods: GoodsFacts;
  /** The goods invoice it corrects. */
  corrects: { invoiceId: string; number: string; issueDate: string };
  /** The final unit prices (stroops) by unit id, from PoolClosed. */
  finalPrices: ReadonlyMap<string, Minor>;
  /** The settled item of the reservation: its BUYER payout is what the credit note refunds. */
  item: SettlementItem;
  settlementTxHash: string;
  disputeReason: string | null;
}

/**
 * 381 for what went back to the buyer of a settled reservation: a line per unit whose tier price came below the one
 * charged, and one line for the dispute refund, which is the rest of the BUYER payout. Refunded through the escrow,
 * so prepaid = the refund and nothing is due; null when nothing was refunded.
 */
export const goodsCreditNote = (f: CreditNoteFacts): (InvoiceRequestFacts & { corrects: string }) | null => {
  const refunded = payoutOf(f.item, 'BUYER');
  if (refunded <= 0n) return null;
  const { vat } = f.goods;
  const lines: InvoiceLineInput[] = [];
  let tier = 0n;
  for (const l of f.goods.lines) {
    const charged = parseAmount(l.unitPrice);
    const final = f.finalPrices.get(l.unitId);
    if (final === undefined || final >= charged) continue;
    tier += (charged - final) * BigInt(l.quantity);
    const label = f.goods.pool.unitLabels.get(l.unitId) ?? l.unitId;
    lines.push(line(String(lines.length + 1), `Tier price reached: ${label}, ${invoiceAmountFromLedger(formatAmount(final))} instead of ${invoiceAmountFromLedger(formatAmount(charged))}`, l.quantity, charged - final, vat));
  }
  const dispute = refunded - tier;
  if (dispute < 0n) throw new ValidationError({ refunded: ['less than the tier difference'] }, 'The refund does not cover the tier difference', 'refund_mismatch');
  if (dispute > 0n) lines.push(line(String(lines.length + 1), `Dispute refund${f.disputeReason ? ` (${f.disputeReason.toLowerCase().replace(/_/g, ' ')})` : ''}`, 1, dispute, vat));
  const { reservationId, pool } = f.goods;
  return {
    kind: 'CREDIT_NOTE',
    sourceKey: `credit:${reservationId}`,
    poolId: pool.poolId,
    reservationId,
    corrects: f.corrects.invoiceId,
    draft: {
      typeCode: '381',
      currency: 'EUR',
      seller: f.goods.seller,
      buyer: f.goods.buyer,
      lines,
      prepaid: formatAmount(refunded),
      exemptions: exemptions(vat),
      precedingInvoice: { number: f.corrects.number, issueDate: f.corrects.issueDate },
      paymentReference: f.settlementTxHash,
      buyerReference: pool.poolId,
      deliveryDate: f.goods.deliveryDate,
      notes: [`Corrects invoice ${f.corrects.number}: refunded to the buyer from the escrow at settlement.`],
    },
  };
};

export interface RoundFeeFacts {
  pool: PoolFacts;
  /** The issuer (the platform, or the organiser) and the payer (the seller). */
  issuer: InvoiceParty;
  payer: InvoiceParty;
  vat: VatTreatment;
  settlementId: string;
  round: number;
  /** The items the round released (their payouts say who got what). */
  items: SettlementItem[];
  percent: string;
  txHash: string;
  settledOn: string;
  /**
   * The escrow-deposit fee each reservation's deposit included (by reservation id): the PLATFORM payout carries it
   * beside the platform fee, but it is the buyer's service (depositFeeInvoice), not the seller's: left out here.
   */
  depositFees?: ReadonlyMap<string, Minor>;
}

/**
 * What the round paid `role` out of its reservations' deposits, VAT-inclusive, as ONE line (the reservations are named
 * in it): one conversion to net keeps net + VAT on the cent of what the ledger moved, where a line per reservation
 * would add up a sub-cent drift each. Null when the round paid the role nothing.
 */
const roundInvoice = (f: RoundFeeFacts, role: 'PLATFORM' | 'ORGANISER', label: string): Omit<InvoiceRequestFacts, 'kind' | 'sourceKey'> | null => {
  const paid = f.items
    .map((i) => ({ reservationId: i.reservationId, amount: payoutOf(i, role) - (role === 'PLATFORM' ? (f.depositFees?.get(i.reservationId) ?? 0n) : 0n) }))
    .filter((p) => p.amount > 0n);
  if (paid.length === 0) return null;
  const total = paid.reduce((sum, p) => sum + p.amount, 0n);
  const on = paid.length === 1 ? `reservation ${shortId(paid[0]!.reservationId)}` : `${paid.length} reservations (${paid.map((p) => shortId(p.reservationId)).join(', ')})`;
  return {
    poolId: f.pool.poolId,
    draft: {
      typeCode: '380',
      currency: 'EUR',
      seller: f.issuer,
      buyer: f.payer,
      lines: [line('1', `${label} ${f.percent} % on ${on}`, 1, total, f.vat)],
      prepaid: formatAmount(total),
      exemptions: exemptions(f.vat),
      paymentReference: f.txHash,
      buyerReference: f.pool.poolId,
      deliveryDate: f.settledOn,
      notes: [
        `Pool “${f.pool.title}”, settlement round ${f.round}: withheld from the seller's proceeds at release.`,
        ...paid.map((p) => `Reservation ${p.reservationId}: ${invoiceAmountFromLedger(formatAmount(p.amount))} EUR.`),
      ],
    },
  };
};

/** Platform → seller: the platform fee withheld from each reservation the round released. */
export const platformFeeInvoice = (f: RoundFeeFacts): InvoiceRequestFacts | null => {
  const base = roundInvoice(f, 'PLATFORM', 'Platform fee');
  return base && { ...base, kind: 'PLATFORM_FEE', sourceKey: `fee:${f.settlementId}:${f.round}` };
};

/**
 * Organiser → seller: the organiser's commission, invoiced by the platform on the organiser's behalf under the
 * COMMISSION mandate (self-billing on behalf of the issuer: the note names the mandate).
 */
export const commissionInvoice = (f: RoundFeeFacts & { mandate: { id: string; acceptedAt: string } }): InvoiceRequestFacts | null => {
  const base = roundInvoice(f, 'ORGANISER', 'Organiser commission');
  if (!base) return null;
  const notes = [...(base.draft.notes ?? []), `Issued by the platform in the name and on behalf of ${f.issuer.name} under the COMMISSION mandate ${f.mandate.id} accepted on ${f.mandate.acceptedAt.slice(0, 10)}.`];
  return { ...base, kind: 'COMMISSION', sourceKey: `commission:${f.settlementId}:${f.round}`, draft: { ...base.draft, notes } };
};

export interface PlatformChargeFacts {
  platform: InvoiceParty;
  payer: InvoiceParty;
  vat: VatTreatment;
  /** What the payer paid the platform on the ledger, VAT-inclusive. */
  amount: string;
  txHash: string;
  /** The day it was paid. */
  paidOn: string;
}

/** Platform → payer: one VAT-inclusive line, prepaid in full by the ledger payment `txHash`. */
const platformCharge = (f: PlatformChargeFacts, name: string, notes: string[], buyerReference: string): InvoiceDraft => ({
  typeCode: '380',
  currency: 'EUR',
  seller: f.platform,
  buyer: f.payer,
  lines: [line('1', name, 1, parseAmount(f.amount), f.vat)],
  prepaid: formatAmount(parseAmount(f.amount)),
  exemptions: exemptions(f.vat),
  paymentReference: f.txHash,
  buyerReference,
  deliveryDate: f.paidOn,
  notes,
});

export interface DepositFeeFacts extends PlatformChargeFacts {
  pool: PoolFacts;
  reservationId: string;
}

/**
 * Platform → buyer (`payer`): the escrow-deposit fee of a released reservation (`amount`: the buyer paid it into escrow
 * with the goods, by the deposit `txHash`; the release paid it to the platform). VAT-inclusive, one line, prepaid in
 * full. Null when the reservation paid none. A refunded reservation gets its fee back with its deposit, so it is never
 * invoiced.
 */
export const depositFeeInvoice = (f: DepositFeeFacts): InvoiceRequestFacts | null => {
  if (parseAmount(f.amount) <= 0n) return null;
  return {
    kind: 'DEPOSIT_FEE',
    sourceKey: `deposit-fee:${f.reservationId}`,
    poolId: f.pool.poolId,
    reservationId: f.reservationId,
    draft: platformCharge(
      f,
      `Escrow-deposit fee, reservation ${shortId(f.reservationId)} in “${f.pool.title}”`,
      [`Pool “${f.pool.title}”, reservation ${f.reservationId}: paid into escrow with the deposit, released to the platform at settlement.`],
      f.pool.poolId,
    ),
  };
};

/** Platform → organiser: the listing fee a pool paid to be LISTED or FEATURED (PoolListed). Null when it was free. */
export const listingFeeInvoice = (f: PlatformChargeFacts & { pool: PoolFacts; listingId: string; tier: string }): InvoiceRequestFacts | null => {
  if (parseAmount(f.amount) <= 0n) return null;
  return {
    kind: 'LISTING_FEE',
    sourceKey: `listing:${f.listingId}`,
    poolId: f.pool.poolId,
    draft: platformCharge(f, `Marketplace listing ${f.tier} of “${f.pool.title}”`, [`Pool “${f.pool.title}”, listing ${f.listingId}: paid on the ledger before the pool was ${f.tier}.`], f.pool.poolId),
  };
};

/**
 * 381 for a listing fee paid back on a delist within the refund window (PoolListingFeeRefunded): it corrects the
 * listing's invoice, for the amount refunded (prepaid: the refund itself went back on the ledger).
 */
export const listingRefundCreditNote = (
  f: PlatformChargeFacts & { pool: PoolFacts; listingId: string; tier: string; corrects: { invoiceId: string; number: string; issueDate: string } },
): (InvoiceRequestFacts & { corrects: string }) | null => {
  if (parseAmount(f.amount) <= 0n) return null;
  return {
    kind: 'CREDIT_NOTE',
    sourceKey: `listing-refund:${f.listingId}`,
    poolId: f.pool.poolId,
    corrects: f.corrects.invoiceId,
    draft: {
      ...platformCharge(f, `Listing fee refunded: ${f.tier} of “${f.pool.title}” withdrawn within the refund window`, [`Corrects invoice ${f.corrects.number}: the listing fee was paid back on the ledger.`], f.pool.poolId),
      typeCode: '381',
      precedingInvoice: { number: f.corrects.number, issueDate: f.corrects.issueDate },
    },
  };
};

/** Platform → the new organiser: the one-time organiser activation fee (OrganiserGrantSettled). */
export const activationFeeInvoice = (f: PlatformChargeFacts & { grantId: string }): InvoiceRequestFacts | null => {
  if (parseAmount(f.amount) <= 0n) return null;
  return {
    kind: 'ACTIVATION_FEE',
    sourceKey: `activation:${f.grantId}`,
    draft: platformCharge(f, 'Organiser activation fee (one-time)', [`Organiser grant ${f.grantId}: paid on the ledger; the organiser role was granted on its settlement.`], f.grantId),
  };
};
