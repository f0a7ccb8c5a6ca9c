import type { Knex } from 'knex';

export const name = '008-auth-personas-mail';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE rm_accounts
      ADD COLUMN ledger_account text,
      ADD COLUMN company_name text,
      ADD COLUMN siret text,
      ADD COLUMN tax_country text,
      ADD COLUMN tax_id text,
      ADD COLUMN rccm text;

    -- Outgoing mail is written here in the same request that decides to send it, and delivered by a worker
    -- (SMTP when SMTP_URL is set). Rows are kept: in sandbox the operator CLI reads them (pnpm cli mail list).
    CREATE TABLE mail_outbox (
      id uuid PRIMARY KEY,
      tenant_id uuid,
      kind text NOT NULL,
      to_address text NOT NULL,
      subject text NOT NULL,
      body_text text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      sent_at timestamptz,
      last_error text
    );
    CREATE INDEX mail_outbox_due_idx ON mail_outbox (next_attempt_at) WHERE sent_at IS NULL;
    CREATE INDEX mail_outbox_to_idx ON mail_outbox (lower(to_address), created_at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TABLE mail_outbox;
    ALTER TABLE rm_accounts DROP COLUMN ledger_account, DROP COLUMN company_name, DROP COLUMN siret,
      DROP COLUMN tax_country, DROP COLUMN tax_id, DROP COLUMN rccm;
  `);
}
