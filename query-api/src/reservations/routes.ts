import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '@cagnotte/domain/errors';
import { PageQuery, defineRoute, paginated, pagination, type RouteDef } from '@cagnotte/infra';
import { OrderSchema, OrganiserDashboard, orderView, organiserDashboard, type PoolReadModel, type ReservationReadModel } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// The orders carry their pool's title and pick-up point: a read of one's own write waits for both projections.
const PROJECTIONS = ['pools', 'reservations'];
const minPositionDoc = 'Send `X-Min-Position` (from a command\'s `X-Event-Position`) to read your own write.';
const lazyExpiryDoc = 'A PENDING reservation past its expiry reads as EXPIRED (lazy expiry), whether or not the expiry job has run.';

export interface ReservationQueryDeps extends ConsistencyDeps {
  reservations: ReservationReadModel;
  pools: PoolReadModel;
  /** The caller's role (the organiser's dashboard answers by capability). */
  accounts: { find(userId: string): Promise<{ role: string } | null> };
  /** The request clock: lazy expiry. */
  clock?: () => Date;
}

export const makeReservationQueryRoutes = (deps: ReservationQueryDeps): RouteDef[] => {
  const { reservations, pools, accounts } = deps;
  const clock = deps.clock ?? (() => new Date());

  const orders = defineRoute({
    method: 'get',
    path: '/api/me/reservations',
    summary: 'My orders: every reservation across pools',
    description: `The buyer's orders dashboard, in the tenant (header, else the user's own), newest first: status, amounts, pick-up point, deadlines, payment proof (transaction hash) and the actions open now. ${lazyExpiryDoc} ${minPositionDoc}`,
    tags: ['Reservation'],
    auth: 'required',
    tenant: 'optional',
    query: PageQuery,
    success: { status: 200, description: 'A page of orders', schema: paginated(OrderSchema) },
    errors: [400, 401],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const q = ctx.query as z.infer<typeof PageQuery>;
      const auth = ctx.auth!;
      const now = clock();
      const { rows, total } = await reservations.byBuyer(ctx.tenant?.id ?? auth.tenantId, auth.userId, q.page, q.limit);
      const poolRows = new Map((await pools.rowsOf(rows.map((r) => r.pool_id))).map((p) => [p.id, p]));
      const items = rows.map((r) => orderView(r, poolRows.get(r.pool_id), now));
      return { data: { items, pagination: pagination(q.page, q.limit, total) } };
    },
  });

  const order = defineRoute({
    method: 'get',
    path: '/api/me/reservations/{reservationId}',
    summary: 'One of my orders',
    description: `The buyer's own reservation only: anyone else's, or one in another tenant, is a 404. ${lazyExpiryDoc} ${minPositionDoc}`,
    tags: ['Reservation'],
    auth: 'required',
    tenant: 'optional',
    params: z.object({ reservationId: z.string().uuid() }),
    success: { status: 200, description: 'The order', schema: OrderSchema },
    errors: [401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const { reservationId } = ctx.params as { reservationId: string };
      const row = await reservations.forBuyer(ctx.tenant?.id ?? auth.tenantId, auth.userId, reservationId);
      if (!row) throw new NotFoundError('reservation');
      const [pool] = await pools.rowsOf([row.pool_id]);
      return { data: orderView(row, pool, clock()) };
    },
  });

  const dashboard = defineRoute({
    method: 'get',
    path: '/api/organiser/dashboard',
    summary: "The organiser's dashboard",
    description: `Organisers only (403 otherwise). Per pool of theirs in the tenant (not archived first, then newest): fill rate, units held and paid, amounts held (live PENDING) and paid (funds in escrow, from the events), deadline and pending actions; totals across those pools. ${lazyExpiryDoc} ${minPositionDoc}`,
    tags: ['Reservation'],
    auth: 'required',
    tenant: 'optional',
    success: { status: 200, description: 'The dashboard', schema: OrganiserDashboard },
    errors: [401, 403],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      if ((await accounts.find(auth.userId))?.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Organise capability required');
      const mine = await pools.organisedBy(ctx.tenant?.id ?? auth.tenantId, auth.userId);
      const rows = await reservations.byPools(mine.map((p) => p.id));
      return { data: organiserDashboard(mine, rows, clock()) };
    },
  });

  return [orders, order, dashboard];
};
