import type { Knex } from 'knex';
import type pg from 'pg';
import { cosine, fromBytes, toBytes } from './embeddings';
import { RRF_K, type GeoPoint, type ListingDoc, type ListingKind, type SearchHit, type SearchIndex, type SearchQuery, type SearchResult } from './port';
import { newTrigrams, trigramsInto, WordSimilarity } from './trigram';

export const LISTINGS = 'rm_search_listings';

export interface IndexWriteContext {
  trx?: Knex.Transaction;
  table?: string;
}

/** How many trigram candidates the vector and structured arms re-rank. */
const CANDIDATES = 200;

/**
 * How many full-text matches per section (the first in popularity order; within a radius, the nearest) are scored
 * by trigram similarity before the best CANDIDATES are kept. 600 used to be needed at 100,000 listings for a query
 * whose words were expanded to very common ones ("des" for "delices"); with expansions limited to close forms of a
 * known word and a run per word when no listing holds them all, 250 finds every relevance case (200 loses two).
 */
const CANDIDATE_POOL = 250;

/** When the words are searched one by one (no listing holds them all), each reads at least this many. */
const MIN_WORD_POOL = 100;

/**
 * In each section, candidates whose trigram similarity is under this share of the best one are dropped before the
 * arms rank them. RRF at k = 60 flattens the relevance arms (ranks 1 and 5 differ by 0.001) while the structured arm
 * is query-independent, so without it a popular listing that half-matches outranks the one named exactly. Above
 * 0.9 a description-only match would be dropped beside a title match.
 */
const RELEVANCE_FLOOR = 0.85;

/**
 * A query word that is in the tenant's vocabulary stands for itself, the words it begins and the words this alike
 * (plurals, close derivations: "fromage" for "fromagerie" at 0.58); one that is not, probably a typo, for any word
 * at pg_trgm's threshold (0.3). At 0.3 a real word also drew unrelated ones ("des" for "delices", "boucherie" for
 * "boulangerie"): less precise, and many more listings to read for a common word.
 */
const SIMILAR_TO_KNOWN_WORD = 0.5;

/**
 * Vocabulary expansions of a query, kept per tenant and query text. The vocabulary only grows, and the listings
 * holding the words are read live, so a stale entry can only miss a word that first appeared in the last
 * EXPANSION_TTL_MS (an upsert through this instance forgets its tenant's entries at once).
 */
const EXPANSION_TTL_MS = 30_000;
const EXPANSION_CACHE_SIZE = 2_000;

/** What the candidate query reads per listing: enough to score it, not its card nor its embedding. */
interface CandidateRow {
  id: string;
  /** Where the row was read: the details of the survivors are read back by it (by id when it has moved since). */
  ctid: string;
  kind: ListingKind;
  featured: boolean;
  popularity: number;
  /** created_at in epoch milliseconds (a float is cheaper to parse than a timestamp). */
  created_ms: number;
  title_folded: string;
  search_text: string;
  lat: number | null;
  lng: number | null;
}

/** What a listing that survives the trigram arm needs besides: read for those only. */
interface DetailRow {
  id: string;
  ref_id: string;
  card: Record<string, unknown>;
  embedding: Buffer;
}

/** A ranked listing: the popular shelf reads it whole, a text search assembles it from the two rows above. */
interface RankedRow {
  kind: ListingKind;
  ref_id: string;
  card: Record<string, unknown>;
  featured: boolean;
  popularity: number;
  created_ms: number;
  embedding: Buffer;
  sim: number | null;
  dist_km: number | null;
}

interface Expansion {
  /** `cg_fold(q)`, what the trigram arm compares. */
  folded: string;
  /** `cg_fold(q)` split on white space: the words of the multi-word term. */
  words: string[];
  /** Per query word (2+ characters), the vocabulary words it stands for. */
  groups: string[][];
}

/**
 * A section's text: the listing's tsvector when it is of that kind, else null. Migration 009 indexes each (full
 * text, popularity order and geo, the latter two as partial indexes on "is not null"), so that the planner has
 * the frequency of a word within the section it reads, and no kind condition to count twice.
 */
const SECTION_TEXT: Record<ListingKind, string> = {
  merchant: "(CASE WHEN l.kind = 'merchant' THEN l.tsv END)",
  pool: "(CASE WHEN l.kind = 'pool' THEN l.tsv END)",
};

/** earthdistance's sphere: `earth()`, in metres. */
const EARTH_RADIUS_M = 6_378_168;
const RADIANS_PER_DEGREE = Math.PI / 180;

/**
 * `earth_distance(ll_to_earth(center), ll_to_earth(lat, lng)) / 1000`, computed as earthdistance does it (the chord
 * between the two points on its sphere, as a great-circle distance), here rather than per row in SQL, where these
 * SQL-language functions cost about 6 µs a call. Null without a center or a location.
 */
export const distanceKm = (center: GeoPoint | null, lat: number | null, lng: number | null): number | null => {
  if (!center || lat === null || lng === null) return null;
  const point = (la: number, ln: number) => {
    const [phi, lambda] = [la * RADIANS_PER_DEGREE, ln * RADIANS_PER_DEGREE];
    return [EARTH_RADIUS_M * Math.cos(phi) * Math.cos(lambda), EARTH_RADIUS_M * Math.cos(phi) * Math.sin(lambda), EARTH_RADIUS_M * Math.sin(phi)];
  };
  const a = point(center.lat, center.lng);
  const b = point(lat, lng);
  const chord = Math.sqrt((a[0]! - b[0]!) ** 2 + (a[1]! - b[1]!) ** 2 + (a[2]! - b[2]!) ** 2);
  const halfRatio = chord / (2 * EARTH_RADIUS_M);
  return (halfRatio > 1 ? Math.PI * EARTH_RADIUS_M : 2 * EARTH_RADIUS_M * Math.asin(halfRatio)) / 1000;
};

const CREATED_MS = '(extract(epoch FROM l.created_at) * 1000)::float8 AS created_ms';

/** Appends a statement parameter and answers its placeholder. */
type Params = (value: unknown) => string;
const params = (): { p: Params; values: unknown[] } => {
  const values: unknown[] = [];
  return { p: (v) => `$${values.push(v)}`, values };
};

/** Featured, popularity, freshness and (with a center) nearness, each bounded, summed. */
const structuredScore = (r: RankedRow, now: number, radiusKm: number | null) => {
  const freshnessDays = Math.max(0, (now - r.created_ms) / 86_400_000);
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

/** 0.9 as a float4: in SQL this term was `GREATEST(word_similarity(…), 0.9)`, which PostgreSQL types as real. */
const FOUND_AS_IS = Math.fround(0.9);

/**
 * The trigram arm's similarity of a query to a listing, as the SQL it replaces computed it: `max(word_similarity(q,
 * title), 0.9 · word_similarity(q, text), 0.95 · mean over the query's words of max(word_similarity(w, title), 0.9 if
 * w is in the text))`, the last term for several words only, pg_trgm's values to the bit (trigram.int.spec.ts). The
 * text term is the costly one (a long text; quadratic in the worst case) and is at most 0.9 × the share of the
 * query's trigrams the text holds: `bounds` computes the rest and that bound, `exact` the text term only when the
 * bound says it may matter.
 */
export class TrigramScorer {
  private readonly whole: WordSimilarity;
  private readonly perWord: WordSimilarity[];
  private readonly title = newTrigrams();
  private readonly text = newTrigrams();

  constructor(
    private readonly e: Expansion,
    multiWord: boolean,
  ) {
    this.whole = new WordSimilarity(e.folded);
    this.perWord = multiWord ? e.words.map((w) => new WordSimilarity(w)) : [];
  }

  /** The similarity without its text term, and an upper bound of the whole (equal when the text term cannot matter). */
  bounds(r: CandidateRow): { lower: number; upper: number } {
    const title = trigramsInto(r.title_folded, this.title);
    let lower = this.whole.similarityOf(title);
    // The other terms are at most 0.95 and 0.9: a title this close settles it (the common case for a common word).
    if (lower >= 0.95) return { lower, upper: lower };
    if (this.perWord.length > 0) {
      let sum = 0;
      this.perWord.forEach((ws, i) => (sum += Math.max(ws.similarityOf(title), r.search_text.includes(this.e.words[i]!) ? FOUND_AS_IS : 0)));
      lower = Math.max(lower, 0.95 * (sum / this.perWord.length));
    }
    if (lower >= 0.9) return { lower, upper: lower };
    const shared = this.whole.sharedOf(trigramsInto(r.search_text, this.text));
    const upper = Math.max(lower, 0.9 * Math.fround(shared / Math.max(1, this.whole.size)));
    return { lower, upper };
  }

  /** The similarity, given `bounds`. */
  exact(r: CandidateRow, { lower, upper }: { lower: number; upper: number }): number {
    if (upper === lower) return lower;
    // The text term cannot exceed upper / 0.9 = shared / size: the search may stop there.
    return Math.max(lower, 0.9 * this.whole.similarityOf(trigramsInto(r.search_text, this.text), upper / 0.9));
  }
}

interface Scored {
  row: CandidateRow;
  lower: number;
  upper: number;
  sim: number | null;
}

/**
 * Hybrid search in PostgreSQL. Candidates come from the tenant's vocabulary and a full-text index (in popularity
 * order, or within a radius), within the radius when one is given. Three arms rank them: trigram similarity
 * (pg_trgm's word similarity, computed here on the candidates' folded texts), exact cosine of the 384-d embeddings,
 * and a structured score; Reciprocal Rank Fusion (k = 60) orders the result. Without pgvector there is no ANN index,
 * so the vector arm re-ranks the candidates rather than recalling new ones (see docs/search.md).
 */
export class PostgresSearchIndex implements SearchIndex {
  readonly name = 'postgres';
  private readonly expansions = new Map<string, { at: number; value: Expansion }>();

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
    for (const tenantId of new Set(docs.map((d) => d.tenantId))) this.forgetExpansions(tenantId);
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
    const rows = popular ? await this.popularShelf(query, kinds) : await this.textCandidates(query, kinds, q);
    const now = Date.now();
    const section = (kind: ListingKind): SearchHit[] => {
      const mine = rows.filter((r) => r.kind === kind);
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
   * The tenant, the section and the geo filter (a radius around a center, or else a postal code) as SQL on `l`.
   * `section` is a condition on the section's text (SECTION_TEXT), which is what selects the section. One statement
   * text per case, so that each is planned for what it filters (a `$n IS NULL OR …` would hide it).
   */
  private filter(query: SearchQuery, p: Params, section: string, exactRadius: boolean): string {
    let where = `l.tenant_id = ${p(query.tenantId)} AND ${section}`;
    if (query.center && query.radiusKm !== null) {
      const center = `ll_to_earth(${p(query.center.lat)}, ${p(query.center.lng)})`;
      const radiusM = `${p(query.radiusKm)} * 1000`;
      where += ` AND earth_box(${center}, ${radiusM}) @> ll_to_earth(l.lat, l.lng)`;
      if (exactRadius) where += ` AND earth_distance(${center}, ll_to_earth(l.lat, l.lng)) <= ${radiusM}`;
    } else if (!query.center && query.postalCode !== null) {
      where += ` AND l.postal_code = ${p(query.postalCode)}`;
    }
    return where;
  }

  /** `q` under 2 characters: per section, featured first, then popularity, then newest (the popularity index's order). */
  private async popularShelf(query: SearchQuery, kinds: ListingKind[]): Promise<RankedRow[]> {
    const perKind = await Promise.all(
      kinds.map((kind) => {
        const { p, values } = params();
        const where = this.filter(query, p, `${SECTION_TEXT[kind]} IS NOT NULL`, true);
        return this.pool.query<RankedRow & { lat: number | null; lng: number | null }>({
          text: `SELECT l.kind, l.ref_id, l.card, l.featured, l.popularity, ${CREATED_MS}, l.embedding, l.lat, l.lng
                 FROM rm_search_listings l WHERE ${where}
                 ORDER BY l.featured DESC, l.popularity DESC, l.created_at DESC LIMIT ${p(query.limit)}`,
          values,
        });
      }),
    );
    return perKind.flatMap((r) => r.rows.map(({ lat, lng, ...row }) => ({ ...row, sim: null, dist_km: distanceKm(query.center, lat, lng) })));
  }

  private forgetExpansions(tenantId: string): void {
    for (const key of this.expansions.keys()) if (key.startsWith(`${tenantId}\u0000`)) this.expansions.delete(key);
  }

  /**
   * Each query word (accent-folded, 2+ characters) becomes up to 8 words of the tenant's vocabulary: itself, words
   * it prefixes, and trigram-similar words (close forms of a known word, any alike word for a typo: see
   * SIMILAR_TO_KNOWN_WORD). One round trip, on a small trigram-indexed table; remembered for EXPANSION_TTL_MS.
   */
  private async expand(tenantId: string, q: string): Promise<Expansion> {
    const key = `${tenantId}\u0000${q}`;
    const now = Date.now();
    const hit = this.expansions.get(key);
    if (hit && now - hit.at < EXPANSION_TTL_MS) {
      // Map order is insertion order: re-inserting keeps the most recently used last.
      this.expansions.delete(key);
      this.expansions.set(key, hit);
      return hit.value;
    }
    const r = await this.pool.query<{ folded: string; words: string[]; groups: string[][] }>({
      name: 'search_expand',
      text: `SELECT f.folded, regexp_split_to_array(f.folded, '\\s+') AS words,
               (SELECT coalesce(json_agg(coalesce((
                  SELECT array_agg(x.word) FROM (
                    SELECT sw.word FROM rm_search_words sw
                    WHERE sw.tenant_id = $1 AND (sw.word % qw.w OR sw.word LIKE replace(replace(qw.w, '%', '\\%'), '_', '\\_') || '%')
                      AND (starts_with(sw.word, qw.w) OR similarity(sw.word, qw.w) >= $3
                           OR NOT EXISTS (SELECT 1 FROM rm_search_words k WHERE k.tenant_id = $1 AND k.word = qw.w))
                    ORDER BY (sw.word = qw.w) DESC, starts_with(sw.word, qw.w) DESC, similarity(sw.word, qw.w) DESC, sw.word
                    LIMIT 8) x), '{}')), '[]')
                FROM (SELECT DISTINCT w FROM unnest(tsvector_to_array(to_tsvector('simple', f.folded))) AS w WHERE length(w) >= 2) qw) AS groups
             FROM (SELECT cg_fold($2) AS folded) f`,
      values: [tenantId, q, SIMILAR_TO_KNOWN_WORD],
    });
    const row = r.rows[0]!;
    const value: Expansion = { folded: row.folded, words: row.words, groups: row.groups.map((g) => g.filter((w) => /^[\p{L}\p{N}-]+$/u.test(w))) };
    this.expansions.set(key, { at: now, value });
    if (this.expansions.size > EXPANSION_CACHE_SIZE) this.expansions.delete(this.expansions.keys().next().value!);
    return value;
  }

  /**
   * Per section, listings holding an expansion of every query word (AND of ORs; if that finds too few, any word),
   * from the section's full-text index: the first CANDIDATE_POOL in popularity order, or within a radius the
   * CANDIDATE_POOL nearest. A common word's matches are read in the popularity (distance) index's order until there
   * are enough; a rare word's few matches come from the text index. Only what scoring needs is read; the trigram
   * arm scores here; the cards and embeddings of those that survive it are read in one more round trip.
   */
  private async textCandidates(query: SearchQuery, kinds: ListingKind[], q: string): Promise<RankedRow[]> {
    const expansion = await this.expand(query.tenantId, q);
    const groups = expansion.groups.filter((g) => g.length > 0);
    if (groups.length === 0) return [];
    const lexeme = (w: string) => `'${w}'`;
    const anyOf = (g: string[]) => `(${g.map(lexeme).join(' | ')})`;
    const geoBound = query.center !== null && query.radiusKm !== null;
    const run = async (tsquery: string, kind: ListingKind, limit: number): Promise<CandidateRow[]> => {
      // The radius itself is checked below: in distance order, the box's corners come after every listing within it.
      const { p, values } = params();
      const where = this.filter(query, p, `${SECTION_TEXT[kind]} @@ to_tsquery('simple', ${p(tsquery)})`, false);
      // Unnamed statements: planned with their values, so that the plan fits how common the words are.
      const r = await this.pool.query<CandidateRow>({
        text: `SELECT l.id, l.ctid::text, ${p(kind)}::text AS kind, l.featured, l.popularity, ${CREATED_MS}, l.title_folded, l.search_text, l.lat, l.lng
               FROM rm_search_listings l
               WHERE ${where}
               ORDER BY ${geoBound ? `ll_to_earth(l.lat, l.lng) <-> ll_to_earth(${p(query.center!.lat)}, ${p(query.center!.lng)})` : 'l.featured DESC, l.popularity DESC, l.created_at DESC'}
               LIMIT ${p(limit)}`,
        values,
      });
      return geoBound ? r.rows.filter((row) => distanceKm(query.center, row.lat, row.lng)! <= query.radiusKm!) : r.rows;
    };
    const perKind = (tsquery: string, limit = CANDIDATE_POOL) => Promise.all(kinds.map((kind) => run(tsquery, kind, limit)));
    const runs: CandidateRow[][] = await perKind(groups.map(anyOf).join(' & '));
    const found = runs.reduce((n, r) => n + Math.min(CANDIDATES, r.length), 0);
    if (groups.length > 1 && found < query.limit) {
      // Fewer than `limit` hold every word (so all of them are among the best CANDIDATES of their section): add the
      // listings holding any word, as runs of their own.
      // One run per word (with its expansions), not one for any word: a rare word's few matches are then all
      // read, instead of being crowded out by the popular matches of a common word beside it.
      const seen = new Set(runs.flat().map((r) => r.id));
      // Together they read about one pool's worth of rows.
      const share = Math.max(MIN_WORD_POOL, Math.ceil(CANDIDATE_POOL / groups.length));
      const perWord = await Promise.all(groups.map((g) => perKind(anyOf(g), share)));
      for (const rs of perWord.flat()) {
        runs.push(rs.filter((r) => !seen.has(r.id)));
        for (const r of rs) seen.add(r.id);
      }
    }

    const scorer = new TrigramScorer(expansion, /\s/.test(q));
    const survivors: Scored[] = [];
    for (const kind of kinds) {
      const kindRuns = runs.map((rs) => rs.filter((r) => r.kind === kind)).filter((rs) => rs.length > 0);
      survivors.push(...this.trigramSurvivors(scorer, kindRuns));
    }
    if (survivors.length === 0) return [];
    const byId = await this.details(query.tenantId, survivors.map((s) => s.row));
    return survivors.flatMap(({ row, sim }): RankedRow[] => {
      const d = byId.get(row.id);
      if (!d) return []; // removed since the candidate query
      const { kind, featured, popularity, created_ms } = row;
      return [{ kind, ref_id: d.ref_id, card: d.card, featured, popularity, created_ms, embedding: d.embedding, sim, dist_km: distanceKm(query.center, row.lat, row.lng) }];
    });
  }

  /**
   * Cards and embeddings of the survivors, read where the candidate query found them (a TID scan: no index probe
   * per row); a row updated since has moved, and is read again by id.
   */
  private async details(tenantId: string, rows: CandidateRow[]): Promise<Map<string, DetailRow>> {
    const r = await this.pool.query<DetailRow>({
      name: 'search_details',
      text: 'SELECT id, ref_id, card, embedding FROM rm_search_listings WHERE ctid = ANY($1::tid[]) AND tenant_id = $2',
      values: [rows.map((row) => row.ctid), tenantId],
    });
    const byId = new Map(r.rows.map((d) => [d.id, d]));
    const moved = rows.filter((row) => !byId.has(row.id)).map((row) => row.id);
    if (moved.length > 0) {
      const again = await this.pool.query<DetailRow>({
        name: 'search_details_by_id',
        text: 'SELECT id, ref_id, card, embedding FROM rm_search_listings WHERE id = ANY($1::text[]) AND tenant_id = $2',
        values: [moved, tenantId],
      });
      for (const d of again.rows) byId.set(d.id, d);
    }
    return byId;
  }

  /**
   * One section: in each run, the best CANDIDATES by trigram similarity, of which those at RELEVANCE_FLOOR of the
   * section's best or more. A candidate whose upper bound is under what it would need is never scored exactly.
   */
  private trigramSurvivors(scorer: TrigramScorer, runs: CandidateRow[][]): Scored[] {
    const scored = runs.map((rs) => rs.map((row): Scored => ({ row, ...scorer.bounds(row), sim: null })));
    const exact = (s: Scored) => (s.sim ??= scorer.exact(s.row, s));
    // The best similarity: candidates in decreasing upper bound until none can beat it.
    let best = 0;
    for (const s of scored.flat().sort((a, b) => b.upper - a.upper)) {
      if (s.upper <= best) break;
      best = Math.max(best, exact(s));
    }
    const floor = RELEVANCE_FLOOR * best;
    return scored.flatMap((rs) => {
      const kept = rs.filter((s) => s.upper >= floor && exact(s) >= floor);
      // Stable: equal similarities keep the candidate order (popularity, or distance within a radius).
      return kept.sort((a, b) => b.sim! - a.sim!).slice(0, CANDIDATES);
    });
  }
}
