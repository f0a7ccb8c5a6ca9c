/** Stellar amounts are int64 stroops, printed by Horizon with exactly 7 decimals. No floats anywhere. */
export const STROOPS_PER_UNIT = 10_000_000n;
export const INT64_MAX = 9_223_372_036_854_775_807n;

export const formatAmount = (stroops: bigint): string => {
  const negative = stroops < 0n;
  const abs = negative ? -stroops : stroops;
  return `${negative ? '-' : ''}${abs / STROOPS_PER_UNIT}.${(abs % STROOPS_PER_UNIT).toString().padStart(7, '0')}`;
};

/** Parses a decimal amount with at most 7 decimals ("10", "10.5", "0.0000001") into stroops. */
export const parseAmount = (text: string): bigint => {
  const m = /^(\d{1,12})(?:\.(\d{1,7}))?$/.exec(text);
  if (!m) throw new Error(`not a Stellar amount: ${text}`);
  const value = BigInt(m[1]!) * STROOPS_PER_UNIT + BigInt((m[2] ?? '').padEnd(7, '0'));
  if (value > INT64_MAX) throw new Error(`amount out of range: ${text}`);
  return value;
};
