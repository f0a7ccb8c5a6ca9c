import type { Knex } from 'knex';

export const name = '028-search-speed';

/**
 * Popularity tiers in the text index, so a common word's most popular matches are read without visiting the rest.
 *
 * A search reads, per section, the first 250 text matches in popularity order (featured, popularity, newest). For a
 * word of middling frequency (3–8 % of a section) both plans the planner has visit thousands of rows: the popularity
 * order until 250 of them match (5,000 rows for "cheese" among 50,000 merchants), or every match from the text index
 * then a sort. Each row visited costs a heap fetch, whatever its width.
 *
 * Each listing's tsvector now also holds one tag lexeme for its tier: ' f<k>' when featured, else ' p<k>', with k
 * the number of the bounds 1, 3, 7, …, 1023 (2^i − 1) its popularity reaches (0 to 10). A tag starts with a space,
 * which no word parsed from text can hold, and is never added to the vocabulary. Tiers are disjoint, and together in
 * the order f10 … f0, p10 … p0 they follow the popularity order, so the search reads them as UNION ALL branches
 * `section @@ (words && tier)`, best tier first, under one LIMIT: the GIN index intersects the words' posting lists
 * with the tier's, and the branches after the one that fills the LIMIT are never run. "cheese" then visits the
 * matches of its first tiers (about 500 rows) instead of 5,000. Results are unchanged: the same rows, in the same
 * order (infra/src/search/postgres.ts, docs/search.md).
 *
 * The column is generated, so redefining it rewrites the table and its indexes; migration 009's per-section indexes
 * (full text, popularity, geo: the last two are partial on the section's text) are dropped with it and made again.
 * No parallel plans on this table: a Parallel Append may run the tiers in any order.
 */
const SECTIONS = ['merchant', 'pool'] as const;

const sectionIndexes = (kind: (typeof SECTIONS)[number]) => {
  const text = `(CASE WHEN kind = '${kind}' THEN tsv END)`;
  return `
    CREATE INDEX rm_search_listings_${kind}_tsv_idx ON rm_search_listings USING gin (${text}) WITH (fastupdate = off);
    CREATE INDEX rm_search_listings_${kind}_popular_idx ON rm_search_listings (tenant_id, featured DESC, popularity DESC, created_at DESC)
      WHERE ${text} IS NOT NULL;
    CREATE INDEX rm_search_listings_${kind}_geo_idx ON rm_search_listings USING gist (ll_to_earth(lat, lng))
      WHERE ${text} IS NOT NULL AND lat IS NOT NULL AND lng IS NOT NULL;`;
};

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE FUNCTION cg_search_tier(featured boolean, popularity real) RETURNS tsvector LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT array_to_tsvector(ARRAY[(CASE WHEN featured THEN ' f' ELSE ' p' END)
              || width_bucket(popularity, ARRAY[1, 3, 7, 15, 31, 63, 127, 255, 511, 1023]::real[])]) $$;
    ALTER TABLE rm_search_listings DROP COLUMN tsv;
    ALTER TABLE rm_search_listings ADD COLUMN tsv tsvector
      GENERATED ALWAYS AS (to_tsvector('simple', search_text) || cg_search_tier(featured, popularity)) STORED;
    ALTER TABLE rm_search_listings SET (parallel_workers = 0);
    ${SECTIONS.map(sectionIndexes).join('\n')}
    ANALYZE rm_search_listings;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE rm_search_listings DROP COLUMN tsv;
    ALTER TABLE rm_search_listings ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED;
    ALTER TABLE rm_search_listings RESET (parallel_workers);
    ${SECTIONS.map(sectionIndexes).join('\n')}
    DROP FUNCTION cg_search_tier(boolean, real);
  `);
}
