import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { GeoPoint, ListingDoc, ListingKind, SearchHit, SearchIndex, SearchQuery, SearchResult } from './port';

/**
 * One contract, every search adapter: PostgreSQL always, OpenSearch when OPENSEARCH_URL is set. Expectations are
 * about behaviour (who comes back, who is in the top 3), never about exact scores, which differ by adapter.
 */
type Fixture = Omit<ListingDoc, 'id' | 'tenantId' | 'refId' | 'embedding' | 'createdAt' | 'card' | 'version'> & { daysOld: number };

const DAY_MS = 86_400_000;
const LYON: GeoPoint = { lat: 45.764, lng: 4.8357 };
const PARIS: GeoPoint = { lat: 48.8566, lng: 2.3522 };

const MERCHANTS = {
  boulangerie: { kind: 'merchant', title: 'Boulangerie Dupré', text: 'Pain au levain, croissants et viennoiseries, Lyon', featured: false, popularity: 50, location: LYON, postalCode: '69001', daysOld: 10 },
  fromagerie: { kind: 'merchant', title: 'Fromagerie du Marché', text: 'Comté, beaufort et fromages affinés, Lyon', featured: true, popularity: 5, location: { lat: 45.75, lng: 4.85 }, postalCode: '69002', daysOld: 40 },
  cafe: { kind: 'merchant', title: 'Café Éthiopien', text: 'Torréfaction artisanale, grains et moutures, Paris', featured: false, popularity: 200, location: PARIS, postalCode: '75001', daysOld: 5 },
} satisfies Record<string, Fixture>;
const POOLS = {
  miel: { kind: 'pool', title: 'Commande groupée de miel de lavande', text: 'Pots de 500 g de miel de Provence', featured: true, popularity: 30, location: { lat: 45.77, lng: 4.83 }, postalCode: '69001', daysOld: 3 },
  chocolat: { kind: 'pool', title: 'Achat groupé de chocolat noir', text: 'Tablettes de cacao équitable', featured: false, popularity: 80, location: null, postalCode: null, daysOld: 20 },
  legumes: { kind: 'pool', title: 'Panier de légumes bio', text: 'Légumes de saison de la ferme', featured: false, popularity: 10, location: { lat: 48.86, lng: 2.34 }, postalCode: '75001', daysOld: 1 },
} satisfies Record<string, Fixture>;
const FIXTURES: Record<string, Fixture> = { ...MERCHANTS, ...POOLS };
type Name = keyof typeof MERCHANTS | keyof typeof POOLS;

const haversineKm = (a: GeoPoint, b: GeoPoint): number => {
  const rad = Math.PI / 180;
  const h = Math.sin(((b.lat - a.lat) * rad) / 2) ** 2 + Math.cos(a.lat * rad) * Math.cos(b.lat * rad) * Math.sin(((b.lng - a.lng) * rad) / 2) ** 2;
  return 2 * 6371 * Math.asin(Math.min(1, Math.sqrt(h)));
};

const ids = (hits: SearchHit[]): string[] => hits.map((h) => h.id);
const all = (r: SearchResult): SearchHit[] => [...r.merchants, ...r.pools];

export const searchIndexContract = (
  adapter: string,
  makeIndex: () => Promise<SearchIndex & { reset?(): Promise<void> }>,
  embed: (text: string) => Float32Array,
): void => {
  const test = suite(`search index contract: ${adapter}`);
  let index: SearchIndex & { reset?(): Promise<void> };
  test.before(async () => {
    index = await makeIndex();
  });
  test.after(async () => {
    await index?.reset?.();
  });

  const listing = (tenantId: string, f: Fixture, over: Partial<ListingDoc> = {}): ListingDoc => {
    const refId = over.refId ?? randomUUID();
    const { daysOld, ...rest } = f;
    const title = over.title ?? f.title;
    return {
      ...rest, tenantId, refId, id: `${f.kind}:${refId}`, title,
      embedding: embed(`${title} ${f.text}`),
      createdAt: new Date(Date.now() - daysOld * DAY_MS).toISOString(),
      card: { id: refId, name: title },
      version: 2,
      ...over,
    };
  };

  /** A fresh tenant with the six fixtures; returns the tenant and each fixture's doc. */
  const seed = async () => {
    const tenantId = randomUUID();
    const docs = Object.fromEntries(Object.entries(FIXTURES).map(([name, f]) => [name, listing(tenantId, f)])) as Record<Name, ListingDoc>;
    await index.upsert(Object.values(docs));
    return { tenantId, docs };
  };

  const search = (tenantId: string, over: Partial<SearchQuery> = {}) => {
    const q = over.q ?? null;
    const base: SearchQuery = { tenantId, q, type: 'all', limit: 10, center: null, radiusKm: null, postalCode: null, queryEmbedding: q && q.trim().length >= 2 ? embed(q) : null };
    return index.search({ ...base, ...over });
  };

  const top3 = async (tenantId: string, q: string, kind: ListingKind, expected: ListingDoc) => {
    const r = await search(tenantId, { q });
    const hits = kind === 'merchant' ? r.merchants : r.pools;
    assert.ok(ids(hits.slice(0, 3)).includes(expected.refId), `"${q}" should find ${expected.title} in the top 3, got ${JSON.stringify(hits.map((h) => h.card))}`);
  };

  test('another tenant’s listings never come back', async () => {
    const { tenantId, docs } = await seed();
    const other = listing(randomUUID(), { ...MERCHANTS.boulangerie, location: PARIS, postalCode: '69002' });
    await index.upsert([other]);
    for (const r of [await search(tenantId), await search(tenantId, { q: 'Boulangerie Dupré' }), await search(tenantId, { q: 'lyon', center: LYON, radiusKm: 1000 })]) {
      assert.not.ok(ids(all(r)).includes(other.refId));
      for (const id of ids(all(r))) assert.ok(Object.values(docs).some((d) => d.refId === id), `unexpected hit ${id}`);
    }
    const centroid = await index.resolvePostalCode(tenantId, '69002');
    assert.ok(centroid && Math.abs(centroid.lat - 45.75) < 1e-3 && Math.abs(centroid.lng - 4.85) < 1e-3, 'the other tenant’s 69002 must not move the centroid');
  });

  test('type restricts the lists to merchants or pools', async () => {
    const { tenantId } = await seed();
    for (const q of [null, 'groupé', 'lyon']) {
      const merchants = await search(tenantId, { q, type: 'merchants' });
      assert.is(merchants.pools.length, 0);
      assert.ok(merchants.merchants.every((h) => h.kind === 'merchant'));
      const pools = await search(tenantId, { q, type: 'pools' });
      assert.is(pools.merchants.length, 0);
      assert.ok(pools.pools.every((h) => h.kind === 'pool'));
    }
    const both = await search(tenantId);
    assert.is(both.merchants.length, 3);
    assert.is(both.pools.length, 3);
  });

  test('limit caps each list', async () => {
    const { tenantId } = await seed();
    const shelf = await search(tenantId, { limit: 1 });
    assert.is(shelf.merchants.length, 1);
    assert.is(shelf.pools.length, 1);
    const text = await search(tenantId, { q: 'lyon', limit: 1 });
    assert.ok(text.merchants.length <= 1 && text.pools.length <= 1);
    assert.is(text.merchants.length, 1);
  });

  test('an exact title ranks its listing first', async () => {
    const { tenantId, docs } = await seed();
    const merchants = await search(tenantId, { q: 'Fromagerie du Marché' });
    assert.is(merchants.popular, false);
    assert.is(merchants.merchants[0]?.id, docs.fromagerie.refId);
    const pools = await search(tenantId, { q: 'Commande groupée de miel de lavande' });
    assert.is(pools.pools[0]?.id, docs.miel.refId);
  });

  test('accent-free and one-typo queries still find the listing in the top 3', async () => {
    const { tenantId, docs } = await seed();
    await top3(tenantId, 'fromagerie du marche', 'merchant', docs.fromagerie);
    await top3(tenantId, 'cafe ethiopien', 'merchant', docs.cafe);
    await top3(tenantId, 'legumes bio', 'pool', docs.legumes);
    await top3(tenantId, 'boulangrie', 'merchant', docs.boulangerie);
    await top3(tenantId, 'chocolta noir', 'pool', docs.chocolat);
  });

  test('without a query (or under 2 characters) the popular shelf comes back: featured, then popularity', async () => {
    const { tenantId, docs } = await seed();
    for (const q of [null, 'a']) {
      const r = await search(tenantId, { q, queryEmbedding: null });
      assert.is(r.popular, true);
      assert.equal(ids(r.merchants), [docs.fromagerie.refId, docs.cafe.refId, docs.boulangerie.refId]);
      assert.equal(ids(r.pools), [docs.miel.refId, docs.chocolat.refId, docs.legumes.refId]);
    }
  });

  test('center + radius keeps the listings within the radius and sets their distance', async () => {
    const { tenantId, docs } = await seed();
    for (const q of [null, 'lyon', 'fromagerie']) {
      const r = await search(tenantId, { q, center: LYON, radiusKm: 5 });
      for (const hit of all(r)) {
        const doc = Object.values(docs).find((d) => d.refId === hit.id)!;
        assert.ok(doc.location, `${doc.title} has no location and cannot be within a radius`);
        assert.ok(hit.distanceKm !== null && hit.distanceKm <= 5.01, `${doc.title} is ${hit.distanceKm} km away`);
        const expected = haversineKm(LYON, doc.location);
        assert.ok(Math.abs(hit.distanceKm - expected) <= 0.05 + expected * 0.01, `distance of ${doc.title}: ${hit.distanceKm}, expected ${expected}`);
      }
    }
    const shelf = await search(tenantId, { center: LYON, radiusKm: 5 });
    assert.equal(ids(shelf.merchants).sort(), [docs.boulangerie.refId, docs.fromagerie.refId].sort());
    assert.equal(ids(shelf.pools), [docs.miel.refId]);
    const nowhere = await search(tenantId, { q: 'lyon' });
    assert.ok(all(nowhere).every((h) => h.distanceKm === null), 'no center, no distance');
  });

  test('a postal code without a center filters on the code', async () => {
    const { tenantId, docs } = await seed();
    const r = await search(tenantId, { postalCode: '69001' });
    assert.equal(ids(r.merchants), [docs.boulangerie.refId]);
    assert.equal(ids(r.pools), [docs.miel.refId]);
  });

  test('resolvePostalCode returns the centroid of a known code and null for an unknown one', async () => {
    const { tenantId } = await seed();
    const c = await index.resolvePostalCode(tenantId, '69001');
    assert.ok(c, '69001 is known');
    assert.ok(Math.abs(c.lat - (LYON.lat + 45.77) / 2) < 1e-3 && Math.abs(c.lng - (LYON.lng + 4.83) / 2) < 1e-3, `centroid ${JSON.stringify(c)}`);
    assert.is(await index.resolvePostalCode(tenantId, '99999'), null);
    assert.is(await index.resolvePostalCode(randomUUID(), '69001'), null);
  });

  test('an older version never overwrites a newer one; a newer one does', async () => {
    const { tenantId, docs } = await seed();
    const current = docs.boulangerie;
    await index.upsert([current]); // the same revision replayed
    await index.upsert([listing(tenantId, MERCHANTS.boulangerie, { refId: current.refId, title: 'Ancienne Enseigne', version: 1 })]);
    const stale = await search(tenantId, { q: 'Ancienne Enseigne', type: 'merchants' });
    assert.not.ok(stale.merchants.some((h) => h.id === current.refId && (h.card as { name?: string }).name === 'Ancienne Enseigne'));
    const still = await search(tenantId, { q: 'Boulangerie Dupré', type: 'merchants' });
    assert.equal(still.merchants.find((h) => h.id === current.refId)?.card, current.card);
    const newer = listing(tenantId, MERCHANTS.boulangerie, { refId: current.refId, title: 'Boulangerie Dupré et Fils', version: 3 });
    await index.upsert([newer]);
    const fresh = await search(tenantId, { q: 'Boulangerie Dupré', type: 'merchants' });
    assert.equal(fresh.merchants.find((h) => h.id === current.refId)?.card, newer.card);
  });

  test('remove removes, and removing an unknown id is fine', async () => {
    const { tenantId, docs } = await seed();
    await index.remove([docs.boulangerie.id, `merchant:${randomUUID()}`]);
    assert.not.ok(ids((await search(tenantId)).merchants).includes(docs.boulangerie.refId));
    assert.not.ok(ids((await search(tenantId, { q: 'Boulangerie Dupré' })).merchants).includes(docs.boulangerie.refId));
    const c = await index.resolvePostalCode(tenantId, '69001');
    assert.ok(c && Math.abs(c.lat - 45.77) < 1e-3 && Math.abs(c.lng - 4.83) < 1e-3, 'only the pool is left in 69001');
  });

  test('every hit carries its kind, card and structured score parts', async () => {
    const { tenantId, docs } = await seed();
    for (const over of [{}, { q: 'lyon' }, { q: 'miel', center: LYON, radiusKm: 50 }] as Partial<SearchQuery>[]) {
      for (const hit of all(await search(tenantId, over))) {
        const [name, doc] = Object.entries(docs).find(([, d]) => d.refId === hit.id)!;
        assert.is(hit.kind, doc.kind);
        assert.equal(hit.card, doc.card);
        assert.ok(Number.isFinite(hit.score) && Number.isFinite(hit.parts.rrf));
        const s = hit.parts.structured;
        assert.ok(s, 'parts.structured');
        assert.ok(Number.isFinite(s.score) && Number.isInteger(s.rank) && s.rank >= 1);
        assert.is(s.featured, doc.featured);
        assert.is(s.popularity, doc.popularity);
        assert.ok(Math.abs(s.freshnessDays - FIXTURES[name]!.daysOld) <= 1, `freshness of ${doc.title}: ${s.freshnessDays}`);
        const same = s.distanceKm === null ? hit.distanceKm === null : hit.distanceKm !== null && Math.abs(s.distanceKm - hit.distanceKm) < 0.01;
        assert.ok(same, 'parts.structured.distanceKm is the hit’s distance');
      }
    }
  });

  test.run();
};
