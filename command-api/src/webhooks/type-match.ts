/**
 * Whether an endpoint's `enabledEvents` take an event type: `*` takes every type, `<prefix>.*` every type that starts
 * with `<prefix>.`, anything else that type only. The entries were validated when the endpoint was written
 * (read-models/src/webhooks/event-types.ts, `enabledEventProblem`).
 */
export const matchesEnabledEvents = (patterns: readonly string[], type: string): boolean =>
  patterns.some((p) => p === '*' || p === type || (p.endsWith('.*') && type.startsWith(p.slice(0, -1))));
