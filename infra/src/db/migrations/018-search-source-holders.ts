import type { Knex } from 'knex';

export const name = '018-search-source-holders';

/**
 * The search projection keeps its own copy of who holds units in a pool (a PENDING or PAID reservation), so a
 * pool's popularity comes from reservations and the projection still rebuilds alone. Rows written before hold `{}`
 * until the next rebuild of `search`.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`ALTER TABLE rm_search_sources ADD COLUMN holders jsonb NOT NULL DEFAULT '{}'`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rm_search_sources DROP COLUMN holders');
}
