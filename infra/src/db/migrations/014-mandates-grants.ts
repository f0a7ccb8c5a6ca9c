import type { Knex } from 'knex';

export const name = '014-mandates-grants';

/**
 * Mandates and organiser grants become read models of the `identity` projection (they were folded from the
 * caller's account stream on every read). Instants are kept as the text the events recorded, because the
 * API answers them verbatim. The identity checkpoint is reset so that the projection replays the log once
 * and fills the new tables; its folds skip what rm_tenants and rm_accounts already hold (an event at or below
 * a row's revision changes nothing), so those rows are left as they are.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_mandates (
      mandate_id uuid PRIMARY KEY,
      owner_id uuid NOT NULL,
      tenant_id text,
      kind text NOT NULL,
      status text NOT NULL,
      version text NOT NULL,
      hash text NOT NULL,
      accepted_at text NOT NULL,
      accepted_ip text,
      accepted_revision bigint NOT NULL,
      revoked_at text,
      revoked_ip text,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_mandates_owner_idx ON rm_mandates (owner_id, accepted_revision DESC);

    CREATE TABLE rm_organiser_grants (
      grant_id uuid PRIMARY KEY,
      owner_id uuid NOT NULL,
      tenant_id text,
      status text NOT NULL,
      ledger_account text NOT NULL,
      destination text NOT NULL,
      asset_code text NOT NULL,
      asset_issuer text NOT NULL,
      amount text NOT NULL,
      memo_hash text NOT NULL,
      prepared_at text NOT NULL,
      settled_at text,
      tx_hash text,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_organiser_grants_owner_idx ON rm_organiser_grants (owner_id);

    DELETE FROM projection_checkpoints WHERE name = 'identity';
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_organiser_grants, rm_mandates;');
}
