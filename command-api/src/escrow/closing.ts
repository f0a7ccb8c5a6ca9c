import { z } from 'zod';
import { decideEscrow } from '@cagnotte/domain';
import { defineRoute, type AuthContext, type RouteDef } from '@cagnotte/infra';
import { GroupBuy } from '@cagnotte/read-models';
import { poolAggregate, poolAnswer, POSITION_HEADER } from '../pools/handler';
import { loadState } from '../shared/run-command';
import { poolStream } from '../shared/context';
import { tenantOf } from '../reservations/runtime';
import { loadPoolIn, runPoolDecision, runSystemDecision, type EscrowDeps } from './runtime';
import { closingFeeVat } from '../fees/parties';

// The end of a pool: closing (at its deadline, by a job; early, by its organiser), cancelling, and delivery, which
// starts the buyers' inspection period. The rules are the domain's (domain/src/escrow/decide.ts, docs/escrow.md).

const PoolParams = z.object({ id: z.string().uuid() });

export const makeClosingRoutes = (deps: EscrowDeps): RouteDef[] => {
  const { clock } = deps;
  const answer = (ctx: { auth: AuthContext | null }) => poolAnswer(ctx.auth!, 200, undefined, clock);

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
    handler: async (ctx) => {
      const tenantId = tenantOf(ctx);
      const tenantPolicy = await deps.tenantPolicy(tenantId);
      // The VAT rates frozen with the fees need the seller's and organiser's identities: read before deciding (the
      // seller is a money-spine field, fixed once the pool left DRAFT).
      const policy = { ...tenantPolicy, feeVat: await closingFeeVat(deps.store, tenantPolicy, await loadPoolIn(deps, ctx.params.id, tenantId)) };
      return runPoolDecision(deps, ctx, ctx.params.id, (pool, metadata) => decideEscrow({ type: 'ClosePool', data: { reason: 'ORGANISER', policy }, metadata }, pool), answer(ctx));
    },
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
    handler: (ctx) =>
      runPoolDecision(deps, ctx, ctx.params.id, (pool, metadata) => decideEscrow({ type: 'CancelPool', data: { reason: ctx.body.reason ?? null }, metadata }, pool), answer(ctx)),
  });

  const delivered = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/delivered',
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
    handler: (ctx) =>
      runPoolDecision(deps, ctx, ctx.params.id, (pool, metadata) => decideEscrow({ type: 'MarkDelivered', data: { note: ctx.body.note ?? null }, metadata }, pool), answer(ctx)),
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
export const closeAtDeadline = async (deps: Pick<EscrowDeps, 'store' | 'pgPool' | 'commandQueue' | 'tenantPolicy'>, job: PoolJob, now: Date) => {
  // The policy is the tenant's: without a tenant in the job (never, from the scheduler), the service's defaults apply through it.
  const tenantPolicy = await deps.tenantPolicy(job.tenantId ?? '');
  const pool = await loadState(deps.store, poolStream(job.poolId), poolAggregate);
  const policy = { ...tenantPolicy, feeVat: await closingFeeVat(deps.store, tenantPolicy, pool.pool) };
  return runSystemDecision(deps, job, 'pool-deadline', now, (pool, at) =>
    decideEscrow({ type: 'ClosePool', data: { reason: 'DEADLINE', policy }, metadata: { actor: null, now: at } }, pool),
  );
};

/** The end of the inspection period (keyed by the PoolDelivered event): every paid reservation neither confirmed nor disputed is accepted. */
export const endInspection = (deps: Pick<EscrowDeps, 'store' | 'pgPool' | 'commandQueue'>, job: PoolJob, now: Date) =>
  runSystemDecision(deps, job, 'inspection-end', now, (pool, at) => decideEscrow({ type: 'EndInspection', data: {}, metadata: { actor: null, now: at } }, pool));
