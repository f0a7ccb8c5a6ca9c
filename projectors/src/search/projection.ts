import type { Knex } from 'knex';
import type { Embedder, SearchIndex } from '@cagnotte/infra';
import {
  SEARCH_TABLES,
  foldSearchSource,
  isSearchSourceEvent,
  listingOfSource,
  merchantPopularity,
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
    // Merchants whose popularity may have moved: those changed here, and the sellers of pools changed here.
    const sources_ = table(SEARCH_TABLES.sources);
    const sellers = new Map<string, Set<string>>();
    for (const [, v] of changed) {
      if (v.source.kind === 'pool' && v.source.doc.fields.sellerId) {
        const t = sellers.get(v.source.doc.tenantId) ?? new Set<string>();
        t.add(v.source.doc.fields.sellerId);
        sellers.set(v.source.doc.tenantId, t);
      }
    }
    const affected = new Map<string, { source: SearchSource; revision: bigint }>(changed.filter(([, v]) => v.source.kind === 'merchant').map(([id, v]) => [id, v]));
    for (const [tenantId, owners] of sellers) {
      const rows = await trx<SearchSourceRow>(sources_).where({ kind: 'merchant', tenant_id: tenantId }).whereRaw("state->>'ownerUserId' = ANY(?)", [[...owners]]);
      for (const r of rows) if (!affected.has(r.id)) affected.set(r.id, searchSourceOfRow(r));
    }
    const popularity = new Map<string, number>();
    for (const [id, v] of affected) {
      if (v.source.kind !== 'merchant' || !v.source.doc.ownerUserId) continue;
      const pools = await trx(sources_)
        .where({ kind: 'pool', tenant_id: v.source.doc.tenantId })
        .whereRaw("state->'fields'->>'sellerId' = ?", [v.source.doc.ownerUserId])
        .select<{ holders: Record<string, string> | null }[]>('holders');
      popularity.set(id, merchantPopularity(pools.map((p) => p.holders ?? {}), v.source.doc.ownerUserId));
    }
    const drafts: ListingDraft[] = [];
    const gone: string[] = [];
    for (const [id, v] of [...changed, ...[...affected].filter(([id]) => !changed.some(([c]) => c === id)).map(([id, v]) => [id, { ...v, changed: false }] as const)]) {
      const draft = listingOfSource(v, popularity.get(id) ?? 0);
      if (draft) drafts.push(draft);
      else if (v.changed) gone.push(id);
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
