import type { Knex } from 'knex';
import type { Embedder, SearchIndex } from '@cagnotte/infra';
import {
  SEARCH_TABLES,
  foldSearchSource,
  isSearchSourceEvent,
  listingOfSource,
  searchSourceId,
  searchSourceOfRow,
  searchSourceRowOf,
  type ListingDraft,
  type SearchSource,
  type SearchSourceRow,
} from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { embedListings } from './listings';

export interface SearchProjectionDeps {
  searchIndex: SearchIndex;
  embedder: Embedder;
  /** The PostgreSQL index's listings table, when it is a table of this projection (rebuilt with it). */
  listingsTable?: string;
}

/**
 * The search index, fed from pool and merchant events. It folds its own copy of each source with the read
 * models' folds (so it rebuilds alone), then upserts the listings that are findable and removes the rest.
 * With the PostgreSQL index the writes share the projection's transaction; OpenSearch upserts are
 * idempotent by version, so a replay after a crash cannot go backwards.
 */
export const makeSearchProjection = ({ searchIndex: index, embedder, listingsTable }: SearchProjectionDeps): Projection => {
  const applyMany = async (trx: Knex.Transaction, batch: ProjectedEvent[], table: TableMap) => {
    const events = batch.filter((e) => isSearchSourceEvent(e));
    const ids = [...new Set(events.map(searchSourceId))];
    if (ids.length === 0) return;
    const rows = await trx<SearchSourceRow>(table(SEARCH_TABLES.sources)).whereIn('id', ids);
    const sources = new Map<string, { source: SearchSource; revision: bigint; changed: boolean }>(
      rows.map((r) => [r.id, { ...searchSourceOfRow(r), changed: false }]),
    );
    for (const e of events) {
      const id = searchSourceId(e);
      const known = sources.get(id) ?? null;
      if (known && e.revision <= known.revision) continue;
      const next = foldSearchSource(known, e, e.revision);
      if (!next) continue;
      sources.set(id, { ...next, changed: true });
    }
    const changed = [...sources.entries()].filter(([, v]) => v.changed);
    if (changed.length === 0) return;
    await trx(table(SEARCH_TABLES.sources))
      .insert(changed.map(([id, v]) => searchSourceRowOf(id, v)))
      .onConflict('id')
      .merge();
    const drafts: ListingDraft[] = [];
    const gone: string[] = [];
    for (const [id, v] of changed) {
      const draft = listingOfSource(v);
      if (draft) drafts.push(draft);
      else gone.push(id);
    }
    const ctx = { trx, table: listingsTable ? table(listingsTable) : undefined };
    await index.upsert(await embedListings(embedder, drafts), ctx);
    await index.remove(gone, ctx);
  };
  return {
    name: 'search',
    tables: listingsTable ? [SEARCH_TABLES.sources, listingsTable] : [SEARCH_TABLES.sources],
    handles: (type) => isSearchSourceEvent({ type }),
    apply: (trx, event, table) => applyMany(trx, [event], table),
    applyMany,
  };
};
