/*
 * Exact sums of decimal amount strings for the read side (the domain's money module is not a read-models import):
 * bigint minor units at Stellar's 7 decimals inside, decimal strings outside. Never a float.
 */
const SCALE = 7;
const FACTOR = 10n ** BigInt(SCALE);
const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d{1,7}))?$/;

export const toMinor = (text: string): bigint => {
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`not a decimal amount: ${text}`);
  return BigInt(m[1]!) * FACTOR + BigInt((m[2] ?? '').padEnd(SCALE, '0'));
};

/** "12.50", "0.0000001": at least two decimals, no trailing zeros beyond them (as domain/src/money.ts formats). */
export const fromMinor = (minor: bigint): string => {
  const whole = minor / FACTOR;
  let frac = (minor % FACTOR).toString().padStart(SCALE, '0').replace(/0+$/, '');
  if (frac.length < 2) frac = frac.padEnd(2, '0');
  return `${whole}.${frac}`;
};

export const sumAmounts = (amounts: Iterable<string>): string => {
  let sum = 0n;
  for (const a of amounts) sum += toMinor(a);
  return fromMinor(sum);
};

/** `part / whole` as a decimal string with 4 decimals (a fill rate: "0.5000"), rounded down; null when whole is 0. */
export const ratio = (part: bigint, whole: bigint): string | null => {
  if (whole <= 0n) return null;
  const scaled = (part * 10_000n) / whole;
  return `${scaled / 10_000n}.${(scaled % 10_000n).toString().padStart(4, '0')}`;
};
