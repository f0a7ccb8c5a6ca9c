import { ForbiddenError, UnauthorizedError, accountAggregate, type Account, type PoolActor } from '@cagnotte/domain';
import type pg from 'pg';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { formatPosition, type AuthContext, type CheckpointWaiter, type EventStore, type KeyedQueue, type Position, type RequestContext, type TenantRef } from '@cagnotte/infra';
import { loadState } from './run-command';

// Stream names (published: old streams must still fold). Which aggregates each holds: domain/src/identity/account-stream.ts.
export const accountStream = (userId: string) => `account-${userId}`;
export const poolStream = (poolId: string) => `pool-${poolId}`;
export const tenantStream = (slug: string) => `tenant-${slug}`;

/**
 * The projections a command on an account stream waits for before it answers, so that the caller's next read
 * (`/api/auth/me`, `/api/mandates`, a grant) shows its write.
 */
export const ACCOUNT_PROJECTIONS = ['identity'];

/** The account as its own stream says now: roles and account type come from the source of truth, not the token. */
export const loadAccount = (store: EventStore, userId: string): Promise<Account> => loadState(store, accountStream(userId), accountAggregate);

export const loadActor = async (store: EventStore, auth: AuthContext): Promise<PoolActor> => {
  const account = await loadAccount(store, auth.userId);
  if (account.status === 'none') throw new UnauthorizedError('Account no longer exists', 'account_missing');
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

/** Read-your-writes: when the command wrote, wait (at most `timeoutMs`) until these projections have applied it. */
export const awaitProjections = async (waiter: CheckpointWaiter, projections: string[], position: Position | null, timeoutMs: number): Promise<void> => {
  if (position) await waiter.waitFor(projections, position, timeoutMs);
};

export const positionHeader = (p: Position | null): Record<string, string> => (p ? { 'X-Event-Position': formatPosition(p) } : {});

/** What every command route on an account stream needs besides its own adapters. */
export interface AccountCommandDeps {
  store: EventStore;
  pgPool: pg.Pool;
  commandQueue: KeyedQueue;
  waiter: CheckpointWaiter;
  clock: () => Date;
  /** How long a command waits for its projections before it answers anyway (config READ_YOUR_WRITES_TIMEOUT_MS). */
  readYourWritesMs: number;
}
