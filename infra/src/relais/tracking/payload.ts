import type { z } from 'zod';
import { ValidationError } from '@cagnotte/domain';
import type { ShipmentStatus, TrackingUpdate } from '@cagnotte/event-schemas';

/** A network's payload parser: the carrier's own shape in, updates in the vocabulary out (unknown codes → `unknown`). */
export type TrackingPayloadParser = (payload: unknown) => TrackingUpdate[];

/** A payload that is not the network's shape: a 400 `invalid_payload`, nothing stored. */
export const invalidPayload = (field: string, message: string): ValidationError =>
  new ValidationError({ [field]: [message] }, 'The payload is not this network’s tracking format', 'invalid_payload');

/** Parses with a zod schema; a mismatch is a 400 naming the first fields that do not fit. */
export const parseShape = <S extends z.ZodType>(schema: S, payload: unknown): z.infer<S> => {
  const parsed = schema.safeParse(payload);
  if (parsed.success) return parsed.data;
  const errors: Record<string, string[]> = {};
  for (const issue of parsed.error.issues.slice(0, 10)) {
    const key = issue.path.length > 0 ? `body.${issue.path.join('.')}` : 'body';
    (errors[key] ??= []).push(issue.message);
  }
  throw new ValidationError(errors, 'The payload is not this network’s tracking format', 'invalid_payload');
};

/** An instant with an offset (`2023-03-09T09:38:00+01:00`) as ISO UTC; null when it is not one. */
export const isoInstant = (value: string): string | null => {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/.test(value)) return null;
  const t = Date.parse(value);
  return Number.isNaN(t) ? null : new Date(t).toISOString();
};

const parisParts = new Intl.DateTimeFormat('en-GB', {
  timeZone: 'Europe/Paris',
  hourCycle: 'h23',
  year: 'numeric',
  month: '2-digit',
  day: '2-digit',
  hour: '2-digit',
  minute: '2-digit',
  second: '2-digit',
});

/** Europe/Paris's offset from UTC at an instant, in minutes. */
const parisOffsetMinutes = (utcMs: number): number => {
  const p = Object.fromEntries(parisParts.formatToParts(new Date(utcMs)).map((x) => [x.type, x.value]));
  const asUtc = Date.UTC(Number(p.year), Number(p.month) - 1, Number(p.day), Number(p.hour), Number(p.minute), Number(p.second));
  return Math.round((asUtc - utcMs) / 60_000);
};

/** A wall-clock time in France (a carrier's `DD/MM/YY` + `HH:mm`) as ISO UTC; null when it is not a real date. */
export const parisWallClockToIso = (year: number, month: number, day: number, hour: number, minute: number): string | null => {
  const wall = Date.UTC(year, month - 1, day, hour, minute);
  const check = new Date(wall);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day || hour > 23 || minute > 59) return null;
  // Two passes settle the offset on either side of a daylight-saving change.
  let utc = wall - parisOffsetMinutes(wall) * 60_000;
  utc = wall - parisOffsetMinutes(utc) * 60_000;
  return new Date(utc).toISOString();
};

/** Upper case, accents and punctuation folded to spaces: how free-text carrier labels are matched. */
export const foldLabel = (label: string): string =>
  label
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, ' ')
    .trim();

/** A tracking number as carriers print it (letters, digits, dashes), at most 64 characters. */
export const TRACKING_NUMBER = /^[A-Za-z0-9][A-Za-z0-9-]{2,63}$/;

/** A carrier code's status from a table; codes the table does not name (or inherited names) are `unknown`. */
export const statusOf = (table: Readonly<Record<string, ShipmentStatus>>, code: string): ShipmentStatus =>
  Object.hasOwn(table, code) ? table[code]! : 'unknown';
