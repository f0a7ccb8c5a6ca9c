import { ForbiddenError, NotFoundError } from '@cagnotte/domain';
import { V1Scope, type ApiKeyRecord, type ApiKeyStore, type EventStore } from '@cagnotte/infra';
export { ApiKeyView, ApiKeyWithSecret, toApiKeyView } from '@cagnotte/infra';
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

/** Scopes as asked: at least one, no duplicates; `*` when none is given. */
export const ScopesInput = z.array(V1Scope).min(1).max(20).optional();
export const normaliseScopes = (scopes: string[] | undefined): string[] => [...new Set(scopes ?? ['*'])];
