import { PUBLIC_EVENT_TYPES } from './public-types';

/** The names of the public event types a webhook endpoint can subscribe to: the catalogue's, one list (STYLE rule 11). */
export const PUBLIC_EVENT_TYPE_NAMES: readonly string[] = PUBLIC_EVENT_TYPES;

/**
 * What an `enabledEvents` entry may be: `*` (every type), `<prefix>.*` (every type of one resource, `reservation.*`)
 * or one known type. Returns why an entry is refused, or null. A prefix must name types that exist today: a typo
 * (`reservaton.*`) would otherwise subscribe to nothing, silently.
 */
export const enabledEventProblem = (entry: string, known: readonly string[] = PUBLIC_EVENT_TYPE_NAMES): string | null => {
  if (entry === '*') return null;
  if (entry.endsWith('.*')) {
    const prefix = entry.slice(0, -1);
    return /^[a-z][a-z_]*\.$/.test(prefix) && known.some((t) => t.startsWith(prefix)) ? null : `no event type starts with '${prefix}'`;
  }
  return known.includes(entry) ? null : `unknown event type '${entry}' (GET /v1/events/types lists them)`;
};
