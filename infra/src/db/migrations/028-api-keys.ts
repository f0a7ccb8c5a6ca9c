import type { Knex } from 'knex';

export const name = '028-api-keys';

/**
 * API keys of `/v1` (docs/v1.md), security records outside the event log like credentials and webhook endpoints:
 * only a SHA-256 of the secret is kept (the secret is shown once, at creation or roll). `seq` orders the list as a
 * number. A rolled key names its successor and stays valid until its `expires_at`; a revoked one is refused at once.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE api_keys (
      id uuid PRIMARY KEY,
      seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
      tenant_id uuid NOT NULL,
      owner_id uuid NOT NULL,
      livemode boolean NOT NULL,
      name text NOT NULL,
      secret_hash text NOT NULL UNIQUE,
      last4 text NOT NULL,
      scopes text[] NOT NULL,
      created_by text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      last_used_at timestamptz NULL,
      expires_at timestamptz NULL,
      revoked_at timestamptz NULL,
      rolled_to uuid NULL REFERENCES api_keys (id)
    );
    CREATE INDEX api_keys_by_tenant ON api_keys (tenant_id, seq DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE api_keys');
}
