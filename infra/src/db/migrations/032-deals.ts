import type { Knex } from 'knex';

export const name = '032-deals';

/**
 * rm_deals (projection `deals`): a row per deal, its document folded from `deal-<dealId>`, with its tenant, mode and
 * parties for the visibility filter, and `seq`, a bigint identity that orders /v1/deals lists (newest first) and
 * resolves cursors. `revision` is the deal stream's revision of the last event folded in, so a replay changes nothing.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_deals (
      deal_id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      tenant_id uuid NOT NULL,
      livemode boolean NOT NULL,
      created_by uuid NOT NULL,
      buyer_id uuid NOT NULL,
      seller_id uuid NOT NULL,
      broker_id uuid,
      status text NOT NULL,
      doc jsonb NOT NULL,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_deals_tenant_seq_idx ON rm_deals (tenant_id, livemode, seq DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_deals;');
}
