import type { PoolRelaisEvent, RelaisNetwork, ShipmentStatus, UnavailableReason } from '@cagnotte/event-schemas';
import type { Holdings } from '../reservations/holdings';

// What a pool's stream says about its parcels (docs/relais.md): the points that became unavailable, the shipments
// and their tracking, the collections. Folded by evolvePool with the rest of the pool; decided by ./pool-decide.ts.

export interface ShipmentState {
  id: string;
  pointId: string;
  network: RelaisNetwork;
  trackingNumber: string;
  reservationIds: string[];
  parcels: number;
  weightG: number;
  expectedOn: string;
  status: ShipmentStatus;
  /** When it first reached available_for_pickup or delivered. */
  arrivedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface PoolRelaisState {
  /** Points of the pool that can no longer take its parcels, with why. */
  unavailable: Map<string, { reason: UnavailableReason; detail: string | null; at: string }>;
  shipments: Map<string, ShipmentState>;
  /** Reservation → when its parcel was collected (and in which shipment). */
  collected: Map<string, { shipmentId: string; at: string; hostId: string | null }>;
}

export const initialPoolRelais = (): PoolRelaisState => ({ unavailable: new Map(), shipments: new Map(), collected: new Map() });

/** The shipment a tracking number names in this pool, if any. */
export const shipmentByTracking = (state: PoolRelaisState, trackingNumber: string): ShipmentState | null => {
  for (const s of state.shipments.values()) if (s.trackingNumber === trackingNumber) return s;
  return null;
};

/**
 * Folds one relais event of the pool's stream. Like the holdings, the maps are owned by the fold and updated in
 * place (a state is never used again once evolved); a reservation's point lives in the holdings, so a re-choice
 * updates it there.
 */
export const evolvePoolRelais = (state: PoolRelaisState, holdings: Holdings, event: PoolRelaisEvent): PoolRelaisState => {
  switch (event.type) {
    case 'PickupPointUnavailable': {
      const d = event.data;
      state.unavailable.set(d.pointId, { reason: d.reason, detail: d.detail, at: d.detectedAt });
      return state;
    }
    case 'ReservationPickupPointChanged': {
      const r = holdings.byId.get(event.data.reservationId);
      if (r) r.relaisId = event.data.to;
      return state;
    }
    case 'PoolShipmentCreated': {
      const d = event.data;
      state.shipments.set(d.shipmentId, {
        id: d.shipmentId,
        pointId: d.pointId,
        network: d.network,
        trackingNumber: d.trackingNumber,
        reservationIds: d.reservationIds,
        parcels: d.parcels,
        weightG: d.weightG,
        expectedOn: d.expectedOn,
        status: 'label_created',
        arrivedAt: null,
        createdAt: d.createdAt,
        updatedAt: d.createdAt,
      });
      return state;
    }
    case 'PoolShipmentStatusChanged': {
      const d = event.data;
      const s = state.shipments.get(d.shipmentId);
      if (!s) return state;
      s.status = d.status;
      s.updatedAt = d.recordedAt;
      if (!s.arrivedAt && (d.status === 'available_for_pickup' || d.status === 'delivered')) s.arrivedAt = d.occurredAt;
      return state;
    }
    case 'RelaisParcelCollected': {
      const d = event.data;
      state.collected.set(d.reservationId, { shipmentId: d.shipmentId, at: d.collectedAt, hostId: d.hostId });
      return state;
    }
    default: {
      const never: never = event;
      return never;
    }
  }
};
