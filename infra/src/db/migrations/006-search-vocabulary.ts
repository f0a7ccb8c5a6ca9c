import type { Knex } from 'knex';

export const name = '006-search-vocabulary';

/**
 * Bounded candidate generation for search: each query word is expanded through the tenant's vocabulary
 * (a small table, trigram-indexed: typos and prefixes find real words), and the listings holding those
 * words come from a full-text GIN index, so a common word no longer costs a trigram comparison per row.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE rm_search_listings ADD COLUMN tsv tsvector GENERATED ALWAYS AS (to_tsvector('simple', search_text)) STORED;
    CREATE INDEX rm_search_listings_tsv_idx ON rm_search_listings USING gin (tsv);

    CREATE TABLE rm_search_words (
      tenant_id uuid NOT NULL,
      word text NOT NULL,
      PRIMARY KEY (tenant_id, word)
    );
    CREATE INDEX rm_search_words_trgm_idx ON rm_search_words USING gin (word gin_trgm_ops);
    INSERT INTO rm_search_words (tenant_id, word)
      SELECT DISTINCT tenant_id, unnest(tsvector_to_array(tsv)) FROM rm_search_listings
      ON CONFLICT DO NOTHING;
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_search_words; ALTER TABLE rm_search_listings DROP COLUMN tsv;');
}
