import { randomUUID } from 'node:crypto';
import { create, insertMultiple, search as oramaSearch, type AnyOrama } from '@orama/orama';
import { createKnex, createPgPool, HashingEmbedder, PostgresSearchIndex, type GeoPoint, type ListingDoc, type SearchHit } from '@cagnotte/infra';
import { embedListings } from '@cagnotte/projectors';
import { benchQueries, CITIES, generateCatalogue, type RelevanceCase } from '../search-fixtures/catalogue';
import { fmtMs, fmtRate, freshDatabase, nowMs, table, type SummaryRow } from './lib';

const TARGET_P95_MS = 20;
const BATCH = 500;
const RADIUS_KM = 25;
const LIMIT = 8;
const WARM_UP = 10;

/** A summary row of this part (lib's SummaryRow names the first three parts only). */
export type SearchSummaryRow = Omit<SummaryRow, 'part'> & { part: 'search' };

export interface SearchOptions {
  url: string;
  listings: number;
  queries: number;
}

interface Lat {
  count: number;
  p50: number;
  p95: number;
  p99: number;
  max: number;
  mean: number;
}

const lat = (samples: number[]): Lat => {
  const s = Float64Array.from(samples).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))] ?? NaN;
  return { count: s.length, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: s[s.length - 1] ?? NaN, mean: samples.reduce((a, b) => a + b, 0) / Math.max(1, samples.length) };
};
const fmtLat = (l: Lat) => `p50 ${fmtMs(l.p50)} / p95 ${fmtMs(l.p95)} / p99 ${fmtMs(l.p99)}`;

/** The biggest cities, in turn, as geo centers: the same sequence for both engines. */
const CENTERS: GeoPoint[] = [...CITIES].sort((a, b) => b.weight - a.weight).slice(0, 8).map((c) => ({ lat: c.lat, lng: c.lng }));

const SCHEMA = {
  title: 'string',
  text: 'string',
  embedding: 'vector[384]',
  location: 'geopoint',
  featured: 'boolean',
  popularity: 'number',
  // Not in the timed queries: only the relevance check filters on it, to compare sections with sections.
  kind: 'enum',
} as const;

interface Timed {
  latency: Lat;
  slowest: Array<{ q: string; ms: number }>;
}

const timeQueries = async (queries: string[], run: (q: string, i: number) => Promise<unknown>): Promise<Timed> => {
  for (let i = 0; i < Math.min(WARM_UP, queries.length); i++) await run(queries[i]!, i);
  const samples: Array<{ q: string; ms: number }> = [];
  for (let i = 0; i < queries.length; i++) {
    const t = nowMs();
    await run(queries[i]!, i);
    samples.push({ q: queries[i]!, ms: nowMs() - t });
  }
  // The slowest 8 of 150 are the p95 tail.
  return { latency: lat(samples.map((s) => s.ms)), slowest: [...samples].sort((a, b) => b.ms - a.ms).slice(0, 8) };
};

/**
 * Search on `listings` generated listings of one tenant (scripts/search-fixtures): indexing throughput of
 * HashingEmbedder + PostgresSearchIndex.upsert in batches of 500, then `queries` sequential searches without and
 * with geo (the biggest cities in turn, 25 km), the query embedding computed inside the timing. Baseline in the
 * same process: Orama's hybrid search (full text + brute-force vector) over the same documents and vectors.
 */
export const runSearch = async (o: SearchOptions): Promise<{ rows: SearchSummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const knex = createKnex(o.url, 4);
  const pool = createPgPool(o.url, 4);
  const embedder = new HashingEmbedder();
  const index = new PostgresSearchIndex(knex, pool);
  try {
    const tenantId = randomUUID();
    let t = nowMs();
    const catalogue = generateCatalogue({ tenantId, count: o.listings, now: Date.now() });
    const generateMs = nowMs() - t;
    const queries = benchQueries(catalogue.cases, o.queries);

    // --- Our index: embedding + upsert, batches of 500.
    const docs: ListingDoc[] = [];
    let embedMs = 0;
    let upsertMs = 0;
    for (let i = 0; i < catalogue.listings.length; i += BATCH) {
      t = nowMs();
      const batch = await embedListings(embedder, catalogue.listings.slice(i, i + BATCH));
      embedMs += nowMs() - t;
      t = nowMs();
      await index.upsert(batch);
      upsertMs += nowMs() - t;
      docs.push(...batch);
    }
    const ourIndexing = { docs: docs.length, seconds: (embedMs + upsertMs) / 1000, embedSeconds: embedMs / 1000, upsertSeconds: upsertMs / 1000 };
    t = nowMs();
    // What autovacuum would do soon after such a load; the planner needs it (the vocabulary's statistics too).
    await knex.raw('ANALYZE rm_search_listings, rm_search_words');
    const analyzeMs = nowMs() - t;
    const tableBytes = Number((await knex.raw(`SELECT pg_total_relation_size('rm_search_listings') AS b`)).rows[0].b);

    const ours = (geo: boolean) => (q: string, i: number) =>
      index.search({ tenantId, q, type: 'all', limit: LIMIT, center: geo ? CENTERS[i % CENTERS.length]! : null, radiusKm: geo ? RADIUS_KM : null, postalCode: null, queryEmbedding: embedder.embedOne(q) });
    const ourPlain = await timeQueries(queries, ours(false));
    const ourGeo = await timeQueries(queries, ours(true));
    const ourRelevance = await relevance(catalogue.cases, async (c) => {
      const r = await index.search({ tenantId, q: c.query, type: 'all', limit: 3, center: null, radiusKm: null, postalCode: null, queryEmbedding: embedder.embedOne(c.query) });
      return (c.kind === 'merchant' ? r.merchants : r.pools).map((h: SearchHit) => h.id);
    });

    // --- Orama: the same documents and vectors, in this process.
    const oramaDocs = docs.map((d) => ({
      id: d.refId,
      title: d.title,
      text: d.text,
      embedding: Array.from(d.embedding),
      ...(d.location ? { location: { lat: d.location.lat, lon: d.location.lng } } : {}),
      featured: d.featured,
      popularity: d.popularity,
      kind: d.kind,
    }));
    const heapBefore = process.memoryUsage().heapUsed;
    const db: AnyOrama = create({ schema: SCHEMA });
    t = nowMs();
    await insertMultiple(db, oramaDocs, 1000);
    const oramaIndexing = { docs: oramaDocs.length, seconds: (nowMs() - t) / 1000, heapMiB: Math.round((process.memoryUsage().heapUsed - heapBefore) / 2 ** 20) };
    const orama = (geo: boolean) => async (q: string, i: number) => {
      const c = geo ? CENTERS[i % CENTERS.length]! : null;
      return oramaSearch(db, {
        mode: 'hybrid',
        term: q,
        vector: { value: embedder.embedOne(q), property: 'embedding' },
        similarity: 0.1,
        limit: LIMIT,
        ...(c ? { where: { location: { radius: { coordinates: { lat: c.lat, lon: c.lng }, value: RADIUS_KM, unit: 'km', inside: true } } } } : {}),
      });
    };
    const oramaPlain = await timeQueries(queries, orama(false));
    const oramaGeo = await timeQueries(queries, orama(true));
    const oramaRelevance = await relevance(catalogue.cases, async (c) => {
      const r = await oramaSearch(db, { mode: 'hybrid', term: c.query, vector: { value: embedder.embedOne(c.query), property: 'embedding' }, similarity: 0.1, limit: 3, where: { kind: { eq: c.kind } } });
      return r.hits.map((h) => String(h.id));
    });

    const details = {
      listings: o.listings,
      queries: queries.length,
      generateMs,
      ours: { indexing: ourIndexing, analyzeMs, tableMiB: Math.round(tableBytes / 2 ** 20), plain: ourPlain, geo: ourGeo, relevance: ourRelevance },
      orama: { indexing: oramaIndexing, plain: oramaPlain, geo: oramaGeo, relevance: oramaRelevance },
    };
    printSearch(details);

    const n = o.listings.toLocaleString('en-US');
    const rows: SearchSummaryRow[] = [
      {
        part: 'search',
        metric: `search indexing, ${n} listings (hashing embedding + upsert, batches of ${BATCH})`,
        measured: `${fmtRate(ourIndexing.docs / ourIndexing.seconds, ' docs/s')} (upsert alone ${fmtRate(ourIndexing.docs / ourIndexing.upsertSeconds, ' docs/s')})`,
        baseline: `${fmtRate(oramaIndexing.docs / oramaIndexing.seconds, ' docs/s')} Orama insert (vectors given)`,
        target: '',
        pass: null,
        raw: { ours: ourIndexing, orama: oramaIndexing },
      },
      ...([
        ['no geo', ourPlain, oramaPlain],
        [`geo ${RADIUS_KM} km`, ourGeo, oramaGeo],
      ] as const).map(([label, ourT, oramaT]): SearchSummaryRow => ({
        part: 'search',
        metric: `search latency, ${label}, ${n} listings (${queries.length} sequential queries)`,
        measured: fmtLat(ourT.latency),
        baseline: `Orama hybrid ${fmtLat(oramaT.latency)}`,
        target: `p95 < ${TARGET_P95_MS} ms`,
        pass: ourT.latency.p95 < TARGET_P95_MS,
        raw: { ours: ourT, orama: oramaT },
      })),
      {
        part: 'search',
        metric: `search relevance at ${n} listings: expected hit in the top 3 of its section`,
        measured: `${ourRelevance.hits}/${ourRelevance.cases}`,
        baseline: `Orama hybrid ${oramaRelevance.hits}/${oramaRelevance.cases}`,
        target: '',
        pass: null,
        raw: { ours: ourRelevance, orama: oramaRelevance },
      },
    ];
    return { rows, details };
  } finally {
    await knex.destroy();
    await pool.end();
  }
};

const relevance = async (cases: RelevanceCase[], top3: (c: RelevanceCase) => Promise<string[]>) => {
  const misses: string[] = [];
  for (const c of cases) if (!(await top3(c)).includes(c.refId)) misses.push(c.query);
  return { cases: cases.length, hits: cases.length - misses.length, misses };
};

const printSearch = (d: {
  listings: number;
  queries: number;
  generateMs: number;
  ours: { indexing: { docs: number; seconds: number; embedSeconds: number; upsertSeconds: number }; analyzeMs: number; tableMiB: number; plain: Timed; geo: Timed; relevance: { hits: number; cases: number; misses: string[] } };
  orama: { indexing: { docs: number; seconds: number; heapMiB: number }; plain: Timed; geo: Timed; relevance: { hits: number; cases: number; misses: string[] } };
}) => {
  const { ours, orama } = d;
  console.log(`\n## 4. Search: ${d.listings.toLocaleString('en-US')} generated listings of one tenant, ${d.queries} queries per run`);
  console.log(
    `Catalogue generated in ${fmtMs(d.generateMs)}. Ours: embedding ${ours.indexing.embedSeconds.toFixed(1)} s + upsert ${ours.indexing.upsertSeconds.toFixed(1)} s, ` +
      `then ANALYZE ${fmtMs(ours.analyzeMs)}; table + indexes ${ours.tableMiB} MiB. Orama: insert ${orama.indexing.seconds.toFixed(1)} s, heap +${orama.indexing.heapMiB} MiB.`,
  );
  const row = (name: string, t: Timed) => [name, String(t.latency.count), fmtMs(t.latency.p50), fmtMs(t.latency.p95), fmtMs(t.latency.p99), fmtMs(t.latency.max), fmtMs(t.latency.mean)];
  console.log(
    table(
      ['engine', 'queries', 'p50', 'p95', 'p99', 'max', 'mean'],
      [row('PostgresSearchIndex, no geo', ours.plain), row(`PostgresSearchIndex, geo ${RADIUS_KM} km`, ours.geo), row('Orama hybrid, no geo', orama.plain), row(`Orama hybrid, geo ${RADIUS_KM} km`, orama.geo)],
    ),
  );
  const slow = (t: Timed) => t.slowest.map((s) => `"${s.q}" ${fmtMs(s.ms)}`).join(', ');
  console.log(`Slowest, ours without geo: ${slow(ours.plain)}`);
  console.log(`Slowest, ours with geo: ${slow(ours.geo)}`);
  console.log(`Slowest, Orama without geo: ${slow(orama.plain)}`);
  console.log(`Relevance cases in the top 3 of their section: ours ${ours.relevance.hits}/${ours.relevance.cases}, Orama ${orama.relevance.hits}/${orama.relevance.cases}`);
  if (ours.relevance.misses.length) console.log(`  ours missed: ${ours.relevance.misses.map((q) => `"${q}"`).join(', ')}`);
  if (orama.relevance.misses.length) console.log(`  Orama missed: ${orama.relevance.misses.map((q) => `"${q}"`).join(', ')}`);
};
