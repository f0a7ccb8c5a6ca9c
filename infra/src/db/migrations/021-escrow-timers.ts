import type { Knex } from 'knex';

export const name = '021-escrow-timers';

/**
 * The escrow timers' process manager (projectors/src/escrow/timers.ts) keeps each pool's deadline: PoolPublished does
 * not carry it, and the job closing the pool at its deadline is scheduled when the pool is published.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`CREATE TABLE rm_escrow_timers (pool_id uuid PRIMARY KEY, deadline timestamptz NULL)`);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_escrow_timers');
}
