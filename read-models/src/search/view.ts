import { z } from 'zod';
import { GroupBuyCard, MerchantCard } from '../catalogue/cards';

/** The search answer's schema: the query as understood, the fusion used, and the hits with their score parts. */

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
export type SearchResponse = z.infer<typeof SearchResponse>;
