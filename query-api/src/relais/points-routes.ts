import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { CalendarDate, PickupPoint, RelaisNetwork, parsePickupPointId, type RelaisDirectoryPort } from '@cagnotte/event-schemas';
import { decimalInt, defineRoute, type RouteDef } from '@cagnotte/infra';

const emptyToUndefined = (v: unknown) => (v === '' ? undefined : v);
const num = (min: number, max: number) => z.preprocess(emptyToUndefined, z.coerce.number().finite().min(min).max(max).optional());

export const PointsQuery = z
  .object({
    country: z
      .preprocess((v) => (typeof v === 'string' ? v.trim().toUpperCase() : v), z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 country code').default('FR'))
      .describe('ISO 3166-1 alpha-2, default FR')
      .meta({ example: 'FR' }),
    postalCode: z.string().trim().regex(/^[A-Za-z0-9 -]{2,10}$/, 'must be a postal code').optional().describe('Search around this postal code (or give lat and lng)').meta({ example: '69001' }),
    lat: num(-90, 90).describe('With lng: search around this position'),
    lng: num(-180, 180),
    radiusKm: z.preprocess(emptyToUndefined, z.coerce.number().finite().min(1).max(50).default(10)).describe('kilometres, 1 to 50, default 10'),
    weightG: z.preprocess(emptyToUndefined, decimalInt(1, 1_000_000).optional()).describe('Only points that take a parcel this heavy (grams)').meta({ example: 2500 }),
    networks: z
      .preprocess(
        (v) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.split(',').map((s) => s.trim())) : v),
        z
          .array(z.string())
          .min(1)
          .max(RelaisNetwork.options.length)
          .refine((names) => names.every((n) => RelaisNetwork.safeParse(n).success), { message: `each network is one of ${RelaisNetwork.options.join(', ')}` })
          .transform((names) => names as RelaisNetwork[])
          .optional(),
      )
      .describe(`Comma-separated networks to ask (${RelaisNetwork.options.join(', ')}); default every network enabled here`)
      .meta({ example: ['sandbox', 'community'] }),
    openOn: CalendarDate.optional().describe('Only points open that day (YYYY-MM-DD): no closure covers it and it has opening hours that weekday'),
    limit: z.preprocess(emptyToUndefined, decimalInt(1, 50).default(20)).describe('1 to 50, default 20'),
  })
  .superRefine((v, ctx) => {
    if ((v.lat === undefined) !== (v.lng === undefined)) ctx.addIssue({ code: 'custom', path: [v.lat === undefined ? 'lat' : 'lng'], message: 'lat and lng go together' });
    if (v.postalCode === undefined && (v.lat === undefined || v.lng === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['postalCode'], message: 'give a postalCode, or lat and lng' });
    }
  });
type PointsQuery = z.infer<typeof PointsQuery>;

const SourceReport = z
  .object({
    network: RelaisNetwork,
    status: z.enum(['ok', 'timeout', 'error']).describe('ok: the network answered (or its cached answer was used); timeout/error: its points are missing'),
    ms: z.number().int().min(0),
    cached: z.boolean().optional(),
  })
  .strict();
const PointsPage = z.object({ items: z.array(PickupPoint), sources: z.array(SourceReport) }).strict();

export interface RelaisPointRouteDeps {
  directory: () => RelaisDirectoryPort;
  /** Requests per IP and minute on each route (RATE_LIMIT_RELAIS_PER_MINUTE). */
  relaisLimitPerMinute: number;
}

/** Pick-up points across networks (docs/relais.md): public, per tenant (the community network's hosts are the tenant's). */
export const makeRelaisPointRoutes = ({ directory, relaisLimitPerMinute }: RelaisPointRouteDeps): RouteDef[] => {
  const limit = { limit: relaisLimitPerMinute, windowSeconds: 60 };
  return [
    defineRoute({
      method: 'get',
      path: '/api/relais/points',
      operationId: 'searchRelaisPoints',
      summary: 'Pick-up points near a postal code or a position',
      description:
        'Public. Asks every enabled network (the carriers configured here, the sandbox carrier outside production, the tenant’s community hosts) at once, each within RELAIS_NETWORK_TIMEOUT_MS, and answers what came back: `sources` says per network whether it answered (`cached` when from the cache), timed out or failed, so an answer may be partial. Only active points, that take `weightG` and are open on `openOn`, within `radiusKm`, nearest first. Sandbox magic postal codes: `99001` makes the sandbox network time out, `99002` makes it fail. Rate-limited per IP (120 per minute by default).',
      tags: ['Relais'],
      auth: 'none',
      tenant: 'required',
      query: PointsQuery,
      rateLimit: { name: 'relais-points', ...limit },
      success: { status: 200, description: 'Points, nearest first, and what each network answered', schema: PointsPage },
      errors: [400, 404, 429],
      handler: async (ctx) => {
        const q = ctx.query as PointsQuery;
        const byPosition = q.lat !== undefined && q.lng !== undefined;
        const answer = await directory().search(
          {
            country: q.country,
            ...(byPosition ? { lat: q.lat, lng: q.lng } : { postalCode: q.postalCode }),
            radiusKm: q.radiusKm,
            weightG: q.weightG,
            networks: q.networks,
            openOn: q.openOn,
            limit: q.limit,
          },
          ctx.tenant!.id,
        );
        return { data: answer };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/relais/points/{id}',
      operationId: 'getRelaisPoint',
      summary: 'One pick-up point',
      description:
        'Public. The point as its network knows it now (cached for a short while): any status, retired included. 404 for an id no network knows; 503 `relais_unavailable` when its network does not answer or is not enabled here. Rate-limited per IP (120 per minute by default).',
      tags: ['Relais'],
      auth: 'none',
      tenant: 'required',
      params: z.object({ id: z.string().min(1).max(100).describe('`<network>:<pointId>`').meta({ example: 'sandbox:SBX-001' }) }),
      rateLimit: { name: 'relais-point', ...limit },
      success: { status: 200, description: 'The point', schema: PickupPoint },
      errors: [400, 404, 429, 503],
      handler: async (ctx) => {
        const { id } = ctx.params as { id: string };
        if (!parsePickupPointId(id)) throw new NotFoundError('pickup_point');
        const point = (await directory().resolve([id], ctx.tenant!.id)).get(id) ?? null;
        if (!point) throw new NotFoundError('pickup_point');
        return { data: point };
      },
    }),
  ];
};
