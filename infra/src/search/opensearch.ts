/**
 * The OpenSearch search adapter (OPENSEARCH_URL). Needs the k-NN plugin (knn_vector, Lucene HNSW with filters,
 * OpenSearch 2.4+) and the neural-search plugin (hybrid query + search pipelines, 2.10+). Fusion is reciprocal
 * rank fusion through the score-ranker-processor (2.19+), or min-max normalisation on older clusters.
 */
import { Client, errors } from '@opensearch-project/opensearch';
import type { Types } from '@opensearch-project/opensearch';
import type { GeoPoint, ListingDoc, ListingKind, SearchHit, SearchIndex, SearchQuery, SearchResult } from './port';
import { EMBEDDING_DIMENSIONS, RRF_K } from './port';

type Query = Types.Common_QueryDsl.QueryContainer;
type Functions = Types.Common_QueryDsl.FunctionScoreContainer[];
type BulkItem = Types.Core_Bulk.ResponseItem;
export type Fusion = 'rrf' | 'min_max';

/** A listing as read back; `embedding` is written but never fetched. */
interface Source {
  kind: ListingKind; refId: string; featured: boolean; popularity: number; createdAt: string;
  location?: { lat: number; lon: number }; card?: Record<string, unknown>;
}

/** OpenSearch failed or refused; the message never carries the URL's credentials. */
export class OpenSearchSearchError extends Error {
  override readonly name = 'OpenSearchSearchError';
  constructor(message: string, readonly status: number | null) {
    super(message);
  }
}

const FEATURED_WEIGHT = 2;
const FRESHNESS_SCALE_DAYS = 30;
const DEFAULT_DISTANCE_SCALE_KM = 10;
const DAY_MS = 86_400_000;
const READ_FIELDS = ['kind', 'refId', 'featured', 'popularity', 'createdAt', 'location', 'card'];

const folded = { type: 'text' as const, analyzer: 'cagnotte_folded' };
const partial = { type: 'text' as const, analyzer: 'cagnotte_prefix', search_analyzer: 'cagnotte_folded' };
const searchable = { type: 'text' as const, fields: { folded, partial } };

const SETTINGS: Types.Indices_Common.IndexSettings = {
  index: { knn: true },
  analysis: {
    filter: { cagnotte_edge: { type: 'edge_ngram', min_gram: 2, max_gram: 15 } },
    analyzer: {
      cagnotte_folded: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding'] },
      cagnotte_prefix: { type: 'custom', tokenizer: 'standard', filter: ['lowercase', 'asciifolding', 'cagnotte_edge'] },
    },
  },
};

const MAPPINGS: Types.Common_Mapping.TypeMapping = {
  dynamic: 'strict',
  properties: {
    tenantId: { type: 'keyword' }, kind: { type: 'keyword' }, refId: { type: 'keyword' }, postalCode: { type: 'keyword' },
    title: searchable, text: searchable,
    featured: { type: 'boolean' }, popularity: { type: 'float' }, createdAt: { type: 'date' }, location: { type: 'geo_point' },
    // Lucene's HNSW applies the tenant/kind/geo filters while it searches instead of after.
    embedding: { type: 'knn_vector', dimension: EMBEDDING_DIMENSIONS, method: { name: 'hnsw', engine: 'lucene', space_type: 'cosinesimil' } },
    card: { type: 'object', enabled: false }, version: { type: 'long' },
  },
};

/** Great-circle distance on a 6371 km sphere. */
export const haversineKm = (a: GeoPoint, b: GeoPoint): number => {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
};

/** OpenSearch's `gauss` decay with offset 0 and decay 0.5. */
const gauss = (x: number, scale: number): number => 0.5 ** ((x / scale) ** 2);
const isZero = (v: Float32Array): boolean => v.every((x) => x === 0);
const safeDecode = (s: string): string => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

export class OpenSearchSearchIndex implements SearchIndex {
  readonly name = 'opensearch';
  private ready: Promise<void> | null = null;
  private pipelineId = '';
  private fusionInUse: Fusion | null = null;

  private constructor(
    private readonly client: Client,
    private readonly prefix: string,
    private readonly secrets: string[],
  ) {}

  private get index(): string {
    return `${this.prefix}listings`;
  }

  /** Which fusion the search pipeline runs; null until ensureIndex has run. */
  get fusion(): Fusion | null {
    return this.fusionInUse;
  }

  static fromUrl(url: string, options: { indexPrefix?: string } = {}): OpenSearchSearchIndex {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      throw new Error('OPENSEARCH_URL is not a valid URL'); // not echoed: it may carry credentials
    }
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new Error('OPENSEARCH_URL must be an http(s) URL');
    const prefix = options.indexPrefix ?? '';
    if (!/^[a-z0-9_-]*$/.test(prefix)) throw new Error('the OpenSearch index prefix may only hold a-z, 0-9, _ and -');
    // The client turns user:password in the URL into a basic Authorization header.
    return new OpenSearchSearchIndex(new Client({ node: url }), prefix, [parsed.password, safeDecode(parsed.password)].filter(Boolean));
  }

  /** Idempotent: creates the index when it is missing and (re)defines the search pipeline. */
  ensureIndex(): Promise<void> {
    this.ready ??= this.setUp().catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  async upsert(docs: ListingDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.ensureIndex();
    const body = docs.flatMap((d) => {
      if (!Number.isSafeInteger(d.version) || d.version < 0) throw new Error(`listing ${d.id}: version must be a non-negative integer`);
      if (d.embedding.length !== EMBEDDING_DIMENSIONS) throw new Error(`listing ${d.id}: embedding must have ${EMBEDDING_DIMENSIONS} dimensions`);
      const source = {
        tenantId: d.tenantId, kind: d.kind, refId: d.refId, title: d.title, text: d.text, featured: d.featured,
        // Clamped: the structured arm's log1p is undefined below -1.
        popularity: Math.max(0, d.popularity), createdAt: d.createdAt, postalCode: d.postalCode, card: d.card, version: d.version,
        ...(d.location ? { location: { lat: d.location.lat, lon: d.location.lng } } : {}),
        // cosinesimil rejects the zero vector (k-NN 2.13+): such a listing is found by the other arms only.
        ...(isZero(d.embedding) ? {} : { embedding: Array.from(d.embedding) }),
      };
      // external_gte: a replayed older revision loses with a 409 (fine); the same revision again overwrites itself.
      return [{ index: { _index: this.index, _id: d.id, version: d.version, version_type: 'external_gte' as const } }, source];
    });
    const res = await this.call('bulk upsert', () => this.client.bulk({ body, refresh: 'wait_for' }));
    this.checkBulk('upsert', res.body.items.map((i) => i.index), (i) => i.status === 409 && i.error?.type === 'version_conflict_engine_exception');
  }

  async remove(ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.ensureIndex();
    const body = ids.map((id) => ({ delete: { _index: this.index, _id: id } }));
    const res = await this.call('bulk delete', () => this.client.bulk({ body, refresh: 'wait_for' }));
    this.checkBulk('delete', res.body.items.map((i) => i.delete), (i) => i.status === 404);
  }

  async search(query: SearchQuery): Promise<SearchResult> {
    await this.ensureIndex();
    const q = query.q?.trim() ?? '';
    const popular = q.length < 2;
    const limit = Math.max(0, Math.floor(query.limit));
    const kinds: ListingKind[] = query.type === 'all' ? ['merchant', 'pool'] : query.type === 'merchants' ? ['merchant'] : ['pool'];
    // One request per kind, so that each list gets up to `limit` hits of its own.
    const lists = await Promise.all(kinds.map((kind) => (limit === 0 ? [] : popular ? this.shelf(query, kind, limit) : this.hybrid(query, q, kind, limit))));
    const result: SearchResult = { popular, merchants: [], pools: [] };
    kinds.forEach((kind, i) => (kind === 'merchant' ? (result.merchants = lists[i]!) : (result.pools = lists[i]!)));
    return result;
  }

  async resolvePostalCode(tenantId: string, postalCode: string): Promise<GeoPoint | null> {
    await this.ensureIndex();
    const filter: Query[] = [{ term: { tenantId } }, { term: { postalCode } }, { exists: { field: 'location' } }];
    // The generated GeoCentroidAggregation type lacks `field`, which the server requires.
    const aggs = { centroid: { geo_centroid: { field: 'location' } } } as Record<string, Types.Common_Aggregations.AggregationContainer>;
    const res = await this.call('postal code lookup', () => this.client.search({ index: this.index, body: { size: 0, query: { bool: { filter } }, aggs } }));
    const centroid = res.body.aggregations?.centroid as { count?: number; location?: { lat: number; lon: number } } | undefined;
    return centroid?.location && centroid.count !== 0 ? { lat: centroid.location.lat, lng: centroid.location.lon } : null;
  }

  /** For tests and operators: deletes the index and the pipelines of this prefix. */
  async dropIndex(): Promise<void> {
    const ignore = { ignore: [404] };
    await this.call('index deletion', () => this.client.indices.delete({ index: this.index }, ignore));
    for (const id of [`${this.prefix}hybrid-rrf`, `${this.prefix}hybrid-minmax`]) {
      await this.call('search pipeline deletion', () => this.client.searchPipeline.delete({ id }, ignore));
    }
    this.ready = null;
  }

  async close(): Promise<void> {
    await this.client.close();
  }

  private async setUp(): Promise<void> {
    // An existing index is left alone: a mapping change means a new index and a replay, and re-putting
    // knn_vector mappings has tripped k-NN plugin bugs (opensearch-project/k-NN#2540, #2556).
    const exists = await this.call('index check', () => this.client.indices.exists({ index: this.index }));
    if (!exists.body) {
      try {
        await this.client.indices.create({ index: this.index, body: { settings: SETTINGS, mappings: MAPPINGS } });
      } catch (error) {
        const raced = error instanceof errors.ResponseError && error.body?.error?.type === 'resource_already_exists_exception';
        if (!raced) throw this.toError(`creation of index ${this.index} (needs the k-NN plugin)`, error);
      }
    }
    const put = (id: string, processor: Types.SearchPipeline_Common.PhaseResultsProcessor) =>
      this.client.searchPipeline.put({ id, body: { description: 'Cagnotte hybrid listing search', phase_results_processors: [processor] } });
    try {
      await put(`${this.prefix}hybrid-rrf`, { 'score-ranker-processor': { combination: { technique: 'rrf', rank_constant: RRF_K } } });
      [this.pipelineId, this.fusionInUse] = [`${this.prefix}hybrid-rrf`, 'rrf'];
    } catch {
      // No score-ranker-processor before 2.19: fuse min-max normalised scores instead.
      const normalization = { normalization: { technique: 'min_max' as const }, combination: { technique: 'arithmetic_mean' as const } };
      await this.call('search pipeline creation (needs the neural-search plugin, 2.10+)', () => put(`${this.prefix}hybrid-minmax`, { 'normalization-processor': normalization }));
      [this.pipelineId, this.fusionInUse] = [`${this.prefix}hybrid-minmax`, 'min_max'];
    }
  }

  private filters(query: SearchQuery, kind: ListingKind): Query[] {
    const filter: Query[] = [{ term: { tenantId: query.tenantId } }, { term: { kind } }];
    if (query.center && query.radiusKm !== null) {
      filter.push({ geo_distance: { distance: `${query.radiusKm}km`, location: { lat: query.center.lat, lon: query.center.lng } } });
    }
    if (query.postalCode !== null && query.center === null) filter.push({ term: { postalCode: query.postalCode } });
    return filter;
  }

  /** The popular shelf: no text, the structured order only. */
  private async shelf(query: SearchQuery, kind: ListingKind, limit: number): Promise<SearchHit[]> {
    const sort: Types.Common.Sort = [{ featured: { order: 'desc' } }, { popularity: { order: 'desc' } }, { createdAt: { order: 'desc' } }, { refId: { order: 'asc' } }];
    const body = { size: limit, query: { bool: { filter: this.filters(query, kind) } }, sort, _source: READ_FIELDS };
    const res = await this.call('popular search', () => this.client.search({ index: this.index, body }));
    // A single arm ranked the shelf, so its fused score is 1 / (k + rank).
    return res.body.hits.hits.map((hit, i) => this.toHit(hit._source as Source, i + 1, 1 / (RRF_K + i + 1), query));
  }

  /** Text (BM25: exact, folded, fuzzy, prefixes), vector (k-NN) and structured arms, fused by the search pipeline. */
  private async hybrid(query: SearchQuery, q: string, kind: ListingKind, limit: number): Promise<SearchHit[]> {
    const filter = this.filters(query, kind);
    const should: Query[] = [
      { multi_match: { query: q, fields: ['title^3', 'title.folded^3', 'text', 'text.folded'], fuzziness: 'AUTO' } },
      { multi_match: { query: q, fields: ['title.partial^2', 'text.partial'] } },
    ];
    const text: Query = { bool: { should, minimum_should_match: 1, filter } };
    const arms: Query[] = [text];
    if (query.queryEmbedding && !isZero(query.queryEmbedding)) {
      arms.push({ knn: { embedding: { vector: Array.from(query.queryEmbedding), k: Math.max(limit * 4, 50), filter: { bool: { filter } } } } });
    }
    // The structured arm re-ranks the text matches: over all listings it would bring back every one of the tenant.
    arms.push({ function_score: { query: text, functions: this.structuredFunctions(query), score_mode: 'sum', boost_mode: 'replace' } });
    const body = { size: limit, query: { hybrid: { queries: arms } }, _source: READ_FIELDS };
    const res = await this.call('hybrid search', () => this.client.search({ index: this.index, search_pipeline: this.pipelineId, body }));
    return res.body.hits.hits.map((hit, i) => this.toHit(hit._source as Source, i + 1, hit._score ?? 0, query));
  }

  private structuredFunctions(query: SearchQuery): Functions {
    const functions: Functions = [
      { filter: { term: { featured: true } }, weight: FEATURED_WEIGHT },
      { field_value_factor: { field: 'popularity', modifier: 'log1p', missing: 0 } },
      { gauss: { createdAt: { origin: 'now', scale: `${FRESHNESS_SCALE_DAYS}d` } } },
    ];
    if (query.center) {
      const origin = { lat: query.center.lat, lon: query.center.lng };
      // Without the exists filter, a listing with no location would get the full distance score.
      functions.push({ filter: { exists: { field: 'location' } }, gauss: { location: { origin, scale: `${query.radiusKm ?? DEFAULT_DISTANCE_SCALE_KM}km` } } });
    }
    return functions;
  }

  /**
   * Unlike the PostgreSQL adapter, OpenSearch returns only the fused score of a hybrid hit, never each arm's rank:
   * `trigram` and `vector` are null, `structured` is recomputed from the source with the function_score arm's
   * formula (its rank is the hit's position), and `rrf` is the fused score, Σ 1/(k + rank) under the
   * score-ranker-processor (the min-max combination under the fallback pipeline).
   */
  private toHit(s: Source, rank: number, score: number, query: SearchQuery): SearchHit {
    const distanceKm = query.center && s.location ? haversineKm(query.center, { lat: s.location.lat, lng: s.location.lon }) : null;
    const freshnessDays = Math.max(0, (Date.now() - Date.parse(s.createdAt)) / DAY_MS);
    const popularity = Number(s.popularity) || 0;
    const structuredScore =
      (s.featured ? FEATURED_WEIGHT : 0) +
      Math.log10(1 + Math.max(0, popularity)) +
      gauss(freshnessDays, FRESHNESS_SCALE_DAYS) +
      (distanceKm === null ? 0 : gauss(distanceKm, query.radiusKm ?? DEFAULT_DISTANCE_SCALE_KM));
    const structured = { score: structuredScore, rank, featured: s.featured, popularity, freshnessDays, distanceKm };
    return { kind: s.kind, id: s.refId, score, distanceKm, parts: { trigram: null, vector: null, structured, rrf: score }, card: s.card ?? {} };
  }

  private checkBulk(what: string, items: Array<BulkItem | undefined>, acceptable: (item: BulkItem) => boolean): void {
    const failed = items.filter((item): item is BulkItem => !!item && item.status >= 300 && !acceptable(item));
    const first = failed[0];
    if (!first) return;
    const reason = first.error ? `${first.error.type}: ${first.error.reason ?? ''}` : `status ${first.status}`;
    throw new OpenSearchSearchError(this.redact(`OpenSearch bulk ${what} failed for ${failed.length} listing(s), first ${first._id}: ${reason}`), first.status);
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw this.toError(what, error);
    }
  }

  /** No `cause`: the client's error holds the request, with its Authorization header and the node URL. */
  private toError(what: string, error: unknown): OpenSearchSearchError {
    let status: number | null = null;
    let reason: string;
    if (error instanceof errors.ResponseError) {
      status = error.statusCode ?? null;
      const cause = error.body?.error as { type?: string; reason?: string } | string | undefined;
      reason = typeof cause === 'object' && cause !== null ? `${cause.type ?? 'error'}: ${cause.reason ?? ''}` : (cause ?? error.message);
      if (status === 401 || status === 403) reason = `not authorised (${reason})`;
    } else if (error instanceof errors.ConnectionError || error instanceof errors.NoLivingConnectionsError) {
      reason = `cannot reach OpenSearch (${error.message})`;
    } else if (error instanceof errors.TimeoutError) {
      reason = 'request timed out';
    } else {
      reason = error instanceof Error ? error.message : String(error);
    }
    return new OpenSearchSearchError(this.redact(`OpenSearch ${what} failed${status ? ` (${status})` : ''}: ${reason}`), status);
  }

  private redact(text: string): string {
    let out = text.replace(/\/\/[^/\s@]*@/g, '//');
    for (const secret of this.secrets) out = out.split(secret).join('***');
    return out;
  }
}
