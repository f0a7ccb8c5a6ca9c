import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '@cagnotte/domain/errors';
import { PageQuery, defineRoute, paginated, pagination, type RouteDef } from '@cagnotte/infra';
import { PoolStatus, PoolType } from '@cagnotte/event-schemas';
import { GroupBuy, isPubliclyReadable, toGroupBuy, visibilityFactsOfRow, type PoolReadModel } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// Members and myReservations come from the reservations read model: a read of one's own write waits for both.
const POOLS = ['pools', 'reservations'];

const PoolListQuery = PageQuery.extend({
  type: PoolType.optional(),
  status: PoolStatus.optional(),
  archived: z
    .enum(['true', 'false'])
    .transform((v) => v === 'true')
    .optional()
    .describe('true: only archived; false: only not archived; absent: both'),
});
type PoolListQuery = z.infer<typeof PoolListQuery>;

const PoolIdParams = z.object({ id: z.string().uuid() });
const minPositionDoc = 'Send `X-Min-Position` (from a command\'s `X-Event-Position`) to read your own write.';

export interface PoolQueryDeps extends ConsistencyDeps {
  pools: PoolReadModel;
  /** The caller's role (the merchant endpoints answer by capability). */
  accounts: { find(userId: string): Promise<{ role: string } | null> };
  /** The request clock: lazy expiry (a stale PENDING neither holds nor makes a member). */
  clock?: () => Date;
}

export const makePoolQueryRoutes = (deps: PoolQueryDeps): RouteDef[] => {
  const { pools, accounts } = deps;
  const clock = deps.clock ?? (() => new Date());
  const roleOf = async (userId: string) => (await accounts.find(userId))?.role ?? null;

  const mine = defineRoute({
    method: 'get',
    path: '/api/pools',
    summary: 'Pools I organise or have joined',
    description: `Scoped to the tenant (header, else the user's own). ${minPositionDoc}`,
    tags: ['Pool CRUD'],
    auth: 'required',
    tenant: 'optional',
    query: PoolListQuery,
    success: { status: 200, description: 'A page of pools', schema: paginated(GroupBuy) },
    errors: [400, 401],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, POOLS);
      const q = ctx.query as PoolListQuery;
      const tenantId = ctx.tenant?.id ?? ctx.auth!.tenantId;
      const { items, total } = await pools.list(
        { tenantId, organiserId: ctx.auth!.userId, includeJoined: true, type: q.type, status: q.status, archived: q.archived, page: q.page, limit: q.limit },
        { userId: ctx.auth!.userId },
        clock(),
      );
      return { data: { items, pagination: pagination(q.page, q.limit, total) } };
    },
  });

  const one = defineRoute({
    method: 'get',
    path: '/api/pools/{id}',
    summary: 'Read a pool',
    description:
      'Bearer optional. The owner reads any of their pools. Others read published GROUPS pools (not DRAFT, not archived) and LISTED or FEATURED FUNDING pools; anonymous viewers get empty `members` and `myReservations`; secrets and owner-only config are stripped. The pool must belong to the tenant of the request: `X-Service-Tenant`, else the token\'s tenant, else the default tenant (`DEFAULT_TENANT`) for an anonymous request with neither. ' +
      minPositionDoc,
    tags: ['Pool CRUD'],
    auth: 'optional',
    tenant: 'optional',
    params: PoolIdParams,
    success: { status: 200, description: 'The pool', schema: GroupBuy },
    errors: [404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, POOLS);
      const { id } = ctx.params as { id: string };
      const viewer = { userId: ctx.auth?.userId ?? null };
      const found = await pools.load(id, viewer, clock());
      if (!found) throw new NotFoundError('pool');
      const { row } = found;
      // Always scoped: the header's tenant, else the signed-in user's, else DEFAULT_TENANT (never "any tenant").
      if (!ctx.tenant || ctx.tenant.id !== row.tenant_id) throw new NotFoundError('pool');
      const isOwner = ctx.auth?.userId === row.organiser_id;
      if (!isOwner && !isPubliclyReadable(visibilityFactsOfRow(row))) throw new NotFoundError('pool');
      return { data: toGroupBuy(row, found.members, found.points, viewer, found.mine) };
    },
  });

  const merchantList = defineRoute({
    method: 'get',
    path: '/api/merchant/pools',
    summary: 'My pools in this tenant, any status or visibility',
    description: `Only the caller's own pools in the tenant; a caller without the organise capability gets an empty list. ${minPositionDoc}`,
    tags: ['Pool CRUD'],
    auth: 'required',
    tenant: 'optional',
    query: PoolListQuery,
    success: { status: 200, description: 'A page of pools', schema: paginated(GroupBuy) },
    errors: [400, 401, 403],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, POOLS);
      const q = ctx.query as PoolListQuery;
      const auth = ctx.auth!;
      if ((await roleOf(auth.userId)) !== 'organiser') return { data: { items: [], pagination: pagination(q.page, q.limit, 0) } };
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const { items, total } = await pools.list(
        { tenantId, organiserId: auth.userId, type: q.type, status: q.status, archived: q.archived, page: q.page, limit: q.limit },
        { userId: auth.userId },
        clock(),
      );
      return { data: { items, pagination: pagination(q.page, q.limit, total) } };
    },
  });

  const merchantOne = defineRoute({
    method: 'get',
    path: '/api/merchant/pools/{id}',
    summary: 'Read one of my pools',
    description: `Owner only: a pool that is missing, in another tenant or someone else's is a 404. 403 without the organise capability. ${minPositionDoc}`,
    tags: ['Pool CRUD'],
    auth: 'required',
    tenant: 'optional',
    params: PoolIdParams,
    success: { status: 200, description: 'The pool, secrets stripped', schema: GroupBuy },
    errors: [401, 403, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, POOLS);
      const auth = ctx.auth!;
      const { id } = ctx.params as { id: string };
      const row = await pools.find(id);
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      if (!row || row.tenant_id !== tenantId || row.organiser_id !== auth.userId) {
        if ((await roleOf(auth.userId)) !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Organise capability required');
        throw new NotFoundError('pool');
      }
      return { data: await pools.view(row, { userId: auth.userId }, clock()) };
    },
  });

  return [mine, one, merchantList, merchantOne];
};
