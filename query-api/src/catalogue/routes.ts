import { z } from 'zod';
import {
  GroupBuyCard,
  MerchantCard,
  PageQuery,
  decimalInt,
  RRF_K,
  ValidationError,
  defineRoute,
  paginated,
  pagination,
  toGroupBuyCard,
  groupBuyCardFromStored,
  toMerchantCard,
  merchantFromRow,
  escapeLike,
  type MerchantRow,
  type ExistingPool,
  type RouteDef,
  type SearchHit,
  type Services,
} from '@cagnotte/infra';

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);
const num = (min: number, max: number) => z.preprocess(emptyToUndefined, z.coerce.number().finite().min(min).max(max).optional());

const CatalogueQuery = PageQuery.extend({ q: z.string().trim().max(200).optional().describe('Filters by name or title (accent- and case-insensitive)') });
type CatalogueQuery = z.infer<typeof CatalogueQuery>;

export const SearchQueryParams = z
  .object({
    q: z.string().max(200).optional().describe('Shorter than 2 characters: only the popular shelf'),
    limit: z.preprocess(emptyToUndefined, decimalInt(1, 50).default(8)).describe('1 to 50 per section, default 8'),
    type: z.enum(['all', 'merchants', 'pools']).default('all'),
    lat: num(-90, 90),
    lng: num(-180, 180),
    postal_code: z.string().trim().regex(/^[A-Za-z0-9 -]{2,10}$/, 'must be a postal code').optional(),
    radius: num(1, 500).describe('kilometres, 1 to 500; needs lat/lng or postal_code'),
  })
  .superRefine((v, ctx) => {
    if ((v.lat === undefined) !== (v.lng === undefined)) {
      ctx.addIssue({ code: 'custom', path: [v.lat === undefined ? 'lat' : 'lng'], message: 'lat and lng go together' });
    }
    if (v.radius !== undefined && v.lat === undefined && v.postal_code === undefined) {
      ctx.addIssue({ code: 'custom', path: ['radius'], message: 'radius needs a center: lat and lng, or postal_code' });
    }
  });
type SearchQueryParams = z.infer<typeof SearchQueryParams>;

const ScoreParts = z.object({
  trigram: z.object({ similarity: z.number(), rank: z.number().int() }).nullable().describe('Trigram word similarity on accent-folded text'),
  vector: z.object({ similarity: z.number(), rank: z.number().int() }).nullable().describe('Cosine of the 384-d embeddings'),
  structured: z.object({
    score: z.number(),
    rank: z.number().int(),
    featured: z.boolean(),
    popularity: z.number(),
    freshnessDays: z.number(),
    distanceKm: z.number().nullable(),
  }),
  rrf: z.number().describe('Σ 1 / (60 + rank) over the arms that ranked the hit'),
});
const hit = <T extends z.ZodType>(item: T) =>
  z.object({ id: z.string().uuid(), score: z.number(), distanceKm: z.number().nullable().describe('Great-circle distance from the center'), parts: ScoreParts, item });

export const SearchResponse = z
  .object({
    query: z.object({
      q: z.string().nullable(),
      type: z.enum(['all', 'merchants', 'pools']),
      limit: z.number().int(),
      center: z.object({ lat: z.number(), lng: z.number() }).nullable(),
      centerSource: z.enum(['coordinates', 'postal_code']).nullable(),
      postalCode: z.string().nullable(),
      radiusKm: z.number().nullable(),
    }),
    popular: z.boolean().describe('true when q was shorter than 2 characters: the popular shelf'),
    fusion: z.object({ method: z.literal('rrf'), k: z.number(), arms: z.array(z.string()) }),
    index: z.string().describe('`postgres` or `opensearch`'),
    merchants: z.array(hit(MerchantCard)),
    pools: z.array(hit(GroupBuyCard)),
  })
  .describe('SearchResponse');

export const makeCatalogueRoutes = ({ services }: { services: Services }): RouteDef[] => {
  const { knex, config } = services;
  const catalogueLimit = { limit: config.RATE_LIMIT_CATALOGUE_PER_MINUTE, windowSeconds: 60 };

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
      const base = knex<MerchantRow>('rm_merchants').where({ tenant_id: ctx.tenant!.id, status: 'ACTIVE' });
      if (q.q) base.whereRaw(`cg_fold(name) LIKE '%' || cg_fold(?) || '%'`, [escapeLike(q.q)]);
      const [{ count }] = (await base.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
      const rows = await base.orderBy([{ column: 'name' }, { column: 'id' }]).limit(q.limit).offset((q.page - 1) * q.limit);
      return { data: { items: rows.map((r) => toMerchantCard(merchantFromRow(r))), pagination: pagination(q.page, q.limit, Number(count)) } };
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
      const base = knex('rm_pools')
        .where({ tenant_id: ctx.tenant!.id, type: 'GROUPS' })
        .whereIn('marketplace_visibility', ['LISTED', 'FEATURED'])
        .whereNull('archived_at')
        .whereNot('status', 'DRAFT');
      if (q.q) base.whereRaw(`cg_fold(title) LIKE '%' || cg_fold(?) || '%'`, [escapeLike(q.q)]);
      const [{ count }] = (await base.clone().count<{ count: string }[]>({ count: '*' })) as [{ count: string }];
      const rows: Array<{ id: string; doc: ExistingPool }> = await base
        .select('id', 'doc')
        .orderByRaw(`(marketplace_visibility = 'FEATURED') DESC, created_at DESC, id`)
        .limit(q.limit)
        .offset((q.page - 1) * q.limit);
      const members: Array<{ pool_id: string; display_name: string }> = rows.length
        ? await knex('rm_pool_members').whereIn('pool_id', rows.map((r) => r.id)).orderBy('joined_at').select('pool_id', 'display_name')
        : [];
      const items = rows.map((r) => toGroupBuyCard(r.doc, members.filter((m) => m.pool_id === r.id).map((m) => m.display_name)));
      return { data: { items, pagination: pagination(q.page, q.limit, Number(count)) } };
    },
  });

  const search = defineRoute({
    method: 'get',
    path: '/api/tenant/search',
    summary: 'Hybrid search over merchants and pools',
    description:
      'Public. Trigram matching, vector similarity (384-d embeddings) and structured scoring (featured, popularity, freshness, distance), fused with Reciprocal Rank Fusion (k = 60). Each hit carries its score parts. Geo: `lat`/`lng` or `postal_code` with `radius` (km, great-circle). `q` shorter than 2 characters returns the popular shelf. Rate-limited per IP (300 per minute by default).',
    tags: ['Catalogue'],
    auth: 'none',
    tenant: 'required',
    query: SearchQueryParams,
    rateLimit: { name: 'catalogue-search', limit: config.RATE_LIMIT_SEARCH_PER_MINUTE, windowSeconds: 60 },
    success: { status: 200, description: 'Merchants and pools, best first', schema: SearchResponse },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const p = ctx.query as SearchQueryParams;
      const tenantId = ctx.tenant!.id;
      let center = p.lat !== undefined && p.lng !== undefined ? { lat: p.lat, lng: p.lng } : null;
      let centerSource: 'coordinates' | 'postal_code' | null = center ? 'coordinates' : null;
      if (!center && p.postal_code) {
        center = await services.searchIndex.resolvePostalCode(tenantId, p.postal_code);
        centerSource = center ? 'postal_code' : null;
        if (!center && p.radius !== undefined) {
          throw new ValidationError({ postal_code: ['unknown postal code in this tenant: give lat and lng to search by radius'] });
        }
      }
      const q = p.q?.trim() || null;
      const queryEmbedding = q && q.length >= 2 ? ((await services.embedder.embed([q]))[0] ?? null) : null;
      const result = await services.searchIndex.search({
        tenantId,
        q,
        type: p.type,
        limit: p.limit,
        center,
        radiusKm: center ? (p.radius ?? null) : null,
        postalCode: center ? null : (p.postal_code ?? null),
        queryEmbedding,
      });
      const toHit = (h: SearchHit) => ({ id: h.id, score: h.score, distanceKm: h.distanceKm, parts: h.parts, item: h.card });
      return {
        data: {
          query: { q, type: p.type, limit: p.limit, center, centerSource, postalCode: p.postal_code ?? null, radiusKm: p.radius ?? null },
          popular: result.popular,
          fusion: { method: 'rrf', k: RRF_K, arms: ['trigram', 'vector', 'structured'] },
          index: services.searchIndex.name,
          merchants: result.merchants.map(toHit),
          pools: result.pools.map((h) => ({ ...toHit(h), item: groupBuyCardFromStored(h.card) })),
        },
      };
    },
  });

  return [merchants, groupBuys, search];
};
