import type { Knex } from 'knex';

export const name = '009-search-per-kind-indexes';

/**
 * Search reads each section (merchants, pools) in its own query, and the planner chooses between reading the
 * popularity (or distance) order until it has enough text matches and reading every match from the text index: the
 * first is right for a common word, the second for a rare one. With one text index over both kinds it only knew a
 * word's frequency over the whole table, so a word common among pools and absent from merchants ("commande
 * groupée") made it read every merchant in popularity order, finding none (160 ms at 100,000 listings).
 *
 * A section's text is now an expression, `CASE WHEN kind = '…' THEN tsv END` (null for the other kind; tsv is never
 * null), with its own full-text index: ANALYZE keeps statistics per index expression, so the planner knows a word's
 * frequency within the section. The popularity and geo indexes become one per section, partial on that expression
 * being not null, which a text match implies: the search queries need no `kind = …` condition (the planner would
 * count the section twice, and intersect the text matches with a whole section's bitmap to "narrow" them).
 *
 * The full-text indexes are built without GIN's pending list (fastupdate off): after a load, every search scanned
 * up to 4 MB of not-yet-merged entries (5 ms a query, and plans costed as if the index were that slow). Writes pay
 * for it instead. The vocabulary's trigram index likewise.
 *
 * The trigram index over search_text (004) has had no reader since 006: dropped, it no longer slows every upsert.
 *
 * pg_trgm declares `%` with cost 1, so for the tenant's vocabulary the planner compared every word with each query
 * word (≈ 10 ms for 900 words) instead of using the trigram index (≈ 2 ms); as in 005, where we own the extension.
 */
const SECTIONS = ['merchant', 'pool'] as const;

export async function up(knex: Knex): Promise<void> {
  for (const kind of SECTIONS) {
    const text = `(CASE WHEN kind = '${kind}' THEN tsv END)`;
    await knex.raw(`
      CREATE INDEX rm_search_listings_${kind}_tsv_idx ON rm_search_listings USING gin (${text}) WITH (fastupdate = off);
      CREATE INDEX rm_search_listings_${kind}_popular_idx ON rm_search_listings (tenant_id, featured DESC, popularity DESC, created_at DESC)
        WHERE ${text} IS NOT NULL;
      CREATE INDEX rm_search_listings_${kind}_geo_idx ON rm_search_listings USING gist (ll_to_earth(lat, lng))
        WHERE ${text} IS NOT NULL AND lat IS NOT NULL AND lng IS NOT NULL;
    `);
  }
  await knex.raw(`
    DROP INDEX rm_search_listings_tsv_idx, rm_search_listings_popular_idx, rm_search_listings_geo_idx, rm_search_listings_trgm_idx;
    ALTER INDEX rm_search_words_trgm_idx SET (fastupdate = off);
    SELECT gin_clean_pending_list('rm_search_words_trgm_idx'::regclass);
    ANALYZE rm_search_listings;
    DO $$
    BEGIN
      ALTER FUNCTION similarity_op(text, text) COST 200;
    EXCEPTION WHEN insufficient_privilege THEN
      RAISE NOTICE 'pg_trgm similarity_op cost left unchanged (not the extension owner)';
    END $$;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE INDEX rm_search_listings_tsv_idx ON rm_search_listings USING gin (tsv);
    CREATE INDEX rm_search_listings_popular_idx ON rm_search_listings (tenant_id, kind, featured DESC, popularity DESC, created_at DESC);
    CREATE INDEX rm_search_listings_geo_idx ON rm_search_listings USING gist (ll_to_earth(lat, lng)) WHERE lat IS NOT NULL AND lng IS NOT NULL;
    CREATE INDEX rm_search_listings_trgm_idx ON rm_search_listings USING gin (search_text gin_trgm_ops);
    ALTER INDEX rm_search_words_trgm_idx RESET (fastupdate);
  `);
  for (const kind of SECTIONS) {
    await knex.raw(`DROP INDEX rm_search_listings_${kind}_tsv_idx, rm_search_listings_${kind}_popular_idx, rm_search_listings_${kind}_geo_idx`);
  }
  await knex.raw(`
    DO $$
    BEGIN
      ALTER FUNCTION similarity_op(text, text) COST 1;
    EXCEPTION WHEN insufficient_privilege THEN NULL;
    END $$;
  `);
}
