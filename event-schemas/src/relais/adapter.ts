import type { PickupPoint, RelaisNetwork, ShipmentStatus } from './point';

// The port every network's adapter implements (docs/relais.md). Types only: the carriers' adapters live in infra
// (infra/src/relais), the community network's in read-models (read-models/src/relais/community.ts), and the
// directory that fans out over them in infra/src/relais/directory.ts.

export interface PointQuery {
  country: string;
  postalCode?: string;
  /** With `lng`: search around a position (else around the postal code). */
  lat?: number;
  lng?: number;
  radiusKm: number;
  /** Only points that take a parcel this heavy. */
  weightG?: number;
  limit: number;
  /** The tenant the search is for (the community network's hosts are the tenant's). */
  tenantId: string | null;
}

export interface LabelRequest {
  /** The point as every part names it: `<network>:<pointId>`. */
  pointId: string;
  /** The pool's id: the carrier's order reference. */
  reference: string;
  parcels: number;
  weightG: number;
  /** A tracking number the caller asks for (the sandbox carrier's magic numbers); carriers issue their own. */
  trackingNumber?: string;
  /** The tenant of the pool shipping (the sandbox carrier refuses by that tenant's overrides). */
  tenantId?: string | null;
}

export type LabelOutcome = { ok: true; trackingNumber: string } | { ok: false; refused: string };

/** One tracking update a carrier's webhook carries, in the carrier's own terms and in the vocabulary. */
export interface TrackingUpdate {
  trackingNumber: string;
  carrierStatus: string;
  status: ShipmentStatus;
  occurredAt: string;
}

export interface CarrierAdapter {
  readonly network: RelaisNetwork;
  /** Points near the query; throws on a network failure (the directory records it in `sources`). */
  search(query: PointQuery, signal: AbortSignal): Promise<PickupPoint[]>;
  /** One point by its id within the network (without the `<network>:` prefix); null when the network does not know it. */
  get(pointId: string, tenantId: string | null, signal: AbortSignal): Promise<PickupPoint | null>;
  /** Asks for a label to the point; a network without labels (the community one) answers its own tracking number. */
  createLabel?(request: LabelRequest, signal: AbortSignal): Promise<LabelOutcome>;
  /**
   * The tenant's own view of points this network answered (the sandbox carrier's per-tenant overrides). The directory
   * calls it on every search and lookup, after its cache: what `search` and `get` answer (and the cache holds) is the
   * same for every tenant, and one tenant's overlay is never cached nor served to another.
   */
  overlay?(points: PickupPoint[], tenantId: string | null): Promise<PickupPoint[]>;
}

export interface SourceReport {
  network: RelaisNetwork;
  status: 'ok' | 'timeout' | 'error';
  ms: number;
  /** Answered from the cache. */
  cached?: boolean;
}

export interface PointSearch extends Omit<PointQuery, 'tenantId'> {
  networks?: RelaisNetwork[];
  /** Only points open on that date (YYYY-MM-DD). */
  openOn?: string;
}

/** What the API and the commands ask of the pick-up point directory (infra/src/relais/directory.ts). */
export interface RelaisDirectoryPort {
  search(query: PointSearch, tenantId: string | null): Promise<{ items: PickupPoint[]; sources: SourceReport[] }>;
  /** The points named by id (`<network>:<pointId>`), each fresh from its network or its cache; null: unknown. Throws when a network cannot answer. */
  resolve(ids: string[], tenantId: string | null, options?: { fresh?: boolean }): Promise<Map<string, PickupPoint | null>>;
  /** Forgets what the cache holds of a point (its status changed). */
  invalidate(pointId: string): Promise<void>;
  /** The network's adapter, if it is enabled here. */
  adapter(network: RelaisNetwork): CarrierAdapter | null;
}
