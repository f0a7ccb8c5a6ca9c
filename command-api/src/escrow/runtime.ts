import { randomUUID } from 'node:crypto';
import { NotFoundError, type EscrowMeta, type Pool } from '@cagnotte/domain';
import type { EventMetadata, PoolEvent } from '@cagnotte/event-schemas';
import type { RouteAnswer } from '@cagnotte/infra';
import { poolStream } from '../shared/context';
import { loadState, runCommand, type CommandRuntime } from '../shared/run-command';
import { poolAggregate, runOnPool, type CommandCtx, type PoolOutcome, type TenantPolicy } from '../pools/handler';
import { poolInTenant, type ReservationDeps } from '../reservations/runtime';

/** What the escrow commands take: the reservations' runtime (write path, clock, ledger, jobs), the tenant's policy, the release window. */
export interface EscrowDeps extends Omit<ReservationDeps, 'tenantPolicy' | 'quotes'> {
  tenantPolicy: (tenantId: string) => Promise<TenantPolicy>;
  /** How long a prepared settlement's release stays valid before its recovery may run (config ESCROW_RELEASE_WINDOW_HOURS). */
  releaseWindowHours: number;
}

/** What a pool answer and a reservation answer show (read-your-writes): the command waits for these. */
export const ESCROW_PROJECTIONS = ['pools', 'reservations'];

/** The system acting (a job): no user, no request. */
export const systemMetadata = (actorId: string, tenantId: string | null, now: string): EventMetadata => ({
  tenantId,
  actor: { kind: 'system', id: actorId },
  correlationId: randomUUID(),
  causationId: null,
  occurredAt: now,
});

/** The pool as its stream says now, as the caller may see it (another tenant's pool does not exist). */
export const loadPoolIn = async (deps: CommandRuntime, poolId: string, tenantId: string): Promise<Pool> =>
  poolInTenant(await loadState(deps.store, poolStream(poolId), poolAggregate), tenantId);

export const existingPool = (pool: Pool) => {
  if (pool.status === 'none') throw new NotFoundError('pool');
  return pool;
};

/** An escrow decision as the signed-in caller (their role from their own account stream): see runOnPool. */
export const runPoolDecision = (
  deps: EscrowDeps,
  ctx: CommandCtx,
  poolId: string,
  decide: (pool: Pool, meta: EscrowMeta) => PoolEvent[],
  respond: (outcome: PoolOutcome) => RouteAnswer,
): Promise<RouteAnswer> => runOnPool(deps, ctx, poolId, (pool, meta) => decide(pool, { actor: { userId: meta.actor.userId, role: meta.actor.role }, now: meta.now }), respond, ESCROW_PROJECTIONS);

/** Runs a decision as the system (a job), on the pool's stream as it is at run time: a job that finds nothing to do appends nothing. */
export const runSystemDecision = (
  deps: CommandRuntime,
  job: { poolId: string; tenantId: string | null },
  actorId: string,
  now: Date,
  decide: (pool: Pool, now: string) => PoolEvent[],
) => {
  const at = now.toISOString();
  return runCommand(deps, poolStream(job.poolId), poolAggregate, ({ pool }) => (pool.status === 'none' ? [] : decide(pool, at)), systemMetadata(actorId, job.tenantId, at));
};
