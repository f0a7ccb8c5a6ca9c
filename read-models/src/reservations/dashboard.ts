import { z } from 'zod';
import { PoolStatus, PoolType } from '@cagnotte/event-schemas';
import type { PoolRow } from '../pools/tables';
import { ReservationSchema, effectiveStatus, reservationView, type ReservationFacts } from './view';
import { factsOfRow, type ReservationRow } from './tables';
import { fromMinor, ratio, toMinor } from './amounts';
import { isSettledBalance } from './escrow-facts';
import { poolEscrowActions } from './pool-actions';

/*
 * The two dashboards, pure: rows of the pools and reservations read models in, views out, at the request clock
 * (lazy expiry: a stale PENDING holds nothing and counts nowhere).
 */

export const OrderPool = z.object({ id: z.string().uuid(), title: z.string(), type: PoolType, status: PoolStatus, deadline: z.string().nullable() });
export const OrderRelais = z.object({ id: z.string(), name: z.string(), city: z.string().nullable() }).nullable().describe('The pick-up point chosen, as the pool names it');

/** One line of the buyer's orders dashboard: the reservation, its pool and its pick-up point. */
export const OrderSchema = ReservationSchema.extend({ pool: OrderPool, relais: OrderRelais }).describe('Order');
export type OrderView = z.infer<typeof OrderSchema>;

export const orderView = (row: ReservationRow, pool: PoolRow | undefined, now: Date): OrderView => {
  const facts = factsOfRow(row);
  const doc = pool?.doc;
  const point = doc && doc.type === 'GROUPS' ? (doc.fields.config.relais ?? []).find((r) => r.id === facts.relaisId) : undefined;
  return {
    // With its pool's facts: the escrow's actions (receipt, dispute) depend on them.
    ...reservationView(facts, now, doc ? { status: doc.status, closing: doc.closing ?? null } : undefined),
    pool: doc
      ? { id: doc.id, title: doc.fields.title, type: doc.type, status: doc.status, deadline: doc.fields.deadline }
      : // The pools projection has not caught up yet with a pool the reservation is on (never the case once it has).
        { id: facts.poolId, title: '', type: 'GROUPS', status: 'OPEN', deadline: null },
    relais: point ? { id: point.id, name: point.name, city: point.city ?? null } : facts.relaisId ? { id: facts.relaisId, name: facts.relaisId, city: null } : null,
  };
};

export const PoolDashboardAction = z.enum(['publish', 'list', 'refundLatePayments', 'deliver', 'respond_dispute', 'settle']);

export const PoolDashboardLine = z.object({
  poolId: z.string().uuid(),
  title: z.string(),
  type: PoolType,
  status: PoolStatus,
  marketplaceVisibility: z.string(),
  archived: z.boolean(),
  deadline: z.string().nullable(),
  stock: z.number().int().nullable().describe('Units on sale in all (GROUPS); null when any unit is unlimited, and for FUNDING'),
  goal: z.string().nullable().describe('FUNDING: the target amount'),
  fillRate: z
    .string()
    .nullable()
    .describe('GROUPS: (unitsHeld + unitsPaid) / stock; FUNDING: the goods of (amountHeld + amountPaid), escrow-deposit fees left out, / goal; 4 decimals ("0.5000"); null when unlimited or no goal'),
  unitsHeld: z.number().int().describe('Units in live PENDING reservations'),
  unitsPaid: z.number().int(),
  amountHeld: z.string().describe('Amount of live PENDING reservations (decimal string)'),
  amountPaid: z.string().describe('Funds in escrow from PAID reservations, from the events (decimal string)'),
  amountOwedBack: z.string().describe('Late deposits (reservation no longer held) not refunded yet (decimal string)'),
  reservations: z.object({ PENDING: z.number().int(), PAID: z.number().int(), EXPIRED: z.number().int(), CANCELLED: z.number().int() }),
  pendingActions: z
    .array(PoolDashboardAction)
    .describe(
      '`publish` a DRAFT; `list` an OPEN PRIVATE pool; `refundLatePayments` when deposits are owed back; `deliver` a successful pool released on receipt, not delivered yet; `respond_dispute` when a dispute waits for the organiser (OPEN); `settle` when something can be released or refunded now (or a prepared settlement waits to be carried out)',
    ),
});
export type PoolDashboardLine = z.infer<typeof PoolDashboardLine>;

export const OrganiserDashboard = z
  .object({
    pools: z.array(PoolDashboardLine).describe('Not archived first, then newest'),
    totals: z.object({
      pools: z.number().int(),
      unitsHeld: z.number().int(),
      unitsPaid: z.number().int(),
      amountHeld: z.string(),
      amountPaid: z.string(),
      amountOwedBack: z.string(),
    }),
  })
  .describe('OrganiserDashboard');
export type OrganiserDashboard = z.infer<typeof OrganiserDashboard>;

const unitsOf = (r: ReservationFacts) => r.lines.reduce((n, l) => n + l.quantity, 0);

export const poolDashboardLine = (pool: PoolRow, reservations: ReservationRow[], now: Date): PoolDashboardLine => {
  const doc = pool.doc;
  const counts = { PENDING: 0, PAID: 0, EXPIRED: 0, CANCELLED: 0 };
  let [unitsHeld, unitsPaid, held, paid, owed] = [0, 0, 0n, 0n, 0n];
  // A FUNDING goal counts the goods, not the escrow-deposit fees (as the closing does: docs/fees.md).
  let goods = 0n;
  const facts = reservations.map(factsOfRow);
  for (const r of facts) {
    const status = effectiveStatus(r, now);
    counts[status] += 1;
    if (status === 'PENDING') {
      unitsHeld += unitsOf(r);
      held += toMinor(r.amount);
      goods += toMinor(r.amount) - toMinor(r.depositFee);
    } else if (status === 'PAID') {
      unitsPaid += unitsOf(r);
      paid += toMinor(r.payment?.amount ?? r.amount);
      goods += toMinor(r.payment?.amount ?? r.amount) - toMinor(r.depositFee);
    }
    for (const late of r.latePayments) if (!isSettledBalance(r, late.balanceId)) owed += toMinor(late.amount);
  }
  const units = doc.type === 'GROUPS' ? (doc.fields.config.units ?? []) : [];
  const unlimited = doc.type !== 'GROUPS' || units.length === 0 || units.some((u) => u.quantity == null);
  const stock = unlimited ? null : units.reduce((n, u) => n + (u.quantity ?? 0), 0);
  const goal = doc.type === 'FUNDING' ? doc.fields.targetAmount : null;
  const fillRate =
    doc.type === 'FUNDING' ? (goal ? ratio(goods, toMinor(goal)) : null) : stock === null ? null : ratio(BigInt(unitsHeld + unitsPaid), BigInt(stock));
  const pendingActions: PoolDashboardLine['pendingActions'] = [];
  if (doc.status === 'DRAFT') pendingActions.push('publish');
  if (doc.status === 'OPEN' && doc.fields.marketplaceVisibility === 'PRIVATE') pendingActions.push('list');
  if (owed > 0n) pendingActions.push('refundLatePayments');
  pendingActions.push(...poolEscrowActions(doc, facts));
  return {
    poolId: doc.id,
    title: doc.fields.title,
    type: doc.type,
    status: doc.status,
    marketplaceVisibility: doc.fields.marketplaceVisibility,
    archived: doc.archivedAt !== null,
    deadline: doc.fields.deadline,
    stock,
    goal,
    fillRate,
    unitsHeld,
    unitsPaid,
    amountHeld: fromMinor(held),
    amountPaid: fromMinor(paid),
    amountOwedBack: fromMinor(owed),
    reservations: counts,
    pendingActions,
  };
};

/** The organiser's dashboard over their pools of one tenant: a line per pool (not archived first, newest first), and totals. */
export const organiserDashboard = (pools: PoolRow[], reservations: ReservationRow[], now: Date): OrganiserDashboard => {
  const byPool = new Map<string, ReservationRow[]>();
  for (const r of reservations) byPool.set(r.pool_id, [...(byPool.get(r.pool_id) ?? []), r]);
  const ordered = [...pools].sort(
    (a, b) => Number(a.archived_at !== null) - Number(b.archived_at !== null) || new Date(b.created_at).getTime() - new Date(a.created_at).getTime() || (a.id < b.id ? 1 : -1),
  );
  const lines = ordered.map((p) => poolDashboardLine(p, byPool.get(p.id) ?? [], now));
  const sum = (k: 'amountHeld' | 'amountPaid' | 'amountOwedBack') => fromMinor(lines.reduce((s, l) => s + toMinor(l[k]), 0n));
  return {
    pools: lines,
    totals: {
      pools: lines.length,
      unitsHeld: lines.reduce((n, l) => n + l.unitsHeld, 0),
      unitsPaid: lines.reduce((n, l) => n + l.unitsPaid, 0),
      amountHeld: sum('amountHeld'),
      amountPaid: sum('amountPaid'),
      amountOwedBack: sum('amountOwedBack'),
    },
  };
};

export interface Spending {
  currency: string;
  committed: string;
  escrowed: string;
  released: string;
}

/**
 * A buyer's spending from real payments: `escrowed` sums the verified deposits of their PAID reservations that no
 * settlement claimed yet, `committed` their live PENDING reservations (lazy expiry at `now`), `released` what the
 * settlements of their PAID reservations paid out to sellers, organisers and the platform (refunds to the buyer are not
 * spent). Every reservation is in the euro stablecoin.
 */
export const spendingOf = (rows: ReservationRow[], now: Date): Spending => {
  let [committed, escrowed, released] = [0n, 0n, 0n];
  for (const row of rows) {
    const r = factsOfRow(row);
    const status = effectiveStatus(r, now);
    if (status === 'PAID' && !(r.payment && isSettledBalance(r, r.payment.balanceId))) escrowed += toMinor(r.payment?.amount ?? r.amount);
    else if (status === 'PENDING') committed += toMinor(r.amount);
    for (const s of r.settlements) released += toMinor(s.released);
  }
  return { currency: 'EUR', committed: fromMinor(committed), escrowed: fromMinor(escrowed), released: fromMinor(released) };
};
