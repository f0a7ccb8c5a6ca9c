import type { Knex } from 'knex';

export const name = '034-relais-sandbox-points';

/**
 * The sandbox carrier's point overrides (docs/relais.md), set by POST /sandbox/relais/points/{id}: each tenant's own
 * sandbox state, shared by every process of a sandbox deployment. A column left null keeps the fixture's value.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE relais_sandbox_points (
      tenant_id uuid NOT NULL,
      point_id text NOT NULL,
      status text NULL CHECK (status IN ('active', 'temporarily_closed', 'retired')),
      closures jsonb NULL,
      max_weight_g integer NULL CHECK (max_weight_g > 0),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (tenant_id, point_id)
    )
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE relais_sandbox_points');
}
