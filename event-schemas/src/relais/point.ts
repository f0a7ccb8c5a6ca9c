import { z } from 'zod';
import { CountryCode } from '../common';

// The one pick-up point model of every network (docs/relais.md). Carriers' answers, community hosts and the sandbox
// carrier are all mapped to it; a pool's `config.relais` keeps a snapshot of it per point it references.

/** The networks a point comes from. `sandbox`: fixture points, on by default in a sandbox deployment. */
export const RelaisNetwork = z.enum(['mondial_relay', 'colissimo', 'chronopost', 'inpost', 'community', 'sandbox']);
export type RelaisNetwork = z.infer<typeof RelaisNetwork>;
export const RELAIS_NETWORKS: readonly RelaisNetwork[] = RelaisNetwork.options;

export const PickupPointKind = z.enum(['relay', 'locker', 'post_office', 'community_host']);
export type PickupPointKind = z.infer<typeof PickupPointKind>;

export const PickupPointStatus = z.enum(['active', 'temporarily_closed', 'retired']);
export type PickupPointStatus = z.infer<typeof PickupPointStatus>;

/** `HH:MM`, 24-hour clock, local time of the point. */
export const ClockTime = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be HH:MM (24-hour)');
export const OpeningSlot = z
  .object({ open: ClockTime, close: ClockTime })
  .strict()
  .refine((s) => s.open < s.close, { message: 'open must be before close' });
export type OpeningSlot = z.infer<typeof OpeningSlot>;

/** ISO weekday (1 Monday … 7 Sunday) → the day's slots; a missing or empty day is closed. */
export const ISO_WEEKDAYS = ['1', '2', '3', '4', '5', '6', '7'] as const;
export const OpeningHours = z.object(Object.fromEntries(ISO_WEEKDAYS.map((d) => [d, z.array(OpeningSlot).max(4).optional()])) as Record<(typeof ISO_WEEKDAYS)[number], z.ZodOptional<z.ZodArray<typeof OpeningSlot>>>).strict();
export type OpeningHours = z.infer<typeof OpeningHours>;

/** A calendar date, `YYYY-MM-DD`. */
export const CalendarDate = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'must be a date YYYY-MM-DD');
/** A closure, both days included (holidays, works). */
export const Closure = z
  .object({ from: CalendarDate, to: CalendarDate, reason: z.string().max(200).optional() })
  .strict()
  .refine((c) => c.from <= c.to, { message: 'from must not be after to' });
export type Closure = z.infer<typeof Closure>;

export const PointAddress = z
  .object({
    line1: z.string().min(1).max(200),
    line2: z.string().max(200).optional(),
    postalCode: z.string().min(1).max(16),
    city: z.string().min(1).max(120),
    country: CountryCode,
  })
  .strict();
export type PointAddress = z.infer<typeof PointAddress>;

export const Geo = z.object({ lat: z.number().min(-90).max(90), lng: z.number().min(-180).max(180) }).strict();
export type Geo = z.infer<typeof Geo>;

/** `<network>:<pointId>`: the id of a point across networks (at most 64 characters: a reservation's `relaisId`). */
export const PickupPointId = z
  .string()
  .max(64)
  .regex(/^(mondial_relay|colissimo|chronopost|inpost|community|sandbox):[A-Za-z0-9._-]{1,50}$/, 'must be <network>:<pointId>');

export const PickupPoint = z
  .object({
    id: PickupPointId,
    network: RelaisNetwork,
    kind: PickupPointKind,
    name: z.string().min(1).max(200),
    address: PointAddress,
    geo: Geo,
    /** Metres from the searched position; absent outside a search. */
    distanceM: z.number().int().min(0).optional(),
    openingHours: OpeningHours,
    closures: z.array(Closure).max(50),
    /** The heaviest parcel the point takes, in grams; absent: no limit given by the network. */
    maxWeightG: z.number().int().min(1).max(1_000_000).optional(),
    status: PickupPointStatus,
    fetchedAt: z.string().datetime({ offset: true }),
  })
  .strict()
  .describe('PickupPoint');
export type PickupPoint = z.infer<typeof PickupPoint>;

export const pickupPointId = (network: RelaisNetwork, pointId: string): string => `${network}:${pointId}`;

/** `<network>:<pointId>` → its parts; null for anything else (an organiser's own inline point, say). */
export const parsePickupPointId = (id: string): { network: RelaisNetwork; pointId: string } | null => {
  if (!PickupPointId.safeParse(id).success) return null;
  const at = id.indexOf(':');
  return { network: id.slice(0, at) as RelaisNetwork, pointId: id.slice(at + 1) };
};

/** Whether the point is closed on `date` (YYYY-MM-DD): a closure covers it, or it has no opening slot that weekday. */
export const closedOn = (point: Pick<PickupPoint, 'closures' | 'openingHours' | 'status'>, date: string): boolean => {
  if (point.status !== 'active') return true;
  if (point.closures.some((c) => c.from <= date && date <= c.to)) return true;
  const weekday = String(((new Date(`${date}T12:00:00Z`).getUTCDay() + 6) % 7) + 1) as (typeof ISO_WEEKDAYS)[number];
  return (point.openingHours[weekday] ?? []).length === 0;
};

/**
 * Tracking statuses in one vocabulary, each network's codes mapped to it (docs/relais.md). The rank only moves
 * forward: a late `in_transit` never downgrades a `delivered`. `returned` and `failed` end a shipment; `unknown`
 * (a code no mapping knows) is recorded and changes nothing.
 */
export const ShipmentStatus = z.enum(['label_created', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered', 'returned', 'failed', 'unknown']);
export type ShipmentStatus = z.infer<typeof ShipmentStatus>;
export const SHIPMENT_STATUS_RANK: Record<ShipmentStatus, number> = {
  unknown: 0,
  label_created: 1,
  in_transit: 2,
  out_for_delivery: 3,
  available_for_pickup: 4,
  delivered: 5,
  returned: 6,
  failed: 6,
};
/** Whether `next` moves a shipment at `current` forward (never back, never sideways between the two ends). */
export const advancesShipment = (current: ShipmentStatus | null, next: ShipmentStatus): boolean =>
  next !== 'unknown' && (current === null || SHIPMENT_STATUS_RANK[next] > SHIPMENT_STATUS_RANK[current]);
/** The statuses where a buyer's parcel waits for them or has reached them: the inspection period starts. */
export const ARRIVED_STATUSES: ReadonlySet<ShipmentStatus> = new Set(['available_for_pickup', 'delivered']);
