import type { Knex } from 'knex';

export const name = '026-webhook-delivery-runs';

/**
 * Webhook deliveries (command-api/src/webhooks/delivery.ts), three columns migration 025 lacked:
 * - `step`: attempts made in the current run (a first dispatch, or a recovery that runs the retry schedule again from
 *   its start); `attempts` keeps counting every attempt ever made, so each attempt's job key stays new.
 * - `trigger`: what started the current run (`dispatch`, `recovery`, `test`), recorded on each attempt.
 * - `leased_until`: an attempt in flight (claimed, not yet recorded); past it, the attempt is taken as lost (its worker
 *   died) and the sweeper queues the next one.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE webhook_deliveries
      ADD COLUMN step integer NOT NULL DEFAULT 0,
      ADD COLUMN trigger text NOT NULL DEFAULT 'dispatch' CHECK (trigger IN ('dispatch', 'recovery', 'test')),
      ADD COLUMN leased_until timestamptz NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_deliveries DROP COLUMN step, DROP COLUMN trigger, DROP COLUMN leased_until');
}
