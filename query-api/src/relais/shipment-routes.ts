import { z } from 'zod';
import { NotFoundError } from '@cagnotte/domain/errors';
import { defineRoute, type RouteDef, type Services } from '@cagnotte/infra';
import {
  CollectionView,
  HostParcelsView,
  PoolReadModel,
  RelaisShipmentsReadModel,
  ReservationReadModel,
  ShipmentView,
  collectionCode,
  collectionQrPayload,
} from '@cagnotte/read-models';
import { waitForMinPosition, type ConsistencyDeps } from '../shared/consistency';

// Relais shipments, read (docs/relais.md): a pool's shipments for its organiser, a community host's parcels for the
// host, a buyer's collection code for the buyer. Anyone else, and another tenant's, gets a 404.

const PROJECTIONS = ['relais-shipments'];
const minPositionDoc = 'Send `X-Min-Position` (from a command\'s `X-Event-Position`) to read your own write.';

export interface ShipmentQueryDeps extends ConsistencyDeps {
  shipments: RelaisShipmentsReadModel;
  pools: PoolReadModel;
  reservations: ReservationReadModel;
  /** The server secret the collection codes derive from (the service's JWT_SECRET, domain-separated). */
  codeSecret: string;
}

export const shipmentQueryDepsOf = (services: Services): ShipmentQueryDeps => ({
  waiter: services.waiter,
  readYourWritesMs: services.config.READ_YOUR_WRITES_TIMEOUT_MS,
  recentWrites: services.recentWrites,
  shipments: new RelaisShipmentsReadModel(services.knex),
  pools: new PoolReadModel(services.knex),
  reservations: new ReservationReadModel(services.knex),
  codeSecret: services.config.JWT_SECRET!,
});

const PoolParams = z.object({ id: z.string().uuid() });
const HostParams = z.object({ hostId: z.string().uuid() });
const CollectionParams = z.object({ id: z.string().uuid(), reservationId: z.string().uuid() });

export const makeShipmentQueryRoutes = (deps: ShipmentQueryDeps): RouteDef[] => {
  const poolShipments = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/shipments',
    operationId: 'listPoolShipments',
    summary: 'A pool\'s shipments and their tracking (its organiser)',
    description: `Bearer, the pool's organiser (anyone else, and another tenant's pool: 404). Each shipment to one pick-up point: its network, tracking number, status in the one vocabulary (forward only), the reservations whose parcels it carries, when it arrived. ${minPositionDoc}`,
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    params: PoolParams,
    success: { status: 200, description: 'The shipments, oldest first', schema: z.object({ items: z.array(ShipmentView) }) },
    errors: [401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const pool = await deps.pools.find(ctx.params.id);
      if (!pool || pool.tenant_id !== tenantId || pool.organiser_id !== auth.userId) throw new NotFoundError('pool');
      return { data: { items: await deps.shipments.forPool(tenantId, pool.id) } };
    },
  });

  const hostParcels = defineRoute({
    method: 'get',
    path: '/api/relais/hosts/{hostId}/parcels',
    operationId: 'listRelaisHostParcels',
    summary: 'The parcels sent to a community host (the host)',
    description: `Bearer, the host (anyone else: 404). The shipments to the host, newest first, each with its parcels' collections (waiting: on the way; ready: received; collected). The buyers' codes are never shown here. ${minPositionDoc}`,
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    params: HostParams,
    success: { status: 200, description: 'The host\'s parcels', schema: HostParcelsView },
    errors: [401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const host = await deps.shipments.host(ctx.params.hostId);
      if (!host || host.tenantId !== tenantId || host.userId !== auth.userId) throw new NotFoundError('host');
      return { data: await deps.shipments.hostParcels(tenantId, host.hostId) };
    },
  });

  const collection = defineRoute({
    method: 'get',
    path: '/api/pools/{id}/reservations/{reservationId}/collection',
    operationId: 'getReservationCollection',
    summary: 'The buyer\'s one-time code to collect their parcel at a community host',
    description: `Bearer, the reservation's buyer (anyone else: 404; a parcel not shipped to a community host: 404 \`collection_not_found\`). The 8-digit \`code\` the buyer tells the host (or the \`qr\` payload the host scans), the point and the shipment, and where the parcel is: \`waiting\` (on its way), \`ready\` (at the host), \`collected\`. The code is derived from the reservation by the server, never stored, never in an event; the host enters it (POST /api/relais/hosts/{hostId}/collections), which confirms the buyer's receipt for the escrow. ${minPositionDoc}`,
    tags: ['Relais'],
    auth: 'required',
    tenant: 'optional',
    params: CollectionParams,
    success: { status: 200, description: 'The collection code and status', schema: CollectionView },
    errors: [401, 404],
    handler: async (ctx) => {
      await waitForMinPosition(deps, ctx, PROJECTIONS);
      const auth = ctx.auth!;
      const tenantId = ctx.tenant?.id ?? auth.tenantId;
      const { id, reservationId } = ctx.params;
      const reservation = await deps.reservations.forBuyer(tenantId, auth.userId, reservationId);
      if (!reservation || reservation.pool_id !== id) throw new NotFoundError('reservation');
      const row = await deps.shipments.collection(tenantId, reservationId);
      if (!row || row.pool_id !== id) throw new NotFoundError('collection');
      const code = collectionCode(deps.codeSecret, reservationId);
      const view: CollectionView = {
        code,
        qr: collectionQrPayload(code, reservationId),
        pointId: row.point_id,
        shipmentId: row.shipment_id,
        status: row.status,
        collectedAt: row.collected_at ? new Date(row.collected_at).toISOString() : null,
      };
      return { data: view };
    },
  });

  return [poolShipments, hostParcels, collection];
};
