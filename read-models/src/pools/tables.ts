import type { PoolDocument } from './fold';
import type { VisibilityFacts } from './visibility';

/** The pools read model's tables: a row per pool (its document and the columns readers filter on), members, pick-up points. */
export const POOL_TABLES = { pools: 'rm_pools', members: 'rm_pool_members', pickupPoints: 'rm_pool_pickup_points' } as const;

export interface PoolRow {
  id: string;
  tenant_id: string;
  organiser_id: string;
  type: string;
  status: string;
  marketplace_visibility: string;
  archived_at: Date | null;
  country: string;
  title: string;
  /** The document the pools projection folds (see fold.ts); rows written before it was its own type hold the same JSON. */
  doc: PoolDocument;
  created_at: Date;
  updated_at: Date;
  revision: string;
}

export interface MemberRow {
  pool_id: string;
  user_id: string;
  display_name: string;
  role: string;
  joined_at: Date;
}

export interface PickupPointRow {
  pool_id: string;
  point_id: string;
  sort_order: number;
  name: string;
  address: string | null;
  postal_code: string | null;
  city: string | null;
  country: string | null;
  lat: number | null;
  lng: number | null;
  opening_hours: string | null;
  /** False once the point became unavailable for the pool (migration 036); `unavailable_reason` says why. */
  available: boolean;
  unavailable_reason: string | null;
}

/** What the visibility rules (visibility.ts) read of a row. */
export const visibilityFactsOfRow = (row: PoolRow): VisibilityFacts => ({
  type: row.type,
  status: row.status,
  marketplaceVisibility: row.marketplace_visibility,
  archived: row.archived_at !== null,
});
