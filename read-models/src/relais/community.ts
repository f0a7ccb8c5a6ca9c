import type { Knex } from 'knex';
import type { CarrierAdapter, PickupPoint, PointQuery } from '@cagnotte/event-schemas';

/** The community network: approved hosts of the tenant, as pick-up points (part B builds it). */
export class CommunityHostsAdapter implements CarrierAdapter {
  readonly network = 'community' as const;
  constructor(private readonly knex: Knex) {}
  async search(_query: PointQuery, _signal: AbortSignal): Promise<PickupPoint[]> {
    void this.knex;
    return [];
  }
  async get(_pointId: string, _tenantId: string | null, _signal: AbortSignal): Promise<PickupPoint | null> {
    return null;
  }
}
