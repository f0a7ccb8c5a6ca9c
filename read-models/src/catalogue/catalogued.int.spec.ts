import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import knexFactory, { type Knex } from 'knex';
import { MarketplaceVisibility, PoolStatus, PoolType } from '@cagnotte/event-schemas';
import { isCatalogued, whereCatalogued, type VisibilityFacts } from '../pools/visibility';

/**
 * The catalogue's rule exists twice, as a predicate (isCatalogued) and as its SQL twin (whereCatalogued, what
 * CatalogueReadModel.groupBuys filters rm_pools with). Over every combination of type, status, marketplace
 * visibility and archived, run in PostgreSQL on rows of a VALUES list, both must admit exactly the same pools.
 */
const test = suite('visibility: whereCatalogued agrees with isCatalogued');

let knex: Knex;
test.before(() => {
  knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', pool: { min: 0, max: 1 } });
});
test.after(async () => {
  await knex.destroy();
});

const combinations: Array<VisibilityFacts & { id: string }> = PoolType.options.flatMap((type) =>
  PoolStatus.options.flatMap((status) =>
    MarketplaceVisibility.options.flatMap((marketplaceVisibility) =>
      [false, true].map((archived) => ({ id: `${type}/${status}/${marketplaceVisibility}/${archived ? 'archived' : 'live'}`, type, status, marketplaceVisibility, archived })),
    ),
  ),
);

test('every combination: the SQL twin selects exactly the rows the predicate admits', async () => {
  assert.is(combinations.length, 2 * PoolStatus.options.length * 3 * 2);
  const values = combinations.map(() => '(?, ?, ?, ?, ?::timestamptz)').join(', ');
  const bindings = combinations.flatMap((c) => [c.id, c.type, c.status, c.marketplaceVisibility, c.archived ? '2025-01-01T00:00:00Z' : null]);
  const rows = knex.select('p.id').from(knex.raw(`(VALUES ${values}) AS p (id, type, status, marketplace_visibility, archived_at)`, bindings));
  const selected: Array<{ id: string }> = await whereCatalogued(rows, 'p');
  const bySql = new Set(selected.map((r) => r.id));
  const byPredicate = new Set(combinations.filter(isCatalogued).map((c) => c.id));
  assert.ok(byPredicate.size > 0 && byPredicate.size < combinations.length, 'the rule admits some pools and refuses others');
  for (const c of combinations) assert.is(bySql.has(c.id), byPredicate.has(c.id), c.id);
});

test.run();
