import type { RelaisDirectoryPort, RelaisNetwork, ShipmentStatus, UnavailableReason } from '@cagnotte/event-schemas';
import type { Services } from '@cagnotte/infra';

// The seams between the relais parts of the command side (docs/relais.md). Each is implemented in its own file:
// - relaisDirectoryOf: ./directory.ts (the carriers' adapters and the community network, composed once per process);
// - reportPointUnavailable: ./pool-points.ts (every pool that references the point raises PickupPointUnavailable);
// - recordShipmentStatus: ./shipments.ts (a tracking update, forward only; arrival starts the inspection period);
// - bookHostParcels / releaseHostBooking: ./host-bookings.ts (a community host's capacity per day).

export type RelaisDirectoryFactory = (services: Services) => RelaisDirectoryPort;

export interface PointUnavailableReport {
  pointId: string;
  reason: UnavailableReason;
  detail: string | null;
  /** Only this tenant's pools (what one tenant's sandbox override or periodic check learned); absent: every tenant's. */
  tenantId?: string;
}

export interface ShipmentStatusReport {
  network: RelaisNetwork;
  trackingNumber: string;
  status: ShipmentStatus;
  carrierStatus: string | null;
  occurredAt: string;
  source: 'carrier' | 'host' | 'sandbox';
}

export type ShipmentStatusOutcome =
  | { outcome: 'advanced'; poolId: string; shipmentId: string; status: ShipmentStatus }
  | { outcome: 'unchanged'; poolId: string; shipmentId: string; status: ShipmentStatus }
  | { outcome: 'unknown_tracking' };

export interface HostBooking {
  hostId: string;
  shipmentId: string;
  poolId: string;
  /** YYYY-MM-DD */
  date: string;
  parcels: number;
  weightG: number;
}

/**
 * What every relais command needs: the services (store, knex, jobs, config, logger, self url), the facts cache, the
 * clock, and the pick-up point directory. `makeRelaisRoutes` (./routes.ts) builds it once.
 */
export interface RelaisDeps {
  services: Services;
  facts: import('../shared/facts').CommandFacts;
  clock: () => Date;
  directory: RelaisDirectoryPort;
}
