import { z } from 'zod';
import { NotFoundError, ValidationError } from '@cagnotte/domain/errors';
import { defineRoute, type RequestContext, type RouteDef } from '@cagnotte/infra';
import { DEAL_EXPANDABLE, DealSchema, dealView, partiesToExpand, uuidOfPrefixed, type DealDoc, type DealReadModel, type DealReader } from '@cagnotte/read-models';

export interface DealQueryDeps {
  deals: DealReadModel;
  /** Read-your-writes: waits for the `deals` projection when the request names a position (or this process wrote). */
  awaitProjections: (ctx: RequestContext<unknown, unknown, unknown>) => Promise<void>;
  /** The request's mode: its API key's, else the service's (the /v1 kit's livemodeOf). */
  livemodeOf: (ctx: RequestContext<unknown, unknown, unknown>) => boolean;
}

const Expand = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) => (v === undefined ? [] : Array.isArray(v) ? v : [v]))
  .refine((v) => v.every((x) => (DEAL_EXPANDABLE as readonly string[]).includes(x)), { message: `each of ${DEAL_EXPANDABLE.join(', ')}` });

const ListQuery = z
  .object({
    limit: z.coerce.number().int().min(1).max(100).default(10),
    startingAfter: z.string().max(64).optional(),
    endingBefore: z.string().max(64).optional(),
    status: z.enum(['created', 'funded', 'delivered', 'accepted', 'disputed', 'released', 'refunded', 'cancelled']).optional(),
    'expand[]': Expand,
  })
  .strict();

/** Who reads: a key of the tenant sees its deals of its mode, a session user the deals they take part in. */
const readerOf = (deps: DealQueryDeps, ctx: RequestContext<unknown, unknown, unknown>): DealReader => ({
  tenantId: ctx.tenant?.id ?? ctx.auth!.tenantId,
  livemode: deps.livemodeOf(ctx),
  userId: (ctx as { apiKey?: unknown }).apiKey ? null : ctx.auth!.userId,
});

export const makeDealQueryRoutes = (deps: DealQueryDeps): RouteDef[] => {
  const { deals } = deps;
  const render = async (docs: DealDoc[], tenantId: string, expand: string[]) => {
    const set = new Set(expand);
    const accounts = await deals.accounts(tenantId, [...new Set(docs.flatMap((d) => partiesToExpand(d, set)))]);
    return docs.map((d) => dealView(d, accounts));
  };

  const one = defineRoute({
    method: 'get',
    path: '/v1/deals/{id}',
    summary: 'A deal',
    description: 'A key of the tenant (its mode), or a party of the deal. `expand[]=buyer|seller|broker` nests the account instead of its id. Anyone else, another tenant or the other mode: 404 `deal_not_found`.',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    params: z.object({ id: z.string().max(64) }),
    query: z.object({ 'expand[]': Expand }).strict(),
    success: { status: 200, description: 'The deal', schema: DealSchema },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const uuid = uuidOfPrefixed('deal', ctx.params.id);
      if (!uuid) throw new NotFoundError('deal');
      await deps.awaitProjections(ctx);
      const reader = readerOf(deps, ctx);
      const doc = await deals.load(uuid, reader);
      if (!doc) throw new NotFoundError('deal');
      return { data: (await render([doc], reader.tenantId, ctx.query['expand[]']))[0] };
    },
  });

  const list = defineRoute({
    method: 'get',
    path: '/v1/deals',
    summary: 'The deals, newest first',
    description: 'A cursor list (`limit`, `startingAfter`, `endingBefore`: a deal id), filtered by `status`. A key sees its tenant’s deals of its mode; a user those they take part in.',
    tags: ['Deals'],
    auth: 'required',
    tenant: 'required',
    query: ListQuery,
    success: { status: 200, description: 'A list of deals', schema: z.object({ object: z.literal('list'), items: z.array(DealSchema), hasMore: z.boolean(), url: z.string() }) },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      await deps.awaitProjections(ctx);
      const reader = readerOf(deps, ctx);
      const q = ctx.query;
      const cursor = async (field: 'startingAfter' | 'endingBefore') => {
        const id = q[field];
        if (id === undefined) return undefined;
        const uuid = uuidOfPrefixed('deal', id);
        const seq = uuid ? await deals.seqOf(uuid, reader) : null;
        if (seq === null) throw new ValidationError({ [field]: ['no such deal'] }, 'Unknown cursor');
        return seq;
      };
      const [after, before] = [await cursor('startingAfter'), await cursor('endingBefore')];
      const rows = await deals.list(reader, { limit: q.limit, ...(after !== undefined ? { after } : {}), ...(before !== undefined ? { before } : {}), ...(q.status ? { status: q.status } : {}) });
      const hasMore = rows.length > q.limit;
      const page = before !== undefined ? rows.slice(Math.max(0, rows.length - q.limit)) : rows.slice(0, q.limit);
      return { data: { object: 'list' as const, items: await render(page, reader.tenantId, q['expand[]']), hasMore, url: '/v1/deals' } };
    },
  });

  return [list, one];
};
