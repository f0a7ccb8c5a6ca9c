/**
 * Exact money: decimal strings outside, bigint minor units inside. Stellar assets carry 7 decimals,
 * so one unit of the euro stablecoin is 10_000_000 minor units. No float ever touches an amount.
 */
export const SCALE = 7;
const FACTOR = 10n ** BigInt(SCALE);
const DECIMAL = /^(0|[1-9]\d*)(?:\.(\d{1,7}))?$/;

export type Minor = bigint;

export const parseAmount = (text: string): Minor => {
  const m = DECIMAL.exec(text);
  if (!m) throw new RangeError(`not a decimal amount with at most ${SCALE} decimals: ${text}`);
  return BigInt(m[1]!) * FACTOR + BigInt((m[2] ?? '').padEnd(SCALE, '0'));
};

/** Canonical form: no trailing zeros beyond `minDecimals` (2 by default: "12.50", "0.0000001"). */
export const formatAmount = (minor: Minor, minDecimals = 2): string => {
  const negative = minor < 0n;
  const abs = negative ? -minor : minor;
  const whole = abs / FACTOR;
  let frac = (abs % FACTOR).toString().padStart(SCALE, '0').replace(/0+$/, '');
  if (frac.length < minDecimals) frac = frac.padEnd(minDecimals, '0');
  return `${negative ? '-' : ''}${whole}${frac ? `.${frac}` : ''}`;
};

export const isPositiveAmount = (text: string | null | undefined): boolean => text != null && parseAmount(text) > 0n;
