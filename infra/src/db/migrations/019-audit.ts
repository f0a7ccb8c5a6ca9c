import type { Knex } from 'knex';

export const name = '019-audit';

/**
 * The audit read model (projection `audit`, docs/audit.md).
 *
 * rm_audit_events: every event of every pool stream, copied as stored (schema version, data and metadata exactly as
 * their hash covers them) with its hash links, plus the data upcast to its current version (`current_*`, what the
 * state at a point is folded from) and columns extracted for queries. One row per (stream, revision), so a replay
 * inserts nothing. Positions are numeric(20): a feed position is two unsigned 64-bit numbers.
 *
 * rm_tenant_auditors: who audits each tenant; a revoked auditor keeps its row (`active` false) so that replaying an
 * older grant cannot bring it back (`revision` is the tenant stream's).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE rm_audit_events (
      stream_id text NOT NULL,
      revision bigint NOT NULL,
      commit_position numeric(20, 0) NOT NULL,
      prepare_position numeric(20, 0) NOT NULL,
      event_id uuid NOT NULL UNIQUE,
      type text NOT NULL,
      schema_version integer NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      current_version integer NOT NULL,
      current_data jsonb NOT NULL,
      hash text NOT NULL,
      prev_hash text,
      recorded_at timestamptz NOT NULL,
      pool_id text NOT NULL,
      reservation_id text,
      tenant_id text,
      occurred_at timestamptz NOT NULL,
      actor_kind text NOT NULL,
      actor_id text NOT NULL,
      PRIMARY KEY (stream_id, revision)
    );
    CREATE INDEX rm_audit_events_reservation_idx ON rm_audit_events (stream_id, reservation_id, revision) WHERE reservation_id IS NOT NULL;
    CREATE INDEX rm_audit_events_tenant_idx ON rm_audit_events (tenant_id, occurred_at);

    CREATE TABLE rm_tenant_auditors (
      tenant_id uuid NOT NULL,
      user_id uuid NOT NULL,
      active boolean NOT NULL,
      granted_at timestamptz NOT NULL,
      revoked_at timestamptz,
      revision bigint NOT NULL,
      PRIMARY KEY (tenant_id, user_id)
    );
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_tenant_auditors; DROP TABLE rm_audit_events;');
}
