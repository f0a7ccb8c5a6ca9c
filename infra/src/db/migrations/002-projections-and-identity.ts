import type { Knex } from 'knex';

export const name = '002-projections-and-identity';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE projection_checkpoints (
      name text PRIMARY KEY,
      commit_position xid8,
      prepare_position bigint,
      events_applied bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    -- Credentials and sessions are security records, not business facts: they live outside the event log
    -- so that a password hash is never copied into an immutable history.
    CREATE TABLE credentials (
      user_id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      email text NOT NULL,
      phone text,
      password_hash text NOT NULL,
      blocked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE UNIQUE INDEX credentials_tenant_email_idx ON credentials (tenant_id, lower(email));
    CREATE UNIQUE INDEX credentials_tenant_phone_idx ON credentials (tenant_id, phone) WHERE phone IS NOT NULL;

    CREATE TABLE sessions (
      id uuid PRIMARY KEY,
      user_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      device_id uuid NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NOT NULL,
      revoked_at timestamptz,
      ip text,
      user_agent text
    );
    CREATE INDEX sessions_user_idx ON sessions (user_id) WHERE revoked_at IS NULL;

    CREATE TABLE rm_tenants (
      id uuid PRIMARY KEY,
      slug text NOT NULL UNIQUE,
      name text NOT NULL,
      white_label boolean NOT NULL,
      approved_origins jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      revision bigint NOT NULL
    );

    CREATE TABLE rm_accounts (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      email text NOT NULL,
      phone text,
      display_name text NOT NULL,
      role text NOT NULL,
      account_type text NOT NULL,
      country text NOT NULL,
      currency text NOT NULL,
      timezone text NOT NULL,
      signup_source text NOT NULL,
      registered_at timestamptz NOT NULL,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_accounts_tenant_email_idx ON rm_accounts (tenant_id, lower(email));

    CREATE TABLE rm_pools (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      organiser_id uuid NOT NULL,
      type text NOT NULL,
      status text NOT NULL,
      marketplace_visibility text NOT NULL,
      archived_at timestamptz,
      country text NOT NULL,
      title text NOT NULL,
      doc jsonb NOT NULL,
      created_at timestamptz NOT NULL,
      updated_at timestamptz NOT NULL,
      revision bigint NOT NULL
    );
    CREATE INDEX rm_pools_tenant_organiser_idx ON rm_pools (tenant_id, organiser_id, created_at DESC);
    CREATE INDEX rm_pools_tenant_listing_idx ON rm_pools (tenant_id, type, marketplace_visibility) WHERE archived_at IS NULL;

    CREATE TABLE rm_pool_members (
      pool_id uuid NOT NULL,
      user_id uuid NOT NULL,
      tenant_id uuid NOT NULL,
      display_name text NOT NULL,
      role text NOT NULL,
      joined_at timestamptz NOT NULL,
      PRIMARY KEY (pool_id, user_id)
    );
    CREATE INDEX rm_pool_members_user_idx ON rm_pool_members (user_id);

    CREATE TABLE rm_pool_pickup_points (
      pool_id uuid NOT NULL,
      point_id text NOT NULL,
      tenant_id uuid NOT NULL,
      sort_order integer NOT NULL,
      name text NOT NULL,
      address text,
      postal_code text,
      city text,
      country text,
      lat double precision,
      lng double precision,
      opening_hours text,
      PRIMARY KEY (pool_id, point_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(
    'DROP TABLE rm_pool_pickup_points, rm_pool_members, rm_pools, rm_accounts, rm_tenants, sessions, credentials, projection_checkpoints;',
  );
}
