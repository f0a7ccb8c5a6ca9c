import type { CarrierAdapter, PickupPoint, PointSearch, RelaisDirectoryPort, RelaisNetwork, SourceReport } from '@cagnotte/event-schemas';
import { parsePickupPointId } from '@cagnotte/event-schemas';

/**
 * An in-memory pick-up point directory for specs: the points it knows (set them, change them), what it was asked, and
 * a switch that makes a network fail (`resolve` then throws, as the real directory does when a network cannot answer).
 */
export class InMemoryRelaisDirectory implements RelaisDirectoryPort {
  readonly points = new Map<string, PickupPoint>();
  /** Every `resolve` call: the ids and whether it asked fresh. */
  readonly resolved: Array<{ ids: string[]; tenantId: string | null; fresh: boolean }> = [];
  readonly failing = new Set<RelaisNetwork>();

  constructor(points: PickupPoint[] = []) {
    for (const p of points) this.points.set(p.id, p);
  }

  set(point: PickupPoint): this {
    this.points.set(point.id, point);
    return this;
  }

  async search(query: PointSearch): Promise<{ items: PickupPoint[]; sources: SourceReport[] }> {
    const items = [...this.points.values()].filter((p) => p.status === 'active' && (!query.networks || query.networks.includes(p.network))).slice(0, query.limit);
    return { items, sources: [] };
  }

  async resolve(ids: string[], tenantId: string | null, options: { fresh?: boolean } = {}): Promise<Map<string, PickupPoint | null>> {
    this.resolved.push({ ids: [...ids], tenantId, fresh: options.fresh === true });
    const out = new Map<string, PickupPoint | null>();
    for (const id of ids) {
      const network = parsePickupPointId(id)?.network;
      if (network && this.failing.has(network)) throw new Error(`relais network ${network} did not answer`);
      out.set(id, this.points.get(id) ?? null);
    }
    return out;
  }

  async invalidate(): Promise<void> {}

  adapter(): CarrierAdapter | null {
    return null;
  }
}

/** A point as the sandbox carrier describes its relays: active, open Mon–Fri 09:00–12:00 and 14:00–19:00, Sat mornings. */
export const relaisPointFixture = (id: string, overrides: Partial<PickupPoint> = {}): PickupPoint => {
  const network = parsePickupPointId(id)?.network ?? 'sandbox';
  const week = [
    { open: '09:00', close: '12:00' },
    { open: '14:00', close: '19:00' },
  ];
  return {
    id,
    network,
    kind: 'relay',
    name: `Relais ${id.split(':')[1]}`,
    address: { line1: '12 rue des Lilas', postalCode: '75011', city: 'Paris', country: 'FR' },
    geo: { lat: 48.8589, lng: 2.3795 },
    openingHours: { '1': week, '2': week, '3': week, '4': week, '5': week, '6': [{ open: '09:00', close: '12:00' }] },
    closures: [],
    maxWeightG: 20_000,
    status: 'active',
    fetchedAt: '2026-11-27T12:00:00.000Z',
    ...overrides,
  };
};
