import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain';
import { Closure, PickupPoint, PickupPointStatus, type UnavailableReason } from '@cagnotte/event-schemas';
import { defineRoute, overrideSandboxPoint, type RouteDef } from '@cagnotte/infra';
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
 * The sandbox carrier's control (docs/relais.md), sandbox deployments only: changes a fixture point for every process
 * (table relais_sandbox_points), forgets the cached answers, and tells the pools that chose it when it is no longer
 * usable, as a real carrier's directory change would.
 */
export const makeSandboxPointRoutes = (deps: RelaisDeps): RouteDef[] => [
  defineRoute({
    method: 'post',
    path: '/sandbox/relais/points/{id}',
    operationId: 'changeSandboxRelaisPoint',
    summary: 'Change a sandbox pick-up point',
    description:
      'Sandbox only, no authentication, no tenant. Sets the sandbox point’s `status`, `closures` and/or `maxWeightG` (`sandbox:SBX-001` … `SBX-005`, `SBX-HOLIDAY`, `SBX-LOCKER`, `SBX-LIGHT`, `SBX-RETIRED`; the `sandbox:` prefix is optional), forgets the directory’s cached answers, and when the point can no longer take parcels today (retired, temporarily closed, closed today) the pools that chose it raise PickupPointUnavailable. Answers the point.',
    tags: ['Relais'],
    auth: 'none',
    params: z.object({ id: z.string().min(1).max(64).meta({ example: 'sandbox:SBX-002' }) }),
    body: SandboxPointChange,
    example: { status: 'temporarily_closed' },
    rateLimit: { name: 'sandbox-relais-point', limit: 120, windowSeconds: 60 },
    success: { status: 200, description: 'The point as the sandbox carrier now answers it', schema: PickupPoint },
    errors: [400, 404, 429],
    handler: async (ctx) => {
      const pointId = (ctx.params as { id: string }).id.replace(/^sandbox:/, '');
      const change = ctx.body as SandboxPointChange;
      if (!(await overrideSandboxPoint(deps.services.knex, pointId, change))) throw new NotFoundError('pickup_point');
      const id = `sandbox:${pointId}`;
      await deps.directory.invalidate(id);
      const point = (await deps.directory.resolve([id], null, { fresh: true })).get(id);
      if (!point) throw new NotFoundError('pickup_point');
      const why = unusable(point, deps.clock().toISOString().slice(0, 10));
      if (why) {
        // Part C's fan-out: until it is merged it throws; the override itself stands either way.
        try {
          await reportPointUnavailable(deps, { pointId: id, reason: why.reason, detail: why.detail });
        } catch (err) {
          deps.services.logger.warn({ err: err instanceof Error ? err.message : String(err), pointId: id }, 'sandbox point: reporting the pools that chose it failed');
        }
      }
      return { data: point };
    },
  }),
];
