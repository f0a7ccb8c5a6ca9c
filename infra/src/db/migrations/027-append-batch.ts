import type { Knex } from 'knex';
import { APPEND_LOCK } from './013-feed-horizon';

export const name = '027-append-batch';

/**
 * One statement appends to many streams, with the idempotent answers of their commands (docs/event-store.md,
 * "Group commit" and "Answers in the same statement"). The caller hashes each append onto the head it expects;
 * this function, in one autocommit transaction:
 *   1. joins the appenders (es_begin_append's body, inlined) before anything gives the transaction an id (the feed horizon);
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
    -- Generic plans: every statement here is by primary key or over the arguments' arrays, and planning each
    -- call anew cost about a fifth of a one-event append.
    LANGUAGE plpgsql VOLATILE SET plan_cache_mode = force_generic_plan AS $$
    DECLARE
      n integer := cardinality(a_stream);
      xact xid8;
      pos bigint[];
      claimed integer[] := '{}';
      refused integer[] := '{}';
      moved boolean[] := array_fill(false, ARRAY[n]);
      i integer;
    BEGIN
      -- es_begin_append(), inlined (it runs in every statement): join the appenders before the transaction has an id.
      IF current_setting('cagnotte.es_appending', true) IS DISTINCT FROM 'on' THEN
        IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
          RAISE EXCEPTION 'es_begin_append: this transaction wrote before it started appending events; call beginAppend right after BEGIN, before any other write'
            USING ERRCODE = 'object_not_in_prerequisite_state';
        END IF;
        PERFORM pg_advisory_xact_lock_shared(${APPEND_LOCK.classid}, ${APPEND_LOCK.objid}), set_config('cagnotte.es_appending', 'on', true);
      END IF;
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

      FOREACH i IN ARRAY CASE WHEN n = 1 THEN ARRAY[1] ELSE
          ARRAY(SELECT s FROM generate_subscripts(a_stream, 1) AS s ORDER BY a_stream[s] COLLATE "C") END LOOP
        CONTINUE WHEN i = ANY (refused);
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

      -- Rare (a refused or conflicting append with answers): one key at a time, by its primary key.
      FOREACH i IN ARRAY claimed LOOP
        CONTINUE WHEN moved[k_append[i]];
        DELETE FROM idempotency_keys WHERE scope = k_scope[i] AND key = k_key[i];
      END LOOP;

      -- unnest, not e_data[x]: an element of an array of variable-length values is found by walking from the start.
      INSERT INTO es_events (global_position, stream_id, stream_revision, event_id, type, schema_version, data, metadata, prev_hash, hash)
      SELECT pos[x.o::integer], streams.id, x.r, x.i, x.t, x.v, x.d, x.m, x.p, x.h
      FROM unnest(e_append, e_revision, e_id, e_type, e_version, e_data, e_meta, e_prev, e_hash) WITH ORDINALITY AS x(a, r, i, t, v, d, m, p, h, o)
      JOIN unnest(a_stream) WITH ORDINALITY AS streams(id, n) ON streams.n = x.a
      WHERE moved[x.a];

      IF true = ALL (moved) THEN
        -- Every append moved its head (the common case): no head to read, no key to name.
        RETURN QUERY SELECT s, 'ok', xact::text, pos[a_first[s]:a_last[s]], NULL::bigint, NULL::text, NULL::text[]
          FROM generate_subscripts(a_stream, 1) AS s;
        RETURN;
      END IF;
      RETURN QUERY
        SELECT s, CASE WHEN moved[s] THEN 'ok' WHEN s = ANY (refused) THEN 'taken' ELSE 'conflict' END,
          CASE WHEN moved[s] THEN xact::text END,
          CASE WHEN moved[s] THEN pos[a_first[s]:a_last[s]] END,
          h.revision, h.last_hash,
          CASE WHEN s = ANY (refused) THEN ARRAY(SELECT k_key[j] FROM generate_subscripts(k_key, 1) AS j WHERE k_append[j] = s AND NOT (j = ANY (claimed))) END
        FROM generate_subscripts(a_stream, 1) AS s
        -- Lateral: one index probe per conflicting append, none for the others (never a scan of es_streams).
        LEFT JOIN LATERAL (
          SELECT e.revision, e.last_hash FROM es_streams e WHERE NOT moved[s] AND NOT (s = ANY (refused)) AND e.stream_id = a_stream[s]
        ) h ON true;
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`DROP FUNCTION es_append_batch(text[], bigint[], bigint[], text[], integer[], integer[], integer[], bigint[], uuid[], text[],
    integer[], jsonb[], jsonb[], text[], text[], integer[], text[], text[], text[], integer[], json[], jsonb[], integer[], integer[])`);
}
