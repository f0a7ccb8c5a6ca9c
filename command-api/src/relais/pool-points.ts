import { parsePickupPointId, type PickupPoint, type RelaisNetwork, type UnavailableReason } from '@cagnotte/event-schemas';
import { decidePoolPoints } from '@cagnotte/domain';
import { JOB_QUEUES, type Services } from '@cagnotte/infra';
import { POOL_TABLES, TenantReadModel } from '@cagnotte/read-models';
import { CommandFacts } from '../shared/facts';
import { relaisDirectoryOf } from './directory';
import { systemMetadata } from '../escrow/runtime';
import { poolAggregate } from '../pools/aggregate';
import { poolStream } from '../shared/context';
import { executeCommand } from '../shared/execute-command';
import type { PointUnavailableReport, RelaisDeps } from './ports';

// A pool's points going unavailable (docs/relais.md): whatever learns it (a carrier's refusal, a host's status, the
// sandbox override, the periodic check below) reports it once, and every pool still to ship to the point hears it.

/** The pool statuses whose parcels are not shipped yet: the ones a point can still let down. */
const LIVE_STATUSES = ['DRAFT', 'OPEN', 'LOCKED'];
/** Pools decided at the same time by one report (each on its own stream). */
const FAN_OUT = 8;

const runtimeOf = (deps: RelaisDeps) => ({
  store: deps.services.store,
  pgPool: deps.services.pgPool,
  commandQueue: deps.services.commandQueue,
  recentWrites: deps.services.recentWrites,
  facts: deps.facts,
});

/**
 * Every pool referencing the point (the pools read model; only the report's tenant's when it names one), in a status
 * still to ship, decides
 * MarkPickupPointUnavailable on its own stream as the system; a pool already told, or one that shipped to the point,
 * decides nothing. Answers how many pools recorded it now.
 */
export const reportPointUnavailable = async (deps: RelaisDeps, report: PointUnavailableReport): Promise<{ pools: number }> => {
  const rows: Array<{ id: string; tenant_id: string }> = await deps.services
    .knex(`${POOL_TABLES.pickupPoints} as pp`)
    .join(`${POOL_TABLES.pools} as p`, 'p.id', 'pp.pool_id')
    .where('pp.point_id', report.pointId)
    .whereIn('p.status', LIVE_STATUSES)
    .modify((q) => {
      if (report.tenantId) void q.where('p.tenant_id', report.tenantId);
    })
    .select('p.id', 'p.tenant_id');
  const runtime = runtimeOf(deps);
  let pools = 0;
  for (let i = 0; i < rows.length; i += FAN_OUT) {
    const outcomes = await Promise.all(
      rows.slice(i, i + FAN_OUT).map((row) => {
        const now = deps.clock().toISOString();
        return executeCommand(runtime, {
          stream: poolStream(row.id),
          aggregate: poolAggregate,
          decide: ({ pool }) =>
            decidePoolPoints({ type: 'MarkPickupPointUnavailable', data: { pointId: report.pointId, reason: report.reason, detail: report.detail }, metadata: { now } }, pool),
          metadata: systemMetadata('relais-point-report', row.tenant_id, now),
        });
      }),
    );
    pools += outcomes.filter((o) => o.events.length > 0).length;
  }
  return { pools };
};

/** Why a point the directory answered (or did not) cannot take a pool's parcels on `date`, or null when it can. */
export const unavailabilityOf = (point: PickupPoint | null | undefined, date: string): { reason: UnavailableReason; detail: string | null } | null => {
  if (!point) return { reason: 'not_found', detail: 'the network no longer knows this point' };
  if (point.status === 'retired') return { reason: 'retired', detail: null };
  if (point.status === 'temporarily_closed') return { reason: 'temporarily_closed', detail: null };
  const closure = point.closures.find((c) => c.from <= date && date <= c.to);
  if (closure) return { reason: 'closed_on_date', detail: `closed from ${closure.from} to ${closure.to}${closure.reason ? `: ${closure.reason}` : ''}` };
  return null;
};

/**
 * The periodic check: the directory points of OPEN and LOCKED pools, resolved fresh per tenant and network (a
 * community host is its tenant's; the sandbox carrier's overrides are the tenant's), each unusable one reported to that
 * tenant's pools only (another tenant's view of the same point may differ). A network that cannot answer now is skipped until the
 * next run (never reported: a network's outage is not its points' closure).
 */
export const checkPoolPoints = async (deps: RelaisDeps): Promise<{ points: number; reported: number; pools: number; skipped: number }> => {
  const rows: Array<{ point_id: string; tenant_id: string }> = await deps.services
    .knex(`${POOL_TABLES.pickupPoints} as pp`)
    .join(`${POOL_TABLES.pools} as p`, 'p.id', 'pp.pool_id')
    .whereIn('p.status', ['OPEN', 'LOCKED'])
    .distinct('pp.point_id', 'p.tenant_id');
  const groups = new Map<string, { tenantId: string; network: RelaisNetwork; ids: string[] }>();
  for (const r of rows) {
    const network = parsePickupPointId(r.point_id)?.network;
    if (!network) continue; // an organiser's inline point: nobody to ask
    const key = `${r.tenant_id}|${network}`;
    const group = groups.get(key) ?? { tenantId: r.tenant_id, network, ids: [] };
    group.ids.push(r.point_id);
    groups.set(key, group);
  }
  const today = deps.clock().toISOString().slice(0, 10);
  /** Per tenant and point: `<tenantId>|<pointId>`. */
  const unusable = new Map<string, { tenantId: string; pointId: string; reason: UnavailableReason; detail: string | null }>();
  let points = 0;
  let skipped = 0;
  for (const { tenantId, network, ids } of groups.values()) {
    let answers: Map<string, PickupPoint | null>;
    try {
      answers = await deps.directory.resolve(ids, tenantId, { fresh: true });
    } catch (e) {
      skipped += ids.length;
      deps.services.logger.warn({ network, points: ids.length, err: (e as Error).message }, 'relais point check: the network did not answer');
      continue;
    }
    for (const id of ids) {
      points++;
      const why = unavailabilityOf(answers.get(id), today);
      if (why) unusable.set(`${tenantId}|${id}`, { tenantId, pointId: id, ...why });
    }
  }
  let pools = 0;
  for (const report of unusable.values()) pools += (await reportPointUnavailable(deps, report)).pools;
  return { points, reported: unusable.size, pools, skipped };
};

/** The check's job: one per period, keyed by it, so every process may schedule it and it runs once. */
interface PointCheckJob {
  slot: number;
}

/** Runs the periodic point check on `deps` (every `periodMinutes`); answers the stop function. */
export const startRelaisPointCheck = (deps: RelaisDeps, periodMinutes: number): (() => Promise<void>) => {
  const periodMs = periodMinutes * 60_000;
  const { jobs, logger } = deps.services;
  const schedule = (slot: number) => jobs.enqueue<PointCheckJob>(JOB_QUEUES.relaisPointCheck, `check:${slot}`, { slot }, { runAt: new Date(slot * periodMs) });
  const worker = jobs.startWorker<PointCheckJob>(JOB_QUEUES.relaisPointCheck, async (job) => {
    // The next run first: a check that fails (and is retried) does not stop the ones after it. The next period by
    // the clock, not the one after this job's: a sandbox clock moved days ahead runs one check, not one per period skipped.
    await schedule(Math.max(job.slot + 1, Math.floor(deps.clock().getTime() / periodMs) + 1));
    logger.info(await checkPoolPoints(deps), 'relais point check');
  });
  void schedule(Math.floor(deps.clock().getTime() / periodMs) + 1).catch((e: Error) => logger.warn({ err: e.message }, 'relais point check: could not schedule'));
  return () => worker.close();
};

/** The periodic point check of this process (command-api's main, `pnpm start`): its deps from the process's services. */
export const startRelaisJobs = (services: Services): (() => Promise<void>) => {
  const facts = new CommandFacts({ store: services.store, tenants: new TenantReadModel(services.knex), config: services.config });
  const deps: RelaisDeps = {
    services,
    facts,
    clock: services.clock,
    get directory() {
      return relaisDirectoryOf(services);
    },
  };
  return startRelaisPointCheck(deps, services.config.RELAIS_POINT_CHECK_MINUTES);
};
