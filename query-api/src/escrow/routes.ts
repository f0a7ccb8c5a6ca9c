import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { PageQuery, defineRoute, paginated, pagination, type RouteDef } from '@cagnotte/infra';
import { Escrow, EscrowDispute, disputesFor, escrowView, type EscrowReadModel } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// Both reads come from the escrow read model alone (its buyers included): a read of one's own write waits for it.
const PROJECTIONS = ['escrow'];
const minPositionDoc = 'Send `X-Min-Position` (from a command\'s `X-Event-Position`) to read your own write.';
const accessDoc =
  'Bearer. The pool\'s organiser and the auditors of its tenant see everything; a buyer who placed a reservation in the pool sees the summary and only their own disputes and settlement lines; anyone else, and any pool of another tenant, gets a 404.';

const PoolIdParams = z.object({ id: z.string().uuid() });
const DisputeQuery = PageQuery.extend({ status: EscrowDispute.shape.status.optional().describe('Only disputes in this status') });
type DisputeQuery = z.infer<typeof DisputeQuery>;

export interface EscrowQueryDeps extends ConsistencyDeps {
  escrows: EscrowReadModel;
  /** Whether the user audits the tenant (its auditors read model). */
  isAuditor: (tenantId: string, userId: string) => Promise<boolean>;
}

export const makeEscrowQueryRoutes = (deps: EscrowQueryDeps): RouteDef[] => {
  const { escrows } = deps;
  /** The caller as a viewer of the escrow: an auditor only of the tenant their account belongs to. */
  const viewerOf = async (auth: { userId: string; tenantId: string }, tenantId: string) => ({
    userId: auth.userId,
    auditor: auth.tenantId === tenantId && (await deps.isAuditor(tenantId, auth.userId)),
  });

  const escrow = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/escrow',
    summary: 'Where a pool\'s money is: its escrow',
    description: `${accessDoc} The account and its reclaim time, the status (\`NONE\`, \`OPEN\`, \`HELD\`, \`SETTLING\`, \`SETTLED\`, \`REFUND_DUE\`, \`REFUNDED\`), the deposits still held, the closing and release terms, the settlement being carried out; for the organiser also the late deposits owed back, released and refunded totals, payouts per role, the fees frozen at closing and every settlement with its rounds (lock, release and recovery hashes, and what ran). ${minPositionDoc}`,
    tags: ['Escrow'],
    auth: 'required',
    tenant: 'optional',
    params: PoolIdParams,
    success: { status: 200, description: 'The escrow as the caller may see it', schema: Escrow },
    errors: [401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const { id } = ctx.params as { id: string };
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const doc = await escrows.inTenant(tenantId, id);
      const view = doc && escrowView(doc, await viewerOf(auth, tenantId));
      if (!view) throw new NotFoundError('escrow');
      return { data: view };
    },
  });

  const disputes = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/disputes',
    summary: 'A pool\'s disputes',
    description: `${accessDoc} The organiser gets every dispute of the pool, a buyer their own; newest first, paged, optionally of one status. ${minPositionDoc}`,
    tags: ['Escrow'],
    auth: 'required',
    tenant: 'optional',
    params: PoolIdParams,
    query: DisputeQuery,
    success: { status: 200, description: 'A page of disputes', schema: paginated(EscrowDispute) },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const { id } = ctx.params as { id: string };
      const q = ctx.query as DisputeQuery;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const doc = await escrows.inTenant(tenantId, id);
      const all = doc && disputesFor(doc, await viewerOf(auth, tenantId));
      if (!all) throw new NotFoundError('escrow');
      const matching = q.status ? all.filter((d) => d.status === q.status) : all;
      const items = matching.slice((q.page - 1) * q.limit, q.page * q.limit);
      return { data: { items, pagination: pagination(q.page, q.limit, matching.length) } };
    },
  });

  return [escrow, disputes];
};
