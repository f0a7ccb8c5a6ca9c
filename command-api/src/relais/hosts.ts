import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, bookedDaysClosed, decideHost, hostAggregate, mandateAggregate, type ExistingHost, type Host, type HostCommand, type HostReviewer } from '@cagnotte/domain';
import { Closure, HostProfile, type EventMetadata } from '@cagnotte/event-schemas';
import { defineRoute, type RequestContext, type RouteAnswer, type RouteDef } from '@cagnotte/infra';
import { RelaisHost, relaisHostPointId, relaisHostView } from '@cagnotte/read-models';
import { accountStream, requireOwnTenant } from '../shared/context';
import { POSITION_HEADER, executeCommand, fromRequest, type ExecuteRuntime } from '../shared/execute-command';
import { loadState, type CommandOutcome, type CommandRuntime } from '../shared/run-command';
import { reportPointUnavailable } from './pool-points';
import type { PointUnavailableReport, RelaisDeps } from './ports';

// Community hosts (docs/relais.md, part B): a member of the tenant applies under the RELAIS mandate, an organiser of the
// tenant (or the operator, `pnpm cli relais hosts approve|reject`) reviews, the host keeps its profile and status.
// Stream `relais-host-<hostId>`. A host that pauses, retires or closes a booked day is reported to the pools that
// reference it (reportPointUnavailable), after its own command has been recorded.

export const relaisHostStream = (hostId: string) => `relais-host-${hostId}`;

/** The host of the caller's tenant, or none: another tenant's host is not found. */
export const hostInTenant = (state: Host, tenantId: string): Host => (state.status !== 'none' && state.tenantId !== tenantId ? { status: 'none' } : state);

/** The runtime a host command needs (RelaisDeps carries the services it is made of). */
export const hostRuntimeOf = (deps: Pick<RelaisDeps, 'services' | 'facts'>): ExecuteRuntime => ({
  store: deps.services.store,
  pgPool: deps.services.pgPool,
  commandQueue: deps.services.commandQueue,
  recentWrites: deps.services.recentWrites,
  facts: deps.facts,
});

const answerOf = (status: number) => (o: CommandOutcome<Host>): RouteAnswer => {
  if (o.state.status === 'none') throw new NotFoundError('host');
  return { status, data: relaisHostView(o.state) };
};

const ApplyBody = HostProfile.extend({
  closures: z.array(Closure).max(50).default([]),
  photoUrl: z.string().url().max(2000).nullable().default(null),
})
  .strict()
  .describe('RelaisHostApplication');
const UpdateBody = HostProfile.partial()
  .strict()
  .refine((b) => Object.values(b).some((v) => v !== undefined), { message: 'give at least one field to change' })
  .describe('RelaisHostProfileChange');
const ReviewBody = z.object({ reason: z.string().max(500).optional() }).strict();
const StatusBody = z.object({ status: z.enum(['active', 'temporarily_closed', 'retired']), reason: z.string().max(500).optional() }).strict();
const HostParams = z.object({ hostId: z.string().uuid() });

/** Tells the pools referencing the host; a failure there is logged, never the host's answer (its command is recorded). */
const reportUnavailable = async (deps: RelaisDeps, report: PointUnavailableReport): Promise<void> => {
  try {
    await reportPointUnavailable(deps, report);
  } catch (err) {
    deps.services.logger.warn({ err, pointId: report.pointId, reason: report.reason }, 'relais: reporting a community host unavailable failed');
  }
};

/**
 * Approves or rejects an application as the operator (the CLI): the same decision as an organiser's, every tenant's
 * host. Answers the host after it, and the position written (null when nothing changed).
 */
export const reviewHostAsOperator = async (
  runtime: CommandRuntime,
  input: { hostId: string; decision: 'approve' | 'reject'; reason?: string | null },
  metadata: Omit<EventMetadata, 'tenantId'>,
) => {
  const reviewer: HostReviewer = { kind: 'operator', id: metadata.actor.id };
  const now = metadata.occurredAt;
  const current = await loadState(runtime.store, relaisHostStream(input.hostId), hostAggregate);
  if (current.status === 'none') throw new NotFoundError('host');
  const command: HostCommand =
    input.decision === 'approve' ? { type: 'ApproveHost', data: { reviewer }, metadata: { now } } : { type: 'RejectHost', data: { reviewer, reason: input.reason ?? null }, metadata: { now } };
  const outcome = await executeCommand(runtime, {
    stream: relaisHostStream(input.hostId),
    aggregate: hostAggregate,
    decide: (state) => decideHost(command, state),
    metadata: { ...metadata, tenantId: current.tenantId },
  });
  return { host: relaisHostView(outcome.state as ExistingHost), position: outcome.position };
};

export const makeHostCommandRoutes = (deps: RelaisDeps): RouteDef[] => {
  const runtime = hostRuntimeOf(deps);
  type Ctx = RequestContext<unknown, unknown, { hostId: string }>;

  /** One command on an existing host of the request's tenant, answered with the host. */
  const onHost = async (ctx: Ctx, command: (now: string) => HostCommand, seen?: (before: Host) => void) => {
    const tenantId = ctx.tenant?.id ?? ctx.auth!.tenantId;
    const now = deps.clock().toISOString();
    const outcome = await executeCommand(runtime, {
      stream: relaisHostStream(ctx.params.hostId),
      aggregate: hostAggregate,
      decide: (state) => {
        const visible = hostInTenant(state, tenantId);
        seen?.(visible);
        return decideHost(command(now), visible);
      },
      respond: answerOf(200),
      ...fromRequest(ctx, tenantId, now),
    });
    return outcome;
  };

  const reviewerOf = async (ctx: Ctx): Promise<HostReviewer> => {
    const actor = await deps.facts.actor(ctx.auth!);
    return { kind: 'user', userId: actor.userId, role: actor.role, tenantId: ctx.auth!.tenantId };
  };

  const apply = defineRoute({
    method: 'post',
    path: '/api/relais/hosts',
    operationId: 'applyRelaisHost',
    summary: 'Apply to host parcels (community pick-up point)',
    description:
      'A member of the tenant offers to take parcels for the buyers of pools: their address, position, opening hours, closures and capacity (parcels per day, heaviest parcel). Needs the current RELAIS mandate (POST /api/mandates {kind: "RELAIS"}), else 403 `relais_mandate_required`. The host starts `pending`: it is a pick-up point (`community:<hostId>`) once an organiser of the tenant approves it.',
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    idempotent: true,
    body: ApplyBody,
    success: { status: 201, description: 'The host, pending', schema: RelaisHost },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const auth = ctx.auth!;
      const tenant = requireOwnTenant(auth, ctx.tenant);
      const mandates = await loadState(deps.services.store, accountStream(auth.userId), mandateAggregate);
      const hostId = randomUUID();
      const now = deps.clock().toISOString();
      const { answer } = await executeCommand(runtime, {
        stream: relaisHostStream(hostId),
        aggregate: hostAggregate,
        decide: (state) => decideHost({ type: 'ApplyHost', data: { hostId, tenantId: tenant.id, userId: auth.userId, profile: ctx.body, mandates }, metadata: { now } }, state),
        respond: answerOf(201),
        ...fromRequest(ctx, tenant.id, now),
      });
      return answer;
    },
  });

  const update = defineRoute({
    method: 'patch',
    path: '/api/relais/hosts/{hostId}',
    operationId: 'updateRelaisHost',
    summary: 'Change a host’s profile',
    description:
      'The host only (404 to anyone else). Only what differs is recorded. A closure (or hours) that now closes a day with parcels booked makes the point unavailable to the pools that reference it (their buyers choose again).',
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    idempotent: true,
    params: HostParams,
    body: UpdateBody,
    example: { capacity: { parcelsPerDay: 8, maxWeightG: 10000 }, closures: [{ from: '2026-12-24', to: '2026-12-26', reason: 'Christmas' }] },
    success: { status: 200, description: 'The host', schema: RelaisHost },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      let before = { status: 'none' } as Host;
      const outcome = await onHost(ctx, (now) => ({ type: 'UpdateHostProfile', data: { userId: ctx.auth!.userId, changes: ctx.body }, metadata: { now } }), (s) => (before = s));
      if (outcome.events.length > 0 && before.status !== 'none' && outcome.state.status !== 'none') {
        const was = new Set(bookedDaysClosed(before, before.profile));
        const closed = bookedDaysClosed(outcome.state, outcome.state.profile).filter((d) => !was.has(d));
        if (closed.length > 0) await reportUnavailable(deps, { pointId: relaisHostPointId(ctx.params.hostId), reason: 'closed_on_date', detail: `closed on ${closed.join(', ')}` });
      }
      return outcome.answer;
    },
  });

  const approve = defineRoute({
    method: 'post',
    path: '/api/relais/hosts/{hostId}/approve',
    operationId: 'approveRelaisHost',
    summary: 'Approve a host’s application',
    description: 'An organiser of the host’s tenant (403 `organise_capability_required` for a member who is not one; another tenant’s host is a 404). Approving an approved host answers it unchanged.',
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    idempotent: true,
    params: HostParams,
    success: { status: 200, description: 'The host, active', schema: RelaisHost },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const reviewer = await reviewerOf(ctx);
      return (await onHost(ctx, (now) => ({ type: 'ApproveHost', data: { reviewer }, metadata: { now } }))).answer;
    },
  });

  const reject = defineRoute({
    method: 'post',
    path: '/api/relais/hosts/{hostId}/reject',
    operationId: 'rejectRelaisHost',
    summary: 'Reject a host’s application',
    description: 'An organiser of the host’s tenant, while the application is pending (400 `host_not_pending` after: an approved host retires itself).',
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    idempotent: true,
    params: HostParams,
    body: ReviewBody,
    success: { status: 200, description: 'The host, rejected', schema: RelaisHost },
    errors: [400, 401, 403, 404],
    handler: async (ctx) => {
      const reviewer = await reviewerOf(ctx);
      return (await onHost(ctx, (now) => ({ type: 'RejectHost', data: { reviewer, reason: ctx.body.reason ?? null }, metadata: { now } }))).answer;
    },
  });

  const status = defineRoute({
    method: 'post',
    path: '/api/relais/hosts/{hostId}/status',
    operationId: 'changeRelaisHostStatus',
    summary: 'Pause, reopen or retire a host',
    description:
      'The host only. `temporarily_closed` pauses it, `active` opens it again, `retired` is final (400 `host_retired` for any change after). Pausing or retiring makes the point unavailable to the pools that reference it (their buyers choose again).',
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    idempotent: true,
    params: HostParams,
    body: StatusBody,
    success: { status: 200, description: 'The host', schema: RelaisHost },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const { status: next, reason } = ctx.body;
      const outcome = await onHost(ctx, (now) => ({ type: 'ChangeHostStatus', data: { userId: ctx.auth!.userId, status: next, reason: reason ?? null }, metadata: { now } }));
      if (outcome.events.length > 0 && next !== 'active') await reportUnavailable(deps, { pointId: relaisHostPointId(ctx.params.hostId), reason: next, detail: reason ?? null });
      return outcome.answer;
    },
  });

  return [apply, update, approve, reject, status];
};
