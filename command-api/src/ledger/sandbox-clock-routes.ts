import { z } from 'zod';
import { ValidationError } from '@cagnotte/domain';
import { DurationError, defineRoute, parseDuration, type JobQueue, type RouteDef, type SandboxClock } from '@cagnotte/infra';

// The sandbox clock for partners (docs/sandbox.md): what `pnpm cli sandbox clock advance|show` does, over HTTP. It
// exists only where the sandbox clock does (LEDGER_MODE=sandbox, never production): elsewhere these paths are 404.

export interface SandboxClockRouteDeps {
  /** Null outside sandbox: no route is served. */
  sandboxClock: SandboxClock | null;
  jobs: JobQueue;
}

const ClockView = z.object({
  network: z.string().describe('The sandbox network (its passphrase): the clock is one per network'),
  offsetSeconds: z.number().int().describe('How far the clock runs ahead of real time'),
  now: z.string().describe('The clock now (ISO 8601)'),
});

const AdvanceBody = z
  .object({ duration: z.string().min(1).max(40).describe('90s, 15m, 2h, 7d, 1d12h, or ISO 8601 P7D, PT2H; 1 s to 3650 days') })
  .strict();

export const makeSandboxClockRoutes = (deps: SandboxClockRouteDeps): RouteDef[] => {
  const clock = deps.sandboxClock;
  if (!clock) return [];
  const show = defineRoute({
    method: 'get',
    path: '/sandbox/clock',
    operationId: 'getSandboxClock',
    summary: 'Read the sandbox clock',
    description: 'Sandbox only, bearer. The one clock of the sandbox network and the service: system time plus the offset advances added.',
    tags: ['Sandbox'],
    auth: 'required',
    success: { status: 200, description: 'The clock', schema: ClockView.describe('SandboxClock') },
    errors: [401],
    handler: async () => {
      const offsetSeconds = await clock.refresh();
      return { data: { network: clock.network, offsetSeconds, now: clock.now().toISOString() } };
    },
  });
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
      schema: ClockView.extend({
        advancedBySeconds: z.number().int(),
        promotedJobs: z.number().int().describe('Delayed timers that became due and now run'),
      }).describe('SandboxClockAdvance'),
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
  return [show, advance];
};
