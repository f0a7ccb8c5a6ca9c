import type { Knex } from 'knex';

export const name = '025-events-out';

/**
 * Events out (docs/webhooks.md).
 *
 * - `rm_public_events`: the public feed, a projection (projectors/src/webhooks/public-events.ts) of the store's feed
 *   through the public catalogue (read-models/src/webhooks/catalogue.ts). One internal event gives 0..n public events;
 *   a public event's place is its internal event's position plus its index among them, so the feed is in commit order
 *   and a cursor is a position, compared as numbers (xid8, bigint, smallint), never as text. `owner_id` is the
 *   organiser whose resource it is: an organiser reads their own, the tenant's auditors (and later its API keys) all.
 *   `rm_public_event_owners` is the projection's memory of which organiser owns a pool.
 * - `event_consumer_groups`: named, checkpointed consumers of the public feed (at-least-once; workers of one group
 *   take the next batch in turn under the group row's lock).
 * - `webhook_*`: endpoints (configuration and security records, like credentials: outside the event log, so a signing
 *   secret is never copied into an immutable history; secrets and private keys are stored encrypted), their secrets
 *   (two sign while a rotated one has not expired), the tenants' ed25519 signing keys, one delivery per
 *   (endpoint, event) and every attempt.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_public_events (
      commit_position xid8 NOT NULL,
      prepare_position bigint NOT NULL,
      idx smallint NOT NULL,
      id text NOT NULL UNIQUE,
      tenant_id uuid NOT NULL,
      owner_id uuid NULL,
      type text NOT NULL,
      subject text NOT NULL,
      sequence bigint NOT NULL,
      api_version text NOT NULL,
      created_at timestamptz NOT NULL,
      data jsonb NOT NULL,
      PRIMARY KEY (commit_position, prepare_position, idx)
    );
    CREATE INDEX rm_public_events_tenant ON rm_public_events (tenant_id, commit_position, prepare_position, idx);
    CREATE INDEX rm_public_events_owner ON rm_public_events (tenant_id, owner_id, commit_position, prepare_position, idx);
    CREATE INDEX rm_public_events_subject ON rm_public_events (tenant_id, subject, commit_position, prepare_position, idx);

    CREATE TABLE rm_public_event_owners (
      resource_id text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      owner_id uuid NULL
    );

    CREATE TABLE event_consumer_groups (
      name text PRIMARY KEY,
      commit_position xid8 NULL,
      prepare_position bigint NULL,
      idx smallint NULL,
      events_handled bigint NOT NULL DEFAULT 0,
      updated_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE webhook_endpoints (
      id text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      owner_id uuid NULL,
      created_by uuid NOT NULL,
      url text NOT NULL,
      description text NULL,
      metadata jsonb NOT NULL DEFAULT '{}',
      enabled_events text[] NOT NULL,
      ordering text NOT NULL CHECK (ordering IN ('none', 'per_subject')),
      status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
      disabled_reason text NULL,
      disabled_at timestamptz NULL,
      failing_since timestamptz NULL,
      from_commit xid8 NULL,
      from_prepare bigint NULL,
      from_idx smallint NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz NULL
    );
    CREATE INDEX webhook_endpoints_tenant ON webhook_endpoints (tenant_id, created_at) WHERE deleted_at IS NULL;

    CREATE TABLE webhook_secrets (
      id bigserial PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      secret_ciphertext text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      expires_at timestamptz NULL
    );
    CREATE INDEX webhook_secrets_endpoint ON webhook_secrets (endpoint_id);

    CREATE TABLE webhook_signing_keys (
      tenant_id uuid PRIMARY KEY,
      public_key text NOT NULL,
      private_key_ciphertext text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE webhook_deliveries (
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id text NOT NULL,
      commit_position xid8 NULL,
      prepare_position bigint NULL,
      idx smallint NULL,
      subject text NOT NULL,
      sequence bigint NOT NULL,
      status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed', 'cancelled')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NULL,
      delivered_at timestamptz NULL,
      last_error text NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (endpoint_id, event_id)
    );
    CREATE INDEX webhook_deliveries_subject ON webhook_deliveries (endpoint_id, subject, commit_position, prepare_position, idx) WHERE status = 'pending';
    CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (status, next_attempt_at) WHERE status = 'pending';

    CREATE TABLE webhook_attempts (
      id bigserial PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      event_id text NOT NULL,
      attempt integer NOT NULL,
      trigger text NOT NULL,
      status_code integer NULL,
      latency_ms integer NOT NULL,
      error text NULL,
      response_excerpt text NULL,
      attempted_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id DESC);

    CREATE TABLE webhook_test_events (
      id text PRIMARY KEY,
      endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
      tenant_id uuid NOT NULL,
      payload jsonb NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    );

    CREATE TABLE webhook_inbox (
      id bigserial PRIMARY KEY,
      token text NOT NULL,
      received_at timestamptz NOT NULL DEFAULT now(),
      headers jsonb NOT NULL,
      body text NOT NULL
    );
    CREATE INDEX webhook_inbox_token ON webhook_inbox (token, id);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP TABLE webhook_inbox, webhook_test_events, webhook_attempts, webhook_deliveries, webhook_signing_keys, webhook_secrets,
    webhook_endpoints, event_consumer_groups, rm_public_event_owners, rm_public_events`);
}
