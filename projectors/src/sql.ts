import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

/**
 * Batched, prepared row writes for projections. Each statement is named after a digest of its text, so the pg
 * connection parses and plans it once and later batches only bind and execute it (the text, table names included,
 * fixes the name: the `__rebuild` twin of a table is a statement of its own). Rows travel as one JSON parameter
 * unpacked by json_to_recordset, so a statement's text never depends on how many rows it writes.
 */

const names = new Map<string, string>();
const statementName = (sql: string): string => {
  let name = names.get(sql);
  if (!name) {
    name = `pj_${createHash('sha1').update(sql).digest('hex').slice(0, 20)}`;
    if (names.size > 1000) names.clear();
    names.set(sql, name);
  }
  return name;
};

const id = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** Runs `sql` (knex `?` placeholders, no identifiers to bind) as a named prepared statement on the transaction's connection. */
export const prepared = <R = Record<string, unknown>>(trx: Knex | Knex.Transaction, sql: string, bindings: readonly unknown[]): Promise<{ rows: R[] }> =>
  trx.raw(sql, bindings as Knex.RawBinding[]).options({ name: statementName(sql) }) as unknown as Promise<{ rows: R[] }>;

/**
 * The columns of a batched write: name → SQL type as json_to_recordset reads it, or `text::jsonb` for a value that
 * arrives as JSON text (read as text, then cast: the JSON column values that row mappings already serialise).
 */
export type Columns = Record<string, string>;

/**
 * One multi-row upsert: `INSERT INTO table (cols) SELECT cols FROM json_to_recordset($1) … ON CONFLICT (key) DO
 * UPDATE SET` every other column (or DO NOTHING when `update` is false), `where` guarding the update (written
 * against `t`, the row in place, and `excluded`). A row whose key repeats in `rows` must not occur: fold first.
 * Answers the first key column of the rows it inserted or updated (not those the guard or DO NOTHING left alone).
 */
export const upsertRows = async (
  trx: Knex.Transaction,
  table: string,
  columns: Columns,
  key: readonly string[],
  rows: readonly object[],
  o: { update?: boolean; where?: string } = {},
): Promise<string[]> => {
  if (rows.length === 0) return [];
  const cols = Object.keys(columns);
  const list = cols.map(id).join(', ');
  const read = (c: string) => columns[c]!.split('::')[0]!;
  const value = (c: string) => (columns[c]!.includes('::') ? `x.${id(c)}::${columns[c]!.split('::')[1]!}` : `x.${id(c)}`);
  const set = cols.filter((c) => !key.includes(c)).map((c) => `${id(c)} = excluded.${id(c)}`);
  const action = o.update === false || set.length === 0 ? 'DO NOTHING' : `DO UPDATE SET ${set.join(', ')}${o.where ? ` WHERE ${o.where}` : ''}`;
  const sql =
    `INSERT INTO ${id(table)} AS t (${list}) SELECT ${cols.map(value).join(', ')} FROM json_to_recordset(?::json) AS x(${cols.map((c) => `${id(c)} ${read(c)}`).join(', ')}) ` +
    `ON CONFLICT (${key.map(id).join(', ')}) ${action} RETURNING t.${id(key[0]!)}::text AS k`;
  return (await prepared<{ k: string }>(trx, sql, [JSON.stringify(rows)])).rows.map((r) => r.k);
};

/** An array parameter, sent as JSON text (knex would spread a JavaScript array into a list of parameters). */
const anyOf = (type: string) => `ARRAY(SELECT json_array_elements_text(?::json))::${type}[]`;

/** Rows of `table` whose `column` (of SQL type `type`) is one of `values`, as one prepared statement. */
export const selectWhereIn = async <R>(trx: Knex.Transaction, table: string, select: readonly string[], column: string, type: string, values: readonly unknown[]): Promise<R[]> => {
  if (values.length === 0) return [];
  const sql = `SELECT ${select.join(', ')} FROM ${id(table)} WHERE ${id(column)} = ANY(${anyOf(type)})`;
  return (await prepared<R>(trx, sql, [JSON.stringify(values)])).rows;
};

/** Deletes the rows of `table` whose `column` is one of `values`, as one prepared statement. */
export const deleteWhereIn = async (trx: Knex.Transaction, table: string, column: string, type: string, values: readonly unknown[]): Promise<void> => {
  if (values.length === 0) return;
  await prepared(trx, `DELETE FROM ${id(table)} WHERE ${id(column)} = ANY(${anyOf(type)})`, [JSON.stringify(values)]);
};
