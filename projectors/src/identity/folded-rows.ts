import type { Knex } from 'knex';
import type { FoldEvent } from '@cagnotte/read-models';
import type { ProjectedEvent, TableMap } from '../runtime';

/**
 * A read-model table whose rows are documents folded from events by a pure fold of @cagnotte/read-models:
 * which document an event belongs to, the fold, and the mapping between a document and its row.
 */
export interface FoldedTable<D> {
  /** Logical table name (the runtime maps it to the live table or its rebuild twin). */
  table: string;
  /** Its primary-key column. */
  key: string;
  /** Which document the event folds into, or null when the event is not for this table. */
  keyOf(e: FoldEvent): string | null;
  fold(doc: D | null, e: FoldEvent): D | null;
  toRow(doc: D): object;
  /** `never`: each table reads its own row type (whatever the select answered is handed over as is). */
  fromRow(row: never): D;
}

/**
 * Folds a batch in memory over the rows it touches, then writes them with one select and one multi-row upsert.
 * A fold answers the same document for an event it has already applied, so a replayed batch writes nothing.
 */
export const applyFolded = async <D>(trx: Knex.Transaction, events: readonly ProjectedEvent[], t: FoldedTable<D>, table: TableMap): Promise<void> => {
  const keyed = events.flatMap((e) => {
    const key = t.keyOf(e);
    return key === null ? [] : [{ key, e }];
  });
  if (keyed.length === 0) return;
  const keys = [...new Set(keyed.map((k) => k.key))];
  const rows = (await trx(table(t.table)).whereIn(t.key, keys)) as never[];
  const before = new Map<string, D>(rows.map((r) => [(r as Record<string, string>)[t.key]!, t.fromRow(r)]));
  const after = new Map<string, D | null>(before);
  for (const { key, e } of keyed) after.set(key, t.fold(after.get(key) ?? null, e));
  const changed = keys.flatMap((k) => {
    const doc = after.get(k) ?? null;
    return doc !== null && doc !== before.get(k) ? [doc] : [];
  });
  if (changed.length === 0) return;
  await trx(table(t.table)).insert(changed.map(t.toRow)).onConflict(t.key).merge();
};
