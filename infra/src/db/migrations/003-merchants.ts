import type { Knex } from 'knex';

export const name = '003-merchants';

/** Merchant profiles read model (the merchant aggregate and its projector fill it). */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_merchants (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      owner_user_id uuid,
      slug text NOT NULL,
      name text NOT NULL,
      status text NOT NULL,
      profile jsonb NOT NULL DEFAULT '{}'::jsonb,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL,
      UNIQUE (tenant_id, slug)
    );
    CREATE INDEX rm_merchants_owner_idx ON rm_merchants (owner_user_id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_merchants');
}
