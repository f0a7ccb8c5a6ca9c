import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import knexFactory, { type Knex } from 'knex';
import { PUBLIC_EVENT_TYPES } from './catalogue';
import { whereTypes } from './feed-reader';
import { matchesEnabledEvents } from './type-match';

/**
 * The type patterns exist twice: in JavaScript (matchesEnabledEvents, what the webhook dispatcher asks) and in SQL
 * (whereTypes, the feed's `types` filter). Over every catalogue type and a set of patterns, run in PostgreSQL on
 * rows of a VALUES list, both must take exactly the same types.
 */
const test = suite('type patterns: whereTypes agrees with matchesEnabledEvents');

let knex: Knex;
test.before(() => {
  knex = knexFactory({ client: 'pg', connection: process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', pool: { min: 0, max: 1 } });
});
test.after(async () => {
  await knex.destroy();
});

const PATTERNS: string[][] = [['*'], ['reservation.*'], ['pool.*', 'payout.settled'], ['pool.closed'], ['dispute.*', 'refund.*'], ['invoice.issued', 'reservation.paid'], ['stray_payment.*']];

test('every catalogue type under every pattern list: SQL and JavaScript take the same types', async () => {
  const types = [...PUBLIC_EVENT_TYPES, 'pools.closed', 'reservationx.paid'];
  for (const patterns of PATTERNS) {
    const values = types.map(() => '(?)').join(', ');
    const rows: Array<{ type: string }> = await whereTypes(knex.select('type').from(knex.raw(`(VALUES ${values}) AS t(type)`, types)), patterns);
    const sql = rows.map((r) => r.type).sort();
    const js = types.filter((t) => matchesEnabledEvents(patterns, t)).sort();
    assert.equal(sql, js, patterns.join(','));
    assert.ok(js.length > 0, `${patterns.join(',')} takes some type`);
  }
});

test.run();
