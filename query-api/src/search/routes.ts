import { z } from 'zod';
import { ValidationError } from '@cagnotte/domain/errors';
import { RRF_K, decimalInt, defineRoute, type Embedder, type RouteDef, type SearchHit, type SearchIndex } from '@cagnotte/infra';
import { SearchResponse, groupBuyCardFromStored } from '@cagnotte/read-models';

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);
const num = (min: number, max: number) => z.preprocess(emptyToUndefined, z.coerce.number().finite().min(min).max(max).optional());

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

export interface SearchRouteDeps {
  searchIndex: SearchIndex;
  /** Embeds the query for the vector arm. */
  embedder: Embedder;
  /** Requests per IP and minute (RATE_LIMIT_SEARCH_PER_MINUTE). */
  searchLimitPerMinute: number;
}

/** Hybrid search over the tenant's listings: reads the search index only. */
export const makeSearchRoutes = ({ searchIndex, embedder, searchLimitPerMinute }: SearchRouteDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/api/tenant/search',
    operationId: 'searchCatalogue',
    summary: 'Hybrid search over merchants and pools',
    description:
      'Public. Trigram matching, vector similarity (384-d embeddings) and structured scoring (featured, popularity, freshness, distance), fused with Reciprocal Rank Fusion (k = 60). Each hit carries its score parts. Geo: `lat`/`lng` or `postal_code` with `radius` (km, great-circle). `q` shorter than 2 characters returns the popular shelf. Rate-limited per IP (300 per minute by default).',
    tags: ['Catalogue'],
    auth: 'none',
    tenant: 'required',
    query: SearchQueryParams,
    rateLimit: { name: 'catalogue-search', limit: searchLimitPerMinute, windowSeconds: 60 },
    success: { status: 200, description: 'Merchants and pools, best first', schema: SearchResponse },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const p = ctx.query as SearchQueryParams;
      const tenantId = ctx.tenant!.id;
      let center = p.lat !== undefined && p.lng !== undefined ? { lat: p.lat, lng: p.lng } : null;
      let centerSource: 'coordinates' | 'postal_code' | null = center ? 'coordinates' : null;
      if (!center && p.postal_code) {
        center = await searchIndex.resolvePostalCode(tenantId, p.postal_code);
        centerSource = center ? 'postal_code' : null;
        if (!center && p.radius !== undefined) {
          throw new ValidationError({ postal_code: ['unknown postal code in this tenant: give lat and lng to search by radius'] });
        }
      }
      const q = p.q?.trim() || null;
      const queryEmbedding = q && q.length >= 2 ? ((await embedder.embed([q]))[0] ?? null) : null;
      const result = await searchIndex.search({
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
          index: searchIndex.name,
          merchants: result.merchants.map(toHit),
          pools: result.pools.map((h) => ({ ...toHit(h), item: groupBuyCardFromStored(h.card) })),
        },
      };
    },
  }),
];
