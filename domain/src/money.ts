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

/**
 * The most one ledger payment can carry: Stellar amounts are int64 stroops, so 922337203685.4775807 units. Every
 * amount the service is asked to move (a pledge, price × quantity, lines summed, a fee on top, a pool's total, which
 * one release pays out) must fit, or the ledger refuses the transaction long after the reservation was accepted.
 */
export const MAX_LEDGER_AMOUNT: Minor = 2n ** 63n - 1n;

/** The code of every refusal of an amount past what one ledger payment carries. */
export const LEDGER_AMOUNT_EXCEEDED = 'ledger_amount_exceeded';

/** Whether one ledger payment can carry `minor`. */
export const fitsLedger = (minor: Minor): boolean => minor <= MAX_LEDGER_AMOUNT;

/** The reason given for an amount past MAX_LEDGER_AMOUNT (the field's message in a 400). */
export const ledgerBoundMessage = (what = 'an amount'): string => `${what} is at most ${formatAmount(MAX_LEDGER_AMOUNT)}: more than one ledger payment can carry`;

/** A decimal amount string that parses and fits one ledger payment (the request schemas' refinement). */
export const isLedgerAmount = (text: string): boolean => {
  try {
    return fitsLedger(parseAmount(text));
  } catch {
    return false;
  }
};
