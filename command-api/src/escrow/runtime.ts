import { randomUUID } from 'node:crypto';
import { NotFoundError, type EscrowMeta, type Pool, type PoolActor } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { poolStream } from '../shared/context';
import { loadState, type CommandRuntime } from '../shared/run-command';
import { poolAggregate, poolInTenant } from '../pools/aggregate';
import type { ReservationDeps } from '../reservations/runtime';

/** What the escrow commands take: the reservations' runtime (write path, clock, ledger, facts) and the release window. */
export interface EscrowDeps extends Omit<ReservationDeps, 'quotes'> {
  /** How long a prepared settlement's release stays valid before its recovery may run (config ESCROW_RELEASE_WINDOW_HOURS). */
  releaseWindowHours: number;
}

/** The system acting (a job): no user, no request. */
export const systemMetadata = (actorId: string, tenantId: string | null, now: string): EventMetadata => ({
  tenantId,
  actor: { kind: 'system', id: actorId },
  correlationId: randomUUID(),
  causationId: null,
  occurredAt: now,
});

/** What an escrow decision knows of its caller: who and their role (from their own account stream), and when. */
export const escrowMeta = (actor: PoolActor | null, now: string): EscrowMeta => ({ actor: actor ? { userId: actor.userId, role: actor.role } : null, now });

/** The pool as its stream says now, as the caller may see it (another tenant's pool does not exist): for what the ledger needs before a command. */
export const loadPoolIn = async (deps: Pick<CommandRuntime, 'store'>, poolId: string, tenantId: string): Promise<Pool> =>
  poolInTenant((await loadState(deps.store, poolStream(poolId), poolAggregate)).pool, tenantId);

export const existingPool = (pool: Pool) => {
  if (pool.status === 'none') throw new NotFoundError('pool');
  return pool;
};
