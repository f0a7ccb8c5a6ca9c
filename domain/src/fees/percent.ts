/** Hundredths of a percent: "2.5" → 250. The Percent schema allows two decimals. */
export const percentHundredths = (percent: string): bigint => {
  const m = /^(\d{1,3})(?:\.(\d{1,2}))?$/.exec(percent);
  if (!m) throw new RangeError(`not a percentage with at most two decimals: ${percent}`);
  const value = BigInt(m[1]!) * 100n + BigInt((m[2] ?? '').padEnd(2, '0'));
  if (value > 10_000n) throw new RangeError(`a percentage above 100: ${percent}`);
  return value;
};

