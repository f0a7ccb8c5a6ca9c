import type { Knex } from 'knex';

export const name = '020-escrow-reads';

/**
 * The escrow's read side. `rm_reservations.escrow`: a reservation's acceptance, dispute and settlements (projection
 * `reservations`); null until the escrow did something with it, so rows written before read as none. `rm_escrows`
 * (projection `escrow`): a row per pool, its escrow document folded from the pool's stream. Amounts in the documents
 * stay decimal strings; `revision` is the pool stream revision of the last event folded in, so a replay changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE rm_reservations ADD COLUMN escrow jsonb;
    CREATE TABLE rm_escrows (
      pool_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      organiser_id uuid NOT NULL,
      doc jsonb NOT NULL,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_escrows_tenant_organiser_idx ON rm_escrows (tenant_id, organiser_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_escrows; ALTER TABLE rm_reservations DROP COLUMN escrow;');
}
