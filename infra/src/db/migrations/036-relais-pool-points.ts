import type { Knex } from 'knex';

export const name = '036-relais-pool-points';

/**
 * A pool's pick-up points that became unavailable (PickupPointUnavailable, docs/relais.md): each pick-up point row
 * says whether it still takes the pool's parcels, and a reservation whose point is unavailable carries why, so its
 * views ask the buyer to choose again. Rows written before: available, nothing to choose again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE rm_pool_pickup_points ADD COLUMN available boolean NOT NULL DEFAULT true, ADD COLUMN unavailable_reason text NULL;
    ALTER TABLE rm_reservations ADD COLUMN pickup_point_unavailable jsonb NULL;
    CREATE INDEX rm_pool_pickup_points_point_idx ON rm_pool_pickup_points (point_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP INDEX rm_pool_pickup_points_point_idx;
    ALTER TABLE rm_reservations DROP COLUMN pickup_point_unavailable;
    ALTER TABLE rm_pool_pickup_points DROP COLUMN unavailable_reason, DROP COLUMN available;
  `);
}
