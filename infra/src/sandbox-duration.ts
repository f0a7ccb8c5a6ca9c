/** The longest advance of the sandbox clock accepted at once (3650 days): past it a typo, not a walk through a period. */
export const MAX_ADVANCE_SECONDS = 3650 * 86_400;

/** A duration the sandbox clock cannot move by; its message is one line for the operator or the partner. */
export class DurationError extends Error {}

const UNIT_SECONDS = { w: 604_800, d: 86_400, h: 3_600, m: 60, s: 1 } as const;

/** `1d12h`, `90s`, `15m`, `2h`, `7d`: units from the largest down, each at most once, whole numbers. */
const SHORT = /^(?:(\d+)w)?(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/;
/** ISO 8601 without years or months (their length varies): `P7D`, `PT2H`, `P1DT12H`, `P2W`, `PT90S`. */
const ISO = /^P(?:(\d+)W)?(?:(\d+)D)?(?:T(?=\d)(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/**
 * A positive whole number of seconds from `90s`, `15m`, `2h`, `7d`, `1d12h` (also `w`) or ISO 8601 (`P7D`,
 * `PT2H`, `P1DT12H`), at most MAX_ADVANCE_SECONDS. Throws a DurationError saying what is accepted.
 */
export const parseDuration = (text: string): number => {
  const t = text.trim();
  const iso = /^p/i.test(t);
  const m = iso ? ISO.exec(t.toUpperCase()) : SHORT.exec(t.toLowerCase());
  if (!m || m.slice(1).every((p) => p === undefined)) {
    const hint = iso && /^P(\d+Y|\d+M(?!.*T))/i.test(t) ? ' (years and months have no fixed length: use days)' : '';
    throw new DurationError(`'${text}' is not a duration: use e.g. 90s, 15m, 2h, 7d, 1d12h or ISO 8601 P7D, PT2H${hint}`);
  }
  const [w, d, h, min, s] = m.slice(1).map((p) => (p === undefined ? 0 : Number(p)));
  const seconds = w! * UNIT_SECONDS.w + d! * UNIT_SECONDS.d + h! * UNIT_SECONDS.h + min! * UNIT_SECONDS.m + s! * UNIT_SECONDS.s;
  if (seconds <= 0) throw new DurationError(`'${text}' is no time at all: the clock only moves forward, by 1 s at least`);
  if (!Number.isSafeInteger(seconds) || seconds > MAX_ADVANCE_SECONDS) throw new DurationError(`'${text}' is more than 3650 days: advance by at most 3650d at once`);
  return seconds;
};
