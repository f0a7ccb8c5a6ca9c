import type { Knex } from 'knex';

export const name = '024-invoice-pool-optional';

/** `rm_invoices.pool_id` may be null: the organiser activation fee is invoiced for an account, not a pool. */
export async function up(knex: Knex): Promise<void> {
  await knex.raw('ALTER TABLE rm_invoices ALTER COLUMN pool_id DROP NOT NULL');
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DELETE FROM rm_invoices WHERE pool_id IS NULL');
  await knex.raw('ALTER TABLE rm_invoices ALTER COLUMN pool_id SET NOT NULL');
}
