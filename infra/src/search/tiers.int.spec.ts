import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { params, tierColumns, tierTags, TIERS } from './postgres';
import { testPgPool } from '../testing/resources';

/**
 * A text search reads a section tier by tier (TIERS, postgres.ts) and stops at its LIMIT: that reads the same rows as
 * the popularity order only if every listing is in exactly one tier, the same by its tag (migration 028's
 * `cg_search_tier`, what the text index finds) and by its columns (what bounds the popularity index), and the tiers
 * in their order follow the popularity order.
 */
const test = suite('search tiers follow the popularity order');

const POPULARITIES = [0, 0.5, 0.99, 1, 2, 2.99, 3, 6.5, 7, 14, 15, 30.9, 31, 62.99, 63, 64, 126, 127, 200, 254.5, 255, 511, 1022.9, 1023, 1024, 1e6];

test('each listing is in one tier, the same by tag and by columns, in popularity order', async () => {
  const listings = [true, false].flatMap((featured) => POPULARITIES.map((popularity) => ({ featured, popularity })));
  const tierOf: number[] = [];
  for (const { featured, popularity } of listings) {
    const { p, values } = params();
    const l = `(SELECT ${p(featured)}::boolean AS featured, ${p(popularity)}::real AS popularity) l`;
    const checks = TIERS.map((tier) => `cg_search_tier(l.featured, l.popularity) @@ ${p(tierTags(tier))}::tsquery AS tag_${TIERS.indexOf(tier)}, (${tierColumns(tier, p)}) AS columns_${TIERS.indexOf(tier)}`);
    const row = (await testPgPool().query<Record<string, boolean>>({ text: `SELECT ${checks.join(', ')} FROM ${l}`, values })).rows[0]!;
    const byTag = TIERS.map((_, i) => i).filter((i) => row[`tag_${i}`]);
    const byColumns = TIERS.map((_, i) => i).filter((i) => row[`columns_${i}`]);
    assert.equal(byTag.length, 1, `featured ${featured}, popularity ${popularity}: tiers by tag ${byTag}`);
    assert.equal(byColumns, byTag, `featured ${featured}, popularity ${popularity}: tiers by columns ${byColumns}, by tag ${byTag}`);
    tierOf.push(byTag[0]!);
  }
  // Featured first, then by popularity, most popular first: the tiers never go back.
  const order = listings.map((l, i) => ({ ...l, tier: tierOf[i]! })).sort((a, b) => Number(b.featured) - Number(a.featured) || b.popularity - a.popularity);
  for (let i = 1; i < order.length; i++) {
    assert.ok(order[i]!.tier >= order[i - 1]!.tier, `tier ${order[i]!.tier} of ${JSON.stringify(order[i])} after tier ${order[i - 1]!.tier}`);
  }
  // Every tier holds some of these.
  assert.equal([...new Set(tierOf)].sort((a, b) => a - b), TIERS.map((_, i) => i));
});

test('a tier tag is not a word of the vocabulary', async () => {
  const r = await testPgPool().query<{ words: string[] }>(
    `SELECT tsvector_to_array(to_tsvector('simple', 'f0 p3 fromage') || cg_search_tier(true, 5)) AS words`,
  );
  assert.equal(r.rows[0]!.words.filter((w) => w.startsWith(' ')), [' f2']);
  assert.ok(r.rows[0]!.words.includes('f0') && r.rows[0]!.words.includes('p3'), 'words like f0 and p3 stay words');
});

test.run();
