/**
 * Embedders behind the search port: feature hashing by default (no model, no network, deterministic),
 * or an OpenAI-compatible embedding service when a URL is configured.
 */
import { EMBEDDING_DIMENSIONS, type Embedder } from './port';

// NFKD leaves these letters whole (they are not letter + accent), so they are spelled out by hand.
const LIGATURES: Record<string, string> = { œ: 'oe', æ: 'ae', ß: 'ss', ø: 'o', ł: 'l', đ: 'd' };

/** "Épicerie Fine" → "epicerie fine", "Œufs & crème" → "oeufs creme". Letters of any script survive. */
export const normalizeText = (s: string): string =>
  s
    // Lowercase first: some capitals ('İ') lowercase to a letter plus a combining mark, which NFKD then exposes.
    .toLowerCase()
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .replace(/[œæßøłđ]/g, (c) => LIGATURES[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim();

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** 32-bit FNV-1a over UTF-16 code units, then murmur3's fmix32: FNV alone mixes its low bits poorly and `% 384` reads mostly those. */
const hash32 = (s: string): number => {
  let h = FNV_OFFSET;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), FNV_PRIME);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
};

const WORD_WEIGHT = 1.0;
const BIGRAM_WEIGHT = 0.5;
const NGRAM_WEIGHT = 0.4;
const NGRAM_SIZES = [3, 4, 5] as const;

/** Features are namespaced so that the word "bou" and the trigram "bou" do not share a bucket by design. */
const features = (text: string): Map<string, { weight: number; tf: number }> => {
  const out = new Map<string, { weight: number; tf: number }>();
  const add = (key: string, weight: number) => {
    const f = out.get(key);
    if (f) f.tf += 1;
    else out.set(key, { weight, tf: 1 });
  };
  const words = normalizeText(text).split(' ').filter(Boolean);
  words.forEach((word, i) => {
    add(`w:${word}`, WORD_WEIGHT);
    if (i > 0) add(`b:${words[i - 1]} ${word}`, BIGRAM_WEIGHT);
    // Code points, not code units, so a letter outside the BMP is never split in half.
    const chars = Array.from(`#${word}#`);
    for (const n of NGRAM_SIZES) {
      for (let j = 0; j + n <= chars.length; j++) add(`c:${chars.slice(j, j + n).join('')}`, NGRAM_WEIGHT);
    }
  });
  return out;
};

/** Scales to unit length in place. A zero vector stays zero: there is no direction to keep. */
const l2normalize = (v: Float32Array): Float32Array => {
  let sum = 0;
  for (const x of v) sum += x * x;
  if (sum === 0) return v;
  const inv = 1 / Math.sqrt(sum);
  for (let i = 0; i < v.length; i++) v[i] = v[i]! * inv;
  return v;
};

/**
 * Signed feature hashing of words, word bigrams and character 3–5-grams: typos, prefixes and accents still
 * share most n-grams, so they land close. A text with no letter or digit embeds as the zero vector, whose
 * cosine with anything is 0 (it matches nothing rather than everything).
 */
export class HashingEmbedder implements Embedder {
  readonly name = 'hashing-384';
  readonly dimensions = EMBEDDING_DIMENSIONS;

  embedOne(text: string): Float32Array {
    const v = new Float32Array(this.dimensions);
    for (const [key, { weight, tf }] of features(text)) {
      const h = hash32(key);
      // The sign makes colliding features cancel on average instead of piling up in one direction.
      const sign = h & 0x80000000 ? -1 : 1;
      v[h % this.dimensions]! += sign * weight * (1 + Math.log(tf));
    }
    return l2normalize(v);
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t));
  }
}

/** Cosine similarity; 0 when either side is the zero vector. Norms are recomputed so unnormalised input is still safe. */
export const cosine = (a: Float32Array, b: Float32Array): number => {
  if (a.length !== b.length) throw new Error(`cosine of vectors of different dimensions (${a.length} and ${b.length})`);
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let i = 0; i < a.length; i++) {
    dot += a[i]! * b[i]!;
    na += a[i]! * a[i]!;
    nb += b[i]! * b[i]!;
  }
  return na === 0 || nb === 0 ? 0 : dot / Math.sqrt(na * nb);
};

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Little-endian float32 bytes, as stored in the bytea column. Always a copy, never a view of the vector. */
export const toBytes = (v: Float32Array): Buffer => {
  if (LITTLE_ENDIAN_HOST) return Buffer.from(new Uint8Array(v.buffer, v.byteOffset, v.byteLength));
  const out = Buffer.allocUnsafe(v.length * 4);
  v.forEach((x, i) => out.writeFloatLE(x, i * 4));
  return out;
};

/** Reads what `toBytes` wrote. Copies first: pg hands out slices of a shared buffer at any offset, and a Float32Array needs 4-aligned ones. */
export const fromBytes = (b: Buffer | Uint8Array): Float32Array => {
  if (b.byteLength % 4 !== 0) throw new Error(`embedding bytes length ${b.byteLength} is not a multiple of 4`);
  if (LITTLE_ENDIAN_HOST) return new Float32Array(new Uint8Array(b).buffer);
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
  return Float32Array.from({ length: b.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true));
};

export interface HttpEmbedderOptions {
  url: string;
  model?: string;
  timeoutMs?: number;
  headers?: Record<string, string>;
}

/** The embedding service failed or answered something unusable. */
export class EmbeddingServiceError extends Error {
  override readonly name = 'EmbeddingServiceError';
}

const MAX_BATCH = 64;

/** An OpenAI-compatible `/embeddings` endpoint. Errors name the host only: the URL may carry a key. */
export class HttpEmbedder implements Embedder {
  readonly name = 'http';
  readonly dimensions = EMBEDDING_DIMENSIONS;
  private readonly host: string;

  constructor(private readonly options: HttpEmbedderOptions) {
    this.host = new URL(options.url).host;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    // Sequential batches: an embedding service is usually a shared GPU, and order is kept for free.
    for (let i = 0; i < texts.length; i += MAX_BATCH) out.push(...(await this.embedBatch(texts.slice(i, i + MAX_BATCH))));
    return out;
  }

  private async embedBatch(input: string[]): Promise<Float32Array[]> {
    const { url, model, timeoutMs = 5000, headers } = this.options;
    let response: Response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify(model ? { input, model } : { input }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) throw new EmbeddingServiceError(`embedding service at ${this.host} answered HTTP ${response.status}`);
      return this.parse(await response.json(), input.length);
    } catch (e) {
      if (e instanceof EmbeddingServiceError) throw e;
      if (e instanceof Error && e.name === 'TimeoutError') {
        throw new EmbeddingServiceError(`embedding service at ${this.host} did not answer within ${timeoutMs} ms`, { cause: e });
      }
      throw new EmbeddingServiceError(`embedding service at ${this.host} failed: ${(e as Error).message}`, { cause: e });
    }
  }

  private parse(body: unknown, expected: number): Float32Array[] {
    const b = body as { data?: Array<{ embedding?: unknown; index?: number }>; embeddings?: unknown[] };
    // OpenAI documents `index` on each item; order by it rather than trust the array order.
    const vectors = Array.isArray(b?.data)
      ? [...b.data].sort((x, y) => (x.index ?? 0) - (y.index ?? 0)).map((d) => d.embedding)
      : Array.isArray(b?.embeddings) ? b.embeddings : null;
    if (!vectors) throw new EmbeddingServiceError(`embedding service at ${this.host} answered neither { data } nor { embeddings }`);
    if (vectors.length !== expected) {
      throw new EmbeddingServiceError(`embedding service at ${this.host} returned ${vectors.length} vectors for ${expected} texts`);
    }
    return vectors.map((vec) => {
      if (!Array.isArray(vec) || vec.length !== this.dimensions) {
        const found = Array.isArray(vec) ? `${vec.length} dimensions` : typeof vec;
        throw new EmbeddingServiceError(`embedding service at ${this.host} returned ${found}, expected ${this.dimensions} dimensions`);
      }
      if (!vec.every((x) => typeof x === 'number' && Number.isFinite(x))) {
        throw new EmbeddingServiceError(`embedding service at ${this.host} returned a non-numeric vector component`);
      }
      return l2normalize(Float32Array.from(vec as number[]));
    });
  }
}

/** The service when one is configured; otherwise hashing, which needs nothing and is the same on every machine. */
export const createEmbedder = (options: { url?: string; model?: string }): Embedder =>
  options.url ? new HttpEmbedder({ url: options.url, model: options.model }) : new HashingEmbedder();
