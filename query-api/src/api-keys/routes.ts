import { NotFoundError } from '@cagnotte/domain/errors';
import {
  ApiKeyView,
  V1ListQuery,
  defineRoute,
  fromPrefixedId,
  prefixedIdParam,
  toApiKeyView,
  unknownCursor,
  v1List,
  type ApiKeyStore,
  type AuthContext,
  type RouteDef,
  type TenantRef,
} from '@cagnotte/infra';
import { z } from 'zod';

export interface ApiKeyQueryDeps {
  keys: ApiKeyStore;
}

const TAGS = ['API keys'];
const Params = z.object({ id: prefixedIdParam('key') });

const ownTenant = (auth: AuthContext, tenant: TenantRef | null): TenantRef => {
  if (!tenant || tenant.id !== auth.tenantId) throw new NotFoundError('tenant');
  return tenant;
};

/** An organiser reads their own keys, in their own tenant: anyone else's key, or another tenant's, is a 404. */
const ownKey = async (deps: ApiKeyQueryDeps, auth: AuthContext, tenant: TenantRef | null, id: string) => {
  const uuid = fromPrefixedId('key', id);
  const key = uuid && tenant && tenant.id === auth.tenantId ? await deps.keys.find(tenant.id, uuid) : null;
  if (!key || key.ownerId !== auth.userId) throw new NotFoundError('api_key');
  return key;
};

/** The reads of `/v1/api-keys` (the writes are command-api's): the keys' records, never a secret. */
export const makeApiKeyQueryRoutes = (deps: ApiKeyQueryDeps): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/v1/api-keys',
    summary: 'List your API keys',
    description: 'The signed-in organiser’s keys that are not revoked, newest first.',
    tags: TAGS,
    auth: 'required',
    tenant: 'required',
    v1: { resource: 'api_keys', access: 'read' },
    sessionOnly: true,
    query: V1ListQuery,
    success: { status: 200, description: 'A page of keys', schema: v1List(ApiKeyView) },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const tenant = ownTenant(auth, ctx.tenant);
      const cursorOf = async (id: string | undefined, param: 'startingAfter' | 'endingBefore') => {
        if (!id) return null;
        const uuid = fromPrefixedId('key', id);
        const key = uuid ? await deps.keys.find(tenant.id, uuid) : null;
        if (!key || key.ownerId !== auth.userId) throw unknownCursor(param);
        return key.seq;
      };
      const page = await deps.keys.list({
        tenantId: tenant.id,
        ownerId: auth.userId,
        limit: ctx.query.limit,
        after: await cursorOf(ctx.query.startingAfter, 'startingAfter'),
        before: await cursorOf(ctx.query.endingBefore, 'endingBefore'),
      });
      return { data: { object: 'list', items: page.items.map(toApiKeyView), hasMore: page.hasMore, url: '/v1/api-keys' } };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/v1/api-keys/{id}',
    summary: 'Retrieve an API key',
    tags: TAGS,
    auth: 'required',
    tenant: 'required',
    v1: { resource: 'api_keys', access: 'read' },
    sessionOnly: true,
    params: Params,
    success: { status: 200, description: 'The key (never its secret)', schema: ApiKeyView },
    errors: [401, 403, 404],
    handler: async (ctx) => ({ data: toApiKeyView(await ownKey(deps, ctx.auth!, ctx.tenant, ctx.params.id)) }),
  }),
];
