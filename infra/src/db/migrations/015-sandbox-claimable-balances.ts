import type { Knex } from 'knex';

export const name = '015-sandbox-claimable-balances';

/**
 * The sandbox Stellar network (infra/sandbox-ledger/src), what a per-pool escrow needs: claimable balances (the
 * entry, with its claimants and their absolute predicates as jsonb, and the destinations as an array for
 * Horizon's ?claimant= filter), the reserves an account pays for what it sponsors (numSponsoring), and the
 * network's clock offset (SandboxLedger.advanceTime: close times are the server clock plus this many seconds).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE sandbox_ledger_networks ADD COLUMN clock_offset_seconds bigint NOT NULL DEFAULT 0 CHECK (clock_offset_seconds >= 0);
    ALTER TABLE sandbox_ledger_accounts ADD COLUMN num_sponsoring int NOT NULL DEFAULT 0 CHECK (num_sponsoring >= 0);

    CREATE TABLE sandbox_ledger_claimable_balances (
      network_id int NOT NULL REFERENCES sandbox_ledger_networks (id) ON DELETE CASCADE,
      balance_id text NOT NULL CHECK (balance_id ~ '^[0-9a-f]{64}$'),
      asset_type text NOT NULL,
      asset_code text NOT NULL,
      asset_issuer text NOT NULL,
      amount bigint NOT NULL CHECK (amount > 0),
      sponsor text NOT NULL,
      claimants jsonb NOT NULL,
      destinations text[] NOT NULL,
      flags int NOT NULL DEFAULT 0,
      last_modified_ledger bigint NOT NULL,
      PRIMARY KEY (network_id, balance_id)
    );
    CREATE INDEX sandbox_ledger_claimable_balances_sponsor_idx ON sandbox_ledger_claimable_balances (network_id, sponsor);
    CREATE INDEX sandbox_ledger_claimable_balances_destinations_idx ON sandbox_ledger_claimable_balances USING gin (destinations);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE sandbox_ledger_claimable_balances;
    ALTER TABLE sandbox_ledger_accounts DROP COLUMN num_sponsoring;
    ALTER TABLE sandbox_ledger_networks DROP COLUMN clock_offset_seconds;
  `);
}
