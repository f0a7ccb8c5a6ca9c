/* eslint-disable cagnotte/sql-no-text-sort-key -- the samples are what the rule refuses */
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * Numbers are ordered as numbers, never as text (STYLE.md rule 11). The lint rule cagnotte/sql-no-text-sort-key
 * (scripts/eslint/sql-numbers-as-text.mjs) refuses SQL that orders, compares or pages by a value cast to text, in
 * every .ts file of the workspace; `pnpm lint` runs it on the tree. These specs show it failing on the queries that
 * broke (anchor.ts before its fix, the feed's `transaction_id::text`) and quiet on the forms that carry text safely.
 */
const test = suite('architecture: no SQL sorts or compares numbers as text');
const root = resolve(__dirname, '../../..');
const eslint = new ESLint({ cwd: root });
const RULE = 'cagnotte/sql-no-text-sort-key';
/** The samples are linted with this rule alone (the project's config is checked below to hold it everywhere). */
const ruleOnly = (async () => {
  const plugin = (await import(resolve(root, 'scripts/eslint/sql-numbers-as-text.mjs'))).default;
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser }, plugins: { cagnotte: plugin }, rules: { [RULE]: 'error' } }],
  });
})();

const problems = async (source: string, file = 'infra/src/event-store/x.ts', linter?: ESLint): Promise<string[]> => {
  const [result] = await (linter ?? (await ruleOnly)).lintText(source, { filePath: resolve(root, file) });
  const fatal = result!.messages.filter((m) => m.fatal);
  assert.equal(fatal, [], `the sample parses: ${fatal.map((m) => m.message).join('; ')}`);
  return result!.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
};

/** anchor.ts as it was: bigints selected as ::text under their own names, then ordered by those names. */
const ANCHOR_BEFORE = `
const EVENT_COLUMNS =
  'global_position::text, transaction_id::text AS commit_text, stream_id, stream_revision::text, event_id, type, schema_version, data, metadata, prev_hash, hash';
export const verifyStream = (pool: { query: (sql: string, params: unknown[]) => unknown }, streamId: string) =>
  pool.query(\`SELECT \${EVENT_COLUMNS} FROM es_events WHERE stream_id = $1 ORDER BY stream_revision\`, [streamId]);
`;

const refused: Array<{ why: string; source: string; says?: RegExp }> = [
  { why: 'anchor.ts before the fix: ORDER BY a name an interpolated const gives to a text cast', source: ANCHOR_BEFORE, says: /ORDER BY stream_revision/ },
  { why: 'the last anchor, by text', source: "export const q = 'SELECT anchor_id::text, root, to_commit::text FROM es_anchors ORDER BY anchor_id DESC LIMIT 1';", says: /ORDER BY anchor_id/ },
  { why: 'an anchor batch paged by a text position', source: 'export const q = `SELECT global_position::text FROM es_events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) ORDER BY transaction_id, global_position LIMIT $3`;', says: /ORDER BY global_position/ },
  { why: "the feed's transaction_id::text as a sort key", source: "export const q = 'SELECT * FROM es_events ORDER BY transaction_id::text, global_position';" },
  { why: 'an ordinal naming a text cast', source: "export const q = 'SELECT stream_id, stream_revision::text FROM es_events ORDER BY 1, 2';", says: /output column 2/ },
  { why: 'an explicit alias', source: "export const q = 'SELECT stream_revision::text AS rev FROM es_events ORDER BY rev';" },
  { why: "a subquery's text alias, qualified", source: "export const q = 'SELECT x.r FROM (SELECT stream_revision::text AS r FROM es_events) x ORDER BY x.r';", says: /subquery/ },
  { why: 'CAST(… AS text)', source: "export const q = 'SELECT * FROM es_anchors ORDER BY CAST(anchor_id AS text) DESC';" },
  { why: 'to_char', source: "export const q = `SELECT to_char(global_position, 'FM999999') AS p FROM es_events ORDER BY p`;" },
  { why: 'a window ordered by text', source: "export const q = 'SELECT row_number() OVER (ORDER BY global_position::text) FROM es_events';" },
  { why: 'an aggregate ordered by text', source: "export const q = 'SELECT json_agg(e.hash ORDER BY e.stream_revision::text) FROM es_events e';" },
  { why: 'a text comparison', source: "export const q = 'SELECT * FROM es_events WHERE stream_revision::text > $1';", says: /compares as text/ },
  { why: 'a text cursor', source: "export const q = 'SELECT * FROM es_events WHERE (transaction_id::text, global_position) > ($1, $2)';" },
  { why: 'BETWEEN texts', source: "export const q = 'SELECT * FROM es_events WHERE global_position::text BETWEEN $1 AND $2';" },
  { why: 'the textual max', source: "export const q = 'SELECT max(stream_revision::text) FROM es_events';", says: /max of a value cast to text/ },
  { why: 'a concatenation', source: "export const q = 'SELECT stream_revision::text FROM es_events ' + 'ORDER BY stream_revision';" },
  {
    why: 'knex: orderBy a text alias of the same chain',
    source: "import type { Knex } from 'knex';\nexport const q = (knex: Knex) => knex('es_events').select(knex.raw('stream_revision::text AS stream_revision')).orderBy('stream_revision');",
  },
  {
    why: 'knex: orderBy [{ column }] of a text alias',
    source: "import type { Knex } from 'knex';\nexport const q = (knex: Knex) => knex('t').select('id', knex.raw('revision::text AS rev')).orderBy([{ column: 'rev', order: 'desc' }]);",
  },
  { why: 'knex: orderByRaw a text cast', source: "import type { Knex } from 'knex';\nexport const q = (knex: Knex) => knex('t').orderByRaw('revision::text DESC');" },
];

const allowed: Array<{ why: string; source: string }> = [
  { why: 'anchor.ts after the fix: numbers as themselves, the xid8 carried as commit_text', source: ANCHOR_BEFORE.replace("'global_position::text, transaction_id::text AS commit_text, stream_id, stream_revision::text,", "'global_position, transaction_id::text AS commit_text, stream_id, stream_revision,") },
  { why: 'a text parameter cast on to xid8, in a cursor', source: 'export const q = `SELECT global_position, transaction_id::text AS commit_text FROM es_events WHERE (transaction_id, global_position) > ($1::text::xid8, $2::bigint) ORDER BY transaction_id, global_position LIMIT $3`;' },
  { why: 'the max taken on the number, then carried as text', source: "export const q = 'SELECT max(global_position)::text AS global_position, pg_current_xact_id()::text AS commit_text FROM ins';" },
  { why: 'a text[] parameter', source: "export const q = 'SELECT * FROM rm_audit_events e WHERE e.type = ANY(?::text[]) ORDER BY e.revision';" },
  { why: 'a text parameter compared with a text column', source: "export const q = 'SELECT * FROM es_streams WHERE stream_id = $1::text';" },
  { why: 'a pattern match on a document', source: "export const q = 'SELECT count(*) FROM es_events WHERE data::text LIKE ?';" },
  { why: 'an ordinal naming a number', source: "export const q = 'SELECT stream_revision, transaction_id::text AS commit_text FROM es_events ORDER BY 1';" },
  { why: 'a qualified column whose text is carried without an alias', source: "export const q = 'SELECT e.stream_revision::text FROM es_events e ORDER BY e.stream_revision';" },
  { why: 'a text cast ordered by another name', source: "export const q = 'SELECT stream_revision::text AS revision_text FROM es_events ORDER BY stream_revision';" },
  {
    why: 'knex: text carried, ordered by another column',
    source: "import type { Knex } from 'knex';\nexport const q = (knex: Knex) => knex('projection_checkpoints').select('name', knex.raw('commit_position::text AS c')).orderBy('name');",
  },
];

for (const c of refused) {
  test(`refuses: ${c.why}`, async () => {
    const found = await problems(c.source);
    assert.ok(found.length > 0, `expected ${RULE} to refuse:\n${c.source}`);
    if (c.says) assert.match(found.join('\n'), c.says);
  });
}

for (const c of allowed) {
  test(`allows: ${c.why}`, async () => {
    assert.equal(await problems(c.source), []);
  });
}

test('anchor.ts as it stands passes; the rule is on for every package, specs, scripts and the sandbox network included', async () => {
  const file = 'infra/src/event-store/anchor.ts';
  assert.equal(await problems(readFileSync(resolve(root, file), 'utf8'), file, eslint), [], 'with the project config');
  for (const f of ['infra/src/x.ts', 'infra/sandbox-ledger/src/x.ts', 'command-api/src/x.ts', 'query-api/src/x.ts', 'read-models/src/x.ts', 'projectors/src/x.int.spec.ts', 'domain/src/x.ts', 'event-schemas/src/x.ts', 'scripts/bench/x.ts', 'scripts/e2e/x.e2e.spec.ts']) {
    const config = (await eslint.calculateConfigForFile(resolve(root, f))) as { rules?: Record<string, unknown> };
    const level = config.rules?.[RULE];
    assert.equal(Array.isArray(level) ? level[0] : level, 2, `${RULE} is an error in ${f}`);
  }
});

test('every .sql file of the project passes the same rule (ESLint reads .ts only: each file is checked as a template)', async () => {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      if (name === 'node_modules' || name.startsWith('.')) continue;
      const full = join(dir, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (name.endsWith('.sql')) found.push(full);
    }
  };
  walk(root);
  assert.ok(found.length > 0, 'scripts/audit/anchor-export.sql at least');
  for (const f of found) {
    const sql = readFileSync(f, 'utf8').replace(/\\/g, '\\\\').replace(/`/g, '\\`').replace(/\$\{/g, '\\${');
    assert.equal(await problems(`export const sql = \`${sql}\`;\n`), [], relative(root, f));
  }
  // And the wrapping does not hide a bad one.
  assert.ok((await problems('export const sql = `SELECT json_agg(e.id ORDER BY e.stream_revision::text) FROM es_events e`;\n')).length > 0);
});

test.run();
