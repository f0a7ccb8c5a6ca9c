import { z } from 'zod';
import { UnavailableError } from '@cagnotte/domain';
import { formatPosition } from '../event-store/port';
import { projectionLag } from '../projections/checkpoints';
import type { Services } from '../services';
import { defineRoute, type RouteDef } from './route';

/** GET /readyz when something it depends on is not there: 503 `not_ready`, `errors` naming each check that failed. */
export class NotReadyError extends UnavailableError {
  constructor(readonly errors: Record<string, string[]>) {
    super('not_ready', `Not ready: ${Object.keys(errors).join(', ')}`);
  }
}

const within = <T>(ms: number, what: Promise<T>): Promise<T> => {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([what, late]).finally(() => clearTimeout(timer));
};

const reason = (e: unknown): string => (e instanceof Error ? e.message : String(e)).slice(0, 200) || 'unreachable';

const Live = z.object({ status: z.literal('live') });
const Ready = z.object({
  status: z.literal('ready'),
  checks: z.object({
    postgres: z.literal('ok'),
    redis: z.literal('ok'),
    eventStore: z.literal('ok'),
    projections: z.literal('ok'),
  }),
  head: z.string().nullable().describe('The event feed’s head position'),
});

/**
 * The probes an orchestrator calls (docs in README, "Operations"): `/livez` says the process serves requests and
 * checks nothing else, so a dependency's blip never restarts a healthy process; `/readyz` says whether to send it
 * traffic. Neither authenticates, resolves a tenant, reads its input or is rate-limited. `/health` stays the detailed view.
 */
export const probeRoutes = (services: Pick<Services, 'config' | 'knex' | 'redis' | 'store'>, projections: string[]): RouteDef[] => [
  defineRoute({
    method: 'get',
    path: '/livez',
    operationId: 'livez',
    summary: 'Liveness: the process answers',
    description: 'Always 200 while the process serves requests; no dependency is checked (restart on failure, not on a database blip).',
    tags: ['Operations'],
    auth: 'none',
    ignoresInput: true,
    success: { status: 200, description: 'The process is serving', schema: Live },
    errors: [],
    handler: async () => ({ data: { status: 'live' } }),
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    operationId: 'readyz',
    summary: 'Readiness: PostgreSQL, Redis, the event store and the projections',
    description:
      '200 when PostgreSQL and Redis answer (within READYZ_TIMEOUT_MS), the event store gives its head, and no projection this process reports on is faulted or more than READYZ_MAX_PROJECTION_LAG events behind. Else 503 `not_ready` with `errors` naming each failed check (`postgres`, `redis`, `eventStore`, `projections.<name>`).',
    tags: ['Operations'],
    auth: 'none',
    ignoresInput: true,
    success: { status: 200, description: 'Ready for traffic', schema: Ready },
    errors: [503],
    handler: async () => {
      const { READYZ_TIMEOUT_MS: timeout, READYZ_MAX_PROJECTION_LAG: maxLag } = services.config;
      const [db, redis, head] = await Promise.allSettled([
        within(timeout, services.knex.raw('SELECT 1')),
        within(timeout, services.redis.ping()),
        within(timeout, services.store.headPosition()),
      ]);
      const failed: Record<string, string[]> = {};
      if (db.status === 'rejected') failed.postgres = [reason(db.reason)];
      if (redis.status === 'rejected') failed.redis = [reason(redis.reason)];
      if (head.status === 'rejected') failed.eventStore = [reason(head.reason)];
      if (db.status === 'fulfilled' && head.status === 'fulfilled') {
        try {
          for (const l of await within(timeout, projectionLag(services.knex, head.value, projections))) {
            if (l.state === 'faulted') failed[`projections.${l.name}`] = [`faulted${l.fault?.type ? ` on ${l.fault.type}` : ''}`];
            else if (maxLag > 0 && l.lagEvents > maxLag) failed[`projections.${l.name}`] = [`${l.lagEvents} events behind (at most ${maxLag})`];
          }
        } catch (e) {
          failed.projections = [reason(e)];
        }
      }
      if (Object.keys(failed).length > 0) throw new NotReadyError(failed);
      const position = head.status === 'fulfilled' ? head.value : null;
      return { data: { status: 'ready', checks: { postgres: 'ok', redis: 'ok', eventStore: 'ok', projections: 'ok' }, head: position ? formatPosition(position) : null } };
    },
  }),
];
