import type { Knex } from 'knex';

export const name = '007-ledger-sandbox';

/**
 * The sandbox Stellar network (infra/sandbox-ledger/src): ledger entries (accounts, signers, trustlines, data),
 * closed ledgers and the history Horizon serves (transactions, operations, participants). Several networks
 * (passphrases) can share a database; amounts and sequence numbers are int64 stroops, never floats.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE sandbox_ledger_networks (
      id serial PRIMARY KEY,
      passphrase text NOT NULL UNIQUE,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE sandbox_ledger_ledgers (
      network_id int NOT NULL REFERENCES sandbox_ledger_networks (id) ON DELETE CASCADE,
      sequence bigint NOT NULL,
      hash text NOT NULL,
      prev_hash text,
      closed_at timestamptz NOT NULL,
      successful_transaction_count int NOT NULL DEFAULT 0,
      failed_transaction_count int NOT NULL DEFAULT 0,
      operation_count int NOT NULL DEFAULT 0,
      tx_set_operation_count int NOT NULL DEFAULT 0,
      total_coins bigint NOT NULL,
      fee_pool bigint NOT NULL,
      base_fee bigint NOT NULL,
      base_reserve bigint NOT NULL,
      PRIMARY KEY (network_id, sequence)
    );

    CREATE TABLE sandbox_ledger_accounts (
      network_id int NOT NULL REFERENCES sandbox_ledger_networks (id) ON DELETE CASCADE,
      account_id text NOT NULL,
      balance bigint NOT NULL CHECK (balance >= 0),
      seq_num bigint NOT NULL,
      seq_ledger bigint NOT NULL DEFAULT 0,
      seq_time bigint NOT NULL DEFAULT 0,
      master_weight smallint NOT NULL,
      low_threshold smallint NOT NULL,
      med_threshold smallint NOT NULL,
      high_threshold smallint NOT NULL,
      flags int NOT NULL DEFAULT 0,
      home_domain text NOT NULL DEFAULT '',
      inflation_destination text,
      last_modified_ledger bigint NOT NULL,
      PRIMARY KEY (network_id, account_id)
    );

    CREATE TABLE sandbox_ledger_signers (
      network_id int NOT NULL,
      account_id text NOT NULL,
      signer_key text NOT NULL,
      signer_type text NOT NULL,
      weight smallint NOT NULL CHECK (weight BETWEEN 1 AND 255),
      PRIMARY KEY (network_id, account_id, signer_key),
      FOREIGN KEY (network_id, account_id) REFERENCES sandbox_ledger_accounts (network_id, account_id) ON DELETE CASCADE
    );

    CREATE TABLE sandbox_ledger_trustlines (
      network_id int NOT NULL,
      account_id text NOT NULL,
      asset_code text NOT NULL,
      asset_issuer text NOT NULL,
      balance bigint NOT NULL CHECK (balance >= 0),
      trust_limit bigint NOT NULL CHECK (trust_limit >= balance),
      flags int NOT NULL,
      last_modified_ledger bigint NOT NULL,
      PRIMARY KEY (network_id, account_id, asset_code, asset_issuer),
      FOREIGN KEY (network_id, account_id) REFERENCES sandbox_ledger_accounts (network_id, account_id) ON DELETE CASCADE
    );

    CREATE TABLE sandbox_ledger_data (
      network_id int NOT NULL,
      account_id text NOT NULL,
      name text NOT NULL,
      value bytea NOT NULL,
      last_modified_ledger bigint NOT NULL,
      PRIMARY KEY (network_id, account_id, name),
      FOREIGN KEY (network_id, account_id) REFERENCES sandbox_ledger_accounts (network_id, account_id) ON DELETE CASCADE
    );

    -- History: one row per transaction included in a ledger (failed ones too), its Horizon record without links.
    CREATE TABLE sandbox_ledger_transactions (
      network_id int NOT NULL,
      id bigint NOT NULL,
      hash text NOT NULL,
      ledger bigint NOT NULL,
      source_account text NOT NULL,
      successful boolean NOT NULL,
      result_codes jsonb NOT NULL,
      record jsonb NOT NULL,
      PRIMARY KEY (network_id, id),
      UNIQUE (network_id, hash),
      FOREIGN KEY (network_id, ledger) REFERENCES sandbox_ledger_ledgers (network_id, sequence)
    );

    CREATE TABLE sandbox_ledger_operations (
      network_id int NOT NULL,
      id bigint NOT NULL,
      transaction_id bigint NOT NULL,
      type text NOT NULL,
      is_payment boolean NOT NULL,
      successful boolean NOT NULL,
      record jsonb NOT NULL,
      PRIMARY KEY (network_id, id),
      FOREIGN KEY (network_id, transaction_id) REFERENCES sandbox_ledger_transactions (network_id, id)
    );
    CREATE INDEX sandbox_ledger_operations_tx_idx ON sandbox_ledger_operations (network_id, transaction_id);

    CREATE TABLE sandbox_ledger_transaction_participants (
      network_id int NOT NULL,
      account_id text NOT NULL,
      transaction_id bigint NOT NULL,
      PRIMARY KEY (network_id, account_id, transaction_id)
    );

    CREATE TABLE sandbox_ledger_operation_participants (
      network_id int NOT NULL,
      account_id text NOT NULL,
      operation_id bigint NOT NULL,
      PRIMARY KEY (network_id, account_id, operation_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE sandbox_ledger_operation_participants;
    DROP TABLE sandbox_ledger_transaction_participants;
    DROP TABLE sandbox_ledger_operations;
    DROP TABLE sandbox_ledger_transactions;
    DROP TABLE sandbox_ledger_data;
    DROP TABLE sandbox_ledger_trustlines;
    DROP TABLE sandbox_ledger_signers;
    DROP TABLE sandbox_ledger_accounts;
    DROP TABLE sandbox_ledger_ledgers;
    DROP TABLE sandbox_ledger_networks;
  `);
}
