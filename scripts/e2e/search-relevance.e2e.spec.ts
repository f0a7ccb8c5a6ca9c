import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { HashingEmbedder, PostgresSearchIndex, type GeoPoint, type SearchHit, type SearchQuery } from '@cagnotte/infra';
import { testKnex, testPgPool } from '@cagnotte/infra/src/testing/resources';
import { embedListings } from '@cagnotte/projectors';
import { cityByName, foldForCheck, generateCatalogue, markerCollisions, type Catalogue, type CaseTag, type ListingDraft } from '../search-fixtures/catalogue';

/**
 * Relevance of the PostgreSQL search index on a fixed, generated catalogue of 1,200 listings (French and
 * English merchants and pools in 40 cities): every relevance case (exact names, accent-free, typos, partial
 * words, English, multi-word, case) must find its expected listing in the top 3 of its section. All the
 * cases run before the one assertion, so a failing run lists every miss with what came back instead.
 */
const test = suite('search relevance on a generated catalogue');

const COUNT = 1200;
const embedder = new HashingEmbedder();
const index = new PostgresSearchIndex(testKnex(), testPgPool());
const tenantId = randomUUID();
const NOW = Date.now();
const catalogue: Catalogue = generateCatalogue({ tenantId, count: COUNT, now: NOW });
const byRef = new Map<string, ListingDraft>(catalogue.listings.map((l) => [l.refId, l]));

const search = (q: string | null, over: Partial<SearchQuery> = {}) =>
  index.search({ tenantId, q, type: 'all', limit: 3, center: null, radiusKm: null, postalCode: null, queryEmbedding: q ? embedder.embedOne(q) : null, ...over });

const cityOf = (h: SearchHit) => byRef.get(h.id)?.card.city as string | undefined;

const describe = (h: SearchHit, i: number) => {
  const p = h.parts;
  const tr = p.trigram ? `trigram #${p.trigram.rank} ${p.trigram.similarity.toFixed(2)}` : 'trigram –';
  const vr = p.vector ? `vector #${p.vector.rank} ${p.vector.similarity.toFixed(2)}` : 'vector –';
  return `      ${i + 1}. ${byRef.get(h.id)?.title ?? h.id} (${tr}, ${vr}, structured #${p.structured.rank}, rrf ${h.score.toFixed(4)})`;
};

const haversineKm = (a: GeoPoint, b: GeoPoint): number => {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
};

test.before(async () => {
  const docs = await embedListings(embedder, catalogue.listings);
  for (let i = 0; i < docs.length; i += 500) await index.upsert(docs.slice(i, i + 500));
});

test('the catalogue is a fair fixture: ≥ 1,000 listings, ≥ 30 cases of every kind, distinctive expected hits', () => {
  assert.ok(catalogue.listings.length >= 1000, `${catalogue.listings.length} listings`);
  assert.ok(catalogue.cases.length >= 30, `${catalogue.cases.length} cases`);
  assert.ok(catalogue.listings.some((l) => l.kind === 'merchant') && catalogue.listings.some((l) => l.kind === 'pool'));
  const tags = new Set(catalogue.cases.flatMap((c) => c.tags));
  for (const tag of ['exact', 'accent-free', 'typo', 'partial', 'en', 'fr', 'multi-word', 'case'] satisfies CaseTag[]) {
    assert.ok(tags.has(tag), `no ${tag} case`);
  }
  // Accent-free cases really are: the query has no accent where the expected title has one.
  for (const c of catalogue.cases.filter((x) => x.tags.includes('accent-free'))) {
    assert.not.ok(/[À-ÿœ]/i.test(c.query), `"${c.query}" is tagged accent-free`);
    assert.ok(/[À-ÿœ]/i.test(c.expectedTitle), `${c.expectedTitle} has no accent to drop`);
  }
  // Typo cases are not a plain substring of the title (or they would be partial-word cases).
  for (const c of catalogue.cases.filter((x) => x.tags.includes('typo'))) {
    assert.not.ok(foldForCheck(c.expectedTitle).includes(foldForCheck(c.query)), `"${c.query}" is tagged typo`);
  }
  const collisions = markerCollisions(catalogue);
  assert.equal(collisions.slice(0, 5), [], `generated listings carry an expected hit's distinctive words (${collisions.length})`);
  assert.is(new Set(catalogue.listings.map((l) => l.id)).size, catalogue.listings.length, 'listing ids are unique');
});

test('the same options generate the same catalogue', () => {
  const again = generateCatalogue({ tenantId, count: COUNT, now: NOW });
  assert.equal(
    again.listings.map((l) => [l.id, l.title, l.text, l.location, l.featured, l.popularity]),
    catalogue.listings.map((l) => [l.id, l.title, l.text, l.location, l.featured, l.popularity]),
  );
  assert.equal(again.cases, catalogue.cases);
});

test('every relevance case finds its listing in the top 3 of its section', async () => {
  const misses: string[] = [];
  for (const c of catalogue.cases) {
    const r = await search(c.query);
    const hits = c.kind === 'merchant' ? r.merchants : r.pools;
    assert.is(r.popular, false);
    if (hits.some((h) => h.id === c.refId)) continue;
    const wide = await search(c.query, { limit: 50 });
    const rank = (c.kind === 'merchant' ? wide.merchants : wide.pools).findIndex((h) => h.id === c.refId);
    misses.push(
      [
        `  "${c.query}" [${c.tags.join(', ')}] expected ${c.kind} "${c.expectedTitle}" (${c.note}); it ranks ${rank < 0 ? 'beyond 50 or not at all' : `#${rank + 1}`}. Top 3:`,
        ...hits.map(describe),
      ].join('\n'),
    );
  }
  assert.ok(misses.length === 0, `${misses.length} of ${catalogue.cases.length} relevance cases missed the top 3:\n${misses.join('\n')}`);
});

test('geo: within 20 km of Lyon every hit is within the radius, and for a query naming Lyon its listings come first', async () => {
  const lyon = cityByName('Lyon');
  const center = { lat: lyon.lat, lng: lyon.lng };
  const radiusKm = 20;
  const inRadius = catalogue.listings.filter((l) => l.location && haversineKm(center, l.location) <= radiusKm);
  assert.ok(inRadius.some((l) => l.card.city === 'Villeurbanne'), 'the radius holds another city too (else the test proves little)');
  assert.ok(catalogue.listings.some((l) => l.location && haversineKm(center, l.location) > radiusKm && foldForCheck(l.title).includes('commande groupee')));

  for (const q of ['commande groupee', 'boulangerie', 'lyon', 'miel de lavande', 'bakery']) {
    const r = await search(q, { limit: 50, center, radiusKm });
    for (const h of [...r.merchants, ...r.pools]) {
      const doc = byRef.get(h.id)!;
      assert.ok(doc.location, `"${q}": ${doc.title} has no location`);
      assert.ok(h.distanceKm !== null && h.distanceKm <= radiusKm + 0.01, `"${q}": ${doc.title} is ${h.distanceKm} km away`);
      const expected = haversineKm(center, doc.location);
      assert.ok(Math.abs(h.distanceKm - expected) <= 0.05 + expected * 0.01, `"${q}": distance of ${doc.title} is ${h.distanceKm}, expected ${expected}`);
    }
  }

  // The French pools of both cities match "commande groupée"; "lyon" is only in the Lyon ones.
  const q = 'commande groupee lyon';
  const r = await search(q, { type: 'pools', limit: 8, center, radiusKm });
  const cities = r.pools.map(cityOf);
  assert.ok(r.pools.length >= 3, `"${q}" near Lyon: ${r.pools.length} pools`);
  const firstOther = cities.findIndex((c) => c !== 'Lyon');
  const lastLyon = cities.lastIndexOf('Lyon');
  assert.ok(firstOther === -1 || lastLyon < firstOther, `"${q}" near Lyon: Lyon pools first, got\n${r.pools.map((h, i) => `${describe(h, i)} [${cityOf(h)}]`).join('\n')}`);
  const villeurbanne = await search('commande groupee villeurbanne', { type: 'pools', limit: 3, center, radiusKm });
  assert.ok(villeurbanne.pools.length > 0 && villeurbanne.pools.every((h) => cityOf(h) === 'Villeurbanne'), 'and the neighbour city when it is the one named');
});

test.run();
