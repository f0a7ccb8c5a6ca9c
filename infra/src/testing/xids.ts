import type pg from 'pg';

/**
 * Transaction ids for specs that must cross a digit boundary (…9_999 → 10_000), where a text sort of
 * transaction ids would put 10_000 before 9_999. Ids are cluster-wide and only go up.
 */

/** The next transaction id the cluster will hand out (read without taking one). */
export const nextXid = async (pool: pg.Pool): Promise<bigint> => {
  const r = await pool.query<{ x: string }>('SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x');
  return BigInt(r.rows[0]!.x);
};

/** The next power of ten above the next transaction id, if at most `budget` ids away; else null. */
export const reachableDigitBoundary = async (pool: pg.Pool, budget: bigint): Promise<{ next: bigint; boundary: bigint } | null> => {
  const next = await nextXid(pool);
  const boundary = 10n ** BigInt(next.toString().length);
  return boundary - next <= budget ? { next, boundary } : null;
};

/**
 * Consumes transaction ids until the next one is at least `target`. Each id is one subtransaction that
 * writes a row and is rolled back (subtransaction ids come from the same counter as top-level ones), in
 * statements of at most 20 000: about 100 000 ids a second on a quiet machine, nothing left behind.
 * Other sessions may take ids meanwhile; that only gets there sooner.
 */
export const burnXidsUntil = async (pool: pg.Pool, target: bigint): Promise<void> => {
  for (;;) {
    const left = target - (await nextXid(pool));
    if (left <= 0n) return;
    const n = Number(left > 20_000n ? 20_000n : left);
    await pool.query(`DO $$
      BEGIN
        CREATE TEMP TABLE IF NOT EXISTS xid_burn (x int);
        FOR i IN 1..${n} LOOP
          BEGIN
            INSERT INTO xid_burn VALUES (i);
            RAISE EXCEPTION 'burn' USING ERRCODE = 'P0001';
          EXCEPTION WHEN raise_exception THEN NULL;
          END;
        END LOOP;
      END $$`);
  }
};
