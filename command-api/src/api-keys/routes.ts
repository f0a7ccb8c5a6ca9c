import { NotFoundError } from '@cagnotte/domain';
import {
  defineRoute,
  fromPrefixedId,
  prefixedIdParam,
  registerV1ErrorCodes,
  type ApiKeyStore,
  type AuthContext,
  type EventStore,
  type RouteDef,
  type TenantRef,
} from '@cagnotte/infra';
import { z } from 'zod';
import { ApiKeyView, ApiKeyWithSecret, ScopesInput, issueApiKey, normaliseScopes, requireKeyOwner, toApiKeyView } from './keys';

export interface ApiKeyRouteDeps {
  store: EventStore;
  keys: ApiKeyStore;
  clock: () => Date;
}

registerV1ErrorCodes({
  organiser_required: 'API keys are issued to organisers of the tenant',
  account_not_found: 'No such account in this tenant',
});

const TAGS = ['API keys'];
const v1 = { resource: 'api_keys', access: 'write' } as const;
const Params = z.object({ id: prefixedIdParam('key') });

const KeyCreateInput = z
  .object({
    name: z.string().trim().min(1).max(100).describe('What the key is for, to recognise it in the list').meta({ example: 'Storefront back end' }),
    mode: z.enum(['test', 'live']).default('test').describe('`test` keys (`sk_test_…`) see sandbox objects only; `live` keys (`sk_live_…`) only live ones, and need a verified tenant'),
    scopes: ScopesInput.describe('Default `["*"]`. Restricted: `*:read` (read-only), or per resource `deals:write`, `accounts:read`, …'),
  })
  .strict();

const KeyRollInput = z
  .object({
    expiresInHours: z.number().int().min(0).max(168).default(0).describe('How long the old secret keeps working (0: revoked now; at most 7 days)'),
  })
  .strict();

/** An organiser manages their own keys, in their own tenant: anyone else's key, or another tenant's, is a 404. */
const ownKey = async (deps: ApiKeyRouteDeps, auth: AuthContext, tenant: TenantRef | null, id: string) => {
  const uuid = fromPrefixedId('key', id);
  const key = uuid && tenant && tenant.id === auth.tenantId ? await deps.keys.find(tenant.id, uuid) : null;
  if (!key || key.ownerId !== auth.userId) throw new NotFoundError('api_key');
  return key;
};

const ownTenant = (auth: AuthContext, tenant: TenantRef | null): TenantRef => {
  if (!tenant || tenant.id !== auth.tenantId) throw new NotFoundError('tenant');
  return tenant;
};

/**
 * `/v1/api-keys`: an organiser's keys, managed with their session (never with a key: a key cannot mint keys).
 * The operator CLI does the same for any organiser (`pnpm cli api-keys …`).
 */
export const makeApiKeyRoutes = (deps: ApiKeyRouteDeps): RouteDef[] => [
  defineRoute({
    method: 'post',
    path: '/v1/api-keys',
    summary: 'Create an API key',
    description:
      'Issues a key that acts as the signed-in organiser in their tenant, on /v1 only. The `secret` is shown once, in this answer (a replay of the same Idempotency-Key answers `secret: null`). A live key needs a tenant verified by the operator (403 `tenant_not_verified`).',
    tags: TAGS,
    auth: 'required',
    tenant: 'required',
    v1,
    sessionOnly: true,
    body: KeyCreateInput,
    success: { status: 201, description: 'The key, with its secret', schema: ApiKeyWithSecret },
    errors: [400, 401, 403, 404],
    idempotent: true,
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const tenant = ownTenant(auth, ctx.tenant);
      const issued = await issueApiKey(deps, {
        tenant,
        ownerId: auth.userId,
        livemode: ctx.body.mode === 'live',
        name: ctx.body.name,
        scopes: normaliseScopes(ctx.body.scopes),
        createdBy: `user:${auth.userId}`,
      });
      const view = toApiKeyView(issued.key);
      return { status: 201, data: { ...view, secret: issued.secret }, keep: { ...view, secret: null } };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/v1/api-keys/{id}/roll',
    summary: 'Roll an API key',
    description:
      'Replaces the secret: a new key with the same name, mode and scopes, shown once. The old secret is revoked now, or keeps working `expiresInHours` more. A key already rolled, revoked or expired is a 404.',
    tags: TAGS,
    auth: 'required',
    tenant: 'required',
    v1,
    sessionOnly: true,
    params: Params,
    body: KeyRollInput,
    success: { status: 201, description: 'The new key, with its secret', schema: ApiKeyWithSecret },
    errors: [400, 401, 403, 404],
    idempotent: true,
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const old = await ownKey(deps, auth, ctx.tenant, ctx.params.id);
      // The owner must still be an organiser of the tenant to be issued a new secret.
      await requireKeyOwner(deps.store, old.tenantId, old.ownerId);
      const now = deps.clock();
      const hours = ctx.body.expiresInHours;
      const rolled = await deps.keys.roll(old.id, { now, graceUntil: hours > 0 ? new Date(now.getTime() + hours * 3_600_000) : null, createdBy: `user:${auth.userId}` });
      if (!rolled) throw new NotFoundError('api_key');
      const view = toApiKeyView(rolled.key);
      return { status: 201, data: { ...view, secret: rolled.secret }, keep: { ...view, secret: null } };
    },
  }),
  defineRoute({
    method: 'delete',
    path: '/v1/api-keys/{id}',
    summary: 'Revoke an API key',
    description: 'The key is refused (401 `api_key_invalid`) from the next request on, in every process. Revoking again changes nothing.',
    tags: TAGS,
    auth: 'required',
    tenant: 'required',
    v1,
    sessionOnly: true,
    params: Params,
    success: { status: 200, description: 'The revoked key', schema: ApiKeyView },
    errors: [401, 403, 404],
    handler: async (ctx) => {
      const key = await ownKey(deps, ctx.auth!, ctx.tenant, ctx.params.id);
      const revoked = await deps.keys.revoke(key.id, deps.clock());
      return { data: toApiKeyView(revoked ?? key) };
    },
  }),
];
