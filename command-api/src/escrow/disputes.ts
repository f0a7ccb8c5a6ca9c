import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, decideEscrow, type EscrowCommand, type Pool } from '@cagnotte/domain';
import { DisputeReason } from '@cagnotte/event-schemas';
import { LedgerAmount, defineRoute, type RouteAnswer, type RouteDef } from '@cagnotte/infra';
import { ReservationSchema } from '@cagnotte/read-models';
import { poolAggregate, poolInTenant, type PoolOutcome } from '../pools/aggregate';
import { poolStream } from '../shared/context';
import { POSITION_HEADER, executeCommand, fromRequest, type CommandCtx, type ExecuteRuntime } from '../shared/execute-command';
import { reservationOf, tenantOf } from '../reservations/runtime';
import { escrowMeta, systemMetadata, type EscrowDeps } from './runtime';
import type { PoolJob } from './closing';

// Receipt and disputes: a buyer accepts their reservation (its funds may then be released) or disputes it within the
// inspection period; the organiser refunds (all or part) or contests; an unresolved dispute lapses to the buyer.

const ReservationParams = z.object({ id: z.string().uuid(), reservationId: z.string().uuid() });
const DisputeParams = z.object({ id: z.string().uuid(), disputeId: z.string().uuid() });

const reservationAnswer = (reservationId: string, now: () => Date, status = 200) => (o: PoolOutcome) => ({
  status,
  data: reservationOf(o.state, reservationId, now()),
});

/** An escrow command's payload, without its metadata (the caller and the time, added where it is decided). */
type EscrowAsk = EscrowCommand extends infer C ? (C extends EscrowCommand ? Omit<C, 'metadata'> : never) : never;

/** The reservation a dispute is about, as the command's own fold has it. */
const disputedReservation = (pool: Pool, disputeId: string): string => {
  if (pool.status !== 'none') for (const r of pool.holdings.byId.values()) if (r.dispute?.disputeId === disputeId) return r.id;
  throw new NotFoundError('dispute');
};

const OpenDisputeInput = z
  .object({
    reason: DisputeReason.describe('NOT_RECEIVED, NOT_AS_DESCRIBED, DAMAGED or OTHER'),
    details: z.string().max(2000).default(''),
    evidence: z.array(z.string().url().max(2000)).max(10).default([]).describe('Links to photos, messages, tracking pages'),
  })
  .strict()
  .describe('OpenDisputeInput');

export const makeDisputeRoutes = (deps: EscrowDeps): RouteDef[] => {
  const { clock } = deps;
  /** The command `ask` on the pool, by the signed-in caller, decided on the pool as their tenant sees it. */
  const decideOnPool = async (ctx: CommandCtx, poolId: string, ask: EscrowAsk, respond: (o: PoolOutcome) => RouteAnswer): Promise<RouteAnswer> => {
    const tenantId = tenantOf(ctx);
    const actor = await deps.facts.actor(ctx.auth!);
    const now = clock().toISOString();
    const { answer } = await executeCommand(deps, {
      stream: poolStream(poolId),
      aggregate: poolAggregate,
      decide: ({ pool }) => decideEscrow({ ...ask, metadata: escrowMeta(actor, now) } as EscrowCommand, poolInTenant(pool, tenantId)),
      respond,
      ...fromRequest(ctx, tenantId, now),
    });
    return answer;
  };
  const common = { tags: ['Escrow'], auth: 'required' as const, idempotent: true, responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' } };

  const receipt = defineRoute({
    ...common,
    method: 'post',
    path: '/api/pools/{id}/reservations/{reservationId}/receipt',
    operationId: 'confirmPoolReservationReceipt',
    summary: 'Confirm receipt (the buyer): the reservation’s funds may be released',
    description:
      'The reservation’s buyer only (anyone else: 404), for a PAID reservation of a LOCKED pool whose release waits for receipt. Accepts the reservation: its deposit is released at the next settlement (its tier difference, if any, comes back to the buyer). Confirming again changes nothing. A reservation with an open dispute is accepted by withdrawing the dispute (400 `dispute_open`).',
    params: ReservationParams,
    success: { status: 200, description: 'The accepted reservation', schema: ReservationSchema },
    errors: [400, 401, 404, 503],
    handler: (ctx) => decideOnPool(ctx, ctx.params.id, { type: 'ConfirmReceipt', data: { reservationId: ctx.params.reservationId } }, reservationAnswer(ctx.params.reservationId, clock)),
  });

  const open = defineRoute({
    ...common,
    method: 'post',
    path: '/api/pools/{id}/reservations/{reservationId}/disputes',
    summary: 'Open a dispute on a paid reservation (the buyer), within the inspection period',
    description: [
      'The reservation’s buyer only. For a PAID, not yet accepted reservation of a LOCKED pool whose release waits for receipt, before the inspection period ends (400 `inspection_period_over`). One dispute per reservation (400 `dispute_exists`).',
      'The dispute holds the release of the reservation’s due amount (its deposit less any tier difference) while every other reservation may be released. The organiser answers by `respondBy`: a refund of all or part of it, or a contest (then the buyer may withdraw until `lapsesAt`). A dispute nobody ends in time lapses to the buyer: what it holds is refunded (the platform never decides by moving money).',
    ].join('\n\n'),
    params: ReservationParams,
    body: OpenDisputeInput,
    success: { status: 201, description: 'The reservation, with its `dispute`', schema: ReservationSchema },
    errors: [400, 401, 404, 503],
    handler: (ctx) => {
      const disputeId = randomUUID();
      const { reservationId } = ctx.params;
      return decideOnPool(
        ctx,
        ctx.params.id,
        { type: 'OpenDispute', data: { reservationId, disputeId, reason: ctx.body.reason, details: ctx.body.details, evidence: ctx.body.evidence } },
        reservationAnswer(reservationId, clock, 201),
      );
    },
  });

  /** A decision on a dispute, answered with its reservation as of the command's own revision. */
  const onDispute = (disputeId: string) => (outcome: PoolOutcome) => reservationAnswer(disputedReservation(outcome.state.pool, disputeId), clock)(outcome);

  const contest = defineRoute({
    ...common,
    method: 'post',
    path: '/api/pools/{id}/disputes/{disputeId}/contest',
    summary: 'Contest a dispute (the organiser)',
    description: 'Owner and organiser, while the dispute is OPEN. The statement is recorded; the buyer may withdraw the dispute until `lapsesAt` (`release.disputeResponseDays` from now), after which it lapses to the buyer.',
    params: DisputeParams,
    body: z.object({ statement: z.string().min(1).max(2000) }).strict(),
    success: { status: 200, description: 'The disputed reservation', schema: ReservationSchema },
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => decideOnPool(ctx, ctx.params.id, { type: 'ContestDispute', data: { disputeId: ctx.params.disputeId, statement: ctx.body.statement } }, onDispute(ctx.params.disputeId)),
  });

  const refund = defineRoute({
    ...common,
    method: 'post',
    path: '/api/pools/{id}/disputes/{disputeId}/refund',
    summary: 'Refund a dispute, fully or partly (the organiser)',
    description:
      'Owner and organiser, while the dispute is OPEN or CONTESTED. `amount` is between one stroop and what the dispute holds (400 `refund_out_of_bounds`). The dispute ends REFUNDED: at the next settlement the buyer gets `amount` back and the rest is released under the split.',
    params: DisputeParams,
    body: z.object({ amount: LedgerAmount.describe('Decimal string, at most the held amount') }).strict(),
    success: { status: 200, description: 'The disputed reservation', schema: ReservationSchema },
    errors: [400, 401, 403, 404, 503],
    handler: (ctx) => decideOnPool(ctx, ctx.params.id, { type: 'RefundDispute', data: { disputeId: ctx.params.disputeId, amount: ctx.body.amount } }, onDispute(ctx.params.disputeId)),
  });

  const withdraw = defineRoute({
    ...common,
    method: 'post',
    path: '/api/pools/{id}/disputes/{disputeId}/withdraw',
    summary: 'Withdraw a dispute (its buyer)',
    description: 'The dispute’s buyer only (anyone else: 404), while it is OPEN or CONTESTED. The dispute ends WITHDRAWN and the reservation’s funds may be released.',
    params: DisputeParams,
    success: { status: 200, description: 'The reservation', schema: ReservationSchema },
    errors: [400, 401, 404, 503],
    handler: (ctx) => decideOnPool(ctx, ctx.params.id, { type: 'WithdrawDispute', data: { disputeId: ctx.params.disputeId } }, onDispute(ctx.params.disputeId)),
  });

  return [receipt, open, contest, refund, withdraw];
};

/** A dispute's deadline (keyed by DisputeOpened or DisputeContested): every dispute past its deadline lapses to its buyer. */
export const lapseDisputes = (deps: ExecuteRuntime, job: PoolJob, now: Date) => {
  const at = now.toISOString();
  return executeCommand(deps, {
    stream: poolStream(job.poolId),
    aggregate: poolAggregate,
    decide: ({ pool }) => (pool.status === 'none' ? [] : decideEscrow({ type: 'LapseDisputes', data: {}, metadata: escrowMeta(null, at) }, pool)),
    metadata: systemMetadata('dispute-lapse', job.tenantId, at),
  });
};
