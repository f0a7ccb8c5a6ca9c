import type { Knex } from 'knex';

export const name = '029-v1-accounts-transfers';

/**
 * The /v1 accounts and transfers read models (projections `v1-accounts` and `transfers`). `seq` orders the cursor
 * lists (a number, never text); it is given once, when the row is first written. Amounts stay decimal strings.
 * `livemode` of an account is null for one registered through /api (a signup): it belongs to the environment's mode.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_v1_accounts (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      tenant_id uuid NOT NULL,
      livemode boolean,
      created_via text,
      email text NOT NULL,
      name text NOT NULL,
      account_type text NOT NULL,
      country text NOT NULL,
      business jsonb,
      wallet text,
      metadata jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL,
      revision bigint NOT NULL
    );
    CREATE UNIQUE INDEX rm_v1_accounts_seq_idx ON rm_v1_accounts (seq);
    CREATE INDEX rm_v1_accounts_tenant_idx ON rm_v1_accounts (tenant_id, seq DESC);
    CREATE INDEX rm_v1_accounts_wallet_idx ON rm_v1_accounts (wallet) WHERE wallet IS NOT NULL;

    CREATE TABLE rm_v1_transfers (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY,
      tenant_id uuid NOT NULL,
      livemode boolean NOT NULL,
      from_user_id uuid NOT NULL,
      from_wallet text NOT NULL,
      to_user_id uuid,
      to_wallet text NOT NULL,
      amount text NOT NULL,
      currency text NOT NULL,
      memo text,
      status text NOT NULL,
      unsigned_xdr text NOT NULL,
      tx_hash text NOT NULL,
      expires_at timestamptz NOT NULL,
      created_via text,
      created_at timestamptz NOT NULL,
      submitted_at timestamptz,
      settled_at timestamptz,
      ledger integer,
      failure_code text,
      result_codes jsonb,
      ended_at timestamptz,
      revision bigint NOT NULL
    );
    CREATE UNIQUE INDEX rm_v1_transfers_seq_idx ON rm_v1_transfers (seq);
    CREATE INDEX rm_v1_transfers_tenant_idx ON rm_v1_transfers (tenant_id, seq DESC);
    CREATE INDEX rm_v1_transfers_from_idx ON rm_v1_transfers (from_user_id, status);
    CREATE INDEX rm_v1_transfers_to_idx ON rm_v1_transfers (to_user_id) WHERE to_user_id IS NOT NULL;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_v1_transfers; DROP TABLE rm_v1_accounts;');
}
