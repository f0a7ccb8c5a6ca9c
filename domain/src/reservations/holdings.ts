import type { EventData, PoolConfig, PoolUnit, ReservationLine } from '@cagnotte/event-schemas';
import { formatAmount, parseAmount } from '../money';

export type ReservationStatus = 'PENDING' | 'PAID' | 'EXPIRED' | 'CANCELLED';

export interface ReservationDeposit {
  txHash: string;
  ledger: number;
  balanceId: string;
  amount: string;
}

/** A buyer's dispute over a paid reservation (domain/src/escrow: its states and rules). */
export interface DisputeState {
  disputeId: string;
  status: 'OPEN' | 'CONTESTED' | 'REFUNDED' | 'WITHDRAWN' | 'LAPSED';
  reason: string;
  /** What the buyer wrote and linked: no rule reads them, but the answers render the reservation from this state. */
  details: string;
  evidence: string[];
  /** The amount held: the reservation's due amount when it was opened. */
  amount: string;
  respondBy: string;
  /** Set when contested: the buyer may withdraw until then. */
  lapsesAt: string | null;
  refund: string | null;
  openedAt: string;
  resolvedAt: string | null;
}

/** What a settled round did with one of the reservation's claimable balances. */
export interface SettledBalance {
  balanceId: string;
  kind: 'DEPOSIT' | 'LATE_DEPOSIT';
  settlementId: string;
  path: 'RELEASE' | 'RECOVERY';
  released: string;
  refunded: string;
  txHash: string;
  settledAt: string;
}

/** One reservation as the pool's stream folds it. */
export interface Reservation {
  id: string;
  buyerId: string;
  buyerName: string;
  status: ReservationStatus;
  lines: ReservationLine[];
  pledge: string | null;
  /** What the buyer pays into escrow: the goods (lines or pledge) + `depositFee`. */
  amount: string;
  /** The escrow-deposit fee included in `amount` (the platform's at release; back to the buyer with a refund). */
  depositFee: string;
  relaisId: string | null;
  expiresAt: string;
  placedAt: string;
  signed: Omit<EventData<'ReservationSigned'>, 'poolId' | 'reservationId' | 'buyerId' | 'ip'> | null;
  payment: (ReservationDeposit & { paidAt: string; via: 'txHash' | 'signedXdr' }) | null;
  /** Deposits that came when the reservation no longer held (or a second one): owed back, never counted. */
  latePayments: Array<ReservationDeposit & { receivedAt: string }>;
  endedAt: string | null;
  /** The buyer confirmed receipt, or the inspection period passed: the reservation's funds may be released. */
  acceptance: { by: 'BUYER' | 'AUTO'; at: string } | null;
  dispute: DisputeState | null;
  /** Its deposit and late deposits, once a settlement claimed them (by balance id). */
  settled: Map<string, SettledBalance>;
}

/**
 * The pool's reservations. The fold owns this object: `evolve` updates the map in place (a hot pool holds
 * thousands of reservations; copying them on every event would make each command cost the whole history). A state
 * is never used again after it was evolved.
 */
export interface Holdings {
  byId: Map<string, Reservation>;
  /** Ids of PENDING reservations, oldest first: what lazy expiry scans. */
  pending: Set<string>;
}

export const emptyHoldings = (): Holdings => ({ byId: new Map(), pending: new Set() });

/** Whether `at` is before the reservation's expiry: when it holds if PENDING, and when a deposit must land by. */
export const beforeExpiry = (r: Pick<Reservation, 'expiresAt'>, at: string): boolean => Date.parse(r.expiresAt) > Date.parse(at);

/** Whether a reservation holds its units at `now`: PAID, or PENDING before its expiry. */
export const holdsAt = (r: Reservation, now: string): boolean => r.status === 'PAID' || (r.status === 'PENDING' && beforeExpiry(r, now));

export const isStale = (r: Reservation, now: string): boolean => r.status === 'PENDING' && !beforeExpiry(r, now);

export interface UnitCount {
  held: number;
  paid: number;
}

/** Units held (PENDING and live) and paid, per unit id, at `now`. */
export const unitCounts = (h: Holdings, now: string, buyerId?: string): Map<string, UnitCount> => {
  const counts = new Map<string, UnitCount>();
  for (const r of h.byId.values()) {
    if (!holdsAt(r, now) || (buyerId !== undefined && r.buyerId !== buyerId)) continue;
    for (const line of r.lines) {
      const c = counts.get(line.unitId) ?? { held: 0, paid: 0 };
      if (r.status === 'PAID') c.paid += line.quantity;
      else c.held += line.quantity;
      counts.set(line.unitId, c);
    }
  }
  return counts;
};

export const totalOf = (c: UnitCount | undefined): number => (c ? c.held + c.paid : 0);

/** The unit price once `totalUnits` of this unit are held or paid: the best tier reached, else the base price. */
export const tierPrice = (unit: PoolUnit, totalUnits: number): string => {
  let best = parseAmount(unit.price);
  for (const tier of unit.tiers ?? []) {
    if (totalUnits >= tier.minQuantity && parseAmount(tier.price) < best) best = parseAmount(tier.price);
  }
  return formatAmount(best);
};

/** Σ quantity × unitPrice, exact. */
export const linesAmount = (lines: ReservationLine[]): string =>
  formatAmount(lines.reduce((sum, l) => sum + parseAmount(l.unitPrice) * BigInt(l.quantity), 0n));

/** What a PAID reservation paid for its goods: its deposit less the escrow-deposit fee it included. */
export const goodsPaid = (r: Pick<Reservation, 'payment' | 'depositFee'>): bigint => {
  if (!r.payment) return 0n;
  const goods = parseAmount(r.payment.amount) - parseAmount(r.depositFee);
  return goods > 0n ? goods : 0n;
};

/** Money paid in and still held for the pool (PAID reservations), in minor units. */
export const paidMinor = (h: Holdings): bigint => {
  let sum = 0n;
  for (const r of h.byId.values()) if (r.status === 'PAID' && r.payment) sum += parseAmount(r.payment.amount);
  return sum;
};

export const unitOf = (config: PoolConfig, unitId: string): PoolUnit | undefined => (config.units ?? []).find((u) => u.id === unitId);

/** One line beside everything that holds at a time: its unit, what is taken of it, what the buyer would hold with it. */
export interface LineFit {
  unit: PoolUnit | undefined;
  /** Units of it held or paid by everyone (the line not counted). */
  taken: number;
  /** Units of it the buyer would hold with the line. */
  buyerTotal: number;
  /** The stock cannot take the line. */
  short: boolean;
  underMin: boolean;
  overMax: boolean;
}

/**
 * The capacity rule, one place for every caller (placing a reservation, a deposit re-holding its units): each line
 * against its unit's stock and the buyer's per-buyer limits, beside every reservation that holds at `now` (a
 * reservation that does not hold at `now` does not count itself).
 */
export const lineFit = (config: PoolConfig, h: Holdings, lines: Array<{ unitId: string; quantity: number }>, buyerId: string, now: string): LineFit[] => {
  const all = unitCounts(h, now);
  const mine = unitCounts(h, now, buyerId);
  return lines.map((l) => {
    const unit = unitOf(config, l.unitId);
    const taken = totalOf(all.get(l.unitId));
    const buyerTotal = totalOf(mine.get(l.unitId)) + l.quantity;
    return {
      unit,
      taken,
      buyerTotal,
      short: unit !== undefined && unit.quantity != null && taken + l.quantity > unit.quantity,
      underMin: unit?.minPerBuyer !== undefined && buyerTotal < unit.minPerBuyer,
      overMax: unit?.maxPerBuyer !== undefined && buyerTotal > unit.maxPerBuyer,
    };
  });
};
