import { z } from 'zod';
import { NotFoundError, holdsAt, type Pool } from '@cagnotte/domain';
import { CountryCode, IsoDate, StellarAccountId } from '@cagnotte/event-schemas';
import {
  LedgerAmount,
  V1Currency,
  defineRoute,
  fromPrefixedId,
  livemodeOf,
  prefixedIdParam,
  registerV1ErrorCodes,
  type ApiKeyContext,
  type RouteAnswer,
  type RouteDef,
} from '@cagnotte/infra';
import { GROUP_BUY_ERROR_CODES, GroupBuyV1, groupBuyV1Of, livemodeOfDoc } from '@cagnotte/read-models';
import { POSITION_HEADER } from '../shared/execute-command';
import { cancelPool, closePool } from '../escrow/closing';
import { makeSettlementRoutes } from '../escrow/settlement';
import { tenantOf } from '../reservations/runtime';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import type { EscrowDeps } from '../escrow/runtime';
import { poolAggregate, poolInTenant, type PoolCommandState, type PoolOutcome } from './aggregate';
import { documentOf } from './answers';
import type { PoolCommandDeps } from './deps';
import { createPool, publishPool, type MerchantPoolCreateInput } from './routes';

/*
 * /v1/group-buys: the pool engine through /v1 (docs/v1/group-buys.md). A group-buy is a GROUPS pool: these routes
 * map the /v1 shapes onto the very commands /api/pools takes (createPool, publishPool, closePool, cancelPool), and
 * answer the /v1 view of the command's own fold. The orders are in ./v1-orders.ts.
 */

registerV1ErrorCodes(GROUP_BUY_ERROR_CODES);

const TAGS = ['Group-buys'];
export const GroupBuyParams = z.object({ id: prefixedIdParam('gb') });

const Tier = z
  .object({
    minUnits: z.number().int().min(2).max(1_000_000).describe('From this many units held or paid in all (every buyer’s)…'),
    unitAmount: LedgerAmount.describe('…each unit costs this (decimal string)'),
  })
  .strict();

const ItemInput = z
  .object({
    description: z.string().trim().min(1).max(200),
    unitAmount: LedgerAmount.describe('The unit price before any tier (decimal string)'),
    quantity: z.number().int().min(1).max(1_000_000).nullable().optional().describe('The stock; absent or null: no limit'),
    maxPerBuyer: z.number().int().min(1).max(1_000_000).optional(),
    minPerBuyer: z.number().int().min(1).max(1_000_000).optional(),
    tiers: z.array(Tier).max(10).optional().describe('Group discounts: the cheapest tier reached prices every unit at settlement'),
  })
  .strict();

export const GroupBuyCreateInput = z
  .object({
    title: z.string().trim().min(1).max(200),
    description: z.string().max(10_000).default(''),
    currency: V1Currency,
    items: z.array(ItemInput).min(1).max(200),
    closesAt: IsoDate.describe('The deadline: the group-buy closes on its own then (succeeded with its minimum of paid units, else failed)'),
    minimumUnits: z.number().int().min(1).max(1_000_000_000).optional().describe('Paid units below which it fails at closesAt (default 1)'),
    releaseAfter: z.enum(['close', 'receipt']).optional().describe('What releases the funds: `close` at once, `receipt` (default) each buyer’s confirmation or the inspection period'),
    inspectionDays: z.number().int().min(1).max(60).optional(),
    country: CountryCode.default('FR'),
    payoutAccount: StellarAccountId.optional().describe('Where the seller’s share goes; default the organiser’s linked ledger account'),
  })
  .strict()
  .describe('GroupBuyCreateInput');
export type GroupBuyCreateInput = z.infer<typeof GroupBuyCreateInput>;

/** Item `i` is unit `item_<i+1>` of the pool: the ids an order names. */
const itemId = (i: number) => `item_${i + 1}`;

/** The /api pool a /v1 group-buy creates: a GROUPS pool, PRIVATE (a partner's own checkout sells it). */
export const poolInputOf = (b: GroupBuyCreateInput): MerchantPoolCreateInput => ({
  type: 'GROUPS',
  title: b.title,
  description: b.description,
  country: b.country,
  currency: b.currency,
  marketplaceVisibility: 'PRIVATE',
  config: {
    units: b.items.map((it, i) => ({
      id: itemId(i),
      label: it.description,
      price: it.unitAmount,
      ...(it.quantity != null ? { quantity: it.quantity } : {}),
      ...(it.maxPerBuyer !== undefined ? { maxPerBuyer: it.maxPerBuyer } : {}),
      ...(it.minPerBuyer !== undefined ? { minPerBuyer: it.minPerBuyer } : {}),
      ...(it.tiers ? { tiers: it.tiers.map((t) => ({ minQuantity: t.minUnits, price: t.unitAmount })) } : {}),
    })),
    ...(b.minimumUnits !== undefined ? { minimumUnits: b.minimumUnits } : {}),
    ...(b.releaseAfter !== undefined || b.inspectionDays !== undefined
      ? { release: { after: b.releaseAfter === 'close' ? 'CLOSE' : 'RECEIPT', ...(b.inspectionDays !== undefined ? { inspectionDays: b.inspectionDays } : {}) } }
      : {}),
  },
  sellerId: null,
  payoutAccount: b.payoutAccount ?? null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: b.closesAt,
  acceptCommissionMandate: false,
});

/** Units held (live PENDING) or paid per unit, from the command's own fold. */
export const unitsHeldIn = (pool: Pool, now: Date): Map<string, number> => {
  const held = new Map<string, number>();
  if (pool.status === 'none') return held;
  const at = now.toISOString();
  for (const r of pool.holdings.byId.values()) if (holdsAt(r, at)) for (const l of r.lines) held.set(l.unitId, (held.get(l.unitId) ?? 0) + l.quantity);
  return held;
};

/** The answer of a group-buy command: the /v1 view of the pool as of the command's own revision. */
export const groupBuyAnswer =
  (production: boolean, now: () => Date, status = 200) =>
  (o: PoolOutcome): RouteAnswer => ({ status, data: groupBuyV1Of(documentOf(o), unitsHeldIn(o.state.pool, now()), production) });

/** The caller of a /v1 route: the key (or the session's user) and its mode. */
export interface V1Caller {
  auth: { userId: string } | null;
  apiKey: ApiKeyContext | null;
}

/**
 * The pool as a /v1 caller may act on it: a GROUPS pool of its own (the key's owner organises it), in the key's mode.
 * Anything else (none, a FUNDING pool, another tenant's, another organiser's, the other mode) is a 404
 * `group_buy_not_found`, alike.
 */
export const keyPool =
  (ctx: V1Caller, production: boolean) =>
  (state: PoolCommandState, pool: Pool): Pool => {
    if (
      pool.status === 'none' ||
      pool.type !== 'GROUPS' ||
      pool.organiserId !== ctx.auth?.userId ||
      !state.doc ||
      livemodeOfDoc(state.doc.pool, production) !== livemodeOf(ctx, production)
    ) {
      throw new NotFoundError('group_buy');
    }
    return pool;
  };

/** The pool id of a `gb_` path parameter (the kit already answered 404 to a malformed one). */
export const poolIdOf = (id: string): string => {
  const uuid = fromPrefixedId('gb', id);
  if (!uuid) throw new NotFoundError('group_buy');
  return uuid;
};

export type GroupBuyCommandDeps = PoolCommandDeps & EscrowDeps;

export const makeGroupBuyCommandRoutes = (deps: GroupBuyCommandDeps): RouteDef[] => {
  const { production } = deps;
  const now = () => deps.clock();
  const common = { tags: TAGS, auth: 'required', tenant: 'required', idempotent: true, v1: { resource: 'group_buys', access: 'write' } } as const;
  const success = (description: string, status = 200) => ({ status, description, schema: GroupBuyV1 });
  const position = { [POSITION_HEADER]: 'Feed position of the write' };

  const create = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys',
    summary: 'Create a group-buy (a draft)',
    description:
      'The key’s owner organises it. Items are priced per unit, with optional `tiers`: the cheapest tier reached by the units held or paid in all prices each order when it is placed, and the tier reached by paid units at closing prices every unit at settlement (the difference goes back to each buyer). The same pool reads back on /api as `GET /api/pools/{uuid}` (the id’s hex digits). Answers the group-buy in the key’s mode.',
    body: GroupBuyCreateInput,
    success: success('The draft group-buy', 201),
    responseHeaders: position,
    errors: [400, 401, 403, 404, 409, 503],
    handler: (ctx) => createPool(deps, ctx, poolInputOf(ctx.body), { livemode: livemodeOf(ctx, production), respond: groupBuyAnswer(production, now, 201) }),
  });

  const publish = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys/{id}/publish',
    summary: 'Publish a draft group-buy: its escrow account opens on the ledger, orders can be placed',
    description:
      'The escrow account is opened with the organiser’s linked ledger account and the platform as cosigners (docs/escrow.md): nobody moves the buyers’ money alone. 400 `ledger_account_required` when the key’s owner has no linked ledger account, `pool_not_draft`.',
    params: GroupBuyParams,
    success: success('The open group-buy'),
    responseHeaders: position,
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => publishPool(deps, ctx, poolIdOf(ctx.params.id), groupBuyAnswer(production, now), keyPool(ctx, production)),
  });

  const close = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys/{id}/close',
    summary: 'Close a group-buy early, once its minimum of paid units is reached',
    description:
      'Pending orders end; the prices become final: each item at the tier its paid units reached. The group-buy is `locked` (its deposits wait for release, then settlement) or, at its deadline below the minimum, `failed`. 400 `minimum_not_reached` (cancel it instead).',
    params: GroupBuyParams,
    success: success('The closed group-buy'),
    responseHeaders: position,
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => closePool(deps, ctx, poolIdOf(ctx.params.id), groupBuyAnswer(production, now), keyPool(ctx, production)),
  });

  const cancel = defineRoute({
    ...common,
    method: 'post',
    path: '/v1/group-buys/{id}/cancel',
    summary: 'Cancel a draft or open group-buy: every paid order is owed back',
    description: 'Pending orders end; paid deposits go back to their buyers at the refund settlement the organiser cosigns (or by each buyer’s own reclaim later). 400 `pool_not_cancellable`.',
    params: GroupBuyParams,
    body: z.object({ reason: z.string().max(500).optional() }).strict(),
    success: success('The cancelled group-buy'),
    responseHeaders: position,
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => cancelPool(deps, ctx, poolIdOf(ctx.params.id), ctx.body.reason ?? null, groupBuyAnswer(production, now), keyPool(ctx, production)),
  });

  // Settlement: the organiser cosigns it with their own ledger key, as on /api. The very /api handlers run, once
  // the key may see the group-buy (its own, in its mode).
  const api = makeSettlementRoutes(deps);
  const apiRoute = (path: string) => api.find((r) => r.path === path)!;
  const settlement = (apiPath: string, path: string, summary: string, status: number) => {
    const delegate = apiRoute(apiPath);
    return defineRoute({
      ...common,
      method: 'post',
      path,
      summary,
      description: `${delegate.description ?? ''}\n\nThe same operation as \`POST ${apiPath}\` (docs/escrow.md), for the key’s own group-buy.`,
      params: GroupBuyParams,
      ...(delegate.body ? { body: delegate.body } : {}),
      success: { ...delegate.success, status },
      responseHeaders: position,
      errors: delegate.errors,
      handler: async (ctx) => {
        const poolId = poolIdOf(ctx.params.id);
        const state = await loadState(deps.store, poolStream(poolId), poolAggregate);
        keyPool(ctx, production)(state, poolInTenant(state.pool, tenantOf(ctx)));
        return delegate.handler({ ...ctx, params: { id: poolId } });
      },
    });
  };

  return [
    create,
    publish,
    close,
    cancel,
    settlement('/api/pools/{id}/escrow/settlement', '/v1/group-buys/{id}/settlement', 'Prepare the settlement of what is due: the transactions the organiser cosigns', 201),
    settlement('/api/pools/{id}/escrow/settlement/submit', '/v1/group-buys/{id}/settlement/submit', 'Submit the cosigned settlement: verified on the ledger, recorded per recipient', 200),
  ];
};
