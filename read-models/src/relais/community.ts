import type { Knex } from 'knex';
import type { CarrierAdapter, PickupPoint, PickupPointStatus, PointQuery } from '@cagnotte/event-schemas';
import { isUuid } from '../shared';
import { RELAIS_HOSTS_TABLE, relaisHostDocOf, type RelaisHostRow } from './hosts-tables';
import { relaisHostPointId } from './hosts-view';
import type { RelaisHostDoc } from './hosts-fold';

/** Metres between two positions on the sphere (haversine), in SQL: `lat`, `lng` columns against the bound centre. */
const DISTANCE_SQL = `(2 * 6371000 * asin(sqrt(power(sin(radians(lat - ?) / 2), 2) + cos(radians(?)) * cos(radians(lat)) * power(sin(radians(lng - ?) / 2), 2))))`;

const statusOf = (host: RelaisHostDoc): PickupPointStatus | null => {
  switch (host.status) {
    case 'pending':
      return null;
    case 'rejected':
    case 'retired':
      return 'retired';
    default:
      return host.status;
  }
};

const toPoint = (host: RelaisHostDoc, status: PickupPointStatus, fetchedAt: string, distanceM?: number): PickupPoint => ({
  id: relaisHostPointId(host.hostId),
  network: 'community',
  kind: 'community_host',
  name: host.profile.name,
  address: host.profile.address,
  geo: host.profile.geo,
  ...(distanceM !== undefined ? { distanceM: Math.max(0, Math.round(distanceM)) } : {}),
  openingHours: host.profile.openingHours,
  closures: host.profile.closures,
  maxWeightG: host.profile.capacity.maxWeightG,
  status,
  fetchedAt,
});

/**
 * The community network (docs/relais.md): the approved, active hosts of the query's tenant near a position, or near a
 * postal code (around the hosts that have it, or, when none has, around those of its first three characters), as
 * pick-up points (`community:<hostId>`, kind `community_host`, the host's capacity as `maxWeightG`). Its closures and
 * hours are as the host declared them (the directory filters `openOn`). No labels: a shipment books the host's capacity.
 */
export class CommunityHostsAdapter implements CarrierAdapter {
  readonly network = 'community' as const;
  constructor(
    private readonly knex: Knex,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Where a postal-code search is centred: the hosts with that code, else those sharing its first three characters. */
  private async centreOf(tenantId: string, country: string, postalCode: string): Promise<{ lat: number; lng: number } | null> {
    const centroid = async (where: (q: Knex.QueryBuilder) => Knex.QueryBuilder) => {
      const row = (await where(this.knex(RELAIS_HOSTS_TABLE).where({ tenant_id: tenantId, country, status: 'active' }))
        .select(this.knex.raw('avg(lat)::float8 AS lat, avg(lng)::float8 AS lng, count(*)::int AS n'))
        .first()) as { lat: number | null; lng: number | null; n: number } | undefined;
      return row && row.n > 0 && row.lat !== null && row.lng !== null ? { lat: Number(row.lat), lng: Number(row.lng) } : null;
    };
    return (await centroid((q) => q.andWhere('postal_code', postalCode))) ?? (postalCode.length >= 3 ? await centroid((q) => q.andWhere('postal_code', 'like', `${postalCode.slice(0, 3).replace(/[%_\\]/g, '')}%`)) : null);
  }

  async search(query: PointQuery, _signal: AbortSignal): Promise<PickupPoint[]> {
    if (!query.tenantId || !isUuid(query.tenantId)) return [];
    const centre =
      query.lat !== undefined && query.lng !== undefined ? { lat: query.lat, lng: query.lng } : query.postalCode ? await this.centreOf(query.tenantId, query.country, query.postalCode) : null;
    if (!centre) return [];
    const distance = this.knex.raw(DISTANCE_SQL, [centre.lat, centre.lat, centre.lng]);
    let q = this.knex
      .select('*', this.knex.raw(`${DISTANCE_SQL}::float8 AS distance_m`, [centre.lat, centre.lat, centre.lng]))
      .from(RELAIS_HOSTS_TABLE)
      .where({ tenant_id: query.tenantId, country: query.country, status: 'active' })
      .andWhere(distance, '<=', query.radiusKm * 1000);
    if (query.weightG !== undefined) q = q.andWhere('max_weight_g', '>=', query.weightG);
    const rows = (await q.orderBy('distance_m', 'asc').orderBy('seq', 'asc').limit(query.limit)) as Array<RelaisHostRow & { distance_m: number }>;
    const fetchedAt = this.now().toISOString();
    return rows.map((r) => toPoint(relaisHostDocOf(r), 'active', fetchedAt, Number(r.distance_m)));
  }

  async get(pointId: string, tenantId: string | null, _signal: AbortSignal): Promise<PickupPoint | null> {
    if (!isUuid(pointId) || (tenantId !== null && !isUuid(tenantId))) return null;
    const row = (await this.knex(RELAIS_HOSTS_TABLE)
      .where({ id: pointId, ...(tenantId ? { tenant_id: tenantId } : {}) })
      .first()) as RelaisHostRow | undefined;
    if (!row) return null;
    const host = relaisHostDocOf(row);
    const status = statusOf(host);
    return status ? toPoint(host, status, this.now().toISOString()) : null;
  }
}
