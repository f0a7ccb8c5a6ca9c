import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { PageQuery, defineRoute, fromPrefixedId, livemodeOf, pagination, prefixedIdParam, type RouteDef } from '@cagnotte/infra';
import { auditEventView, storedOfRow, type AuditReadModel } from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';
import { AUDIT_DOC, AUDIT_PROJECTIONS, AuditHistoryPage } from './history-routes';
import { verifyHistory } from './verify';

export interface DealHistoryDeps extends ConsistencyDeps {
  audit: AuditReadModel;
  /** Whether the deployment is production (a session's mode; an API key brings its own): a deal of the other mode is a 404. */
  production?: boolean;
}

/**
 * A deal's stream as stored, for the auditor: the same copy, hash links and verification as a pool's history. Who
 * reads: the auditors of the deal's tenant, its creator and its parties; anyone else, another tenant or the other mode: 404.
 */
export const makeDealHistoryRoute = (deps: DealHistoryDeps): RouteDef =>
  defineRoute({
    method: 'get',
    path: '/v1/deals/{id}/history',
    summary: "A deal's full event history, as stored (the auditor's view)",
    description: `Every event of the deal's stream (\`deal-<uuid>\`), its escrow's included. The auditors of the deal's tenant, its creator and its parties; anyone else gets a 404. ${AUDIT_DOC.stored} ${AUDIT_DOC.verified} ${AUDIT_DOC.minPosition}`,
    tags: ['Audit', 'Deals'],
    auth: 'required',
    tenant: 'required',
    params: z.object({ id: prefixedIdParam('deal') }),
    query: PageQuery,
    success: { status: 200, description: 'A page of the history and the state of its hash links', schema: AuditHistoryPage },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, AUDIT_PROJECTIONS);
      const dealId = fromPrefixedId('deal', ctx.params.id);
      const deal = dealId ? await deps.audit.deal(dealId) : null;
      const auth = ctx.auth!;
      const livemode = livemodeOf(ctx, deps.production ?? false);
      if (!deal || !ctx.tenant || deal.tenantId !== ctx.tenant.id || deal.livemode !== livemode) throw new NotFoundError('deal');
      const auditor = auth.tenantId === deal.tenantId && (await deps.audit.isAuditor(deal.tenantId, auth.userId));
      if (!auditor && !deal.readers.includes(auth.userId)) throw new NotFoundError('deal');
      const q = ctx.query;
      const { rows, total } = await deps.audit.dealHistory(dealId!, q.page, q.limit);
      const checked = verifyHistory(rows.map((r) => ({ event: storedOfRow(r), predecessorHash: r.has_predecessor ? (r.predecessor_hash ?? undefined) : undefined })));
      return { data: { items: checked.items.map((i) => auditEventView(i.event, i.verified, { personal: auditor })), pagination: pagination(q.page, q.limit, total), chain: checked.chain } };
    },
  });
