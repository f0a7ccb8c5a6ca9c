import { z } from 'zod';
import { PageQuery, defineRoute, paginated, pagination, type RouteDef } from '@cagnotte/infra';
import { GroupBuyCard, MerchantCard, type CatalogueReadModel } from '@cagnotte/read-models';

const CatalogueQuery = PageQuery.extend({ q: z.string().trim().max(200).optional().describe('Filters by name or title (accent- and case-insensitive)') });
type CatalogueQuery = z.infer<typeof CatalogueQuery>;

export interface CatalogueRouteDeps {
  catalogue: CatalogueReadModel;
  /** Requests per IP and minute on each catalogue list (RATE_LIMIT_CATALOGUE_PER_MINUTE). */
  catalogueLimitPerMinute: number;
}

/** The tenant's public catalogue: ACTIVE merchants and listed group-buys, from the read models only. */
export const makeCatalogueRoutes = ({ catalogue, catalogueLimitPerMinute }: CatalogueRouteDeps): RouteDef[] => {
  const catalogueLimit = { limit: catalogueLimitPerMinute, windowSeconds: 60 };

  const merchants = defineRoute({
    method: 'get',
    path: '/api/tenant/merchants',
    summary: 'ACTIVE merchants of the tenant',
    description: 'Public. Paginated, by name; `q` filters on the name. Rate-limited per IP (120 per minute by default).',
    tags: ['Catalogue'],
    auth: 'none',
    tenant: 'required',
    query: CatalogueQuery,
    rateLimit: { name: 'catalogue-merchants', ...catalogueLimit },
    success: { status: 200, description: 'A page of merchant cards', schema: paginated(MerchantCard) },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const q = ctx.query as CatalogueQuery;
      const { items, total } = await catalogue.merchants({ tenantId: ctx.tenant!.id, q: q.q, page: q.page, limit: q.limit });
      return { data: { items, pagination: pagination(q.page, q.limit, total) } };
    },
  });

  const groupBuys = defineRoute({
    method: 'get',
    path: '/api/tenant/group-buys',
    summary: 'Listed group-buys of the tenant',
    description:
      'Public. GROUPS pools that are LISTED or FEATURED, published and not archived, FEATURED first, then newest. Cards carry redacted `config`, `units`, `pickupPoints` and member names. Rate-limited per IP (120 per minute by default).',
    tags: ['Catalogue'],
    auth: 'none',
    tenant: 'required',
    query: CatalogueQuery,
    rateLimit: { name: 'catalogue-group-buys', ...catalogueLimit },
    success: { status: 200, description: 'A page of group-buy cards', schema: paginated(GroupBuyCard) },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const q = ctx.query as CatalogueQuery;
      const { items, total } = await catalogue.groupBuys({ tenantId: ctx.tenant!.id, q: q.q, page: q.page, limit: q.limit });
      return { data: { items, pagination: pagination(q.page, q.limit, total) } };
    },
  });

  return [merchants, groupBuys];
};
