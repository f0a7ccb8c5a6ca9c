import { ForbiddenError, UnauthorizedError, type PoolActor } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { accountStreamId, readAccountState, type AuthContext, type EventStore, type RequestContext, type TenantRef } from '@cagnotte/infra';

export const accountStream = accountStreamId;
export const poolStream = (poolId: string) => `pool-${poolId}`;
export const tenantStream = (slug: string) => `tenant-${slug}`;

/** The account as its own stream says now: roles and account type come from the source of truth, not the token. */
export const loadAccount = readAccountState;

export const loadActor = async (store: EventStore, auth: AuthContext): Promise<PoolActor> => {
  const account = await loadAccount(store, auth.userId);
  if (!account) throw new UnauthorizedError('Account no longer exists', 'account_missing');
  return { userId: account.userId, role: account.role, accountType: account.accountType, displayName: account.displayName };
};

/** A signed-in user acts only inside their own tenant. */
export const requireOwnTenant = (auth: AuthContext, tenant: TenantRef | null): TenantRef => {
  if (!tenant || tenant.id !== auth.tenantId) throw new ForbiddenError('tenant_mismatch', 'You are not a member of this tenant');
  return tenant;
};

export const metadataFor = (ctx: Pick<RequestContext<unknown, unknown, unknown>, 'auth' | 'requestId' | 'ip'>, tenantId: string | null, now: string): EventMetadata => ({
  tenantId,
  actor: ctx.auth ? { kind: 'user', id: ctx.auth.userId } : { kind: 'system', id: 'anonymous' },
  correlationId: ctx.requestId,
  causationId: null,
  occurredAt: now,
  ip: ctx.ip.slice(0, 64),
});
