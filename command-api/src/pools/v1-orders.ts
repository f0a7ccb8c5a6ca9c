import { z } from 'zod';
import { NotFoundError, ValidationError, type Pool } from '@cagnotte/domain';
import { defineRoute, fromPrefixedId, livemodeOf, prefixedIdParam, type AuthContext, type RouteDef } from '@cagnotte/infra';
import { GroupBuyOrder, groupBuyOrderOf, type ReservationView } from '@cagnotte/read-models';
import { POSITION_HEADER } from '../shared/execute-command';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { payReservation, placeReservation, signReservation } from '../reservations/commands';
import { reservationOf, tenantOf, type ReservationDeps } from '../reservations/runtime';
import { poolAggregate, poolInTenant, type PoolCommandState, type PoolOutcome } from './aggregate';
import { GroupBuyParams, keyPool, poolIdOf, type V1Caller } from './v1-routes';

/*
 * A group-buy's orders through /v1: the organiser's key places an order for a buyer account of its tenant
 * (`acct_…`), hands the buyer the deposit to sign (`…/payment`), and submits what the buyer signed (`…/submit`).
 * Each is the reservation command /api takes (placeReservation, signReservation, payReservation), decided for the
 * buyer: the deposit is the buyer's own claimable balance from their linked ledger account, signed with their key,
 * and the escrow takes it as it takes any. The events' metadata names the key's owner as the caller.
 */

const TAGS = ['Group-buys'];
const OrderParams = GroupBuyParams.extend({ orderId: prefixedIdParam('ord') });
const TxHash = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, 'must be a 64-character hex transaction hash')
  .transform((h) => h.toLowerCase());

export const OrderCreateInput = z
  .object({
    buyer: z.string().max(80).describe('`acct_…`: the buyer, an account of the key’s tenant; they sign and pay the deposit with their own ledger account'),
    items: z
      .array(z.object({ itemId: z.string().min(1).max(64), quantity: z.number().int().min(1).max(1_000_000) }).strict())
      .min(1)
      .max(200),
  })
  .strict()
  .describe('GroupBuyOrderCreateInput');

const XdrToSign = z.object({
  xdr: z.string().describe('Unsigned transaction envelope (base64 XDR): the buyer signs it with their key'),
  hash: z.string(),
  networkPassphrase: z.string(),
});

export const OrderPayment = z
  .object({
    object: z.literal('order_payment'),
    order: GroupBuyOrder,
    deposit: XdrToSign.extend({
      amount: z.string(),
      escrowAccount: z.string(),
      balanceId: z.string(),
      expiresAt: z.string().describe('The ledger refuses the deposit after this time (the order expires)'),
    }).describe('The deposit: a claimable balance of exactly the order’s amount, claimable by the escrow until `reclaimAfter` and by the buyer from then on'),
    reclaim: XdrToSign.extend({ balanceId: z.string(), validAfter: z.string() }).describe('The buyer’s own way back, valid from `validAfter`: hand it to the buyer only'),
  })
  .describe('GroupBuyOrderPayment');

export const OrderPaymentResult = z
  .object({
    object: z.literal('order_payment_result'),
    paid: z.boolean(),
    pending: z.boolean().optional().describe('The ledger does not show the transaction yet: submit again'),
    latePayment: z.boolean().optional().describe('It landed when the order no longer held: owed back to the buyer'),
    txHash: z.string().optional(),
    order: GroupBuyOrder.optional(),
  })
  .describe('GroupBuyOrderPaymentResult');

export type GroupBuyOrderDeps = ReservationDeps & { production: boolean };

/**
 * The buyer named by `acct_…`: an account of the tenant in the key's mode (an account a partner created has its own,
 * any other the deployment's: the /v1 accounts' rule), else a 400 on `buyer`.
 */
const buyerOf = async (deps: GroupBuyOrderDeps, auth: AuthContext, tenantId: string, livemode: boolean, id: string): Promise<AuthContext> => {
  const userId = fromPrefixedId('acct', id);
  const account = userId ? await deps.facts.account(userId) : null;
  if (!account || account.status === 'none' || account.tenantId !== tenantId || (account.partner?.livemode ?? deps.production) !== livemode) {
    throw new ValidationError({ buyer: [`${id} is no account of this tenant`] });
  }
  // The buyer's decision, the caller's request: the reservation is decided for them, the metadata names the key's owner.
  return { ...auth, userId: account.userId };
};

/** The key's own pool, holding the order named: anything else is the group-buy's or the order's 404. */
const orderIn =
  (ctx: V1Caller & { tenant: { id: string } | null }, production: boolean, reservationId: string) =>
  (state: PoolCommandState): Pool => {
    const pool = keyPool(ctx, production)(state, poolInTenant(state.pool, ctx.tenant?.id ?? ''));
    if (pool.status === 'none' || !pool.holdings.byId.has(reservationId)) throw new NotFoundError('order');
    return pool;
  };

export const makeGroupBuyOrderRoutes = (deps: GroupBuyOrderDeps): RouteDef[] => {
  const { production, clock } = deps;
  const passphrase = deps.ledger.settings.networkPassphrase;
  const common = { tags: TAGS, auth: 'required', tenant: 'required', idempotent: true, v1: { resource: 'group_buys', access: 'write' } } as const;
  const orderView = (o: PoolOutcome, reservationId: string, livemode: boolean) => groupBuyOrderOf(reservationOf(o.state, reservationId, clock()) as ReservationView, livemode);

  /** The order's reservation id and its buyer, read from the pool's stream as the key may see it. */
  const theOrder = async (ctx: V1Caller & { tenant: { id: string } | null }, poolId: string, orderId: string) => {
    const reservationId = fromPrefixedId('ord', orderId);
    if (!reservationId) throw new NotFoundError('order');
    const state = await loadState(deps.store, poolStream(poolId), poolAggregate);
    const pool = orderIn(ctx, production, reservationId)(state);
    return { reservationId, buyerId: pool.status === 'none' ? '' : pool.holdings.byId.get(reservationId)!.buyerId };
  };

  const place = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys/{id}/orders',
    summary: 'Place an order for a buyer: its units are held until it expires',
    description: [
      'The key’s owner (the organiser) places it for `buyer`, an account of its tenant (`acct_…`, 400 on `buyer` otherwise). Each item is priced at the tier reached with this order’s units included. It is `pending` until `expiresAt` (the tenant’s reservation time), then expires and frees its units unless paid.',
      'No oversell: 409 `insufficient_stock` says what is left; 400 `per_buyer_limit`, `pool_not_open`, `pool_deadline_passed`; 403 `organiser_cannot_reserve` for the organiser’s own account.',
    ].join('\n\n'),
    params: GroupBuyParams,
    body: OrderCreateInput,
    success: { status: 201, description: 'The pending order', schema: GroupBuyOrder },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404, 409, 503],
    handler: async (ctx) => {
      const poolId = poolIdOf(ctx.params.id);
      // A group-buy the key may not see is its 404 whatever the body says: checked before the buyer is looked up.
      const own = keyPool(ctx, production);
      const read = await loadState(deps.store, poolStream(poolId), poolAggregate);
      own(read, poolInTenant(read.pool, tenantOf(ctx)));
      const livemode = livemodeOf(ctx, production);
      const buyer = await buyerOf(deps, ctx.auth!, tenantOf(ctx), livemode, ctx.body.buyer);
      const lines = ctx.body.items.map((i) => ({ unitId: i.itemId, quantity: i.quantity }));
      // Decided on the key's own pool as its stream says now (its organiser hears why a draft or a closed one takes no order).
      return placeReservation(deps, ctx, poolId, { lines }, buyer, (o, reservationId) => ({ status: 201, data: orderView(o, reservationId, livemode) }), (state) =>
        own(state, poolInTenant(state.pool, tenantOf(ctx))),
      );
    },
  });

  const payment = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys/{id}/orders/{orderId}/payment',
    summary: 'The deposit for the buyer to sign (and their reclaim)',
    description: [
      'Records that the buyer accepts the current reservation terms (GET /api/pools/{uuid}/terms: show them to the buyer first) and answers the unsigned deposit: a claimable balance of exactly the order’s `amount` from the buyer’s linked ledger account, claimable by the escrow until `reclaimAfter` and by the buyer from then on, bound to the order by its memo, valid until the order expires.',
      'The buyer signs it with their own key (never the platform’s, never yours), then you submit it (`…/submit`). `reclaim` is the buyer’s way back from `reclaimAfter` if nobody settles: hand it to the buyer only. 400 `ledger_account_required` when the buyer has no linked ledger account.',
    ].join('\n\n'),
    params: OrderParams,
    body: z.object({ acceptTerms: z.literal(true).describe('The buyer accepted the current reservation terms') }).strict(),
    success: { status: 200, description: 'The deposit to sign', schema: OrderPayment },
    errors: [400, 401, 404, 503],
    handler: async (ctx) => {
      const poolId = poolIdOf(ctx.params.id);
      const { reservationId, buyerId } = await theOrder(ctx, poolId, ctx.params.orderId);
      const livemode = livemodeOf(ctx, production);
      const within = orderIn(ctx, production, reservationId);
      return signReservation(deps, ctx, poolId, reservationId, { ...ctx.auth!, userId: buyerId }, (o, d) => ({
        status: 200,
        data: {
          object: 'order_payment',
          order: orderView(o, reservationId, livemode),
          deposit: { xdr: d.payment.xdr, hash: d.payment.hash, networkPassphrase: passphrase, amount: d.payment.amount, escrowAccount: d.payment.escrowAccount, balanceId: d.payment.balanceId, expiresAt: d.payment.expiresAt },
          reclaim: { ...d.reclaim, networkPassphrase: passphrase },
        },
      }), (state) => within(state));
    },
  });

  const submit = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys/{id}/orders/{orderId}/submit',
    summary: 'Submit the deposit the buyer signed: verified on the ledger, the order is paid',
    description: [
      'Send `txHash` when the signed deposit was submitted to the ledger already, or `signedXdr` for the service to submit it (only if it is exactly this order’s deposit). The service reads it back from the ledger and checks every term (source, asset, exact amount, memo, claimants, reclaim time) before the order is `paid`; anything else is a 400 `payment_mismatch` and records nothing.',
      '`{paid: true, order}`; `{pending: true}` while the ledger does not show it (submit again); `{latePayment: true}` when it landed after the order stopped holding (owed back to the buyer).',
    ].join('\n\n'),
    params: OrderParams,
    body: z
      .object({ txHash: TxHash.optional(), signedXdr: z.string().min(1).max(20_000).optional() })
      .strict()
      .refine((b) => b.txHash !== undefined || b.signedXdr !== undefined, { message: 'give txHash or signedXdr', path: ['txHash'] }),
    success: { status: 200, description: 'Paid, pending or late', schema: OrderPaymentResult },
    errors: [400, 401, 404, 503],
    handler: async (ctx) => {
      const poolId = poolIdOf(ctx.params.id);
      const { reservationId, buyerId } = await theOrder(ctx, poolId, ctx.params.orderId);
      const livemode = livemodeOf(ctx, production);
      const within = orderIn(ctx, production, reservationId);
      const answer = await payReservation(deps, ctx, poolId, reservationId, ctx.body, { ...ctx.auth!, userId: buyerId }, (o, observed) => {
        const order = orderView(o, reservationId, livemode);
        const paid = order.payment?.txHash === observed.txHash;
        return { status: 200, data: { object: 'order_payment_result', paid, ...(paid ? {} : { latePayment: true }), txHash: observed.txHash, order } };
      }, (state) => within(state));
      // Not on the ledger yet: the reservation's answer, in this resource's shape.
      const data = answer.data as { object?: string; paid: boolean; pending?: boolean; txHash?: string };
      return data.object ? answer : { ...answer, data: { object: 'order_payment_result', paid: data.paid, pending: data.pending ?? false, ...(data.txHash ? { txHash: data.txHash } : {}) } };
    },
  });

  return [place, payment, submit];
};
