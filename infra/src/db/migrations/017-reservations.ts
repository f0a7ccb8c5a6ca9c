import type { Knex } from 'knex';

export const name = '017-reservations';

/**
 * The reservations read model (projection `reservations`): a row per reservation, folded from the pool stream's
 * reservation events. Amounts stay decimal strings (TEXT), never floats. `revision` is the pool stream revision of
 * the last event folded into the row, so a replay changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_reservations (
      id uuid PRIMARY KEY,
      pool_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      buyer_id uuid NOT NULL,
      buyer_name text NOT NULL,
      status text NOT NULL,
      lines jsonb NOT NULL,
      pledge text,
      amount text NOT NULL,
      relais_id text,
      placed_at timestamptz NOT NULL,
      expires_at timestamptz NOT NULL,
      signed jsonb,
      payment jsonb,
      late_payments jsonb NOT NULL DEFAULT '[]',
      ended_at timestamptz,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_reservations_buyer_idx ON rm_reservations (buyer_id, placed_at DESC);
    CREATE INDEX rm_reservations_pool_idx ON rm_reservations (pool_id);
    CREATE INDEX rm_reservations_tenant_idx ON rm_reservations (tenant_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_reservations;');
}
