import { ForbiddenError, NotFoundError } from '@cagnotte/domain';
import { V1Scope, toPrefixedId, type ApiKeyRecord, type ApiKeyStore, type EventStore } from '@cagnotte/infra';
import { z } from 'zod';
import { loadAccount } from '../shared/context';
import { isTenantVerified } from './verification';

/** Who a key acts as: an organiser of the tenant, as the account's own stream says. */
export const requireKeyOwner = async (store: EventStore, tenantId: string, ownerId: string): Promise<void> => {
  const account = await loadAccount(store, ownerId);
  if (account.status === 'none' || account.tenantId !== tenantId) throw new NotFoundError('account');
  if (account.role !== 'organiser') throw new ForbiddenError('organiser_required', 'API keys are issued to organisers of the tenant');
};

export interface IssueKeyInput {
  tenant: { id: string; slug: string };
  ownerId: string;
  livemode: boolean;
  name: string;
  scopes: string[];
  createdBy: string;
}

/**
 * Issues a key: its owner must be an organiser of the tenant, and a live key needs a tenant an operator verified
 * (`pnpm cli tenant verify`). The secret is returned once, here.
 */
export const issueApiKey = async (deps: { store: EventStore; keys: ApiKeyStore }, input: IssueKeyInput): Promise<{ key: ApiKeyRecord; secret: string }> => {
  await requireKeyOwner(deps.store, input.tenant.id, input.ownerId);
  if (input.livemode && !(await isTenantVerified(deps.store, input.tenant.slug))) {
    throw new ForbiddenError('tenant_not_verified', 'Live keys are issued only to verified businesses: ask the operator to verify the tenant');
  }
  return deps.keys.create({ tenantId: input.tenant.id, ownerId: input.ownerId, livemode: input.livemode, name: input.name, scopes: input.scopes, createdBy: input.createdBy });
};

export const ApiKeyView = z
  .object({
    id: z.string().meta({ example: 'key_0c1d2e3f40514a6b8c7d9e0f1a2b3c4d' }),
    object: z.literal('api_key'),
    livemode: z.boolean(),
    name: z.string(),
    redactedSecret: z.string().describe('The secret’s mode and last four characters: `sk_test_…a1B2`').meta({ example: 'sk_test_…a1B2' }),
    scopes: z.array(z.string()).describe('`*`, `*:read`, or `<resource>:read|write` (write implies read)'),
    owner: z.string().describe('The account the key acts as (`acct_…`), an organiser of the tenant'),
    created: z.string().datetime(),
    lastUsed: z.string().datetime().nullable().describe('Updated at most once a minute'),
    expiresAt: z.string().datetime().nullable().describe('A rolled key works until then'),
    revokedAt: z.string().datetime().nullable(),
    rolledTo: z.string().nullable().describe('The key that replaced this one'),
  })
  .meta({ id: 'ApiKey' });

export const ApiKeyWithSecret = ApiKeyView.extend({
  secret: z.string().nullable().describe('The secret, shown once: null on a replay of the same Idempotency-Key (it is not kept)'),
}).meta({ id: 'ApiKeyWithSecret' });

export const toApiKeyView = (k: ApiKeyRecord): z.infer<typeof ApiKeyView> => ({
  id: toPrefixedId('key', k.id),
  object: 'api_key',
  livemode: k.livemode,
  name: k.name,
  redactedSecret: `sk_${k.livemode ? 'live' : 'test'}_…${k.last4}`,
  scopes: k.scopes,
  owner: toPrefixedId('acct', k.ownerId),
  created: k.createdAt.toISOString(),
  lastUsed: k.lastUsedAt?.toISOString() ?? null,
  expiresAt: k.expiresAt?.toISOString() ?? null,
  revokedAt: k.revokedAt?.toISOString() ?? null,
  rolledTo: k.rolledTo ? toPrefixedId('key', k.rolledTo) : null,
});

/** Scopes as asked: at least one, no duplicates; `*` when none is given. */
export const ScopesInput = z.array(V1Scope).min(1).max(20).optional();
export const normaliseScopes = (scopes: string[] | undefined): string[] => [...new Set(scopes ?? ['*'])];
