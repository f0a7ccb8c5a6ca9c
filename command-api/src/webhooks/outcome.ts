/**
 * What one webhook attempt's answer means, and when the next one runs (docs/webhooks.md, "Retries"). Pure: the
 * delivery job (delivery.ts) records what this decides.
 */

/** Standard Webhooks' schedule: the delay before each attempt, from the previous one (the first at once). */
export const DEFAULT_RETRY_SCHEDULE_MS: readonly number[] = [0, 5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 50_400_000, 72_000_000, 86_400_000];
/** A Retry-After is honoured up to this (a receiver cannot park a delivery for a week). */
export const MAX_RETRY_AFTER_MS = 86_400_000;
/** An endpoint failing for this long without one success is disabled (reason `failing`). */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;
/** Bodies are below this (Standard Webhooks recommends small payloads; a partner's receiver may cap them). */
export const MAX_BODY_BYTES = 64 * 1024;
/** Statuses whose Retry-After is honoured. */
const RETRY_AFTER_STATUSES = new Set([429, 502, 503, 504]);

export type AttemptResult = { kind: 'answered'; status: number; retryAfter: string | null } | { kind: 'error'; error: string };

export type Outcome =
  | { kind: 'delivered' }
  /** 410 Gone: the receiver says the endpoint is no more; the endpoint is disabled (reason `gone`). */
  | { kind: 'gone' }
  | { kind: 'retry'; delayMs: number }
  /** The schedule is spent: the delivery failed for good. */
  | { kind: 'failed' };

/** ±10 % around `ms`; `random` in [0, 1). */
export const withJitter = (ms: number, random: number): number => Math.max(0, Math.round(ms * (0.9 + 0.2 * random)));

/** Retry-After as delay-seconds or an HTTP date, in ms from `now`, capped; null when absent or unreadable. */
export const retryAfterMs = (value: string | null, now: Date): number | null => {
  if (value === null) return null;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Math.min(Number(v) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(v);
  if (Number.isNaN(at)) return null;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
};

/**
 * The outcome of attempt number `step` of the current run (1-based) under `schedule`: 2xx delivered; 410 gone; any
 * other answer or error retried after the schedule's next delay with jitter (a Retry-After on 429/502/503/504 wins,
 * capped at 24 h) until the schedule is spent.
 */
export const outcomeOf = (result: AttemptResult, step: number, schedule: readonly number[], now: Date, random: number): Outcome => {
  if (result.kind === 'answered' && result.status >= 200 && result.status < 300) return { kind: 'delivered' };
  if (result.kind === 'answered' && result.status === 410) return { kind: 'gone' };
  if (step >= schedule.length) return { kind: 'failed' };
  const asked = result.kind === 'answered' && RETRY_AFTER_STATUSES.has(result.status) ? retryAfterMs(result.retryAfter, now) : null;
  return { kind: 'retry', delayMs: asked ?? withJitter(schedule[step]!, random) };
};

/** True when an endpoint failing since `failingSince` has failed long enough to be disabled. */
export const failingTooLong = (failingSince: Date, now: Date): boolean => now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS;
