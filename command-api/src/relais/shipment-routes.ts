import { createHash, randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ConflictError, NotFoundError, UnavailableError, ValidationError, decideShipment, hostAggregate, type ShipmentCommand } from '@cagnotte/domain';
import { CalendarDate, PickupPointId, parsePickupPointId, type LabelOutcome, type PoolEvent } from '@cagnotte/event-schemas';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { ShipmentView } from '@cagnotte/read-models';
import { poolAggregate } from '../pools/aggregate';
import { escrowMeta, loadPoolIn } from '../escrow/runtime';
import { tenantOf } from '../reservations/runtime';
import { poolStream } from '../shared/context';
import { POSITION_HEADER, executeCommand, fromRequest, type CommandCtx } from '../shared/execute-command';
import { loadState } from '../shared/run-command';
import { relaisHostStream } from './hosts';
import { claimCodeAttempt, parcelOfCode } from './collection-codes';
import { bookHostParcels, releaseHostBooking } from './host-bookings';
import { reportPointUnavailable } from './pool-points';
import type { RelaisDeps } from './ports';
import { LOOKUP_TABLE, recordLookup, recordShipmentStatus, runtimeOf, shipmentAnswerOf, type ShipmentLookupRow } from './shipments';

// Shipments (docs/relais.md): the organiser ships a point's parcels (a carrier's label, or a community host's
// capacity booked), a community host confirms reception, and the host enters a buyer's collection code.

/** The other parts' seams the routes call (tests pass doubles; by default the real ones). */
export interface ShipmentRouteOptions {
  bookHostParcels?: typeof bookHostParcels;
  releaseHostBooking?: typeof releaseHostBooking;
  reportPointUnavailable?: typeof reportPointUnavailable;
  /** Runs after a shipment was created (the sandbox carrier's magic tracking numbers: part E's autoAdvanceMagic). */
  afterCreate?: (deps: RelaisDeps, shipment: ShipmentView) => Promise<void>;
}

const TrackingNumber = z.string().regex(/^[A-Za-z0-9-]{4,40}$/, 'letters, digits and dashes, 4 to 40');
const CreateShipmentBody = z
  .object({
    pointId: PickupPointId.describe('A directory point of the pool (`<network>:<pointId>`)'),
    weightG: z.number().int().min(1).max(1_000_000).optional().describe('The shipment\'s weight; default: the pool\'s parcelWeightG times its parcels'),
    expectedOn: CalendarDate.optional().describe('The day the parcels reach the point (a community host\'s booking is for that day); default: tomorrow'),
    trackingNumber: TrackingNumber.optional().describe('Ask the carrier for this number (the sandbox carrier keeps it: its magic numbers); a community shipment\'s default is CMY + 12 digits'),
  })
  .strict();
const PoolParams = z.object({ id: z.string().uuid() });
const HostParams = z.object({ hostId: z.string().uuid() });

/**
 * Who a community host is: the account and tenant of its application, from the host's own stream. The one place these
 * routes learn it (swap it for the host aggregate's fold once merged: its RelaisHostApplied says the same).
 */
/** A host as its own stream folds it: one that was never approved hands nothing over. */
export const relaisHostOf = async (deps: RelaisDeps, hostId: string): Promise<{ hostId: string; tenantId: string; userId: string } | null> => {
  const host = await loadState(deps.services.store, relaisHostStream(hostId), hostAggregate);
  if (host.status === 'none' || host.approvedAt === null) return null;
  return { hostId, tenantId: host.tenantId, userId: host.userId };
};

/** The caller's own host (another's, another tenant's, or none: 404). */
const requireOwnHost = async (deps: RelaisDeps, ctx: CommandCtx, hostId: string) => {
  const host = await relaisHostOf(deps, hostId);
  if (!host || host.userId !== ctx.auth!.userId || host.tenantId !== tenantOf(ctx)) throw new NotFoundError('host');
  return host;
};

/** A shipment id made once per request: the same Idempotency-Key gives the same id (a host's booking is idempotent per id). */
const shipmentIdOf = (ctx: CommandCtx): string => {
  if (!ctx.idempotency) return randomUUID();
  const h = createHash('sha256').update(`relais-shipment|${ctx.idempotency.scope}|${ctx.idempotency.key}`).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${((parseInt(h[16]!, 16) & 3) | 8).toString(16)}${h.slice(17, 20)}-${h.slice(20, 32)}`;
};

/** A community shipment's tracking number: CMY + 12 digits, from its id (the same request gives the same number). */
export const communityTrackingOf = (shipmentId: string): string => {
  const h = createHash('sha256').update(`cmy|${shipmentId}`).digest();
  return `CMY${String(h.readUIntBE(0, 6) % 1_000_000_000_000).padStart(12, '0')}`;
};

const tomorrow = (now: Date): string => new Date(now.getTime() + 86_400_000).toISOString().slice(0, 10);

export const makeShipmentCommandRoutes = (deps: RelaisDeps, options: ShipmentRouteOptions = {}): RouteDef[] => {
  const book = options.bookHostParcels ?? bookHostParcels;
  const release = options.releaseHostBooking ?? releaseHostBooking;
  const report = options.reportPointUnavailable ?? reportPointUnavailable;

  const create = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/shipments',
    operationId: 'createPoolShipment',
    summary: 'Ship the parcels of the buyers who chose one pick-up point (the organiser)',
    description: [
      'Owner and organiser, on a LOCKED pool (closed successfully; 400 `pool_not_locked` otherwise). Takes every PAID reservation still in escrow that chose the point and is in no shipment yet (none: 400 `nothing_to_ship`).',
      'A carrier\'s point (or the sandbox carrier\'s): a label is asked of the carrier; a refusal marks the point unavailable for the pool (its buyers choose again) and answers 409 `pickup_point_unavailable`. A community host\'s point: its capacity for `expectedOn` is booked first (409 `host_capacity_exceeded`, 400 `host_too_heavy`, 409 `host_unavailable`); the tracking number is `CMY` + 12 digits. An unavailable point: 409 `pickup_point_unavailable`.',
      'Tracking updates then move the shipment forward only (a carrier\'s webhook, or the host confirming reception); when every shipment of the pool has arrived, the pool is delivered and the buyers\' inspection period starts. Send an `Idempotency-Key`: a retry makes the same shipment.',
    ].join('\n\n'),
    tags: ['Relais'],
    auth: 'required',
    params: PoolParams,
    body: CreateShipmentBody,
    idempotent: true,
    success: { status: 201, description: 'The shipment', schema: ShipmentView },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 403, 404, 409, 503],
    handler: async (ctx) => {
      const tenantId = tenantOf(ctx);
      const poolId = ctx.params.id;
      const body = ctx.body;
      const [actor, pool] = await Promise.all([deps.facts.actor(ctx.auth!), loadPoolIn(deps.services, poolId, tenantId)]);
      const now = deps.clock();
      const shipmentId = shipmentIdOf(ctx);
      const expectedOn = body.expectedOn ?? tomorrow(now);
      const command = (trackingNumber: string, at: string): ShipmentCommand => ({
        type: 'CreateShipment',
        data: { shipmentId, pointId: body.pointId, trackingNumber, weightG: body.weightG ?? null, expectedOn },
        metadata: escrowMeta(actor, at),
      });
      // Every rule checked before anything leaves the service (a label, a booking): what the shipment would be.
      const planned = decideShipment(command(body.trackingNumber ?? 'PLANNED', now.toISOString()), pool)[0] as Extract<PoolEvent, { type: 'PoolShipmentCreated' }> | undefined;
      const made = pool.status === 'none' ? undefined : pool.relais.shipments.get(shipmentId);
      // The same request again (its Idempotency-Key), after the shipment was made: no second label or booking.
      if (!planned && made) return { status: 201, data: shipmentAnswerOf(poolId, made) };
      const network = parsePickupPointId(body.pointId)!.network;
      const parcels = planned?.data.parcels ?? 0;
      const weightG = planned?.data.weightG ?? body.weightG ?? 1;
      let trackingNumber: string;
      let hostId: string | null = null;
      if (network === 'community') {
        hostId = body.pointId.slice('community:'.length);
        await book(deps, { hostId, shipmentId, poolId, date: expectedOn, parcels, weightG });
        trackingNumber = body.trackingNumber ?? communityTrackingOf(shipmentId);
      } else {
        const adapter = deps.directory.adapter(network);
        if (!adapter?.createLabel) throw new UnavailableError('relais_unavailable', `The ${network} network cannot issue labels here`);
        let label: LabelOutcome;
        try {
          label = await adapter.createLabel(
            { pointId: body.pointId, reference: poolId, parcels, weightG, tenantId, ...(body.trackingNumber ? { trackingNumber: body.trackingNumber } : {}) },
            AbortSignal.timeout(10_000),
          );
        } catch (error) {
          throw new UnavailableError('relais_unavailable', `The ${network} network did not answer: ${(error as Error).message}`);
        }
        if (!label.ok) {
          // The sandbox carrier refuses by this tenant's own overrides: only its pools hear it.
          await report(deps, { pointId: body.pointId, reason: 'refused_at_label', detail: label.refused.slice(0, 500), ...(network === 'sandbox' ? { tenantId } : {}) });
          throw new ConflictError('pickup_point_unavailable', `The carrier refused the label to ${body.pointId}: its buyers choose another point`);
        }
        trackingNumber = label.trackingNumber;
      }
      const lookup: ShipmentLookupRow = { network, tracking_number: trackingNumber, pool_id: poolId, shipment_id: shipmentId, tenant_id: tenantId, point_id: body.pointId };
      try {
        if (!(await recordLookup(deps, lookup))) throw new ConflictError('tracking_number_taken', `The tracking number ${trackingNumber} names another shipment`);
        const at = deps.clock().toISOString();
        const { answer, state } = await executeCommand(runtimeOf(deps), {
          stream: poolStream(poolId),
          aggregate: poolAggregate,
          decide: ({ pool: current }) => decideShipment(command(trackingNumber, at), current.status !== 'none' && current.tenantId !== tenantId ? { status: 'none' } : current),
          respond: (o) => {
            const p = o.state.pool;
            const s = p.status === 'none' ? undefined : p.relais.shipments.get(shipmentId);
            return { status: 201, data: s ? shipmentAnswerOf(poolId, s) : null };
          },
          ...fromRequest(ctx, tenantId, at),
        });
        const p = state.pool;
        const created = p.status === 'none' ? undefined : p.relais.shipments.get(shipmentId);
        if (created && options.afterCreate) await options.afterCreate(deps, shipmentAnswerOf(poolId, created));
        return answer;
      } catch (error) {
        if (hostId) await release(deps, { hostId, shipmentId });
        throw error;
      }
    },
  });

  const reception = defineRoute({
    method: 'post',
    path: '/api/relais/hosts/{hostId}/receptions',
    operationId: 'confirmRelaisReception',
    summary: 'A community host confirms a shipment reached them',
    description:
      'Bearer, the host (anyone else: 404). The shipment must be one to this host (`community:<hostId>`; else 404 `shipment_not_found`). Its status becomes `available_for_pickup` (forward only: a shipment already there or beyond is unchanged); its buyers\' codes become usable, and if it was the pool\'s last shipment to arrive the pool is delivered (the inspection period starts).',
    tags: ['Relais'],
    auth: 'required',
    params: HostParams,
    body: z.object({ shipmentId: z.string().uuid() }).strict(),
    idempotent: true,
    success: {
      status: 200,
      description: 'What the reception did',
      schema: z.object({ shipmentId: z.string().uuid(), poolId: z.string().uuid(), status: z.string(), outcome: z.enum(['advanced', 'unchanged']) }),
    },
    errors: [400, 401, 404],
    handler: async (ctx) => {
      const host = await requireOwnHost(deps, ctx, ctx.params.hostId);
      const row = (await deps.services.knex(LOOKUP_TABLE).where({ shipment_id: ctx.body.shipmentId, point_id: `community:${host.hostId}`, tenant_id: host.tenantId }).first()) as ShipmentLookupRow | undefined;
      if (!row) throw new NotFoundError('shipment');
      const outcome = await recordShipmentStatus(deps, {
        network: 'community',
        trackingNumber: row.tracking_number,
        status: 'available_for_pickup',
        carrierStatus: null,
        occurredAt: deps.clock().toISOString(),
        source: 'host',
      });
      if (outcome.outcome === 'unknown_tracking') throw new NotFoundError('shipment');
      return { data: { shipmentId: outcome.shipmentId, poolId: outcome.poolId, status: outcome.status, outcome: outcome.outcome } };
    },
  });

  const collection = defineRoute({
    method: 'post',
    path: '/api/relais/hosts/{hostId}/collections',
    operationId: 'collectRelaisParcel',
    summary: 'A community host hands a parcel over: they enter the buyer\'s code',
    description:
      'Bearer, the host (anyone else: 404). `code`: the 8 digits the buyer shows (GET /api/pools/{id}/reservations/{reservationId}/collection). The parcel must have reached the host (409 `parcel_not_arrived`); a code already used: 409 `already_collected`; a wrong code: 400 `invalid_code`, and after 10 wrong codes in 15 minutes the host is refused for a while (429, `Retry-After`). The collection confirms the buyer\'s receipt where the pool\'s release waits for it (the reservation is accepted by its buyer).',
    tags: ['Relais'],
    auth: 'required',
    params: HostParams,
    body: z.object({ code: z.string().min(1).max(20) }).strict(),
    idempotent: true,
    success: {
      status: 200,
      description: 'The parcel collected',
      schema: z.object({ reservationId: z.string().uuid(), poolId: z.string().uuid(), shipmentId: z.string().uuid(), collectedAt: z.string(), receiptConfirmed: z.boolean() }),
    },
    responseHeaders: { [POSITION_HEADER]: 'Feed position of the write' },
    errors: [400, 401, 404, 409, 429],
    handler: async (ctx) => {
      const host = await requireOwnHost(deps, ctx, ctx.params.hostId);
      const now = deps.clock();
      // Counted before it is checked (429 past the limit), forgiven once it proves right: only wrong codes count.
      const attempt = await claimCodeAttempt(deps.services, host.hostId, now);
      const code = ctx.body.code.replace(/\s+/g, '');
      const parcel = await parcelOfCode(deps.services, host.tenantId, host.hostId, code);
      if (!parcel) throw new ValidationError({ code: ['no parcel at this host has this code'] }, 'Invalid code', 'invalid_code');
      await attempt.forgive();
      const at = now.toISOString();
      const { answer } = await executeCommand(runtimeOf(deps), {
        stream: poolStream(parcel.pool_id),
        aggregate: poolAggregate,
        decide: ({ pool }) =>
          decideShipment(
            { type: 'CollectParcel', data: { reservationId: parcel.reservation_id, hostId: host.hostId }, metadata: { actor: { userId: host.userId }, now: at } },
            pool.status !== 'none' && pool.tenantId !== host.tenantId ? { status: 'none' } : pool,
          ),
        respond: (o) => ({
          data: {
            reservationId: parcel.reservation_id,
            poolId: parcel.pool_id,
            shipmentId: parcel.shipment_id,
            collectedAt: at,
            receiptConfirmed: o.events.some((e) => e.type === 'ReservationReceiptConfirmed'),
          },
        }),
        ...fromRequest(ctx, host.tenantId, at),
      });
      return answer;
    },
  });

  return [create, reception, collection];
};
