import type { Knex } from 'knex';

export const name = '027-append-batch';

/**
 * One statement appends to many streams, with the idempotent answers of their commands (docs/event-store.md,
 * "Group commit" and "Answers in the same statement"). The caller hashes each append onto the head it expects;
 * this function, in one autocommit transaction:
 *   1. joins the appenders (es_begin_append) before anything gives the transaction an id (the feed horizon);
 *   2. takes the global positions of every event (nextval, in event order), so each answer's X-Event-Position
 *      is written once, with its row;
 *   3. claims the answers' keys (the IdempotencyStore.insert upsert: a live row blocks, an expired one is
 *      replaced), in (scope, key) order; an append with a key it could not claim is refused whole ('taken');
 *   4. moves each remaining head only if it is where its append expects (revision -1: a new stream), in
 *      stream_id order, so two batches never deadlock on heads;
 *   5. deletes the claimed keys of every append whose head did not move, and inserts the events of those
 *      whose head moved.
 * One row per append: 'ok' (the transaction id and each event's position), 'taken' (the keys held by live
 * rows) or 'conflict' (the stream's current head, for a retry in one statement again).
 * Events of append i are e_*[a_first[i]..a_last[i]] (1-based), in revision order; k_last is the 1-based index
 * in e_* of the event whose position the answer names, or null.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION es_append_batch(
      a_stream text[], a_expected bigint[], a_revision bigint[], a_hash text[], a_first integer[], a_last integer[],
      e_append integer[], e_revision bigint[], e_id uuid[], e_type text[], e_version integer[], e_data jsonb[], e_meta jsonb[],
      e_prev text[], e_hash text[],
      k_append integer[], k_scope text[], k_key text[], k_fingerprint text[], k_status integer[], k_body json[], k_headers jsonb[],
      k_ttl integer[], k_last integer[]
    ) RETURNS TABLE (append_index integer, outcome text, commit_text text, positions bigint[], head_revision bigint, head_hash text, taken text[])
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      n integer := cardinality(a_stream);
      xact xid8;
      pos bigint[];
      claimed integer[] := '{}';
      refused integer[] := '{}';
      moved boolean[] := array_fill(false, ARRAY[n]);
      i integer;
    BEGIN
      PERFORM es_begin_append();
      xact := pg_current_xact_id();
      pos := ARRAY(SELECT nextval('es_events_global_position_seq') FROM generate_series(1, cardinality(e_id)));

      IF cardinality(k_key) > 0 THEN
        WITH c AS (
          INSERT INTO idempotency_keys (scope, key, fingerprint, status_code, body, headers, expires_at)
          SELECT k_scope[j], k_key[j], k_fingerprint[j], k_status[j], k_body[j],
            (CASE WHEN k_last[j] IS NULL THEN k_headers[j]
                  ELSE k_headers[j] || jsonb_build_object('X-Event-Position', xact::text || '-' || pos[k_last[j]]) END)::json,
            now() + make_interval(secs => k_ttl[j])
          FROM generate_subscripts(k_key, 1) AS j
          ORDER BY k_scope[j] COLLATE "C", k_key[j] COLLATE "C"
          ON CONFLICT (scope, key) DO UPDATE
            SET fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
                headers = EXCLUDED.headers, created_at = now(), expires_at = EXCLUDED.expires_at
            WHERE idempotency_keys.expires_at <= now()
          RETURNING scope, key
        )
        SELECT coalesce(array_agg(j), '{}') INTO claimed
        FROM c JOIN generate_subscripts(k_key, 1) AS j ON k_scope[j] = c.scope AND k_key[j] = c.key;
        refused := ARRAY(SELECT DISTINCT k_append[j] FROM generate_subscripts(k_key, 1) AS j WHERE NOT (j = ANY (claimed)));
      END IF;

      FOR i IN SELECT s FROM generate_subscripts(a_stream, 1) AS s WHERE NOT (s = ANY (refused)) ORDER BY a_stream[s] COLLATE "C" LOOP
        IF a_expected[i] < 0 THEN
          INSERT INTO es_streams (stream_id, revision, last_hash) VALUES (a_stream[i], a_revision[i], a_hash[i])
          ON CONFLICT (stream_id) DO UPDATE SET revision = EXCLUDED.revision, last_hash = EXCLUDED.last_hash, updated_at = now()
            WHERE es_streams.revision < 0;
        ELSE
          UPDATE es_streams SET revision = a_revision[i], last_hash = a_hash[i], updated_at = now()
          WHERE stream_id = a_stream[i] AND revision = a_expected[i];
        END IF;
        moved[i] := FOUND;
      END LOOP;

      IF cardinality(claimed) > 0 THEN
        DELETE FROM idempotency_keys k USING unnest(claimed) AS j
        WHERE NOT moved[k_append[j]] AND k.scope = k_scope[j] AND k.key = k_key[j];
      END IF;

      INSERT INTO es_events (global_position, stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash)
      SELECT pos[x], a_stream[e_append[x]], e_revision[x], e_id[x], e_type[x], e_version[x], e_data[x], e_meta[x], e_prev[x], e_hash[x]
      FROM generate_subscripts(e_id, 1) AS x
      WHERE moved[e_append[x]]
      ORDER BY x;

      RETURN QUERY
        SELECT s, CASE WHEN moved[s] THEN 'ok' WHEN s = ANY (refused) THEN 'taken' ELSE 'conflict' END,
          CASE WHEN moved[s] THEN xact::text END,
          CASE WHEN moved[s] THEN pos[a_first[s]:a_last[s]] END,
          h.revision, h.last_hash,
          CASE WHEN s = ANY (refused) THEN ARRAY(SELECT k_key[j] FROM generate_subscripts(k_key, 1) AS j WHERE k_append[j] = s AND NOT (j = ANY (claimed))) END
        FROM generate_subscripts(a_stream, 1) AS s
        LEFT JOIN es_streams h ON NOT moved[s] AND NOT (s = ANY (refused)) AND h.stream_id = a_stream[s];
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION es_append_batch(text[], bigint[], bigint[], text[], integer[], integer[], integer[], bigint[], uuid[], text[],
    integer[], jsonb[], jsonb[], text[], text[], integer[], text[], text[], text[], integer[], json[], jsonb[], integer[], integer[])`);
}
