import { z } from 'zod';
import type { CarrierAdapter, OpeningSlot, PickupPoint, PickupPointStatus, PointQuery } from '@cagnotte/event-schemas';
import { CarrierError, ISO_DAYS, ROUND_THE_CLOCK, callCarrier, hoursOf, trimmedJoin } from './wire';

// InPost: the ShipX points API (GET {INPOST_API_URL}/v1/points?relative_post_code=…, GET /v1/points/{name}), JSON.
// A point's id is its `name` (`inpost:KRA010M`).

const Minutes = z.object({ start: z.number().int(), end: z.number().int() }).passthrough();
const InpostPoint = z
  .object({
    name: z.string().min(1),
    type: z.array(z.string()).default([]),
    status: z.string().default('Operating'),
    location: z.object({ latitude: z.number(), longitude: z.number() }).passthrough(),
    location_description: z.string().nullish(),
    opening_hours: z.string().nullish(),
    operating_hours_extended: z.object({ customer: z.record(z.string(), z.array(Minutes).nullish()).nullish() }).passthrough().nullish(),
    address_details: z
      .object({ city: z.string().nullish(), post_code: z.string().nullish(), street: z.string().nullish(), building_number: z.string().nullish(), flat_number: z.string().nullish() })
      .passthrough(),
    country: z.string().nullish(),
    location_247: z.boolean().nullish(),
    distance: z.number().nullish(),
  })
  .passthrough();
type InpostPoint = z.infer<typeof InpostPoint>;
const Page = z.object({ items: z.array(z.unknown()) }).passthrough();

/** A parcel locker's largest compartment takes 25 kg (InPost's published limit). */
const LOCKER_MAX_WEIGHT_G = 25_000;
const WEEKDAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;

/** Operating: active; Removed: retired; every other status (NonOperating, Overloaded, Disabled, Created…) a pause. */
const statusOf = (s: string): PickupPointStatus => (s === 'Operating' ? 'active' : s === 'Removed' ? 'retired' : 'temporarily_closed');

const minutes = (m: number) => (m >= 1440 ? '23:59' : `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);

export const mapInpostPoint = (raw: unknown, fallbackCountry: string, fetchedAt: string): PickupPoint | null => {
  const parsed = InpostPoint.safeParse(raw);
  if (!parsed.success) return null;
  const p: InpostPoint = parsed.data;
  const locker = p.type.includes('parcel_locker');
  const customer = p.operating_hours_extended?.customer;
  const openingHours =
    p.location_247 || p.opening_hours?.trim() === '24/7'
      ? ROUND_THE_CLOCK
      : customer
        ? hoursOf(
            Object.fromEntries(
              ISO_DAYS.map((d, i) => [d, (customer[WEEKDAYS[i]!] ?? []).map((s): OpeningSlot => ({ open: minutes(s.start), close: minutes(s.end) })).filter((s) => s.open < s.close)]),
            ),
          )
        : {};
  const a = p.address_details;
  return {
    id: `inpost:${p.name}`,
    network: 'inpost',
    kind: locker ? 'locker' : 'relay',
    name: p.location_description ? `InPost ${p.name} (${p.location_description})`.slice(0, 200) : `InPost ${p.name}`,
    address: {
      line1: trimmedJoin(a.street ?? '', a.building_number ?? '', a.flat_number ? `/${a.flat_number}` : '') || p.name,
      postalCode: a.post_code ?? '',
      city: a.city ?? '',
      country: (p.country ?? fallbackCountry).toUpperCase(),
    },
    geo: { lat: p.location.latitude, lng: p.location.longitude },
    ...(typeof p.distance === 'number' ? { distanceM: Math.round(p.distance) } : {}),
    openingHours,
    closures: [],
    ...(locker ? { maxWeightG: LOCKER_MAX_WEIGHT_G } : {}),
    status: statusOf(p.status),
    fetchedAt,
  };
};

export interface InpostOptions {
  token: string;
  url: string;
  now?: () => Date;
}

export class InpostAdapter implements CarrierAdapter {
  readonly network = 'inpost' as const;
  constructor(private readonly o: InpostOptions) {}

  private async getJson(path: string, signal: AbortSignal): Promise<{ status: number; body: unknown }> {
    const res = await callCarrier(this.network, `${this.o.url.replace(/\/$/, '')}${path}`, { headers: { authorization: `Bearer ${this.o.token}`, accept: 'application/json' } }, signal);
    if (res.status === 404) return { status: 404, body: null };
    try {
      return { status: res.status, body: JSON.parse(res.text) };
    } catch {
      throw new CarrierError(this.network, 'the answer is not JSON');
    }
  }

  async search(q: PointQuery, signal: AbortSignal): Promise<PickupPoint[]> {
    const params = new URLSearchParams({ type: 'parcel_locker,pop', per_page: String(Math.min(50, q.limit)), max_distance: String(Math.round(q.radiusKm * 1000)) });
    if (q.lat !== undefined && q.lng !== undefined) params.set('relative_point', `${q.lat},${q.lng}`);
    else params.set('relative_post_code', q.postalCode ?? '');
    const { body } = await this.getJson(`/v1/points?${params}`, signal);
    const page = Page.safeParse(body);
    if (!page.success) throw new CarrierError(this.network, 'the answer has no items');
    const fetchedAt = (this.o.now?.() ?? new Date()).toISOString();
    return page.data.items.map((i) => mapInpostPoint(i, q.country, fetchedAt)).filter((p): p is PickupPoint => p !== null);
  }

  async get(pointId: string, _tenantId: string | null, signal: AbortSignal): Promise<PickupPoint | null> {
    if (!/^[A-Za-z0-9._-]{1,50}$/.test(pointId)) return null;
    const { status, body } = await this.getJson(`/v1/points/${encodeURIComponent(pointId)}`, signal);
    if (status === 404) return null;
    return mapInpostPoint(body, 'PL', (this.o.now?.() ?? new Date()).toISOString());
  }
}
