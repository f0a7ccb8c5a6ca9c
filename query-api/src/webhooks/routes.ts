import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { PageQuery, defineRoute, paginated, pagination, type RequestContext, type RouteDef, type WebhookKeyring } from '@cagnotte/infra';
import {
  INBOX_KEEP_PER_TOKEN,
  INBOX_TOKEN,
  InboxDeliverySchema,
  WebhookAttemptSchema,
  WebhookEndpointSchema,
  toWebhookEndpoint,
  type EventPrincipal,
  type EventPrincipalLookup,
  type WebhookEndpointReader,
  type WebhookInboxReader,
} from '@cagnotte/read-models';

export interface WebhookQueryDeps {
  endpoints: WebhookEndpointReader;
  principals: EventPrincipalLookup;
  keyring: WebhookKeyring;
}

type Ctx = RequestContext<unknown, unknown, unknown>;
const TAGS = ['Webhooks'];
const IdParams = z.object({ id: z.string().max(100) });

/**
 * The endpoints a principal manages (docs/webhooks.md): the list, one endpoint (never its secret), its attempts, and
 * the tenant's ed25519 public key. Anyone who is not an auditor or organiser of the tenant, and any endpoint outside
 * the principal's scope, is a 404.
 */
export const makeWebhookQueryRoutes = (deps: WebhookQueryDeps): RouteDef[] => {
  const principalOf = async (ctx: Ctx): Promise<EventPrincipal> => {
    const principal = await deps.principals.resolve(ctx);
    if (!principal) throw new NotFoundError('webhook_endpoint');
    return principal;
  };
  const endpointOf = async (ctx: Ctx) => {
    const row = await deps.endpoints.find(await principalOf(ctx), (ctx.params as { id: string }).id);
    if (!row) throw new NotFoundError('webhook_endpoint');
    return row;
  };
  return [
    // Before /v1/webhooks/{id}: express matches in order.
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/signing-key',
      summary: 'The tenant’s webhook signing public key',
      description:
        'Every delivery also carries a `v1a,<base64 ed25519 signature>` of `{webhook-id}.{webhook-timestamp}.{body}` with the tenant’s key: verify it with this public key (`whpk_` + base64 of the raw 32 bytes) without holding any secret.',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      success: { status: 200, description: 'The public key', schema: z.object({ publicKey: z.string().regex(/^whpk_/), algorithm: z.literal('ed25519') }) },
      errors: [401, 404],
      handler: async (ctx) => {
        const principal = await principalOf(ctx);
        const { publicKey } = await deps.keyring.signingKey(principal.tenantId);
        return { data: { publicKey, algorithm: 'ed25519' as const } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks',
      summary: 'List webhook endpoints',
      description: 'The endpoints the caller manages (an auditor: the tenant-wide ones; an organiser: their own), newest first. Never a secret.',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      query: PageQuery,
      success: { status: 200, description: 'A page of endpoints', schema: paginated(WebhookEndpointSchema) },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        const { page, limit } = ctx.query as z.infer<typeof PageQuery>;
        const { items, total } = await deps.endpoints.list(await principalOf(ctx), page, limit);
        return { data: { items, pagination: pagination(page, limit, total) } };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}',
      summary: 'Get a webhook endpoint',
      description: 'Never its secret (shown once, at creation or rotation).',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      params: IdParams,
      success: { status: 200, description: 'The endpoint', schema: WebhookEndpointSchema },
      errors: [401, 404],
      handler: async (ctx) => ({ data: toWebhookEndpoint(await endpointOf(ctx)) }),
    }),
    defineRoute({
      method: 'get',
      path: '/v1/webhooks/{id}/attempts',
      summary: 'A webhook endpoint’s delivery attempts',
      description: 'Newest first: the event id (`webhook-id`), the HTTP status, the latency, the error, and the first 1 KB of the response.',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      params: IdParams,
      query: PageQuery,
      success: { status: 200, description: 'A page of attempts', schema: paginated(WebhookAttemptSchema) },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        const row = await endpointOf(ctx);
        const { page, limit } = ctx.query as z.infer<typeof PageQuery>;
        const { items, total } = await deps.endpoints.attempts(row.id, page, limit);
        return { data: { items, pagination: pagination(page, limit, total) } };
      },
    }),
  ];
};

/** GET on a sandbox inbox (sandbox only): the deliveries it holds, newest first. The token is the only key. */
export const makeInboxQueryRoutes = (deps: { inbox: WebhookInboxReader }): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/sandbox/webhook-inbox/{token}',
    summary: 'Read a sandbox webhook inbox',
    description: `Sandbox only. The last ${INBOX_KEEP_PER_TOKEN} deliveries, newest first, each with its headers and raw body (verify its signature on these bytes).`,
    tags: ['Webhooks (sandbox inbox)'],
    auth: 'none',
    params: z.object({ token: z.string().regex(INBOX_TOKEN) }),
    rateLimit: { name: 'webhook-inbox-read', limit: 600, windowSeconds: 60 },
    success: { status: 200, description: 'The deliveries', schema: z.object({ items: z.array(InboxDeliverySchema) }) },
    errors: [404, 429],
    handler: async (ctx) => ({ data: { items: await deps.inbox.latest((ctx.params as { token: string }).token) } }),
  }),
];
