import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { UnavailableError } from '@cagnotte/domain';
import { PickupPoint, closedOn, parsePickupPointId, type CarrierAdapter, type PointQuery, type PointSearch, type RelaisDirectoryPort, type RelaisNetwork, type SourceReport } from '@cagnotte/event-schemas';
import type { Logger } from '../logger';
import { haversineM } from './geo';

// The pick-up point directory (docs/relais.md): one search fans out to every enabled network, each under its own
// timeout, and answers with what came back in time (`sources` says which network answered, timed out or failed).
// Each network's answer is cached in Redis per (network, country, postal code, radius) — position searches on a
// ~1 km grid — so a second search of the same place does not call the carrier again. A network's cache is forgotten
// as a whole when one of its points changes (`invalidate`: the network's generation moves on). The cache holds what a
// network answers every tenant alike; a tenant's own view (the sandbox carrier's per-tenant overrides: the adapter's
// `overlay`) is applied after it, on every request, and never cached.

/** What the directory asks each network for: the most any search can show, so one cached answer serves every limit. */
const NETWORK_LIMIT = 50;
/** One point looked up by id stays cached for at most this long (a pool's check wants it recent). */
const POINT_TTL_SECONDS = 120;
/** Networks answered from our own database: never cached (a host's change shows at once). */
const UNCACHED: ReadonlySet<RelaisNetwork> = new Set(['community']);

export const relaisGenerationKey = (network: RelaisNetwork) => `relais:gen:${network}`;

export interface RelaisDirectoryOptions {
  adapters: CarrierAdapter[];
  /** Null: no cache (a unit spec). */
  redis: Redis | null;
  timeoutMs: number;
  cacheTtlSeconds: number;
  logger?: Pick<Logger, 'warn'>;
}

type NetworkAnswer = { source: SourceReport; points: PickupPoint[] };
type Outcome<T> = { status: 'ok'; value: T; ms: number } | { status: 'timeout' | 'error'; ms: number; error: unknown };

export class RelaisDirectory implements RelaisDirectoryPort {
  private readonly adapters: Map<RelaisNetwork, CarrierAdapter>;
  constructor(private readonly o: RelaisDirectoryOptions) {
    this.adapters = new Map(o.adapters.map((a) => [a.network, a]));
  }

  adapter(network: RelaisNetwork): CarrierAdapter | null {
    return this.adapters.get(network) ?? null;
  }

  /** Runs one network call under the timeout; never throws. */
  private async timed<T>(call: (signal: AbortSignal) => Promise<T>): Promise<Outcome<T>> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Error('relais network timeout')), this.o.timeoutMs);
    const started = performance.now();
    try {
      // The race ends the wait even when an adapter ignores its signal.
      const aborted = new Promise<never>((_, reject) => controller.signal.addEventListener('abort', () => reject(controller.signal.reason), { once: true }));
      const value = await Promise.race([call(controller.signal), aborted]);
      return { status: 'ok', value, ms: Math.round(performance.now() - started) };
    } catch (error) {
      return { status: controller.signal.aborted ? 'timeout' : 'error', ms: Math.round(performance.now() - started), error };
    } finally {
      clearTimeout(timer);
    }
  }

  private async generations(networks: RelaisNetwork[]): Promise<Map<RelaisNetwork, string>> {
    if (!this.o.redis || networks.length === 0) return new Map();
    const values = await this.o.redis.mget(...networks.map(relaisGenerationKey)).catch(() => networks.map(() => null));
    return new Map(networks.map((n, i) => [n, values[i] ?? '0']));
  }

  private async cacheGet(key: string): Promise<unknown> {
    if (!this.o.redis) return undefined;
    const raw = await this.o.redis.get(key).catch(() => null);
    if (raw === null) return undefined;
    try {
      return JSON.parse(raw) as unknown;
    } catch {
      return undefined; // an unreadable entry is a miss
    }
  }

  private cacheSet(key: string, value: unknown, ttl: number): void {
    if (!this.o.redis || ttl <= 0) return;
    this.o.redis.set(key, JSON.stringify(value), 'EX', ttl).catch((err: Error) => this.o.logger?.warn({ err: err.message }, 'relais cache write failed'));
  }

  private searchKey(network: RelaisNetwork, generation: string, q: PointSearch): string {
    const place = q.lat !== undefined && q.lng !== undefined ? `g:${q.lat.toFixed(2)}:${q.lng.toFixed(2)}` : `cp:${q.postalCode ?? ''}`;
    return `relais:search:${network}:${generation}:${q.country}:${place}:${q.radiusKm}`;
  }

  async search(query: PointSearch, tenantId: string | null): Promise<{ items: PickupPoint[]; sources: SourceReport[] }> {
    const networks = [...this.adapters.keys()].filter((n) => !query.networks || query.networks.includes(n));
    const generations = await this.generations(networks.filter((n) => !UNCACHED.has(n)));
    const asked: PointQuery = { country: query.country, postalCode: query.postalCode, lat: query.lat, lng: query.lng, radiusKm: query.radiusKm, limit: NETWORK_LIMIT, tenantId };
    const answers = await Promise.all(
      networks.map(async (network) => this.overlaid(network, await this.networkAnswer(network, generations, query, asked), tenantId)),
    );
    return { items: this.rank(answers.flatMap((a) => a.points), query), sources: answers.map((a) => a.source) };
  }

  /** One network's answer to a search: from the cache, else from the network (then cached); never throws. */
  private async networkAnswer(network: RelaisNetwork, generations: Map<RelaisNetwork, string>, query: PointSearch, asked: PointQuery): Promise<NetworkAnswer> {
    const key = UNCACHED.has(network) || !this.o.redis ? null : this.searchKey(network, generations.get(network) ?? '0', query);
    if (key) {
      const started = performance.now();
      const cached = await this.cacheGet(key);
      if (Array.isArray(cached)) return { source: { network, status: 'ok', ms: Math.round(performance.now() - started), cached: true }, points: cached as PickupPoint[] };
    }
    const outcome = await this.timed((signal) => this.adapters.get(network)!.search(asked, signal));
    if (outcome.status !== 'ok') {
      if (outcome.status === 'error') this.o.logger?.warn({ network, err: outcome.error instanceof Error ? outcome.error.message : String(outcome.error) }, 'relais network failed');
      return { source: { network, status: outcome.status, ms: outcome.ms }, points: [] };
    }
    // An adapter's answer is checked against the model once, here, before it is cached or shown.
    const points = outcome.value.filter((p) => PickupPoint.safeParse(p).success && p.network === network);
    if (key) this.cacheSet(key, points, this.o.cacheTtlSeconds);
    return { source: { network, status: 'ok', ms: outcome.ms }, points };
  }

  /** The tenant's view of a network's answer (its adapter's overlay, after the cache); an overlay that fails fails that network only. */
  private async overlaid(network: RelaisNetwork, answer: NetworkAnswer, tenantId: string | null): Promise<NetworkAnswer> {
    const adapter = this.adapters.get(network)!;
    if (!adapter.overlay || answer.source.status !== 'ok' || answer.points.length === 0) return answer;
    try {
      return { source: answer.source, points: await adapter.overlay(answer.points, tenantId) };
    } catch (error) {
      this.o.logger?.warn({ network, err: error instanceof Error ? error.message : String(error) }, 'relais overlay failed');
      return { source: { network, status: 'error', ms: answer.source.ms }, points: [] };
    }
  }

  /** Merges, filters, measures from the searched position (else the postal code's first point), sorts by distance, limits. */
  private rank(points: PickupPoint[], q: PointSearch): PickupPoint[] {
    const unique = [...new Map(points.map((p) => [p.id, p])).values()];
    const origin =
      q.lat !== undefined && q.lng !== undefined
        ? { lat: q.lat, lng: q.lng }
        : ([...unique].filter((p) => p.distanceM !== undefined).sort((a, b) => a.distanceM! - b.distanceM!)[0] ?? unique[0])?.geo;
    if (!origin) return [];
    return unique
      .filter((p) => p.status === 'active')
      .filter((p) => q.weightG === undefined || p.maxWeightG === undefined || q.weightG <= p.maxWeightG)
      .filter((p) => q.openOn === undefined || !closedOn(p, q.openOn))
      .map((p) => ({ ...p, distanceM: Math.round(haversineM(origin, p.geo)) }))
      .filter((p) => p.distanceM <= q.radiusKm * 1000)
      .sort((a, b) => a.distanceM - b.distanceM || (a.id < b.id ? -1 : 1))
      .slice(0, q.limit);
  }

  async resolve(ids: string[], tenantId: string | null, options: { fresh?: boolean } = {}): Promise<Map<string, PickupPoint | null>> {
    const unique = [...new Set(ids)];
    const networks = [...new Set(unique.map((id) => parsePickupPointId(id)?.network).filter((n): n is RelaisNetwork => !!n && !UNCACHED.has(n)))];
    const generations = await this.generations(networks);
    const entries = await Promise.all(
      unique.map(async (id): Promise<[string, PickupPoint | null]> => {
        const parsed = parsePickupPointId(id);
        if (!parsed) return [id, null];
        const adapter = this.adapters.get(parsed.network);
        if (!adapter) throw new UnavailableError('relais_unavailable', `The ${parsed.network} pick-up point network is not available here`);
        const key = UNCACHED.has(parsed.network) || !this.o.redis ? null : `relais:point:${generations.get(parsed.network) ?? '0'}:${id}`;
        if (key && !options.fresh) {
          const cached = await this.cacheGet(key);
          if (cached && PickupPoint.safeParse(cached).success) return [id, cached as PickupPoint];
        }
        const outcome = await this.timed((signal) => adapter.get(parsed.pointId, tenantId, signal));
        if (outcome.status !== 'ok') {
          throw new UnavailableError('relais_unavailable', `The ${parsed.network} pick-up point network did not answer (${outcome.status}): retry shortly`);
        }
        const point = outcome.value && PickupPoint.safeParse(outcome.value).success ? outcome.value : null;
        if (key && point) this.cacheSet(key, point, Math.min(this.o.cacheTtlSeconds, POINT_TTL_SECONDS));
        return [id, point];
      }),
    );
    // The tenant's view, after the cache: one overlay per network of the points found.
    const answers = new Map(entries);
    const byNetwork = new Map<RelaisNetwork, PickupPoint[]>();
    for (const point of answers.values()) if (point) byNetwork.set(point.network, [...(byNetwork.get(point.network) ?? []), point]);
    for (const [network, points] of byNetwork) {
      const adapter = this.adapters.get(network);
      if (!adapter?.overlay) continue;
      let overlaid: PickupPoint[];
      try {
        overlaid = await adapter.overlay(points, tenantId);
      } catch (error) {
        this.o.logger?.warn({ network, err: error instanceof Error ? error.message : String(error) }, 'relais overlay failed');
        throw new UnavailableError('relais_unavailable', `The ${network} pick-up point network did not answer (error): retry shortly`);
      }
      for (const point of overlaid) answers.set(point.id, point);
    }
    return answers;
  }

  async invalidate(pointId: string): Promise<void> {
    const parsed = parsePickupPointId(pointId);
    if (!parsed || !this.o.redis || UNCACHED.has(parsed.network)) return;
    await this.o.redis.incr(relaisGenerationKey(parsed.network));
  }
}
