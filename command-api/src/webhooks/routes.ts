import type { Knex } from 'knex';
import { z } from 'zod';
import { IllegalStateError, NotFoundError, ValidationError } from '@cagnotte/domain';
import { assessWebhookUrl, defineRoute, type RequestContext, type Resolver, type RouteDef, type WebhookKeyring } from '@cagnotte/infra';
import { toWebhookEndpoint, type EventPrincipal, type EventPrincipalLookup, type WebhookEndpointRow } from '@cagnotte/read-models';
import { WebhookEndpointStore } from './endpoints';
import {
  CreatedEndpointSchema,
  EndpointParams,
  RecoverInput,
  RotateSecretInput,
  RotatedSecretSchema,
  UpdatedEndpointSchema,
  WebhookCreateInput,
  WebhookUpdateInput,
} from './input';
import type { WebhookDeliveryScheduler } from './ports';

export interface WebhookCommandDeps {
  knex: Knex;
  keyring: WebhookKeyring;
  principals: EventPrincipalLookup;
  production: boolean;
  maxEndpointsPerTenant: number;
  clock: () => Date;
  /** The delivery side; without it the test and recover routes are not served (they never pretend to deliver). */
  delivery?: WebhookDeliveryScheduler;
  /** DNS for the SSRF guard (a spec injects one). */
  resolver?: Resolver;
  /**
   * The service's own sandbox inbox (`<its URL>/sandbox/webhook-inbox/`), as the delivery sees it: taken from where the
   * service listens, never from the request's Host header (which the caller writes).
   */
  sandboxInboxBase?: () => string | undefined;
}

type Ctx = RequestContext<unknown, unknown, { id: string }>;

const TAGS = ['Webhooks'];
const ERRORS = [400, 401, 404, 409];

/**
 * The endpoints API (docs/webhooks.md): create, change, delete, rotate the secret, send a test, recover a window.
 * Who may: the principal of the session (an auditor of the tenant: the tenant-wide endpoints; an organiser: their own).
 * Anyone else, and any endpoint outside the principal's scope, is a 404 `webhook_endpoint_not_found`.
 */
export const makeWebhookCommandRoutes = (deps: WebhookCommandDeps): RouteDef[] => {
  const store = new WebhookEndpointStore(deps.knex, deps.keyring, deps.maxEndpointsPerTenant);

  const principalOf = async (ctx: Ctx): Promise<EventPrincipal> => {
    const principal = await deps.principals.resolve(ctx);
    if (!principal) throw new NotFoundError('webhook_endpoint');
    return principal;
  };
  const endpointOf = async (ctx: Ctx) => {
    const principal = await principalOf(ctx);
    const row = await store.find(principal, ctx.params.id);
    if (!row) throw new NotFoundError('webhook_endpoint');
    return { principal, row };
  };
  /** The SSRF guard, with this environment's rules; a refusal is the `url` field's error. */
  const safeUrl = async (url: string): Promise<string> => {
    const checked = await assessWebhookUrl(url, {
      production: deps.production,
      allowLoopbackHttp: !deps.production,
      sandboxInboxBase: deps.sandboxInboxBase?.(),
      resolver: deps.resolver,
    });
    if (!checked.ok) throw new ValidationError({ url: [checked.problem] });
    return checked.url.toString();
  };

  const routes: RouteDef[] = [
    defineRoute({
      method: 'post',
      path: '/v1/webhooks',
      summary: 'Create a webhook endpoint',
      description:
        'Subscribes a URL to public events (Standard Webhooks). The answer holds the signing `secret` (`whsec_…`): it is shown only here. The endpoint receives the events after its creation. At most WEBHOOK_MAX_ENDPOINTS_PER_TENANT (20) endpoints per tenant (409 `webhook_endpoint_limit`).',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      body: WebhookCreateInput,
      example: { url: 'https://shop.example.com/webhooks/cagnotte', enabledEvents: ['reservation.paid', 'pool.*'], description: 'Order sync', ordering: 'per_subject' },
      idempotent: true,
      success: { status: 201, description: 'Endpoint created, with its secret', schema: CreatedEndpointSchema },
      errors: ERRORS,
      handler: async (ctx) => {
        const c = ctx as unknown as Ctx;
        const body = ctx.body as WebhookCreateInput;
        const principal = await principalOf(c);
        const url = await safeUrl(body.url);
        const { row, secret } = await store.create(principal, body, url, {
          idempotency: ctx.idempotency,
          keep: (r) => ({ status: 201, body: { success: true, data: toWebhookEndpoint(r) }, headers: {} }),
        });
        return { status: 201, data: { ...toWebhookEndpoint(row), secret } };
      },
    }),
    defineRoute({
      method: 'patch',
      path: '/v1/webhooks/{id}',
      summary: 'Change a webhook endpoint',
      description: 'Its URL (checked again), events, description, metadata, ordering, or status. Re-enabling an endpoint disabled by failures answers `recovery`, the window it missed.',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      params: EndpointParams,
      body: WebhookUpdateInput,
      example: { enabledEvents: ['reservation.*'], status: 'enabled' },
      idempotent: true,
      success: { status: 200, description: 'The endpoint as changed', schema: UpdatedEndpointSchema },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        const c = ctx as unknown as Ctx;
        const body = ctx.body as WebhookUpdateInput;
        const principal = await principalOf(c);
        const url = body.url === undefined ? undefined : await safeUrl(body.url);
        const updated = await store.update(principal, c.params.id, { ...body, url }, deps.clock());
        if (!updated) throw new NotFoundError('webhook_endpoint');
        const recovery = updated.recovery ? { since: updated.recovery.since.toISOString(), until: updated.recovery.until.toISOString() } : undefined;
        return { data: { ...toWebhookEndpoint(updated.row), ...(recovery ? { recovery } : {}) } };
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/v1/webhooks/{id}',
      summary: 'Delete a webhook endpoint',
      description: 'It stops at once: its secrets are erased and its pending deliveries cancelled.',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      params: EndpointParams,
      idempotent: true,
      success: { status: 204, description: 'Deleted', schema: null },
      errors: [401, 404],
      handler: async (ctx) => {
        const c = ctx as unknown as Ctx;
        if (!(await store.remove(await principalOf(c), c.params.id, deps.clock()))) throw new NotFoundError('webhook_endpoint');
        return { status: 204, data: null };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/v1/webhooks/{id}/rotate-secret',
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate a webhook endpoint’s signing secret',
      description:
        'Answers a new secret (shown only here). The previous secrets keep signing beside it for `expiresInSeconds` (default 86400, at most 7 days; 0 stops them now): every delivery carries one `v1,` signature per active secret.',
      tags: TAGS,
      auth: 'required',
      tenant: 'required',
      params: EndpointParams,
      body: RotateSecretInput,
      idempotent: true,
      success: { status: 200, description: 'The new secret', schema: RotatedSecretSchema },
      errors: [400, 401, 404],
      handler: async (ctx) => {
        const c = ctx as unknown as Ctx;
        const { expiresInSeconds } = ctx.body as z.infer<typeof RotateSecretInput>;
        const id = c.params.id;
        const rotated = await store.rotate(await principalOf(c), id, expiresInSeconds, deps.clock(), {
          idempotency: ctx.idempotency,
          keep: (expiresAt) => ({ status: 200, body: { success: true, data: { id, previousSecretsExpireAt: expiresAt.toISOString() } }, headers: {} }),
        });
        if (!rotated) throw new NotFoundError('webhook_endpoint');
        return { data: { id, secret: rotated.secret, previousSecretsExpireAt: rotated.expiresAt.toISOString() } };
      },
    }),
  ];
  if (deps.delivery) routes.push(...deliveryRoutes(deps.delivery, endpointOf, deps.clock));
  return routes;
};

const deliveryRoutes = (
  delivery: WebhookDeliveryScheduler,
  endpointOf: (ctx: Ctx) => Promise<{ row: WebhookEndpointRow }>,
  clock: () => Date,
): RouteDef[] => [
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/test',
    summary: 'Send a test event to a webhook endpoint',
    description: 'Delivers a `webhook.test` event now, signed like every delivery; its attempts appear under …/attempts. At most 30 a minute per client (429).',
    tags: TAGS,
    auth: 'required',
    // Each one is a request to someone's server: bounded, so the endpoint API cannot be used to flood a receiver.
    rateLimit: { name: 'webhook-test', limit: 30, windowSeconds: 60 },
    tenant: 'required',
    params: EndpointParams,
    idempotent: true,
    success: { status: 202, description: 'Scheduled', schema: z.object({ eventId: z.string() }) },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const { row } = await endpointOf(ctx as unknown as Ctx);
      if (row.status !== 'enabled') throw new IllegalStateError('webhook_endpoint_disabled', 'Enable the endpoint first');
      return { status: 202, data: await delivery.scheduleTest(row) };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/webhooks/{id}/recover',
    summary: 'Re-deliver a window of events to a webhook endpoint',
    description: 'Every event of [since, until) that the endpoint subscribes to is delivered again: new attempts, the same `webhook-id` (receivers dedupe on it). At most 10 a minute per client (429).',
    tags: TAGS,
    auth: 'required',
    rateLimit: { name: 'webhook-recover', limit: 10, windowSeconds: 60 },
    tenant: 'required',
    params: EndpointParams,
    body: RecoverInput,
    idempotent: true,
    success: { status: 202, description: 'Scheduled', schema: z.object({ scheduled: z.number().int(), since: z.string(), until: z.string() }) },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const { row } = await endpointOf(ctx as unknown as Ctx);
      const body = ctx.body as z.infer<typeof RecoverInput>;
      const now = clock();
      const since = new Date(body.since);
      const until = body.until ? new Date(Math.min(new Date(body.until).getTime(), now.getTime())) : now;
      if (since.getTime() >= until.getTime()) throw new ValidationError({ since: ['must be before `until` (and before now)'] });
      if (row.status !== 'enabled') throw new IllegalStateError('webhook_endpoint_disabled', 'Enable the endpoint first');
      const { scheduled } = await delivery.scheduleRecovery(row, since, until);
      return { status: 202, data: { scheduled, since: since.toISOString(), until: until.toISOString() } };
    },
  }),
];
