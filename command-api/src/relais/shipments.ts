import { NotFoundError, decideShipment, type ShipmentCommand, type ShipmentState } from '@cagnotte/domain';
import type { RelaisNetwork } from '@cagnotte/event-schemas';
import type { ShipmentView } from '@cagnotte/read-models';
import { poolAggregate, type PoolCommandState } from '../pools/aggregate';
import { systemMetadata } from '../escrow/runtime';
import { poolStream } from '../shared/context';
import { executeCommand, type ExecuteRuntime } from '../shared/execute-command';
import type { RelaisDeps, ShipmentStatusOutcome, ShipmentStatusReport } from './ports';

// Shipments on the command side (docs/relais.md). A carrier names a shipment by (network, tracking number) only: the
// lookup table (migration 037) says which pool and shipment that is. Its row is written right before the pool command
// that creates the shipment, so a tracking update can never come for a shipment the lookup does not know; a row whose
// command then failed names no shipment of its pool (the pool's stream is the truth) and reads as unknown tracking.

export const LOOKUP_TABLE = 'relais_shipment_lookup';

export interface ShipmentLookupRow {
  network: RelaisNetwork;
  tracking_number: string;
  pool_id: string;
  shipment_id: string;
  tenant_id: string;
  point_id: string;
}

/** The engine's runtime from the relais deps (the facts cache is refreshed by the commands it sees). */
export const runtimeOf = (deps: RelaisDeps): ExecuteRuntime => ({
  store: deps.services.store,
  pgPool: deps.services.pgPool,
  commandQueue: deps.services.commandQueue,
  recentWrites: deps.services.recentWrites,
  facts: deps.facts,
});

/**
 * Records the (network, tracking number) → shipment row. True when it is this shipment's (new, or written by an earlier
 * try of the same request); false when the tracking number already names another shipment.
 */
export const recordLookup = async (deps: RelaisDeps, row: ShipmentLookupRow): Promise<boolean> => {
  const knex = deps.services.knex;
  await knex(LOOKUP_TABLE).insert(row).onConflict(['network', 'tracking_number']).ignore();
  const kept = (await knex(LOOKUP_TABLE).where({ network: row.network, tracking_number: row.tracking_number }).first()) as ShipmentLookupRow | undefined;
  return kept?.shipment_id === row.shipment_id && kept.pool_id === row.pool_id;
};

export const lookupTracking = async (deps: RelaisDeps, network: RelaisNetwork, trackingNumber: string): Promise<ShipmentLookupRow | null> =>
  ((await deps.services.knex(LOOKUP_TABLE).where({ network, tracking_number: trackingNumber }).first()) as ShipmentLookupRow | undefined) ?? null;

/** A shipment of the pool's state as the API shows it (the same shape as the read model's view). */
export const shipmentAnswerOf = (poolId: string, s: ShipmentState): ShipmentView => ({
  id: s.id,
  poolId,
  pointId: s.pointId,
  network: s.network,
  trackingNumber: s.trackingNumber,
  status: s.status,
  reservationIds: s.reservationIds,
  parcels: s.parcels,
  weightG: s.weightG,
  expectedOn: s.expectedOn,
  arrivedAt: s.arrivedAt,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

/** Runs a shipment command on the pool's stream as the system (a carrier's update, a host's reception or a collection). */
export const runSystemShipmentCommand = (
  deps: RelaisDeps,
  poolId: string,
  tenantId: string,
  actorId: string,
  command: (now: string) => ShipmentCommand,
) => {
  const now = deps.clock().toISOString();
  return executeCommand(runtimeOf(deps), {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    // A pool of another tenant than the lookup says is none (it never is: the lookup row was written with the pool's).
    decide: ({ pool }: PoolCommandState) => decideShipment(command(now), pool.status !== 'none' && pool.tenantId !== tenantId ? { status: 'none' } : pool),
    metadata: systemMetadata(actorId, tenantId, now),
  });
};

/**
 * A tracking update, forward only; the last arrival of the pool's shipments delivers the pool (the inspection period
 * starts). Idempotent: a status already reached (a replayed or late update) changes nothing and answers `unchanged`.
 */
export const recordShipmentStatus = async (deps: RelaisDeps, report: ShipmentStatusReport): Promise<ShipmentStatusOutcome> => {
  const row = await lookupTracking(deps, report.network, report.trackingNumber);
  if (!row) return { outcome: 'unknown_tracking' };
  try {
    const outcome = await runSystemShipmentCommand(deps, row.pool_id, row.tenant_id, `relais-${report.source}`, (now) => ({
      type: 'RecordShipmentStatus',
      data: { trackingNumber: report.trackingNumber, status: report.status, carrierStatus: report.carrierStatus, source: report.source, occurredAt: report.occurredAt },
      metadata: { actor: null, now },
    }));
    const pool = outcome.state.pool;
    const shipment = pool.status === 'none' ? undefined : pool.relais.shipments.get(row.shipment_id);
    const status = shipment?.status ?? report.status;
    return outcome.events.length > 0
      ? { outcome: 'advanced', poolId: row.pool_id, shipmentId: row.shipment_id, status }
      : { outcome: 'unchanged', poolId: row.pool_id, shipmentId: row.shipment_id, status };
  } catch (error) {
    // The lookup row of a shipment whose creation failed: the pool knows no such shipment.
    if (error instanceof NotFoundError) return { outcome: 'unknown_tracking' };
    throw error;
  }
};
