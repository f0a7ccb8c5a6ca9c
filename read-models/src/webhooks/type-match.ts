/**
 * Whether a list of type patterns takes an event type: `*` takes every type, `<prefix>.*` every type that starts with
 * `<prefix>.`, anything else that type only. An endpoint's `enabledEvents` (validated when written:
 * `enabledEventProblem`) in JavaScript, for the webhook dispatcher; `whereTypes` (feed-reader.ts) is its SQL twin for
 * the feed's `types` filter, and type-match.int.spec.ts checks that both take the same types.
 */
export const matchesEnabledEvents = (patterns: readonly string[], type: string): boolean =>
  patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
