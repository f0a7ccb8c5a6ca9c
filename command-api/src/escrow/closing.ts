import { z } from 'zod';
import { decideEscrow, type Pool } from '@cagnotte/domain';
import { defineRoute, type AuthContext, type RouteAnswer, type RouteDef } from '@cagnotte/infra';
import { GroupBuy } from '@cagnotte/read-models';
import { poolAggregate, poolInTenant, type PoolCommandState, type PoolOutcome } from '../pools/aggregate';
import { poolAnswer } from '../pools/answers';
import { loadState } from '../shared/run-command';
import { loadAccount, poolStream } from '../shared/context';
import { POSITION_HEADER, executeCommand, fromRequest, type CommandCtx, type ExecuteRuntime } from '../shared/execute-command';
import type { TenantPolicy } from '../identity/tenant';
import { tenantOf } from '../reservations/runtime';
import { escrowMeta, loadPoolIn, systemMetadata, type EscrowDeps } from './runtime';
import { closingFeeVat } from '../fees/parties';

// The end of a pool: closing (at its deadline, by a job; early, by its organiser), cancelling, and delivery, which
// starts the buyers' inspection period. The rules are the domain's (domain/src/escrow/decide.ts, docs/escrow.md).

const PoolParams = z.object({ id: z.string().uuid() });

/** What narrows the pool a command decides on beyond its tenant (the /v1 key's mode): what it hides is none. */
export type PoolVisibility = (state: PoolCommandState, pool: Pool) => Pool;
const asIs: PoolVisibility = (_s, pool) => pool;

/** Closes a pool early (its organiser): the /api route and the /v1 group-buys take this path. */
export const closePool = async (deps: EscrowDeps, ctx: CommandCtx, poolId: string, respond: (o: PoolOutcome) => RouteAnswer, visible: PoolVisibility = asIs): Promise<RouteAnswer> => {
  const tenantId = tenantOf(ctx);
  const [{ actor, policy: tenantPolicy }, read] = await Promise.all([deps.facts.of(ctx.auth!, tenantId), loadPoolIn(deps, poolId, tenantId)]);
  // The VAT rates frozen with the fees need the seller's and organiser's identities: read before deciding (the
  // seller is a money-spine field, fixed once the pool left DRAFT).
  const policy = { ...tenantPolicy, feeVat: await closingFeeVat((id) => deps.facts.account(id), tenantPolicy, read) };
  const now = deps.clock().toISOString();
  const { answer } = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: (state) => decideEscrow({ type: 'ClosePool', data: { reason: 'ORGANISER', policy }, metadata: escrowMeta(actor, now) }, visible(state, poolInTenant(state.pool, tenantId))),
    respond,
    ...fromRequest(ctx, tenantId, now),
  });
  return answer;
};

/** Cancels a DRAFT or OPEN pool (its organiser). */
export const cancelPool = async (
  deps: EscrowDeps,
  ctx: CommandCtx,
  poolId: string,
  reason: string | null,
  respond: (o: PoolOutcome) => RouteAnswer,
  visible: PoolVisibility = asIs,
): Promise<RouteAnswer> => {
  const tenantId = tenantOf(ctx);
  const actor = await deps.facts.actor(ctx.auth!);
  const now = deps.clock().toISOString();
  const { answer } = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: (state) => decideEscrow({ type: 'CancelPool', data: { reason }, metadata: escrowMeta(actor, now) }, visible(state, poolInTenant(state.pool, tenantId))),
    respond,
    ...fromRequest(ctx, tenantId, now),
  });
  return answer;
};

export const makeClosingRoutes = (deps: EscrowDeps): RouteDef[] => {
  const { clock } = deps;
  const respond = (ctx: { auth: AuthContext | null }) => poolAnswer(ctx.auth!, 200, undefined, clock);

  const close = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/close',
    summary: 'Close a pool early (its organiser), once its minimum is reached',
    description: [
      'Owner and organiser. A pool also closes on its own at its `deadline` (a delayed job): this closes it before, once GROUPS pools hold `config.minimumUnits` PAID units (1 without a minimum) or FUNDING pools their `targetAmount` paid (400 `minimum_not_reached` otherwise: cancel it instead). After the deadline it closes whatever the outcome.',
      'Closing ends every PENDING reservation (a deposit that still lands is owed back), fixes the final unit prices (the tier reached by PAID units), the fee rates (the tenant’s payment fee rule and the VAT rates on it and on the commission, docs/fees.md; the organiser’s commission on a brokered pool with the COMMISSION mandate) and the release terms. The pool becomes LOCKED (succeeded: its funds wait for release) or FAILED (below its minimum or goal: every buyer is refunded). Answers the pool with its `closing`.',
    ].join('\n\n'),
    tags: ['Escrow'],
    auth: 'required',
    params: PoolParams,
    idempotent: true,
    success: { status: 200, description: 'The closed pool', schema: GroupBuy },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => closePool(deps, ctx, ctx.params.id, respond(ctx)),
  });

  const cancel = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/cancel',
    summary: 'Cancel a DRAFT or OPEN pool (its organiser): every paid buyer is refunded',
    description:
      'Owner and organiser. The pool becomes CANCELLED: no more reservations, every PENDING one ends, and every PAID deposit is owed back (the organiser cosigns the refund: POST …/escrow/settlement; if nobody does, each buyer reclaims their own deposit from `reclaimAfter`). A LOCKED, FAILED or settled pool is not cancelled (400 `pool_not_cancellable`).',
    tags: ['Escrow'],
    auth: 'required',
    params: PoolParams,
    body: z.object({ reason: z.string().max(500).optional() }).strict(),
    idempotent: true,
    success: { status: 200, description: 'The cancelled pool', schema: GroupBuy },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => cancelPool(deps, ctx, ctx.params.id, ctx.body.reason ?? null, respond(ctx)),
  });

  const delivered = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/delivered',
    operationId: 'markPoolDelivered',
    summary: 'Mark a closed pool delivered (its organiser): the buyers’ inspection period starts',
    description:
      'Owner and organiser, for a LOCKED pool whose release waits for receipt (`release.after: RECEIPT`; 400 `release_at_close` otherwise). From now each buyer has `release.inspectionDays` to confirm receipt (POST …/reservations/{reservationId}/receipt) or open a dispute; a reservation neither confirmed nor disputed by `closing.inspectionEndsAt` is accepted on its own (a delayed job). Marking it again changes nothing.',
    tags: ['Escrow'],
    auth: 'required',
    params: PoolParams,
    body: z.object({ note: z.string().max(1000).optional() }).strict(),
    idempotent: true,
    success: { status: 200, description: 'The pool, with `closing.deliveredAt` and `closing.inspectionEndsAt`', schema: GroupBuy },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404, 503],
    handler: async (ctx) => {
      const tenantId = tenantOf(ctx);
      const actor = await deps.facts.actor(ctx.auth!);
      const now = clock().toISOString();
      const { answer } = await executeCommand(deps, {
        stream: poolStream(ctx.params.id),
        aggregate: poolAggregate,
        decide: ({ pool }) => decideEscrow({ type: 'MarkDelivered', data: { note: ctx.body.note ?? null }, metadata: escrowMeta(actor, now) }, poolInTenant(pool, tenantId)),
        respond: respond(ctx),
        ...fromRequest(ctx, tenantId, now),
      });
      return answer;
    },
  });

  return [close, cancel, delivered];
};

export interface PoolJob {
  poolId: string;
  tenantId: string | null;
}

/**
 * The deadline job (keyed by the PoolPublished event): closes the pool if it is still OPEN and its deadline passed;
 * otherwise nothing (a retried job, a pool cancelled or closed early). `now` is the command's clock.
 */
export const closeAtDeadline = async (deps: ExecuteRuntime & { tenantPolicy: (tenantId: string) => Promise<TenantPolicy> }, job: PoolJob, now: Date) => {
  // The policy is the tenant's: without a tenant in the job (never, from the scheduler), the service's defaults apply through it.
  const tenantPolicy = await deps.tenantPolicy(job.tenantId ?? '');
  const read = await loadState(deps.store, poolStream(job.poolId), poolAggregate);
  const policy = { ...tenantPolicy, feeVat: await closingFeeVat((id) => loadAccount(deps.store, id), tenantPolicy, read.pool) };
  const at = now.toISOString();
  return executeCommand(deps, {
    stream: poolStream(job.poolId),
    aggregate: poolAggregate,
    // Decided on the stream as it is at run time: a job that finds nothing to do appends nothing.
    decide: ({ pool }) => (pool.status === 'none' ? [] : decideEscrow({ type: 'ClosePool', data: { reason: 'DEADLINE', policy }, metadata: escrowMeta(null, at) }, pool)),
    metadata: systemMetadata('pool-deadline', job.tenantId, at),
  });
};

/** The end of the inspection period (keyed by the PoolDelivered event): every paid reservation neither confirmed nor disputed is accepted. */
export const endInspection = (deps: ExecuteRuntime, job: PoolJob, now: Date) => {
  const at = now.toISOString();
  return executeCommand(deps, {
    stream: poolStream(job.poolId),
    aggregate: poolAggregate,
    decide: ({ pool }) => (pool.status === 'none' ? [] : decideEscrow({ type: 'EndInspection', data: {}, metadata: escrowMeta(null, at) }, pool)),
    metadata: systemMetadata('inspection-end', job.tenantId, at),
  });
};
