import { z } from 'zod';
import { ValidationError } from '@cagnotte/domain';
import { DurationError, SANDBOX_CLOCK_EXAMPLE, SandboxClockView, defineRoute, parseDuration, type JobQueue, type RouteDef, type SandboxClock } from '@cagnotte/infra';

// The sandbox clock for partners (docs/sandbox.md): what `pnpm cli sandbox clock advance` does, over HTTP (reading it,
// GET /sandbox/clock, is the query side's). It exists only where the sandbox clock does (LEDGER_MODE=sandbox, never
// production): elsewhere the path is a 404.

export interface SandboxClockRouteDeps {
  /** Null outside sandbox: no route is served. */
  sandboxClock: SandboxClock | null;
  jobs: JobQueue;
}

const AdvanceBody = z
  .object({ duration: z.string().min(1).max(40).describe('90s, 15m, 2h, 7d, 1d12h, or ISO 8601 P7D, PT2H; 1 s to 3650 days') })
  .strict();

export const makeSandboxClockRoutes = (deps: SandboxClockRouteDeps): RouteDef[] => {
  const clock = deps.sandboxClock;
  if (!clock) return [];
  const advance = defineRoute({
    method: 'post',
    path: '/sandbox/clock/advance',
    operationId: 'advanceSandboxClock',
    summary: 'Move the sandbox clock forward',
    description: [
      'Sandbox only, bearer. Moves the clock of the whole sandbox (the ledger, every command, every timer: every tenant',
      'sees it) forward by `duration`, for good: it never comes back. Timers now due (reservation expiries, deadlines,',
      'inspection ends, dispute lapses, recoveries, request due dates) run at once; `promotedJobs` counts them.',
      'Sessions, rate limits and webhook retries stay in real time (docs/sandbox.md).',
    ].join(' '),
    tags: ['Sandbox'],
    auth: 'required',
    body: AdvanceBody,
    example: { duration: '7d' },
    rateLimit: { name: 'sandbox-clock-advance', limit: 30, windowSeconds: 60 },
    success: {
      status: 200,
      description: 'Moved',
      schema: SandboxClockView.extend({
        advancedBySeconds: z.number().int(),
        promotedJobs: z.number().int().describe('Delayed timers that became due and now run'),
      }).describe('SandboxClockAdvance'),
      example: { ...SANDBOX_CLOCK_EXAMPLE, advancedBySeconds: 604_800, promotedJobs: 3 },
    },
    errors: [400, 401, 429],
    handler: async (ctx) => {
      let seconds: number;
      try {
        seconds = parseDuration(ctx.body.duration);
      } catch (e) {
        if (e instanceof DurationError) throw new ValidationError({ duration: [e.message] });
        throw e;
      }
      const moved = await clock.advance(seconds, deps.jobs);
      return { data: { ...moved, now: moved.now.toISOString() } };
    },
  });
  return [advance];
};
