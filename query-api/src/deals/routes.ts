import { z } from 'zod';
import { IllegalStateError, NotFoundError } from '@cagnotte/domain/errors';
import { V1ListQuery, applyCursor, cursorPage, defineRoute, expandOf, fromPrefixedId, ledgerCall, livemodeOf, prefixedIdParam, unknownCursor, v1List, type EscrowLedger, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { DEAL_EXPANDABLE, DealSchema, dealDocOfRow, dealEscrowFacts, dealView, partiesToExpand, prefixedId, reconcileEscrow, type DealDoc, type DealReadModel, type DealReader, type DealRow } from '@cagnotte/read-models';
import { EscrowReconciliationSchema } from '../escrow/reconciliation';

export interface DealQueryDeps {
  deals: DealReadModel;
  /** Read-your-writes: waits for the `deals` projection when the request names a position (or this process wrote). */
  awaitProjections: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
  /** Whether the deployment is production: a session's mode (an API key brings its own). */
  production: boolean;
  /** The ledger, for the reconciliation. */
  escrow: EscrowLedger;
  isAuditor: (tenantId: string, userId: string) => Promise<boolean>;
}

export const DealReconciliationSchema = EscrowReconciliationSchema.omit({ poolId: true })
  .extend({ object: z.literal('deal_reconciliation'), deal: z.string().describe('`deal_…`') })
  .describe('DealReconciliation');

const ExpandQuery = z.object({ 'expand[]': V1ListQuery.shape['expand[]'], expand: V1ListQuery.shape.expand }).strict();
const ListQuery = z
  .object({ ...V1ListQuery.shape, status: z.enum(['created', 'funded', 'delivered', 'accepted', 'disputed', 'released', 'refunded', 'cancelled']).optional().describe('Only the deals in this state') })
  .strict()
  .refine((q) => !(q.startingAfter && q.endingBefore), { message: 'give startingAfter or endingBefore, not both', path: ['startingAfter'] });

/** Who reads: the caller (a session's user, or an API key's owner: a key acts as its owner), in the request's tenant and mode. */
const readerOf = (deps: DealQueryDeps, ctx: RequestContext<unknown, unknown, unknown>): DealReader => ({
  tenantId: ctx.tenant?.id ?? ctx.auth!.tenantId,
  livemode: livemodeOf(ctx, deps.production),
  userId: ctx.auth!.userId,
});

export const makeDealQueryRoutes = (deps: DealQueryDeps): RouteDef[] => {
  const { deals } = deps;
  const render = async (docs: DealDoc[], tenantId: string, expand: Set<string>) => {
    const accounts = await deals.accounts(tenantId, [...new Set(docs.flatMap((d) => partiesToExpand(d, expand)))]);
    return docs.map((d) => dealView(d, accounts));
  };

  const one = defineRoute({
    method: 'get',
    path: '/v1/deals/{id}',
    summary: 'A deal',
    description: 'Its creator and its parties (with a session, or an API key of theirs, of the deal’s mode). `expand[]=buyer|seller|broker` nests the account instead of its id. Anyone else, another tenant or the other mode: 404 `deal_not_found`.',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    params: z.object({ id: prefixedIdParam('deal') }),
    query: ExpandQuery,
    success: { status: 200, description: 'The deal', schema: DealSchema },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const expand = expandOf(ctx.query, DEAL_EXPANDABLE);
      const uuid = fromPrefixedId('deal', ctx.params.id);
      if (!uuid) throw new NotFoundError('deal');
      await deps.awaitProjections(ctx);
      const reader = readerOf(deps, ctx);
      const doc = await deals.load(uuid, reader);
      if (!doc) throw new NotFoundError('deal');
      return { data: (await render([doc], reader.tenantId, expand))[0] };
    },
  });

  const list = defineRoute({
    method: 'get',
    path: '/v1/deals',
    summary: 'The deals, newest first',
    description: 'The deals the caller created or takes part in, of the request’s mode: a cursor list (`limit`, `startingAfter`, `endingBefore`: a deal id; an unknown one is a 400), filtered by `status`, with `expand[]`.',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    query: ListQuery,
    success: { status: 200, description: 'A list of deals', schema: v1List(DealSchema) },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const q = ctx.query;
      const expand = expandOf(q, DEAL_EXPANDABLE);
      await deps.awaitProjections(ctx);
      const reader = readerOf(deps, ctx);
      const seqOf = async (param: 'startingAfter' | 'endingBefore'): Promise<bigint | undefined> => {
        const id = q[param];
        if (id === undefined) return undefined;
        const uuid = fromPrefixedId('deal', id);
        const seq = uuid ? await deals.seqOf(uuid, reader) : null;
        if (seq === null) throw unknownCursor(param);
        return seq;
      };
      const after = await seqOf('startingAfter');
      const before = await seqOf('endingBefore');
      const rows = (await applyCursor(deals.listQuery(reader, q.status), { seqColumn: 'seq', limit: q.limit, after, before })) as DealRow[];
      const page = cursorPage(rows.map(dealDocOfRow), q.limit, before);
      return { data: { object: 'list' as const, items: await render(page.items, reader.tenantId, expand), hasMore: page.hasMore, url: '/v1/deals' } };
    },
  });

  const reconciliation = defineRoute({
    method: 'get',
    path: '/v1/deals/{id}/reconciliation',
    summary: 'A deal’s escrow: what its events say against what the ledger shows',
    description:
      'Its creator, its parties and the auditors of its tenant (anyone else: 404). The pools’ reconciliation (one rule for both): the deposit stands on the ledger with its exact amount while held and is gone once settled; the settlement’s transaction exists, succeeded and paid exactly what the events say to whom; the escrow account exists until the events say it was merged back; the platform received nothing beyond its fee lines (none on a deal). `ok` when everything agrees; `problems` names each disagreement. 400 `escrow_not_open` before the deal is funded.',
    tags: ['Deals', 'Audit'],
    auth: 'required',
    tenant: 'required',
    params: z.object({ id: prefixedIdParam('deal') }),
    success: { status: 200, description: 'The reconciliation', schema: DealReconciliationSchema },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const uuid = fromPrefixedId('deal', ctx.params.id);
      if (!uuid) throw new NotFoundError('deal');
      await deps.awaitProjections(ctx);
      const reader = readerOf(deps, ctx);
      const auditor = ctx.auth!.tenantId === reader.tenantId && (await deps.isAuditor(reader.tenantId, ctx.auth!.userId));
      const doc = await deals.load(uuid, auditor ? { ...reader, userId: null } : reader);
      if (!doc) throw new NotFoundError('deal');
      const facts = dealEscrowFacts(doc);
      if (!facts) throw new IllegalStateError('escrow_not_open', 'The deal has no escrow account yet');
      const ledger = await ledgerCall(() => deps.escrow.reconciliationFacts(facts.escrowAccount, facts.rounds.map((r) => r.txHash)));
      const { poolId: _id, ...report } = reconcileEscrow(facts, ledger);
      return { data: { object: 'deal_reconciliation' as const, deal: prefixedId('deal', doc.dealId), ...report } };
    },
  });

  return [list, one, reconciliation];
};
