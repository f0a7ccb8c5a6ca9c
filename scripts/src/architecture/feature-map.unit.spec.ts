import { readFileSync } from 'node:fs';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ARCHITECTURE_DOC, FEATURES, MAP_END, MAP_START, documentedMap, featureMap, renderFeatureMap, withMap } from './feature-map';

/**
 * docs/architecture.md shows the feature map the sources give, as `pnpm architecture` prints it: a feature moved,
 * added or grown without `pnpm architecture -- --write` fails here, so the map a newcomer reads is never stale.
 */
const test = suite('architecture: the documented feature map is the generated one');

test('docs/architecture.md holds exactly the map pnpm architecture prints', () => {
  const documented = documentedMap();
  assert.ok(documented !== null, `docs/architecture.md lacks the markers ${MAP_START} … ${MAP_END}`);
  assert.fixture(documented, renderFeatureMap(), 'run `pnpm architecture -- --write` and commit docs/architecture.md');
});

test('given a map that differs by one line of source, the check sees it', () => {
  const doc = readFileSync(ARCHITECTURE_DOC, 'utf8');
  const map = featureMap();
  const grown = { ...map, rows: map.rows.map((r, i) => (i === 0 ? { ...r, cells: r.cells.map((c) => (c ? { ...c, lines: c.lines + 1 } : c)) } : r)) };
  const stale = withMap(doc, renderFeatureMap(grown));
  assert.is.not(documentedMap(stale), renderFeatureMap());
  assert.is(documentedMap(withMap(stale, renderFeatureMap())), renderFeatureMap());
});

test('every feature has a row, in the order FEATURES names them, and a missing folder shows as ·', () => {
  const rendered = renderFeatureMap();
  const rows = rendered.split('\n').filter((l) => /^\| [a-z]/.test(l) && !l.startsWith('| feature'));
  assert.equal(rows.map((l) => l.split('|')[1]!.trim()), [...FEATURES]);
  const relais = featureMap().rows.find((r) => r.feature === 'relais')!;
  if (relais.cells.every((c) => c === null)) assert.ok(rows.find((l) => l.startsWith('| relais'))!.includes('·'));
});

test.run();
