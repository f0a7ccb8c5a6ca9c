/**
 * Search: one port, two adapters (PostgreSQL by default, OpenSearch with OPENSEARCH_URL), one contract suite.
 * A listing is one searchable thing of a tenant: an ACTIVE merchant or a publicly listed pool.
 */

export const EMBEDDING_DIMENSIONS = 384;

/** Turns texts into L2-normalised 384-d vectors. Deterministic for the default (feature hashing). */
export interface Embedder {
  readonly name: string;
  readonly dimensions: number;
  embed(texts: string[]): Promise<Float32Array[]>;
}

export type ListingKind = 'merchant' | 'pool';

export interface GeoPoint {
  lat: number;
  lng: number;
}

export interface ListingDoc {
  /** `${kind}:${refId}` */
  id: string;
  tenantId: string;
  kind: ListingKind;
  refId: string;
  title: string;
  /** Everything searchable besides the title: description, categories, units, city… */
  text: string;
  featured: boolean;
  /** Real signals: members, reservations, listed pools of a merchant. Higher is more popular. */
  popularity: number;
  createdAt: string;
  location: GeoPoint | null;
  postalCode: string | null;
  embedding: Float32Array;
  /** The card served to clients (MerchantCard or GroupBuyCard), already redacted. */
  card: Record<string, unknown>;
  /** Stream revision the doc was built from: adapters keep the newest. */
  version: number;
}

export interface SearchQuery {
  tenantId: string;
  /** null or shorter than 2 characters: the popular shelf only. */
  q: string | null;
  type: 'all' | 'merchants' | 'pools';
  limit: number;
  center: GeoPoint | null;
  radiusKm: number | null;
  /** When the center came from a postal code that is not known, results are filtered on the code itself. */
  postalCode: string | null;
  queryEmbedding: Float32Array | null;
}

export interface ScoreParts {
  /** Trigram word similarity (0–1) and its rank among candidates, or null when the arm did not rank it. */
  trigram: { similarity: number; rank: number } | null;
  vector: { similarity: number; rank: number } | null;
  structured: { score: number; rank: number; featured: boolean; popularity: number; freshnessDays: number; distanceKm: number | null };
  /** Reciprocal Rank Fusion: Σ 1 / (k + rank) over the arms that ranked the hit. */
  rrf: number;
}

export interface SearchHit {
  kind: ListingKind;
  id: string;
  score: number;
  distanceKm: number | null;
  parts: ScoreParts;
  card: Record<string, unknown>;
}

export interface SearchResult {
  popular: boolean;
  merchants: SearchHit[];
  pools: SearchHit[];
}

export interface SearchIndex {
  readonly name: string;
  /** `ctx` is adapter-specific (PostgreSQL: the projection's transaction and table); others ignore it. */
  upsert(docs: ListingDoc[], ctx?: unknown): Promise<void>;
  remove(ids: string[], ctx?: unknown): Promise<void>;
  search(query: SearchQuery): Promise<SearchResult>;
  /** Centroid of the tenant's listings with this postal code, or null. */
  resolvePostalCode(tenantId: string, postalCode: string): Promise<GeoPoint | null>;
}

export const RRF_K = 60;
