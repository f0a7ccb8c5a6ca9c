import type { Knex } from 'knex';
import type pg from 'pg';
import { cosine, fromBytes, toBytes } from './embeddings';
import { RRF_K, type GeoPoint, type ListingDoc, type ListingKind, type SearchHit, type SearchIndex, type SearchQuery, type SearchResult } from './port';

export const LISTINGS = 'rm_search_listings';

export interface IndexWriteContext {
  trx?: Knex.Transaction;
  table?: string;
}

/** How many trigram candidates the vector and structured arms re-rank. */
const CANDIDATES = 200;

/** How many full-text matches, best by ts_rank, are scored by trigram similarity before the best CANDIDATES are kept. */
const CANDIDATE_POOL = 600;

/**
 * In each section, candidates whose trigram similarity is under this share of the best one are dropped before the
 * arms rank them. RRF at k = 60 flattens the relevance arms (ranks 1 and 5 differ by 0.001) while the structured arm
 * is query-independent, so without it a popular listing that half-matches outranks the one named exactly. Above
 * 0.9 a description-only match would be dropped beside a title match.
 */
const RELEVANCE_FLOOR = 0.85;

interface CandidateRow {
  id: string;
  kind: ListingKind;
  ref_id: string;
  card: Record<string, unknown>;
  featured: boolean;
  popularity: number;
  created_at: Date;
  embedding: Buffer;
  sim: number | null;
  dist_km: number | null;
}


/** Featured, popularity, freshness and (with a center) nearness, each bounded, summed. */
const structuredScore = (r: CandidateRow, now: number, radiusKm: number | null) => {
  const freshnessDays = Math.max(0, (now - new Date(r.created_at).getTime()) / 86_400_000);
  const score =
    (r.featured ? 0.5 : 0) +
    0.2 * Math.min(1, Math.log1p(r.popularity) / Math.log1p(100)) +
    0.2 * Math.exp(-freshnessDays / 90) +
    (r.dist_km === null ? 0 : 0.3 * Math.exp(-r.dist_km / (radiusKm ?? 25)));
  return { score, freshnessDays };
};

/** 1-based ranks of `items` under `key` (descending); items whose key is null get no rank. */
const ranks = <T>(items: T[], key: (t: T) => number | null): Map<T, number> => {
  const sorted = items.filter((t) => key(t) !== null).sort((a, b) => key(b)! - key(a)!);
  return new Map(sorted.map((t, i) => [t, i + 1]));
};

/**
 * Hybrid search in PostgreSQL. Candidates come from trigram matching on accent-folded text (GIN index,
 * word similarity, and substring for short or partial words), within the radius when one is given.
 * Three arms rank them: trigram similarity, exact cosine of the 384-d embeddings, and a structured score;
 * Reciprocal Rank Fusion (k = 60) orders the result. Without pgvector there is no ANN index, so the vector
 * arm re-ranks the candidates rather than recalling new ones (see docs/search.md).
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly name = 'postgres';
  constructor(
    private readonly knex: Knex,
    private readonly pool: pg.Pool,
  ) {}

  /** `ctx` lets the search projection write inside its transaction, into its live or `__rebuild` table. */
  async upsert(docs: ListingDoc[], ctx: IndexWriteContext = {}): Promise<void> {
    if (docs.length === 0) return;
    const db = ctx.trx ?? this.knex;
    const table = ctx.table ?? LISTINGS;
    const rows = docs.map((d) => ({
      id: d.id,
      tenant_id: d.tenantId,
      kind: d.kind,
      ref_id: d.refId,
      title: d.title,
      title_folded: db.raw('cg_fold(?)', [d.title]),
      search_text: db.raw('cg_fold(?)', [`${d.title} ${d.text}`]),
      featured: d.featured,
      popularity: d.popularity,
      created_at: d.createdAt,
      lat: d.location?.lat ?? null,
      lng: d.location?.lng ?? null,
      postal_code: d.postalCode,
      embedding: toBytes(d.embedding),
      card: JSON.stringify(d.card),
      version: d.version,
    }));
    for (let i = 0; i < rows.length; i += 500) {
      await db(table)
        .insert(rows.slice(i, i + 500))
        .onConflict('id')
        .merge()
        .where(`${table}.version`, '<=', db.raw('excluded.version'));
    }
    // The tenant's vocabulary grows with its listings (words are never removed: a superset only costs a lookup).
    const words = db(table).whereIn('id', docs.map((d) => d.id)).select('tenant_id', db.raw('unnest(tsvector_to_array(tsv)) AS word'));
    await db.raw('INSERT INTO rm_search_words (tenant_id, word) SELECT DISTINCT tenant_id, word FROM (?) AS w ON CONFLICT DO NOTHING', [words]);
  }

  async remove(ids: string[], ctx: IndexWriteContext = {}): Promise<void> {
    if (ids.length === 0) return;
    await (ctx.trx ?? this.knex)(ctx.table ?? LISTINGS).whereIn('id', ids).delete();
  }

  async resolvePostalCode(tenantId: string, postalCode: string): Promise<GeoPoint | null> {
    const r = await this.pool.query<{ lat: number | null; lng: number | null }>({
      name: 'search_postal_centroid',
      text: 'SELECT avg(lat) AS lat, avg(lng) AS lng FROM rm_search_listings WHERE tenant_id = $1 AND postal_code = $2 AND lat IS NOT NULL AND lng IS NOT NULL',
      values: [tenantId, postalCode],
    });
    const row = r.rows[0];
    return row && row.lat !== null && row.lng !== null ? { lat: Number(row.lat), lng: Number(row.lng) } : null;
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    const kinds: ListingKind[] = query.type === 'all' ? ['merchant', 'pool'] : [query.type === 'merchants' ? 'merchant' : 'pool'];
    const q = query.q?.trim() ?? '';
    const popular = q.length < 2;
    const geo = [query.center?.lat ?? null, query.center?.lng ?? null, query.center ? query.radiusKm : null, query.center ? null : query.postalCode];
    const distance = `CASE WHEN $3::float8 IS NULL THEN NULL ELSE earth_distance(ll_to_earth($3, $4), ll_to_earth(l.lat, l.lng)) / 1000 END`;
    const where = `l.tenant_id = $1 AND l.kind = ANY($2::text[])
      AND ($5::float8 IS NULL OR (earth_box(ll_to_earth($3, $4), $5 * 1000) @> ll_to_earth(l.lat, l.lng)
           AND earth_distance(ll_to_earth($3, $4), ll_to_earth(l.lat, l.lng)) <= $5 * 1000))
      AND ($6::text IS NULL OR l.postal_code = $6)`;
    const cols = `l.id, l.kind, l.ref_id, l.card, l.featured, l.popularity, l.created_at, l.embedding`;
    let rows: CandidateRow[];
    if (popular) {
      const perKind = await Promise.all(
        kinds.map((kind) =>
          this.pool.query<CandidateRow>({
            name: 'search_popular',
            text: `SELECT ${cols}, NULL::float8 AS sim, ${distance} AS dist_km FROM rm_search_listings l
                   WHERE ${where} ORDER BY l.featured DESC, l.popularity DESC, l.created_at DESC LIMIT $7`,
            values: [query.tenantId, [kind], ...geo, query.limit],
          }),
        ),
      );
      rows = perKind.flatMap((r) => r.rows);
    } else {
      rows = await this.textCandidates(query, kinds, q, geo, cols, distance, where);
    }
    const now = Date.now();
    const section = (kind: ListingKind): SearchHit[] => {
      const all = rows.filter((r) => r.kind === kind);
      const best = popular ? 0 : Math.max(0, ...all.map((r) => Number(r.sim)));
      const mine = popular ? all : all.filter((r) => Number(r.sim) >= RELEVANCE_FLOOR * best);
      const structured = new Map(mine.map((r) => [r, structuredScore(r, now, query.radiusKm)]));
      const vectorSim = new Map(mine.map((r) => [r, !popular && query.queryEmbedding ? cosine(query.queryEmbedding, fromBytes(r.embedding)) : null]));
      const byTrigram = ranks(mine, (r) => (popular ? null : r.sim));
      const byVector = ranks(mine, (r) => vectorSim.get(r)!);
      const byStructured = popular ? new Map(mine.map((r, i) => [r, i + 1])) : ranks(mine, (r) => structured.get(r)!.score);
      const hits = mine.map((r): SearchHit => {
        const tr = byTrigram.get(r);
        const vr = byVector.get(r);
        const sr = byStructured.get(r)!;
        const s = structured.get(r)!;
        const rrf = (tr ? 1 / (RRF_K + tr) : 0) + (vr ? 1 / (RRF_K + vr) : 0) + 1 / (RRF_K + sr);
        const distanceKm = r.dist_km === null ? null : Math.round(Number(r.dist_km) * 1000) / 1000;
        return {
          kind,
          id: r.ref_id,
          score: rrf,
          distanceKm,
          parts: {
            trigram: tr ? { similarity: Number(r.sim), rank: tr } : null,
            vector: vr ? { similarity: vectorSim.get(r)!, rank: vr } : null,
            structured: { score: s.score, rank: sr, featured: r.featured, popularity: r.popularity, freshnessDays: Math.round(s.freshnessDays * 10) / 10, distanceKm },
            rrf,
          },
          card: r.card,
        };
      });
      return hits.sort((a, b) => b.score - a.score).slice(0, query.limit);
    };
    return { popular, merchants: kinds.includes('merchant') ? section('merchant') : [], pools: kinds.includes('pool') ? section('pool') : [] };
  }

  /**
   * Each query word (accent-folded, 2+ characters) becomes up to 8 words of the tenant's vocabulary: itself,
   * words it prefixes, and trigram-similar words (typos). One round trip, on a small trigram-indexed table.
   */
  private async expand(tenantId: string, q: string): Promise<string[][]> {
    const r = await this.pool.query<{ words: string[] }>({
      name: 'search_expand',
      text: `SELECT coalesce((
               SELECT array_agg(word) FROM (
                 SELECT sw.word FROM rm_search_words sw
                 WHERE sw.tenant_id = $1 AND (sw.word % qw.w OR sw.word LIKE replace(replace(qw.w, '%', '\\%'), '_', '\\_') || '%')
                 ORDER BY (sw.word = qw.w) DESC, starts_with(sw.word, qw.w) DESC, similarity(sw.word, qw.w) DESC, sw.word
                 LIMIT 8) x), '{}') AS words
             FROM (SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('simple', cg_fold($2)))) AS w WHERE length(w) >= 2) qw`,
      values: [tenantId, q],
    });
    return r.rows.map((row) => row.words.filter((w) => /^[\p{L}\p{N}-]+$/u.test(w)));
  }

  /**
   * Candidates: listings holding an expansion of every query word (AND of ORs; if that finds too few, any word),
   * from the full-text GIN index, best CANDIDATE_POOL by ts_rank; only those pay the trigram scoring. A common
   * word therefore costs an index lookup, not a similarity per matching row.
   */
  private async textCandidates(query: SearchQuery, kinds: ListingKind[], q: string, geo: unknown[], cols: string, distance: string, where: string): Promise<CandidateRow[]> {
    const groups = (await this.expand(query.tenantId, q)).filter((g) => g.length > 0);
    if (groups.length === 0) return [];
    const lexeme = (w: string) => `'${w}'`;
    const anyOf = (g: string[]) => `(${g.map(lexeme).join(' | ')})`;
    const multiWord = /\s/.test(q);
    // Several words: also the mean over the words of their similarity to the title (0.9 for a word found as is in
    // the text), so that words far apart ("brasserie vercors" for "Brasserie … du Vercors") are not only scored as one
    // phrase. strpos, not a word_similarity per word: cheap.
    const perWord = multiWord
      ? `, 0.95 * (SELECT avg(GREATEST(word_similarity(w, l.title_folded), CASE WHEN strpos(l.search_text, w) > 0 THEN 0.9 ELSE 0 END))
                   FROM unnest(regexp_split_to_array(cg_fold($8), '\\s+')) AS w)`
      : '';
    // Within a radius the matches are few (the text and geo indexes intersect): rank them all. Without one, read
    // them in the popularity index's order so that a common word stops early.
    const geoBound = query.center !== null && query.radiusKm !== null;
    const run = async (tsquery: string, only: ListingKind[]) =>
      (
        await this.pool.query<CandidateRow>({
          name: `search_candidates${multiWord ? '_words' : ''}${geoBound ? '_geo' : ''}`,
          text: `SELECT ${cols},
                   GREATEST(word_similarity(cg_fold($8), l.title_folded), 0.9 * word_similarity(cg_fold($8), l.search_text)${perWord}) AS sim,
                   ${distance} AS dist_km
                 FROM (SELECT * FROM rm_search_listings l
                       WHERE ${where} AND l.tsv @@ to_tsquery('simple', $7)
                       ORDER BY ${geoBound ? `ts_rank(l.tsv, to_tsquery('simple', $7)) DESC` : 'l.featured DESC, l.popularity DESC, l.created_at DESC'} LIMIT $10) l
                 ORDER BY sim DESC LIMIT $9`,
          values: [query.tenantId, only, ...geo, tsquery, q, CANDIDATES, CANDIDATE_POOL],
        })
      ).rows;
    // Per kind, so that the pool of a common word can be read in the popularity index's order and stop early.
    const perKind = (tsquery: string) => Promise.all(kinds.map((kind) => run(tsquery, [kind]))).then((r) => r.flat());
    let rows = await perKind(groups.map(anyOf).join(' & '));
    if (groups.length > 1 && rows.length < query.limit) {
      const seen = new Set(rows.map((r) => r.id));
      rows = [...rows, ...(await perKind([...new Set(groups.flat())].map(lexeme).join(' | '))).filter((r) => !seen.has(r.id))];
    }
    return rows;
  }
}
