import type { Knex } from 'knex';

export const name = '013-feed-horizon';

/**
 * The feed's horizon depends only on transactions that append events in this database (docs/event-store.md,
 * "The global feed is gap-safe"). Every appending transaction holds a shared transaction-level advisory lock
 * on one fixed key, taken before its transaction id is assigned; readers see events below the oldest
 * transaction id among the lock's holders (or below the snapshot's xmax when there is none), read in a
 * later snapshot than the one that found the holders.
 */
export const APPEND_LOCK = { classid: 0x45534150, objid: 1 } as const; // 'ESAP', two-int4 form (objsubid 2)

export async function up(knex: Knex): Promise<void> {
  const { classid, objid } = APPEND_LOCK;
  await knex.raw(`
    -- Marks the current transaction as an appender. Idempotent within a transaction. Refuses a transaction
    -- that already has an id: an appender must be in the lock's holders from before its id exists.
    CREATE FUNCTION es_begin_append() RETURNS void LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      IF current_setting('cagnotte.es_appending', true) = 'on' THEN RETURN; END IF;
      IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'es_begin_append: this transaction wrote before it started appending events; call beginAppend right after BEGIN, before any other write'
          USING ERRCODE = 'object_not_in_prerequisite_state';
      END IF;
      PERFORM pg_advisory_xact_lock_shared(${classid}, ${objid}), set_config('cagnotte.es_appending', 'on', true);
    END $$;

    -- Enforced by the database: no statement inserts into es_events outside an appender. A statement-level
    -- BEFORE trigger fires before the statement's first row is written, so before a fresh transaction gets its
    -- id; in the optimistic one-statement append, the events insert's trigger fires before the head update runs
    -- (the update is pulled by the insert's WHERE EXISTS), which the specs check. Same body as es_begin_append,
    -- inlined: it runs on every append.
    CREATE FUNCTION es_begin_append_trigger() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      IF current_setting('cagnotte.es_appending', true) = 'on' THEN RETURN NULL; END IF;
      IF pg_current_xact_id_if_assigned() IS NOT NULL THEN
        RAISE EXCEPTION 'es_begin_append: this transaction wrote before it started appending events; call beginAppend right after BEGIN, before any other write'
          USING ERRCODE = 'object_not_in_prerequisite_state';
      END IF;
      PERFORM pg_advisory_xact_lock_shared(${classid}, ${objid}), set_config('cagnotte.es_appending', 'on', true);
      RETURN NULL;
    END $$;
    CREATE TRIGGER es_events_begin_append BEFORE INSERT ON es_events
      FOR EACH STATEMENT EXECUTE FUNCTION es_begin_append_trigger();

    -- The oldest transaction id that may still add events to the feed: the lowest id among the appenders
    -- running now in this database, or the snapshot's xmax (every id handed out later is >= it).
    -- Order matters: the snapshot (xmax) is taken when the first statement starts and the lock table is read
    -- after it; the holders' ids after that (only when there are holders). Transaction ids of backends are
    -- 32-bit: widened with xmax's epoch.
    CREATE FUNCTION es_feed_horizon() RETURNS xid8 LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      next_xid bigint;
      holders integer[];
      oldest bigint;
    BEGIN
      -- One statement: its snapshot (xmax) is taken before the lock table is read.
      SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint, array(
        SELECT DISTINCT pid FROM pg_locks
        WHERE locktype = 'advisory' AND classid = ${classid} AND objid = ${objid} AND objsubid = 2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database()))
      INTO next_xid, holders;
      IF cardinality(holders) = 0 THEN RETURN next_xid::text::xid8; END IF;
      -- The holders' ids, read fresh (not from this transaction's stats cache) and after that snapshot.
      PERFORM pg_stat_clear_snapshot();
      SELECT min(next_xid - ((((next_xid % 4294967296) - a.backend_xid::text::bigint + 6442450944) % 4294967296) - 2147483648))
      INTO oldest
      FROM pg_stat_get_activity(NULL) a
      WHERE a.pid = ANY (holders) AND a.backend_xid IS NOT NULL;
      RETURN least(next_xid, oldest)::text::xid8;
    END $$;

    -- One page of the feed. The horizon is found first; the events are read by a later statement, whose
    -- fresh snapshot sees every appender that had finished when the horizon was taken.
    CREATE FUNCTION es_read_all(after_commit xid8, after_prepare bigint, max_count integer) RETURNS SETOF es_events
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      horizon xid8 := es_feed_horizon();
    BEGIN
      IF after_commit IS NULL THEN
        RETURN QUERY SELECT * FROM es_events e WHERE e.transaction_id < horizon
          ORDER BY e.transaction_id, e.global_position LIMIT max_count;
      ELSE
        RETURN QUERY SELECT * FROM es_events e
          WHERE (e.transaction_id, e.global_position) > (after_commit, after_prepare) AND e.transaction_id < horizon
          ORDER BY e.transaction_id, e.global_position LIMIT max_count;
      END IF;
    END $$;

    -- The newest event a reader of the feed can see now.
    CREATE FUNCTION es_head_position() RETURNS TABLE (transaction_id xid8, global_position bigint)
    LANGUAGE plpgsql VOLATILE AS $$
    DECLARE
      horizon xid8 := es_feed_horizon();
    BEGIN
      RETURN QUERY SELECT e.transaction_id, e.global_position FROM es_events e WHERE e.transaction_id < horizon
        ORDER BY e.transaction_id DESC, e.global_position DESC LIMIT 1;
    END $$;

    -- The appenders running now in this database: how many, and how long the oldest has been open.
    CREATE FUNCTION es_open_appends() RETURNS TABLE (appends integer, oldest_seconds double precision)
    LANGUAGE plpgsql VOLATILE AS $$
    BEGIN
      PERFORM pg_stat_clear_snapshot();
      RETURN QUERY
        SELECT count(*)::integer, coalesce(extract(epoch FROM clock_timestamp() - min(a.xact_start))::double precision, 0)
        FROM pg_stat_get_activity(NULL) a
        WHERE a.pid IN (
          SELECT pid FROM pg_locks
          WHERE locktype = 'advisory' AND classid = ${classid} AND objid = ${objid} AND objsubid = 2
            AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
        );
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP FUNCTION es_open_appends(); DROP FUNCTION es_head_position(); DROP FUNCTION es_read_all(xid8, bigint, integer);
    DROP FUNCTION es_feed_horizon();
    DROP TRIGGER es_events_begin_append ON es_events;
    DROP FUNCTION es_begin_append_trigger(); DROP FUNCTION es_begin_append();
  `);
}
