/**
 * pg_trgm's `word_similarity(query, text)` computed in this process, so that a search scores its candidates without
 * a trigram comparison per row inside PostgreSQL (measured there at 50–100 µs a candidate at 100,000 listings).
 *
 * Same definition as the extension (PostgreSQL 15, pg_trgm 1.6, built with KEEPONLYALNUM and IGNORECASE):
 * - words are runs of letters and digits, lowercased, padded with two blanks before and one after; a trigram is
 *   three consecutive characters of a padded word ("  a", " ab", "abc", "bc ");
 * - a trigram of three one-byte characters is those bytes; any other is reduced to three bytes of PostgreSQL's
 *   legacy CRC-32 of its UTF-8 bytes (so two trigrams are equal here exactly when they are equal there);
 * - the result is the greatest similarity, over the extents of the text's trigram sequence that end on a trigram of
 *   the query, of |shared distinct trigrams| / |distinct trigrams of query ∪ extent|, in float4 arithmetic.
 * Its spec checks it against the extension on generated catalogue text, typos and non-Latin scripts.
 */

const CRC_TABLE = (() => {
  const t = new Int32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c;
  }
  return t;
})();

/** PostgreSQL's "legacy" CRC-32 (the reflected table shifted the non-reflected way), as pg_trgm hashes a trigram. */
const legacyCrc32 = (bytes: number[]): number => {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[((crc >>> 24) ^ b) & 0xff]! ^ (crc << 8);
  return (crc ^ 0xffffffff) >>> 0;
};

const utf8 = (cp: number, out: number[]): void => {
  if (cp < 0x80) out.push(cp);
  else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
  else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
  else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
};

/** A trigram as the 24-bit integer of its three bytes (what `show_trgm` prints as 0x…… for a hashed one). */
const trigramKey = (a: number, b: number, c: number): number => {
  if (a < 0x80 && b < 0x80 && c < 0x80) return (a << 16) | (b << 8) | c;
  const bytes: number[] = [];
  utf8(a, bytes);
  utf8(b, bytes);
  utf8(c, bytes);
  const crc = legacyCrc32(bytes);
  // pg_trgm copies the first three bytes of the CRC as it lies in memory (little-endian).
  return ((crc & 0xff) << 16) | (((crc >>> 8) & 0xff) << 8) | ((crc >>> 16) & 0xff);
};

const NON_ASCII_WORD_CHAR = /[\p{L}\p{M}\p{Nd}]/u;
const isWordChar = (cp: number): boolean =>
  cp < 0x80 ? (cp >= 0x61 && cp <= 0x7a) || (cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) : NON_ASCII_WORD_CHAR.test(String.fromCodePoint(cp));

const BLANK = 0x20;

/** A text's trigram sequence, in a buffer that the next call reuses. */
export interface Trigrams {
  keys: Int32Array;
  length: number;
}

/** The trigram sequence of `text` into `into` (grown as needed), word after word, duplicates kept (positions matter to word similarity). */
export const trigramsInto = (text: string, into: Trigrams): Trigrams => {
  // At most one trigram per character plus one per word: text.length + 1 is enough (a surrogate pair is 2 units).
  if (into.keys.length < text.length + 1) into.keys = new Int32Array(2 * text.length + 16);
  const out = into.keys;
  let n = 0;
  let p1 = BLANK;
  let p2 = BLANK;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    let cp = text.charCodeAt(i);
    if (cp >= 0x41 && cp <= 0x5a) cp += 0x20;
    else if (cp >= 0x80) {
      // Rare in folded text: lowercase as PostgreSQL's lower() would, one code point at a time.
      cp = text.codePointAt(i)!;
      if (cp > 0xffff) i++;
      const lower = String.fromCodePoint(cp).toLowerCase();
      if (lower.length === 1 || (lower.length === 2 && lower.codePointAt(0)! > 0xffff)) cp = lower.codePointAt(0)!;
    }
    if (isWordChar(cp)) {
      if (!inWord) {
        p1 = BLANK;
        p2 = BLANK;
        inWord = true;
      }
      out[n++] = trigramKey(p1, p2, cp);
      p1 = p2;
      p2 = cp;
    } else if (inWord) {
      out[n++] = trigramKey(p1, p2, BLANK);
      inWord = false;
    }
  }
  if (inWord) out[n++] = trigramKey(p1, p2, BLANK);
  into.length = n;
  return into;
};

export const newTrigrams = (): Trigrams => ({ keys: new Int32Array(256), length: 0 });

/** The trigram sequence of `text`, as an array. */
export const trigrams = (text: string): number[] => {
  const t = trigramsInto(text, newTrigrams());
  return Array.from(t.keys.subarray(0, t.length));
};

const hashKey = (key: number): number => Math.imul(key, 0x9e3779b1) >>> 0;

/** The query's distinct trigrams and their ids, 0 … size − 1 (open addressing: a Map costs 20 ns a lookup here). */
class QueryIds {
  private readonly keys: Int32Array;
  private readonly ids: Int32Array;
  size = 0;

  constructor(trg: number[]) {
    const capacity = 1 << Math.ceil(Math.log2(Math.max(8, trg.length * 4)));
    this.keys = new Int32Array(capacity).fill(-1);
    this.ids = new Int32Array(capacity);
    for (const key of trg) {
      let slot = hashKey(key) & (capacity - 1);
      while (this.keys[slot] !== -1 && this.keys[slot] !== key) slot = (slot + 1) & (capacity - 1);
      if (this.keys[slot] === -1) {
        this.keys[slot] = key;
        this.ids[slot] = this.size++;
      }
    }
  }

  /** The id of `key`, or −1 when the query does not have it. */
  idOf(key: number): number {
    const mask = this.keys.length - 1;
    let slot = hashKey(key) & mask;
    for (;;) {
      const k = this.keys[slot]!;
      if (k === key) return this.ids[slot]!;
      if (k === -1) return -1;
      slot = (slot + 1) & mask;
    }
  }
}

/** Distinct ids for a text's trigrams that are not the query's, reused from text to text (open addressing, stamped). */
class LocalIds {
  private keys = new Int32Array(1024);
  private ids = new Int32Array(1024);
  private stamps = new Int32Array(1024);
  private stamp = 0;

  reset(expected: number): void {
    if (expected * 2 > this.keys.length) {
      const size = 1 << Math.ceil(Math.log2(expected * 4));
      this.keys = new Int32Array(size);
      this.ids = new Int32Array(size);
      this.stamps = new Int32Array(size);
      this.stamp = 0;
    }
    this.stamp++;
  }

  /** The id of `key`, or `next` (stored) when it has none yet. */
  idOf(key: number, next: number): number {
    const mask = this.keys.length - 1;
    let slot = hashKey(key) & mask;
    for (;;) {
      if (this.stamps[slot] !== this.stamp) {
        this.stamps[slot] = this.stamp;
        this.keys[slot] = key;
        this.ids[slot] = next;
        return next;
      }
      if (this.keys[slot] === key) return this.ids[slot]!;
      slot = (slot + 1) & mask;
    }
  }
}

/**
 * A query prepared once and compared with many texts: `similarity(text)` is `word_similarity(query, text)`.
 * Not re-entrant (it reuses its buffers); one per search.
 */
export class WordSimilarity {
  private readonly queryIds: QueryIds;
  private readonly local = new LocalIds();
  private readonly text = newTrigrams();
  private textIds = new Int32Array(256);
  private lastPos = new Int32Array(256);
  private seenStamps: Int32Array;
  private stamp = 0;

  constructor(query: string) {
    this.queryIds = new QueryIds(trigrams(query));
    this.seenStamps = new Int32Array(this.queryIds.size);
  }

  /** How many distinct trigrams the query has. */
  get size(): number {
    return this.queryIds.size;
  }

  similarity(text: string): number {
    return this.similarityOf(trigramsInto(text, this.text));
  }

  /**
   * How many of the query's distinct trigrams `trg` holds. Word similarity is at most that over `size`: an extent
   * shares no more trigrams with the query than the whole text does, and the query's own trigrams are in the union.
   */
  sharedOf(trg: Trigrams): number {
    this.stamp++;
    let shared = 0;
    for (let i = 0; i < trg.length; i++) {
      const q = this.queryIds.idOf(trg.keys[i]!);
      if (q >= 0 && this.seenStamps[q] !== this.stamp) {
        this.seenStamps[q] = this.stamp;
        shared++;
      }
    }
    return shared;
  }

  /**
   * `word_similarity(query, text)` of the text whose trigrams are `trg`. The search stops once it reaches `cap`,
   * a value it cannot exceed (1, or what `sharedOf` allows): the result is the same, sooner.
   */
  similarityOf(trg: Trigrams, cap = 1): number {
    const ulen1 = this.queryIds.size;
    if (ulen1 === 0) return 0;
    const len2 = trg.length;
    if (this.textIds.length < len2) this.textIds = new Int32Array(len2 * 2);
    this.local.reset(len2);
    // Distinct trigram ids: the query's first (0 … ulen1 − 1, "found"), then the text's others.
    let distinct = ulen1;
    let anyFound = false;
    for (let i = 0; i < len2; i++) {
      const key = trg.keys[i]!;
      const q = this.queryIds.idOf(key);
      if (q >= 0) {
        this.textIds[i] = q;
        anyFound = true;
      } else {
        const id = this.local.idOf(key, distinct);
        if (id === distinct) distinct++;
        this.textIds[i] = id;
      }
    }
    if (!anyFound) return 0;
    if (this.lastPos.length < distinct) this.lastPos = new Int32Array(distinct * 2);
    const lastPos = this.lastPos;
    lastPos.fill(-1, 0, distinct);
    const ids = this.textIds;

    // pg_trgm's iterate_word_similarity (plain word similarity, full search), with its float4 arithmetic.
    let ulen2 = 0;
    let count = 0;
    let lower = -1;
    let best = 0;
    for (let i = 0; i < len2; i++) {
      const id = ids[i]!;
      const found = id < ulen1;
      if (lower >= 0 || found) {
        if (lastPos[id]! < 0) {
          ulen2++;
          if (found) count++;
        }
        lastPos[id] = i;
      }
      if (!found) continue;
      const upper = i;
      if (lower === -1) {
        lower = i;
        ulen2 = 1;
      }
      let cur = Math.fround(count / (ulen1 + ulen2 - count));
      // Moving the extent's start right may raise the similarity: try every start up to this trigram.
      let tmpCount = count;
      let tmpUlen2 = ulen2;
      const prevLower = lower;
      for (let tmpLower = lower; tmpLower <= upper; tmpLower++) {
        // Later starts hold no more of the query's trigrams than tmpCount: once even tmpCount / ulen1 (no other
        // trigram in the extent) cannot beat cur, none of them can, and only a better start changes anything.
        if (Math.fround(tmpCount / ulen1) <= cur) break;
        const tmp = Math.fround(tmpCount / (ulen1 + tmpUlen2 - tmpCount));
        if (tmp > cur) {
          cur = tmp;
          ulen2 = tmpUlen2;
          lower = tmpLower;
          count = tmpCount;
        }
        const tid = ids[tmpLower]!;
        if (lastPos[tid] === tmpLower) {
          tmpUlen2--;
          if (tid < ulen1) tmpCount--;
        }
      }
      if (cur > best) best = cur;
      if (best >= cap) return best;
      for (let tmpLower = prevLower; tmpLower < lower; tmpLower++) {
        const tid = ids[tmpLower]!;
        if (lastPos[tid] === tmpLower) lastPos[tid] = -1;
      }
    }
    return best;
  }
}

/** `word_similarity(query, text)` of pg_trgm, for one pair. */
export const wordSimilarity = (query: string, text: string): number => new WordSimilarity(query).similarity(text);
