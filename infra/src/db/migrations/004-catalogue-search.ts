import type { Knex } from 'knex';

export const name = '004-catalogue-search';

export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    CREATE EXTENSION IF NOT EXISTS pg_trgm;
    CREATE EXTENSION IF NOT EXISTS unaccent;
    CREATE EXTENSION IF NOT EXISTS cube;
    CREATE EXTENSION IF NOT EXISTS earthdistance;

    -- unaccent() is only STABLE; this wrapper pins the dictionary so it can back an index.
    CREATE OR REPLACE FUNCTION cg_fold(text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
      AS $$ SELECT lower(public.unaccent('public.unaccent'::regdictionary, $1)) $$;

    -- What the search projection has folded per listing source (pool or merchant), so that it rebuilds alone.
    CREATE TABLE rm_search_sources (
      id text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      kind text NOT NULL,
      state jsonb NOT NULL,
      revision bigint NOT NULL
    );

    CREATE TABLE rm_search_listings (
      id text PRIMARY KEY,
      tenant_id uuid NOT NULL,
      kind text NOT NULL,
      ref_id uuid NOT NULL,
      title text NOT NULL,
      title_folded text NOT NULL,
      search_text text NOT NULL,
      featured boolean NOT NULL,
      popularity real NOT NULL,
      created_at timestamptz NOT NULL,
      lat double precision,
      lng double precision,
      postal_code text,
      embedding bytea NOT NULL,
      card jsonb NOT NULL,
      version bigint NOT NULL
    );
    CREATE INDEX rm_search_listings_trgm_idx ON rm_search_listings USING gin (search_text gin_trgm_ops);
    CREATE INDEX rm_search_listings_geo_idx ON rm_search_listings USING gist (ll_to_earth(lat, lng)) WHERE lat IS NOT NULL AND lng IS NOT NULL;
    CREATE INDEX rm_search_listings_popular_idx ON rm_search_listings (tenant_id, kind, featured DESC, popularity DESC, created_at DESC);
    CREATE INDEX rm_search_listings_postal_idx ON rm_search_listings (tenant_id, postal_code);

    CREATE INDEX rm_merchants_tenant_status_idx ON rm_merchants (tenant_id, status, name);
    CREATE INDEX rm_merchants_name_trgm_idx ON rm_merchants USING gin (cg_fold(name) gin_trgm_ops);

    CREATE TABLE rm_leads (
      id uuid PRIMARY KEY,
      tenant_id uuid NOT NULL,
      visitor_id text NOT NULL,
      email text NOT NULL,
      company text NOT NULL,
      attribution jsonb NOT NULL,
      requested_at timestamptz NOT NULL
    );
    CREATE INDEX rm_leads_tenant_idx ON rm_leads (tenant_id, requested_at DESC);
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw('DROP TABLE rm_leads, rm_search_listings, rm_search_sources; DROP FUNCTION cg_fold(text); DROP INDEX rm_merchants_tenant_status_idx, rm_merchants_name_trgm_idx;');
}
