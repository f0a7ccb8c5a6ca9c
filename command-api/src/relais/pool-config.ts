import { z } from 'zod';
import { UnavailableError, ValidationError, type FieldErrors } from '@cagnotte/domain';
import {
  ISO_WEEKDAYS,
  PoolConfig,
  RelaisPoint,
  parsePickupPointId,
  type OpeningHours,
  type PickupPoint,
  type RelaisDirectoryPort,
} from '@cagnotte/event-schemas';

/*
 * A pool's `config.relais` as an organiser sends it (docs/relais.md). An entry whose id is `<network>:<pointId>` is a
 * reference to the pick-up point directory: the command side resolves it, fresh, before deciding, refuses what the
 * directory does not vouch for, and stores a snapshot of the point (so every pool view keeps working from the pool's
 * own events). Any other id is the organiser's own inline point, stored as sent and never checked.
 */

/** One entry: a directory id alone (`"sandbox:SBX-001"` or `{id}`), or a point with its fields (an inline point needs its name). */
export const RelaisPointInput = z.union([
  z.string().min(1).max(64),
  RelaisPoint.extend({ name: RelaisPoint.shape.name.optional() }).strict(),
]);
export type RelaisPointInput = z.infer<typeof RelaisPointInput>;

/** `PoolConfig` at the request: the same closed set of keys, `relais` entries as RelaisPointInput. */
export const PoolConfigInput = PoolConfig.extend({
  relais: z
    .array(RelaisPointInput)
    .max(500)
    .optional()
    .describe('Pick-up points: directory ids (`<network>:<pointId>`, alone or as `{id}`: resolved and stored as a snapshot of the point) or inline points of your own (`{id, name, …}`, an id without `:`, stored as sent)'),
})
  .strict()
  .describe('PoolConfigInput');
export type PoolConfigInput = z.infer<typeof PoolConfigInput>;

const DAY_NAMES: Record<(typeof ISO_WEEKDAYS)[number], string> = { '1': 'Mon', '2': 'Tue', '3': 'Wed', '4': 'Thu', '5': 'Fri', '6': 'Sat', '7': 'Sun' };

/** Opening hours as one readable line: "Mon–Fri 09:00–12:00, 14:00–19:00; Sat 09:00–12:00" (days alike grouped, closed days left out). */
export const openingHoursSummary = (hours: OpeningHours): string | undefined => {
  const days = ISO_WEEKDAYS.map((d) => ({ d, slots: (hours[d] ?? []).map((s) => `${s.open}–${s.close}`).join(', ') }));
  const parts: string[] = [];
  for (let i = 0; i < days.length; ) {
    let j = i;
    while (j + 1 < days.length && days[j + 1]!.slots === days[i]!.slots) j++;
    if (days[i]!.slots) parts.push(`${DAY_NAMES[days[i]!.d]}${j > i ? `–${DAY_NAMES[days[j]!.d]}` : ''} ${days[i]!.slots}`);
    i = j + 1;
  }
  return parts.length > 0 ? parts.join('; ').slice(0, 500) : undefined;
};

/** The snapshot a pool keeps of a directory point: the fields every pool view shows. */
export const relaisSnapshotOf = (point: PickupPoint): RelaisPoint => {
  const hours = openingHoursSummary(point.openingHours);
  return {
    id: point.id,
    name: point.name,
    address: [point.address.line1, point.address.line2].filter(Boolean).join(', ').slice(0, 300),
    postalCode: point.address.postalCode,
    city: point.address.city,
    country: point.address.country,
    lat: point.geo.lat,
    lng: point.geo.lng,
    ...(hours ? { openingHours: hours } : {}),
  };
};

const STATUS_WORDS: Record<PickupPoint['status'], string> = { active: 'active', temporarily_closed: 'temporarily closed', retired: 'retired' };

/** Why a resolved point cannot be a pool's, or null. */
const refusalOf = (id: string, point: PickupPoint | null | undefined, parcelWeightG: number | undefined): string | null => {
  if (!point) return 'unknown pick-up point';
  if (point.status !== 'active') return `pick-up point ${id} is ${STATUS_WORDS[point.status]}`;
  if (parcelWeightG !== undefined && point.maxWeightG !== undefined && parcelWeightG > point.maxWeightG) {
    return `pick-up point ${id} takes parcels up to ${point.maxWeightG} g (config.parcelWeightG is ${parcelWeightG} g)`;
  }
  return null;
};

/**
 * The config to decide with: directory references resolved (fresh) and replaced by their snapshots, inline points as
 * sent. No directory id: the directory is not asked at all. 400 (`errors['config.relais.<i>.id']`) for an unknown,
 * unusable or too small point; 503 `relais_unavailable` when a network cannot answer.
 */
export const resolvePoolConfig = async (
  directory: (() => RelaisDirectoryPort) | undefined,
  tenantId: string,
  config: PoolConfigInput,
): Promise<PoolConfig> => {
  const { relais, ...rest } = config;
  if (relais === undefined) return rest;
  const entries = relais.map((e) => (typeof e === 'string' ? { id: e } : e));
  const errors: FieldErrors = {};
  const ids = [...new Set(entries.map((e) => e.id).filter((id) => parsePickupPointId(id) !== null))];
  entries.forEach((e, i) => {
    if (parsePickupPointId(e.id) === null && e.name === undefined) errors[`config.relais.${i}.name`] = ['an inline pick-up point needs a name (or give a directory id <network>:<pointId>)'];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (ids.length === 0) return { ...rest, relais: entries as RelaisPoint[] };

  let points: Map<string, PickupPoint | null>;
  try {
    if (!directory) throw new Error('no pick-up point directory in this process');
    points = await directory().resolve(ids, tenantId, { fresh: true });
  } catch (cause) {
    throw Object.assign(new UnavailableError('relais_unavailable', 'The pick-up point directory cannot answer now: try again shortly'), { cause });
  }
  const resolved = entries.map((e, i): RelaisPoint => {
    if (parsePickupPointId(e.id) === null) return e as RelaisPoint;
    const point = points.get(e.id);
    const refusal = refusalOf(e.id, point, config.parcelWeightG);
    if (refusal) errors[`config.relais.${i}.id`] = [refusal];
    return point ? relaisSnapshotOf(point) : (e as RelaisPoint);
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'Some pick-up points cannot be used', 'pickup_point_refused');
  return { ...rest, relais: resolved };
};
