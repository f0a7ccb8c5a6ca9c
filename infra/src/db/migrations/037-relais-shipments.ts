import type { Knex } from 'knex';

export const name = '037-relais-shipments';

/**
 * Relais shipments (docs/relais.md):
 * - relais_shipment_lookup: a carrier's (network, tracking number) → the pool and shipment it names, written by the
 *   command side right before the shipment's pool command (a row whose command then failed names no shipment of the
 *   pool: the pool's stream stays the truth, recordShipmentStatus answers unknown_tracking for it).
 * - rm_relais_shipments, rm_relais_collections, rm_relais_parcel_hosts (projection `relais-shipments`): each shipment
 *   with its status; each parcel of a community shipment and where its collection stands; the host → user pairs the
 *   host routes check (folded from RelaisHostApplied; `revision` orders replays).
 * - relais_collection_attempts: the wrong collection codes a host entered (at most 10 per 15 minutes).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE relais_shipment_lookup (
      network text NOT NULL,
      tracking_number text NOT NULL,
      pool_id uuid NOT NULL,
      shipment_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      point_id text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (network, tracking_number)
    );
    CREATE TABLE rm_relais_shipments (
      shipment_id uuid PRIMARY KEY,
      pool_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      point_id text NOT NULL,
      network text NOT NULL,
      tracking_number text NOT NULL,
      status text NOT NULL,
      reservation_ids jsonb NOT NULL,
      parcels integer NOT NULL,
      weight_g integer NOT NULL,
      expected_on text NOT NULL,
      arrived_at timestamptz NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL,
      UNIQUE (network, tracking_number)
    );
    CREATE INDEX rm_relais_shipments_pool_idx ON rm_relais_shipments (pool_id, created_at);
    CREATE INDEX rm_relais_shipments_point_idx ON rm_relais_shipments (point_id, created_at);
    CREATE TABLE rm_relais_collections (
      reservation_id uuid PRIMARY KEY,
      pool_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      shipment_id uuid NOT NULL,
      point_id text NOT NULL,
      host_id uuid NOT NULL,
      status text NOT NULL,
      ready_at timestamptz NULL,
      collected_at timestamptz NULL,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_relais_collections_host_idx ON rm_relais_collections (host_id, status);
    CREATE TABLE rm_relais_parcel_hosts (
      host_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      user_id uuid NOT NULL
    );
    CREATE TABLE relais_collection_attempts (
      id bigserial PRIMARY KEY,
      host_id uuid NOT NULL,
      attempted_at timestamptz NOT NULL
    );
    CREATE INDEX relais_collection_attempts_host_idx ON relais_collection_attempts (host_id, attempted_at);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE relais_collection_attempts, rm_relais_parcel_hosts, rm_relais_collections, rm_relais_shipments, relais_shipment_lookup;');
}
