import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { V1ListQuery, cursorPage, defineRoute, fromPrefixedId, livemodeOf, prefixedIdParam, registerV1ErrorCodes, unknownCursor, v1List, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { GROUP_BUY_ERROR_CODES, GroupBuyOrder, GroupBuyV1, type GroupBuyReader, type GroupBuyScope } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// GET /v1/group-buys…: the pools and reservations read models as the /v1 group-buys (docs/v1/group-buys.md).
registerV1ErrorCodes(GROUP_BUY_ERROR_CODES);
const PROJECTIONS = ['pools', 'reservations'];
const TAGS = ['Group-buys'];
const read = { tags: TAGS, auth: 'required', tenant: 'required', v1: { resource: 'group_buys', access: 'read' } } as const;
const Params = z.object({ id: prefixedIdParam('gb') });

export interface GroupBuyQueryDeps extends ConsistencyDeps {
  groupBuys: GroupBuyReader;
  /** The deployment's mode (APP_ENV=production is live): a session's, and a pool's created before livemode was recorded. */
  production: boolean;
  clock?: () => Date;
}

export const makeGroupBuyQueryRoutes = (deps: GroupBuyQueryDeps): RouteDef[] => {
  const { groupBuys, production } = deps;
  const clock = deps.clock ?? (() => new Date());
  /** The key's owner's group-buys of its tenant, in its mode. */
  const scopeOf = (ctx: RequestContext<unknown, unknown, unknown>): GroupBuyScope => ({
    tenantId: ctx.tenant!.id,
    ownerId: ctx.auth!.userId,
    livemode: livemodeOf(ctx, production),
    production,
  });
  const poolIdOf = (id: string) => {
    const uuid = fromPrefixedId('gb', id);
    if (!uuid) throw new NotFoundError('group_buy');
    return uuid;
  };

  const one = defineRoute({
    ...read,
    method: 'get',
    path: '/v1/group-buys/{id}',
    summary: 'A group-buy',
    description: 'The key’s owner’s group-buy, in the key’s mode; anything else is a 404 `group_buy_not_found`. `gb_<hex>` is the pool `/api/pools/<uuid>`. Send `X-Min-Position` to read a write made elsewhere.',
    params: Params,
    success: { status: 200, description: 'The group-buy', schema: GroupBuyV1 },
    errors: [401, 403, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const found = await groupBuys.one(poolIdOf(ctx.params.id), scopeOf(ctx), clock());
      if (!found) throw new NotFoundError('group_buy');
      return { data: found };
    },
  });

  const list = defineRoute({
    ...read,
    method: 'get',
    path: '/v1/group-buys',
    summary: 'The group-buys of the key’s owner, newest first',
    description: 'Those the key’s owner organises in its tenant, in the key’s mode (pools created on /api too). Cursor pages: `startingAfter` / `endingBefore` name a group-buy of this list (else a 400 on that parameter).',
    query: V1ListQuery,
    success: { status: 200, description: 'A page of group-buys', schema: v1List(GroupBuyV1) },
    errors: [400, 401, 403],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const scope = scopeOf(ctx);
      const cursor = async (param: 'startingAfter' | 'endingBefore', id: string | undefined) => {
        if (id === undefined) return null;
        const uuid = fromPrefixedId('gb', id);
        const seq = uuid ? await groupBuys.seqOf(uuid, scope) : null;
        if (seq === null) throw unknownCursor(param);
        return seq;
      };
      const [after, before] = [await cursor('startingAfter', ctx.query.startingAfter), await cursor('endingBefore', ctx.query.endingBefore)];
      const rows = await groupBuys.page(scope, { limit: ctx.query.limit, after, before }, clock());
      const { items, hasMore } = cursorPage(rows, ctx.query.limit, before);
      return { data: { object: 'list', items: items.map((r) => r.groupBuy), hasMore, url: '/v1/group-buys' } };
    },
  });

  const orders = defineRoute({
    ...read,
    method: 'get',
    path: '/v1/group-buys/{id}/orders',
    summary: 'A group-buy’s orders, newest first',
    description: 'Every order (pending, paid, expired, cancelled) with what it was charged, its payment and what settlement released or refunded of it.',
    params: Params,
    success: { status: 200, description: 'The orders', schema: v1List(GroupBuyOrder) },
    errors: [401, 403, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const found = await groupBuys.orders(poolIdOf(ctx.params.id), scopeOf(ctx), clock());
      if (!found) throw new NotFoundError('group_buy');
      return { data: { object: 'list', items: found, hasMore: false, url: `/v1/group-buys/${ctx.params.id}/orders` } };
    },
  });

  return [list, one, orders];
};
