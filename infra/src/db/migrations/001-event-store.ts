import type { Knex } from 'knex';

export const name = '001-event-store';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE TABLE es_streams (
      stream_id text PRIMARY KEY,
      revision bigint NOT NULL,
      last_hash text NOT NULL,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE es_events (
      global_position bigserial PRIMARY KEY,
      transaction_id xid8 NOT NULL DEFAULT pg_current_xact_id(),
      stream_id text NOT NULL,
      stream_revision bigint NOT NULL,
      event_id uuid NOT NULL,
      type text NOT NULL,
      schema_version integer NOT NULL,
      data jsonb NOT NULL,
      metadata jsonb NOT NULL,
      prev_hash text,
      hash text NOT NULL,
      recorded_at timestamptz NOT NULL DEFAULT now(),
      CONSTRAINT es_events_event_id_key UNIQUE (event_id),
      CONSTRAINT es_events_stream_id_stream_revision_key UNIQUE (stream_id, stream_revision)
    );
    CREATE INDEX es_events_feed_idx ON es_events (transaction_id, global_position);

    -- The log is append-only: an UPDATE or DELETE through the application role is refused.
    -- (A superuser can still disable the trigger; the hash chain is what exposes such tampering.)
    CREATE FUNCTION es_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'es_events is append-only' USING ERRCODE = 'insufficient_privilege';
    END $$;
    CREATE TRIGGER es_events_append_only BEFORE UPDATE OR DELETE ON es_events
      FOR EACH ROW EXECUTE FUNCTION es_events_append_only();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE es_events; DROP TABLE es_streams; DROP FUNCTION es_events_append_only();');
}
