import { z } from 'zod';
import { ForbiddenError, NotFoundError } from '@cagnotte/domain';
import { Closure, PickupPoint, PickupPointStatus, type UnavailableReason } from '@cagnotte/event-schemas';
import { defineRoute, overrideSandboxPoint, type RouteDef } from '@cagnotte/infra';
import { tenantOf } from '../reservations/runtime';
import { reportPointUnavailable } from './pool-points';
import type { RelaisDeps } from './ports';

const SandboxPointChange = z
  .object({
    status: PickupPointStatus.optional(),
    closures: z.array(Closure).max(50).optional().describe('Replaces the point’s closures ([] clears them)'),
    maxWeightG: z.number().int().min(1).max(1_000_000).optional(),
  })
  .strict()
  .refine((b) => b.status !== undefined || b.closures !== undefined || b.maxWeightG !== undefined, { message: 'give status, closures or maxWeightG', path: ['status'] });
type SandboxPointChange = z.infer<typeof SandboxPointChange>;

/** Why a point can no longer take a pool's parcels today, if it cannot. */
const unusable = (point: PickupPoint, today: string): { reason: UnavailableReason; detail: string } | null => {
  if (point.status === 'retired') return { reason: 'retired', detail: 'the sandbox point was retired' };
  if (point.status === 'temporarily_closed') return { reason: 'temporarily_closed', detail: 'the sandbox point is temporarily closed' };
  const closure = point.closures.find((c) => c.from <= today && today <= c.to);
  return closure ? { reason: 'closed_on_date', detail: `closed from ${closure.from} to ${closure.to}` } : null;
};

/**
 * The sandbox carrier's control (docs/relais.md), sandbox deployments only: changes a fixture point in the tenant's own
 * sandbox (table relais_sandbox_points, per tenant and point, seen by every process), and tells the tenant's pools that
 * chose it when it is no longer usable, as a real carrier's directory change would. Another tenant's sandbox, its
 * searches and its pools are untouched: the directory applies each tenant's overrides after its cache.
 */
export const makeSandboxPointRoutes = (deps: RelaisDeps): RouteDef[] => [
  defineRoute({
    method: 'post',
    path: '/sandbox/relais/points/{id}',
    operationId: 'changeSandboxRelaisPoint',
    summary: 'Change a sandbox pick-up point',
    description:
      'Sandbox only. An organiser of the tenant, signed in (401 without a session; 403 `organise_capability_required` for a member who is not one); `X-Service-Tenant` is required (missing, unknown, or not the caller’s tenant: 404 `tenant_not_found`). Sets the sandbox point’s `status`, `closures` and/or `maxWeightG` in that tenant’s sandbox only (`sandbox:SBX-001` … `SBX-005`, `SBX-HOLIDAY`, `SBX-LOCKER`, `SBX-LIGHT`, `SBX-RETIRED`; the `sandbox:` prefix is optional): the tenant’s searches and lookups see it at once, other tenants never. When the point can no longer take parcels today (retired, temporarily closed, closed today) the tenant’s pools that chose it raise PickupPointUnavailable. Answers the point as the tenant now sees it.',
    tags: ['Relais'],
    auth: 'required',
    tenant: 'required',
    params: z.object({ id: z.string().min(1).max(64).meta({ example: 'sandbox:SBX-002' }) }),
    body: SandboxPointChange,
    example: { status: 'temporarily_closed' },
    rateLimit: { name: 'sandbox-relais-point', limit: 120, windowSeconds: 60 },
    success: { status: 200, description: 'The point as the sandbox carrier now answers it', schema: PickupPoint },
    errors: [400, 401, 403, 404, 429],
    handler: async (ctx) => {
      // The header itself, not the default tenant a header-less request falls back to: an override acts in one named
      // tenant's sandbox, never in another's by omission.
      const named = ctx.req.headers['x-service-tenant'];
      if (!(Array.isArray(named) ? named[0] : named)?.trim()) throw new NotFoundError('tenant');
      const tenantId = tenantOf(ctx);
      // The tenant's own organisers only: a partner changes its own sandbox, never another's by naming its slug.
      if (ctx.auth!.tenantId !== tenantId) throw new NotFoundError('tenant');
      const actor = await deps.facts.actor(ctx.auth!);
      if (actor.role !== 'organiser') throw new ForbiddenError('organise_capability_required', 'Only an organiser of the tenant changes its sandbox points');
      const pointId = (ctx.params as { id: string }).id.replace(/^sandbox:/, '');
      const change = ctx.body as SandboxPointChange;
      if (!(await overrideSandboxPoint(deps.services.knex, tenantId, pointId, change))) throw new NotFoundError('pickup_point');
      const id = `sandbox:${pointId}`;
      // No cache to forget: the directory caches the fixtures only and applies the tenant's overrides after it.
      const point = (await deps.directory.resolve([id], tenantId)).get(id);
      if (!point) throw new NotFoundError('pickup_point');
      const why = unusable(point, deps.clock().toISOString().slice(0, 10));
      if (why) {
        // The override stands even when telling the pools fails (logged).
        try {
          await reportPointUnavailable(deps, { pointId: id, reason: why.reason, detail: why.detail, tenantId });
        } catch (err) {
          deps.services.logger.warn({ err: err instanceof Error ? err.message : String(err), pointId: id }, 'sandbox point: reporting the pools that chose it failed');
        }
      }
      return { data: point };
    },
  }),
];
