import type { Knex } from 'knex';

export const name = '012-projection-faults';

/**
 * A projection that keeps failing on one event stops as faulted instead of retrying forever: the checkpoint row
 * says so (state), how many attempts failed in a row, which event (id, stream, revision, position, type) and the
 * error. `projections retry` or `projections rebuild` sets it running again. See docs/projections.md.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE projection_checkpoints
      ADD COLUMN state text NOT NULL DEFAULT 'running' CHECK (state IN ('running', 'faulted')),
      ADD COLUMN attempts integer NOT NULL DEFAULT 0,
      ADD COLUMN fault_event_id text,
      ADD COLUMN fault_stream_id text,
      ADD COLUMN fault_revision bigint,
      ADD COLUMN fault_position text,
      ADD COLUMN fault_type text,
      ADD COLUMN fault_error text,
      ADD COLUMN faulted_at timestamptz;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE projection_checkpoints
      DROP COLUMN state, DROP COLUMN attempts, DROP COLUMN fault_event_id, DROP COLUMN fault_stream_id,
      DROP COLUMN fault_revision, DROP COLUMN fault_position, DROP COLUMN fault_type, DROP COLUMN fault_error,
      DROP COLUMN faulted_at;
  `);
}
