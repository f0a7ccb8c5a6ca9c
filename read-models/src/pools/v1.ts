import { z } from 'zod';
import { toPrefixedId, type PoolUnit } from '@cagnotte/event-schemas';
import type { PoolDocument } from './fold';
import type { ReservationView } from '../reservations/view';
import { toMinor } from '../reservations/amounts';

/*
 * The /v1 group-buy: a pool as the /v1 API serves it (docs/v1/group-buys.md). One engine: a group-buy is a pool, its
 * id `gb_<the pool's uuid, hex>`, so /api/pools/{uuid} and /v1/group-buys/gb_… are the same object. Pure mappings
 * of the pools document (and of the reservations, its orders), rendered by the command side from its own fold and
 * by the query side from the read model.
 */

/** `<prefix>_<the uuid's 32 hex digits>`: the /v1 id format, event-schemas' one spelling of it. */
export const v1IdOf = (prefix: 'gb' | 'acct' | 'ord', uuid: string): string => toPrefixedId(prefix, uuid);

/** The codes the /v1 group-buys answer, with their meaning: both apps register them (infra's registerV1ErrorCodes) for the OpenAPI document. */
export const GROUP_BUY_ERROR_CODES: Record<string, string> = {
  group_buy_not_found: 'No such group-buy for this key: missing, another tenant’s, another organiser’s or of the other mode',
  order_not_found: 'No such order in this group-buy',
  organise_capability_required: 'The key’s owner is no longer an organiser',
  pool_not_draft: 'Only a draft is published',
  pool_incomplete: 'A group-buy needs at least one item to be published',
  ledger_account_required: 'The account (the organiser publishing, the buyer paying) has no linked ledger account',
  pool_not_open: 'The group-buy takes no orders now (a draft, closed, cancelled)',
  pool_deadline_passed: 'The group-buy’s closesAt has passed',
  escrow_not_open: 'The group-buy has no escrow account yet',
  minimum_not_reached: 'Closing early needs the minimum of paid units: cancel it instead',
  pool_not_cancellable: 'A closed or settled group-buy is not cancelled',
  insufficient_stock: 'Not enough units of an item left',
  per_buyer_limit: 'Outside an item’s per-buyer limits',
  organiser_cannot_reserve: 'The organiser does not order in their own group-buy',
  nothing_to_pay: 'The order costs nothing',
  ledger_amount_exceeded: 'An amount exceeds what one ledger payment carries',
  secret_key_refused: 'A value shaped like a Stellar secret key was refused',
  reservation_not_signed: 'Ask for the order’s payment (POST …/payment) before submitting it',
  payment_mismatch: 'The transaction does not pay this order exactly',
  terms_outdated: 'These are not the current terms',
  nothing_to_settle: 'Nothing is due to settle now',
  pool_not_closed: 'An open group-buy settles only deposits owed back, and owes none',
  payout_account_required: 'No account to pay the seller’s share to',
  payout_account_not_ready: 'A recipient does not trust the stablecoin yet',
  too_late_to_settle: 'Too close to reclaimAfter: each buyer reclaims their own deposit',
  not_in_settlement: 'A transaction submitted is not one of the settlement’s',
  stray_payments_unrecorded: 'The escrow’s balance and the recorded stray payments disagree: prepare again',
  too_many_stray_payments: 'More stray payments than one settlement pays back',
};

/** The pool's mode: recorded at creation (PoolCreated v4), else the deployment's (`production` is live). */
export const livemodeOfDoc = (doc: Pick<PoolDocument, 'livemode'>, production: boolean): boolean => doc.livemode ?? production;

export const GroupBuyStatus = z.enum(['draft', 'open', 'locked', 'released', 'completed', 'failed', 'cancelled', 'settled']);
export type GroupBuyStatus = z.infer<typeof GroupBuyStatus>;

const Amount = z.string().describe('Decimal string, never a float');
const Tier = z.object({ minUnits: z.number().int().describe('From this many units held or paid in all…'), unitAmount: Amount.describe('…the unit costs this') });

export const GroupBuyItem = z.object({
  id: z.string().describe('The item’s id in this group-buy (an order names it as `itemId`)'),
  description: z.string(),
  unitAmount: Amount.describe('The unit price before any tier is reached'),
  quantity: z.number().int().nullable().describe('The stock; null: no limit'),
  maxPerBuyer: z.number().int().nullable(),
  minPerBuyer: z.number().int().nullable(),
  tiers: z.array(Tier),
  unitsReserved: z.number().int().describe('Units held by live pending orders and paid'),
  currentTier: Tier.nullable().describe('The tier reached now (after closing: by paid units, the price settled at); null: the base price'),
});
export type GroupBuyItem = z.infer<typeof GroupBuyItem>;

export const GroupBuyV1 = z
  .object({
    id: z.string().describe('`gb_<32 hex>`: the pool `/api/pools/{uuid}` with the same hex digits'),
    object: z.literal('group_buy'),
    livemode: z.boolean(),
    created: z.string(),
    status: GroupBuyStatus,
    title: z.string(),
    description: z.string(),
    currency: z.literal('EUR'),
    closesAt: z.string().nullable().describe('The deadline: the group-buy closes on its own then'),
    releaseAfter: z.enum(['close', 'receipt']).describe('What releases the funds of a group-buy that succeeded'),
    inspectionDays: z.number().int().nullable(),
    minimumUnits: z.number().int().nullable().describe('Paid units below which it fails at its deadline (1 when null)'),
    items: z.array(GroupBuyItem),
    unitsReserved: z.number().int().describe('Σ of the items’ unitsReserved'),
    currentTier: Tier.extend({ itemId: z.string() }).nullable().describe('The first item’s tier reached, if any (a one-item group-buy’s tier); see each item’s'),
    organiser: z.string().describe('`acct_…`: the organiser (the API key’s owner)'),
    escrow: z
      .object({
        account: z.string().describe('The escrow account on the ledger'),
        reclaimAfter: z.string().describe('From then on each buyer can take back an unreleased deposit alone'),
      })
      .nullable()
      .describe('Opened at publication; null while a draft'),
    closing: z
      .object({
        outcome: z.enum(['succeeded', 'failed']),
        closedAt: z.string(),
        paidUnits: z.number().int(),
        paidAmount: Amount,
      })
      .nullable(),
    publishedAt: z.string().nullable(),
    cancelledAt: z.string().nullable(),
    settledAt: z.string().nullable(),
    urls: z.object({ api: z.string().describe('The same pool on /api'), orders: z.string() }),
  })
  .describe('GroupBuy (v1)');
export type GroupBuyV1 = z.infer<typeof GroupBuyV1>;

/** Units held (live PENDING) or paid, per unit id. */
export type UnitsReserved = ReadonlyMap<string, number>;

/**
 * The tier a unit's price reached with `units` held or paid in all: the cheapest tier whose minimum is reached, as the
 * domain's `tierPrice` prices a reservation (command-api/src/pools/v1-ids.unit.spec.ts checks they agree).
 */
export const reachedTier = (unit: PoolUnit, units: number): { minUnits: number; unitAmount: string } | null => {
  let best: { minUnits: number; unitAmount: string } | null = null;
  for (const t of unit.tiers ?? []) {
    if (units >= t.minQuantity && toMinor(t.price) < toMinor(best?.unitAmount ?? unit.price)) best = { minUnits: t.minQuantity, unitAmount: t.price };
  }
  return best;
};

const itemOf = (doc: PoolDocument, unit: PoolUnit, reserved: UnitsReserved): GroupBuyItem => {
  const held = reserved.get(unit.id) ?? 0;
  // After closing the price is frozen by the paid units: the tier it reached is the one whose price it settled at.
  const final = doc.closing?.finalPrices.find((p) => p.unitId === unit.id);
  const tier = final
    ? ((unit.tiers ?? []).filter((t) => toMinor(t.price) === toMinor(final.price)).map((t) => ({ minUnits: t.minQuantity, unitAmount: t.price }))[0] ?? null)
    : reachedTier(unit, held);
  return {
    id: unit.id,
    description: unit.label,
    unitAmount: unit.price,
    quantity: unit.quantity ?? null,
    maxPerBuyer: unit.maxPerBuyer ?? null,
    minPerBuyer: unit.minPerBuyer ?? null,
    tiers: (unit.tiers ?? []).map((t) => ({ minUnits: t.minQuantity, unitAmount: t.price })),
    unitsReserved: held,
    currentTier: tier,
  };
};

/** The /v1 group-buy of a pools document, with the units its reservations hold and the deployment's mode (for pools older than `livemode`). */
export const groupBuyV1Of = (doc: PoolDocument, reserved: UnitsReserved, production: boolean): GroupBuyV1 => {
  const id = v1IdOf('gb', doc.id);
  const config = doc.fields.config;
  const items = (config.units ?? []).map((u) => itemOf(doc, u, reserved));
  const first = items.find((i) => i.currentTier !== null);
  return {
    id,
    object: 'group_buy',
    livemode: livemodeOfDoc(doc, production),
    created: doc.createdAt,
    status: GroupBuyStatus.parse(doc.status.toLowerCase()),
    title: doc.fields.title,
    description: doc.fields.description,
    currency: 'EUR',
    closesAt: doc.fields.deadline,
    releaseAfter: (config.release?.after ?? (doc.type === 'FUNDING' ? 'CLOSE' : 'RECEIPT')) === 'CLOSE' ? 'close' : 'receipt',
    inspectionDays: config.release?.inspectionDays ?? null,
    minimumUnits: config.minimumUnits ?? null,
    items,
    unitsReserved: items.reduce((n, i) => n + i.unitsReserved, 0),
    currentTier: first ? { itemId: first.id, ...first.currentTier! } : null,
    organiser: v1IdOf('acct', doc.organiserId),
    escrow: doc.escrow ? { account: doc.escrow.accountId, reclaimAfter: doc.escrow.reclaimAfter } : null,
    closing: doc.closing
      ? { outcome: doc.closing.outcome === 'SUCCEEDED' ? 'succeeded' : 'failed', closedAt: doc.closing.closedAt, paidUnits: doc.closing.paidUnits, paidAmount: doc.closing.paidAmount }
      : null,
    publishedAt: doc.publishedAt,
    cancelledAt: doc.cancelledAt ?? null,
    settledAt: doc.settledAt ?? null,
    urls: { api: `/api/pools/${doc.id}`, orders: `/v1/group-buys/${id}/orders` },
  };
};

/** Units held or paid per unit id, from reservations as the views render them (a stale PENDING reads EXPIRED: it holds nothing). */
export const unitsReservedOf = (reservations: Array<Pick<ReservationView, 'status' | 'lines'>>): Map<string, number> => {
  const out = new Map<string, number>();
  for (const r of reservations) {
    if (r.status !== 'PENDING' && r.status !== 'PAID') continue;
    for (const l of r.lines) out.set(l.unitId, (out.get(l.unitId) ?? 0) + l.quantity);
  }
  return out;
};

export const GroupBuyOrder = z
  .object({
    id: z.string().describe('`ord_<32 hex>`: the reservation'),
    object: z.literal('group_buy_order'),
    livemode: z.boolean(),
    created: z.string(),
    groupBuy: z.string(),
    buyer: z.string().describe('`acct_…`'),
    status: z.enum(['pending', 'paid', 'expired', 'cancelled']),
    items: z.array(z.object({ itemId: z.string(), quantity: z.number().int(), unitAmount: Amount.describe('The price charged (the tier reached when it was placed)') })),
    amount: Amount.describe('What the buyer pays into escrow: the goods plus `depositFee`'),
    depositFee: Amount,
    currency: z.literal('EUR'),
    expiresAt: z.string().describe('A pending order that is not paid by then expires'),
    payment: z.object({ txHash: z.string(), amount: Amount }).nullable(),
    settlements: z.array(z.object({ released: Amount, refunded: Amount.describe('Back to the buyer: the tier difference, a dispute, a failed group-buy'), txHash: z.string() })),
  })
  .describe('GroupBuyOrder (v1)');
export type GroupBuyOrder = z.infer<typeof GroupBuyOrder>;

/** The /v1 order of a reservation view, in its group-buy's mode. */
export const groupBuyOrderOf = (r: ReservationView, livemode: boolean): GroupBuyOrder => ({
  id: v1IdOf('ord', r.id),
  object: 'group_buy_order',
  livemode,
  created: r.placedAt,
  groupBuy: v1IdOf('gb', r.poolId),
  buyer: v1IdOf('acct', r.buyerId),
  status: r.status === 'PAID' ? 'paid' : r.status === 'PENDING' ? 'pending' : r.status === 'EXPIRED' ? 'expired' : 'cancelled',
  items: r.lines.map((l) => ({ itemId: l.unitId, quantity: l.quantity, unitAmount: l.unitPrice })),
  amount: r.amount,
  depositFee: r.depositFee,
  currency: 'EUR',
  expiresAt: r.expiresAt,
  payment: r.payment ? { txHash: r.payment.txHash, amount: r.payment.amount } : null,
  settlements: r.settlements.map((s) => ({ released: s.released, refunded: s.refunded, txHash: s.txHash })),
});
