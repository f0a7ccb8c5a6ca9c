import { ForbiddenError, NotFoundError } from '@cagnotte/domain/errors';
import { livemodeOf, type RequestContext } from '@cagnotte/infra';
import type { AccountReadModel, V1Scope } from '@cagnotte/read-models';

/**
 * Who reads /v1 accounts and transfers, as the command side decides it (command-api/src/accounts/scope.ts): an API
 * key (its tenant and mode), or an organiser's session (the deployment's mode); anyone else is a 403.
 */
export const partnerScopeOf = async (
  ctx: Pick<RequestContext<unknown, unknown, unknown>, 'auth' | 'apiKey' | 'tenant'>,
  deps: { accounts: AccountReadModel; production: boolean },
): Promise<V1Scope> => {
  const scope = { livemode: livemodeOf(ctx, deps.production), defaultLivemode: deps.production };
  if (ctx.apiKey) return { ...scope, tenantId: ctx.apiKey.tenantId };
  const auth = ctx.auth!;
  if (!ctx.tenant || ctx.tenant.id !== auth.tenantId) throw new ForbiddenError('tenant_mismatch', 'You are not a member of this tenant');
  const me = await deps.accounts.find(auth.userId);
  if (!me) throw new NotFoundError('account');
  if (me.role !== 'organiser') throw new ForbiddenError('organiser_required', 'Accounts and transfers are managed by the tenant’s organisers and their API keys');
  return { ...scope, tenantId: auth.tenantId };
};
