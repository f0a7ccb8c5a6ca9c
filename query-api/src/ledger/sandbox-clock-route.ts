import { SANDBOX_CLOCK_EXAMPLE, SandboxClockView, defineRoute, type RouteDef, type SandboxClock } from '@cagnotte/infra';

/**
 * `GET /sandbox/clock`: the one clock of the sandbox network and the service (docs/sandbox.md); moving it is the
 * command side's (`POST /sandbox/clock/advance`). Served only where the sandbox clock exists (never production).
 */
export const makeSandboxClockQueryRoutes = (deps: { sandboxClock: SandboxClock | null }): RouteDef[] => {
  const clock = deps.sandboxClock;
  if (!clock) return [];
  return [
    defineRoute({
      method: 'get',
      path: '/sandbox/clock',
      operationId: 'getSandboxClock',
      summary: 'Read the sandbox clock',
      description: 'Sandbox only, bearer. The one clock of the sandbox network and the service: system time plus the offset advances added.',
      tags: ['Sandbox'],
      auth: 'required',
      success: { status: 200, description: 'The clock', schema: SandboxClockView.describe('SandboxClock'), example: SANDBOX_CLOCK_EXAMPLE },
      errors: [401],
      handler: async () => {
        // Read from PostgreSQL, not the process's copy: an advance a moment ago shows at once.
        const offsetSeconds = await clock.refresh();
        return { data: { network: clock.network, offsetSeconds, now: clock.now().toISOString() } };
      },
    }),
  ];
};
