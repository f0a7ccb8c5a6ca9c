import { z } from 'zod';
import { decidePoolPoints } from '@cagnotte/domain';
import { defineRoute, type RouteDef } from '@cagnotte/infra';
import { ReservationSchema } from '@cagnotte/read-models';
import { poolAggregate, poolInTenant } from '../pools/aggregate';
import { answerWith } from '../pools/answers';
import { reservationOf, tenantOf } from '../reservations/runtime';
import { poolStream } from '../shared/context';
import { executeCommand, fromRequest } from '../shared/execute-command';
import type { RelaisDeps } from './ports';

// The buyer's re-choice of a pick-up point (docs/relais.md): after theirs became unavailable, or any time before
// their parcel is shipped.

const ReservationParams = z.object({ id: z.string().uuid(), reservationId: z.string().uuid() });
const PickupPointInput = z
  .object({ relaisId: z.string().min(1).max(64).describe('A pick-up point of the pool (an id of its `pickupPoints`) that is `available`') })
  .strict()
  .describe('PickupPointChangeInput');

export const makePoolPointRoutes = (deps: RelaisDeps): RouteDef[] => {
  const runtime = {
    store: deps.services.store,
    pgPool: deps.services.pgPool,
    commandQueue: deps.services.commandQueue,
    recentWrites: deps.services.recentWrites,
    facts: deps.facts,
  };
  const change = defineRoute({
    method: 'post',
    path: '/api/pools/{id}/reservations/{reservationId}/pickup-point',
    summary: 'Choose another pick-up point for a reservation',
    description: [
      'Bearer, the reservation’s buyer only (anyone else, the organiser included: 404). `relaisId` must be a point of the pool (400 otherwise) that is available (409 `pickup_point_unavailable`).',
      'Allowed while the reservation holds (PENDING before its expiry, or PAID: 400 `reservation_not_live` otherwise), the pool is OPEN or LOCKED (400 `pickup_point_change_closed`), and its parcel is not shipped (409 `parcel_already_shipped`). A reservation whose `pickupPoint.action` is `choose_again` must be moved this way. Choosing the point it already has changes nothing and answers the reservation (idempotent).',
    ].join('\n\n'),
    tags: ['Reservation'],
    auth: 'required',
    params: ReservationParams,
    body: PickupPointInput,
    idempotent: true,
    success: { status: 200, description: 'The reservation with its new pick-up point', schema: ReservationSchema },
    errors: [400, 401, 404, 409, 503],
    handler: async (ctx) => {
      const { id: poolId, reservationId } = ctx.params;
      const tenantId = tenantOf(ctx);
      const actor = await deps.facts.actor(ctx.auth!);
      const now = deps.clock().toISOString();
      const { answer } = await executeCommand(runtime, {
        stream: poolStream(poolId),
        aggregate: poolAggregate,
        decide: ({ pool }) =>
          decidePoolPoints({ type: 'ChangePickupPoint', data: { reservationId, relaisId: ctx.body.relaisId }, metadata: { actor: { userId: actor.userId }, now } }, poolInTenant(pool, tenantId)),
        respond: answerWith(200, (o) => reservationOf(o.state, reservationId, deps.clock())),
        ...fromRequest(ctx, tenantId, now),
      });
      return answer;
    },
  });
  return [change];
};
