import type { Knex } from 'knex';
import { POOL_TABLES, type PoolRow } from '@cagnotte/infra';
import type { Projection } from '../runtime';
import { foldPoolDoc, pickupPointsOf, relaisChanged, type PoolDoc } from './fold';

const HANDLED = new Set(['PoolCreated', 'PoolDraftUpdated', 'PoolPublished', 'PoolVisibilityChanged', 'PoolCountryChanged', 'PoolArchived', 'PoolUnarchived']);

/** GroupBuy read model: pool rows, their members and their pick-up points. */
export const poolsProjection: Projection = {
  name: 'pools',
  tables: [POOL_TABLES.pools, POOL_TABLES.members, POOL_TABLES.pickupPoints],
  handles: (type) => HANDLED.has(type),
  async apply(trx: Knex.Transaction, event, table) {
    const poolId = (event.data as { poolId: string }).poolId;
    const row = await trx<PoolRow>(table(POOL_TABLES.pools)).where({ id: poolId }).first();
    const before: PoolDoc | null = row ? { pool: row.doc, revision: BigInt(row.revision) } : null;
    const after = foldPoolDoc(before, event, event.revision);
    if (!after || after === before) return;
    const p = after.pool;
    const values = {
      id: p.id,
      tenant_id: p.tenantId,
      organiser_id: p.organiserId,
      type: p.type,
      status: p.status,
      marketplace_visibility: p.fields.marketplaceVisibility,
      archived_at: p.archivedAt,
      country: p.fields.country,
      title: p.fields.title,
      doc: JSON.stringify(p),
      created_at: p.createdAt,
      updated_at: p.updatedAt,
      revision: after.revision.toString(),
    };
    await trx(table(POOL_TABLES.pools)).insert(values).onConflict('id').merge();

    if (event.type === 'PoolCreated') {
      await trx(table(POOL_TABLES.members))
        .insert({ pool_id: p.id, user_id: p.organiserId, tenant_id: p.tenantId, display_name: p.organiserName, role: 'organiser', joined_at: p.createdAt })
        .onConflict(['pool_id', 'user_id'])
        .ignore();
    }
    if (relaisChanged(before, after)) {
      await trx(table(POOL_TABLES.pickupPoints)).where({ pool_id: p.id }).delete();
      // Ids are unique by rule; should an old event break it, the last point wins instead of jamming the feed.
      const points = [...new Map(pickupPointsOf(p).map((r) => [r.id, r])).values()];
      if (points.length > 0) {
        await trx(table(POOL_TABLES.pickupPoints)).insert(
          points.map((r, i) => ({
            pool_id: p.id,
            point_id: r.id,
            tenant_id: p.tenantId,
            sort_order: i,
            name: r.name,
            address: r.address ?? null,
            postal_code: r.postalCode ?? null,
            city: r.city ?? null,
            country: r.country ?? null,
            lat: r.lat ?? null,
            lng: r.lng ?? null,
            opening_hours: r.openingHours ?? null,
          })),
        );
      }
    }
  },
};
