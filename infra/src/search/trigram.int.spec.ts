import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { distanceKm, TrigramScorer } from './postgres';
import { trigrams, wordSimilarity } from './trigram';
import { testPgPool } from '../testing/resources';

/**
 * The search scores its candidates in process with what PostgreSQL would have answered: pg_trgm's word similarity,
 * the trigram arm's formula built on it, and earthdistance's distance. Each is checked here against the database,
 * on generated listing-like texts and queries (accents, typos, partial words) and other scripts.
 */
const test = suite('search scoring in process, against PostgreSQL');

// Listing-like texts and queries (French and English, accents, typos, partial words), generated deterministically.
const WORDS = [
  'Boulangerie', 'Fromagerie', 'Pâtisserie', 'Épicerie', 'bio', 'Café', 'torréfaction', 'miel', 'lavande', 'châtaignier',
  'commande', 'groupée', 'livrée', 'à', 'Lyon', 'Saint-Étienne', "d'olive", 'huile', 'vierge', 'extra', 'cheese', 'shop',
  'organic', 'grocer', 'bike', 'repair', 'sourdough', 'loaves', 'croissants', 'du', 'de', 'la', 'des', 'Marché', 'Halles',
  'Dupré', 'Guérin', 'Noël', 'œufs', 'crème', 'fraîche', '500', 'g', 'kg', 'pot', 'sac', 'retrait', 'point', 'relais',
];
let seed = 7;
const rand = (n: number) => {
  seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
  return (seed >>> 8) % n;
};
const phrase = (n: number) => Array.from({ length: n }, () => WORDS[rand(WORDS.length)]!).join(rand(5) === 0 ? ', ' : ' ');
const typo = (w: string) => (w.length < 5 ? w : rand(2) ? w.slice(0, 2) + w.slice(3) : w.slice(0, 2) + w[3] + w[2] + w.slice(4));
const LISTINGS = Array.from({ length: 150 }, () => ({ title: phrase(2 + rand(3)), text: phrase(8 + rand(20)) }));
const QUERIES = [
  ...Array.from({ length: 60 }, () => phrase(1 + rand(3))),
  ...Array.from({ length: 40 }, () => phrase(1 + rand(2)).split(' ').map(typo).join(' ')),
  ...Array.from({ length: 20 }, () => WORDS[rand(WORDS.length)]!.slice(0, 4)),
];
const POINTS = Array.from({ length: 300 }, () => ({ lat: 42 + rand(9000) / 1000, lng: -4 + rand(12000) / 1000 }));
const OTHER_SCRIPTS = ['été à paris', 'Ωμέγα αλφα', 'москва город', '東京 ラーメン', 'straße ß', 'naïve façade', 'ǅemal', '😀 smile', "l'olive d'or", 'x-y z', 'a', 'ab', '', '  '];

const folded = async (texts: string[]): Promise<string[]> =>
  (await testPgPool().query<{ f: string }>('SELECT cg_fold(t) AS f FROM unnest($1::text[]) WITH ORDINALITY AS x(t, i) ORDER BY i', [texts])).rows.map((r) => r.f);

test('show_trgm: the same trigrams, hashed ones included', async () => {
  for (const text of ['boulangerie', 'été москва 東京', 'Ωμέγα', 'a b', '😀 x']) {
    const r = await testPgPool().query<{ t: string[] }>('SELECT show_trgm($1) AS t', [text]);
    const ours = [...new Set(trigrams(text))].map((k) => (k >= 0x202020 && k <= 0x7f7f7f && [k >> 16, (k >> 8) & 0xff, k & 0xff].every((c) => c >= 0x20 && c < 0x7f) ? String.fromCharCode(k >> 16, (k >> 8) & 0xff, k & 0xff) : `0x${k.toString(16).padStart(6, '0')}`));
    assert.equal(ours.sort(), [...r.rows[0]!.t].sort(), text);
  }
});

test('word_similarity: equal to pg_trgm’s on catalogue texts, queries and other scripts', async () => {
  const texts = await folded(LISTINGS.flatMap((l) => [l.title, `${l.title} ${l.text}`]));
  const queries = await folded(QUERIES);
  const pairs: Array<[string, string]> = [];
  queries.forEach((q, i) => {
    for (let j = 0; j < 6; j++) pairs.push([q, texts[(i * 7 + j * 13) % texts.length]!]);
    for (const w of q.split(/\s+/)) pairs.push([w, texts[(i * 11) % texts.length]!]);
  });
  for (const a of OTHER_SCRIPTS) for (const b of OTHER_SCRIPTS) pairs.push([a, b]);
  const r = await testPgPool().query<{ s: number }>('SELECT word_similarity(a, b) AS s FROM unnest($1::text[], $2::text[]) WITH ORDINALITY AS x(a, b, i) ORDER BY i', [pairs.map((p) => p[0]), pairs.map((p) => p[1])]);
  const wrong = pairs.filter(([a, b], i) => Math.fround(wordSimilarity(a, b)) !== Math.fround(r.rows[i]!.s));
  assert.equal(wrong.slice(0, 5), [], `${wrong.length} of ${pairs.length} pairs differ`);
});

test('the trigram arm: its bounds hold and its value is the SQL formula’s', async () => {
  const pool = testPgPool();
  const rows = LISTINGS.map((l) => ({ title: l.title, text: `${l.title} ${l.text}` }));
  let checked = 0;
  for (const q of QUERIES) {
    const multiWord = /\s/.test(q);
    const perWord = multiWord
      ? `, 0.95 * (SELECT avg(GREATEST(word_similarity(w, cg_fold(t.title)), CASE WHEN strpos(cg_fold(t.text), w) > 0 THEN 0.9 ELSE 0 END))
                   FROM unnest(regexp_split_to_array(cg_fold($1), '\\s+')) AS w)`
      : '';
    const r = await pool.query<{ title_folded: string; search_text: string; sim: number; folded: string; words: string[] }>(
      `SELECT cg_fold(t.title) AS title_folded, cg_fold(t.text) AS search_text, cg_fold($1) AS folded, regexp_split_to_array(cg_fold($1), '\\s+') AS words,
              GREATEST(word_similarity(cg_fold($1), cg_fold(t.title)), 0.9 * word_similarity(cg_fold($1), cg_fold(t.text))${perWord}) AS sim
       FROM unnest($2::text[], $3::text[]) WITH ORDINALITY AS t(title, text, i) ORDER BY t.i`,
      [q, rows.map((x) => x.title), rows.map((x) => x.text)],
    );
    const scorer = new TrigramScorer({ folded: r.rows[0]!.folded, words: r.rows[0]!.words, groups: [] }, multiWord);
    for (const row of r.rows) {
      const candidate = { ...row, id: '', ctid: '', kind: 'merchant' as const, featured: false, popularity: 0, created_ms: 0, lat: null, lng: null };
      const { lower, upper } = scorer.bounds(candidate);
      const sim = scorer.exact(candidate, { lower, upper });
      assert.ok(lower <= sim && sim <= upper, `"${q}" / ${row.title_folded}: ${lower} ≤ ${sim} ≤ ${upper}`);
      assert.is(sim, row.sim, `"${q}" / ${row.title_folded}`);
      checked++;
    }
  }
  assert.ok(checked > 15_000, `${checked} checked`);
});

test('distanceKm is earth_distance(ll_to_earth(…), ll_to_earth(…)) / 1000', async () => {
  const points = POINTS;
  const center = { lat: 45.764, lng: 4.8357 };
  const r = await testPgPool().query<{ d: number }>(
    'SELECT earth_distance(ll_to_earth($1, $2), ll_to_earth(lat, lng)) / 1000 AS d FROM unnest($3::float8[], $4::float8[]) WITH ORDINALITY AS p(lat, lng, i) ORDER BY p.i',
    [center.lat, center.lng, points.map((p) => p.lat), points.map((p) => p.lng)],
  );
  points.forEach((p, i) => {
    const ours = distanceKm(center, p.lat, p.lng)!;
    assert.ok(Math.abs(ours - r.rows[i]!.d) <= 1e-9 * Math.max(1, r.rows[i]!.d), `${JSON.stringify(p)}: ${ours} vs ${r.rows[i]!.d}`);
  });
  assert.is(distanceKm(null, 1, 2), null);
  assert.is(distanceKm(center, null, null), null);
});

test.run();
