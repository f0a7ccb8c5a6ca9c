import type { Knex } from 'knex';
import { evolveMerchant, evolvePool, type ExistingMerchant, type ExistingPool, type Merchant, type Pool } from '@cagnotte/domain';
import type { PoolEvent } from '@cagnotte/event-schemas';
import type { Embedder, SearchIndex } from '@cagnotte/infra';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { embedListings, merchantListing, poolListing, type ListingDraft } from './listings';

const POOL_EVENTS = ['PoolCreated', 'PoolDraftUpdated', 'PoolPublished', 'PoolVisibilityChanged', 'PoolCountryChanged', 'PoolArchived', 'PoolUnarchived'];
const MERCHANT_EVENTS = ['MerchantOnboarded', 'MerchantProfileUpdated', 'MerchantActivated', 'MerchantSuspended'];
const HANDLED = new Set([...POOL_EVENTS, ...MERCHANT_EVENTS]);

type Source = { kind: 'pool'; state: Pool } | { kind: 'merchant'; state: Merchant };
interface SourceRow {
  id: string;
  tenant_id: string;
  kind: 'pool' | 'merchant';
  state: ExistingPool | ExistingMerchant;
  revision: string;
}

const sourceId = (e: ProjectedEvent) =>
  MERCHANT_EVENTS.includes(e.type) ? `merchant:${(e.data as { merchantId: string }).merchantId}` : `pool:${(e.data as { poolId: string }).poolId}`;

/**
 * The search index, fed from pool and merchant events. It folds its own copy of each source with the
 * domain's folds (so it rebuilds alone), then upserts the listings that are findable and removes the rest.
 * With the PostgreSQL index the writes share the projection's transaction; OpenSearch upserts are
 * idempotent by version, so a replay after a crash cannot go backwards.
 */
export const makeSearchProjection = (index: SearchIndex, embedder: Embedder, options: { listingsTable?: string } = {}): Projection => {
  const listingsTable = options.listingsTable;
  const applyMany = async (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap) => {
    const ids = [...new Set(events.map(sourceId))];
    const rows = await trx<SourceRow>(table('rm_search_sources')).whereIn('id', ids);
    const sources = new Map<string, { source: Source; revision: bigint; changed: boolean }>(
      rows.map((r) => [r.id, { source: { kind: r.kind, state: r.state } as Source, revision: BigInt(r.revision), changed: false }]),
    );
    for (const e of events) {
      const id = sourceId(e);
      const known = sources.get(id);
      if (known && e.revision <= known.revision) continue;
      const isMerchant = id.startsWith('merchant:');
      const source: Source = isMerchant
        ? { kind: 'merchant', state: evolveMerchant(known?.source.kind === 'merchant' ? known.source.state : { status: 'none' }, e) }
        : { kind: 'pool', state: evolvePool(known?.source.kind === 'pool' ? known.source.state : { status: 'none' }, e as PoolEvent) };
      if (source.state.status === 'none') continue;
      sources.set(id, { source, revision: e.revision, changed: true });
    }
    const changed = [...sources.entries()].filter(([, v]) => v.changed);
    if (changed.length === 0) return;
    await trx(table('rm_search_sources'))
      .insert(
        changed.map(([id, v]) => ({
          id,
          tenant_id: (v.source.state as ExistingPool | ExistingMerchant).tenantId,
          kind: v.source.kind,
          state: JSON.stringify(v.source.state),
          revision: v.revision.toString(),
        })),
      )
      .onConflict('id')
      .merge();
    const drafts: ListingDraft[] = [];
    const gone: string[] = [];
    for (const [id, v] of changed) {
      const draft =
        v.source.kind === 'pool' ? poolListing(v.source.state as ExistingPool, v.revision) : merchantListing(v.source.state as ExistingMerchant, v.revision);
      if (draft) drafts.push(draft);
      else gone.push(id);
    }
    const ctx = { trx, table: listingsTable ? table(listingsTable) : undefined };
    await index.upsert(await embedListings(embedder, drafts), ctx);
    await index.remove(gone, ctx);
  };
  return {
    name: 'search',
    tables: listingsTable ? ['rm_search_sources', listingsTable] : ['rm_search_sources'],
    handles: (type) => HANDLED.has(type),
    apply: (trx, event, table) => applyMany(trx, [event], table),
    applyMany,
  };
};
