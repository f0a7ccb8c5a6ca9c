import type { Knex } from 'knex';

export const name = '033-webhook-endpoint-mode';

/**
 * A webhook endpoint's mode (docs/v1.md, "Modes"): made with a test key it receives test objects' events only, with a
 * live key live ones. NULL (endpoints made before modes, or with a session) is the deployment's mode.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_endpoints ADD COLUMN livemode boolean NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE webhook_endpoints DROP COLUMN livemode');
}
