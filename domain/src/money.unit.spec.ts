import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { SCALE, formatAmount, isPositiveAmount, parseAmount } from './money';

const parse = suite('money: parseAmount');

parse('the scale is the Stellar precision: 7 decimals', () => {
  assert.is(SCALE, 7);
});

parse('parses whole and fractional amounts into exact minor units', () => {
  assert.is(parseAmount('0'), 0n);
  assert.is(parseAmount('1'), 10_000_000n);
  assert.is(parseAmount('12.5'), 125_000_000n);
  assert.is(parseAmount('12.50'), 125_000_000n);
  assert.is(parseAmount('0.0000001'), 1n);
  assert.is(parseAmount('0.1'), 1_000_000n);
  assert.is(parseAmount('100.00'), 1_000_000_000n);
  assert.is(parseAmount('9.9999999'), 99_999_999n);
});

parse('no float error: 0.1 + 0.2 is exactly 0.3', () => {
  assert.is(parseAmount('0.1') + parseAmount('0.2'), parseAmount('0.3'));
});

parse('accepts exactly 7 decimals', () => {
  assert.is(parseAmount('1.2345678'), 12_345_678n);
});

parse('rejects 8 decimals (no silent rounding)', () => {
  assert.throws(() => parseAmount('1.23456789'), RangeError);
  assert.throws(() => parseAmount('0.00000001'), RangeError);
});

const rejected: Array<[string, string]> = [
  ['-1', 'a negative amount'],
  ['-0.5', 'a negative fraction'],
  ['+1', 'an explicit plus sign'],
  ['1e3', 'exponent notation'],
  ['1E3', 'upper-case exponent notation'],
  ['1.5e-3', 'exponent on a fraction'],
  ['01', 'a leading zero'],
  ['00.5', 'two leading zeros'],
  ['007', 'leading zeros before digits'],
  ['.5', 'a missing integer part'],
  ['5.', 'a dangling decimal point'],
  ['', 'an empty string'],
  [' 1', 'leading whitespace'],
  ['1 ', 'trailing whitespace'],
  ['1,5', 'a comma as decimal separator'],
  ['1_000', 'digit separators'],
  ['0x10', 'hex'],
  ['NaN', 'NaN'],
  ['Infinity', 'Infinity'],
  ['1.2.3', 'two decimal points'],
];
for (const [text, what] of rejected) {
  parse(`rejects ${what}: ${JSON.stringify(text)}`, () => {
    assert.throws(() => parseAmount(text), RangeError);
  });
}

parse('values beyond Number.MAX_SAFE_INTEGER stay exact', () => {
  const text = '9007199254740993.1234567'; // MAX_SAFE_INTEGER + 2: not representable as a double
  assert.is(parseAmount(text), 90_071_992_547_409_931_234_567n);
  assert.is(formatAmount(parseAmount(text)), text);
  const huge = '123456789012345678901234567890.0000001';
  assert.is(formatAmount(parseAmount(huge)), huge);
  assert.is(parseAmount(huge) - parseAmount('123456789012345678901234567890'), 1n);
});

parse.run();

const format = suite('money: formatAmount');

format('canonical forms keep at least 2 decimals and drop extra trailing zeros', () => {
  assert.is(formatAmount(125_000_000n), '12.50');
  assert.is(formatAmount(1n), '0.0000001');
  assert.is(formatAmount(1_000_000_000n), '100.00');
  assert.is(formatAmount(0n), '0.00');
  assert.is(formatAmount(12_345_678n), '1.2345678');
  assert.is(formatAmount(12_340_000n), '1.234');
});

format('minDecimals can be changed', () => {
  assert.is(formatAmount(1_000_000_000n, 0), '100');
  assert.is(formatAmount(125_000_000n, 0), '12.5');
  assert.is(formatAmount(125_000_000n, 4), '12.5000');
  assert.is(formatAmount(1n, 4), '0.0000001');
});

format('negative amounts (a debit) keep their sign', () => {
  assert.is(formatAmount(-125_000_000n), '-12.50');
  assert.is(formatAmount(-1n), '-0.0000001');
});

format('exact round trips of canonical strings', () => {
  for (const text of ['0.00', '12.50', '0.0000001', '100.00', '1.2345678', '999999999999999.9999999', '0.10', '42.123']) {
    assert.is(formatAmount(parseAmount(text)), text, text);
  }
});

format('round trips of minor units', () => {
  for (const minor of [0n, 1n, 9n, 10n, 99_999_999n, 10_000_000n, 2n ** 80n + 7n]) {
    assert.is(parseAmount(formatAmount(minor)), minor, String(minor));
  }
});

format('non-canonical input normalises to its canonical form', () => {
  assert.is(formatAmount(parseAmount('12.5')), '12.50');
  assert.is(formatAmount(parseAmount('3')), '3.00');
  assert.is(formatAmount(parseAmount('1.1000000')), '1.10');
});

format.run();

const positive = suite('money: isPositiveAmount');

positive('only strictly positive amounts are positive', () => {
  assert.is(isPositiveAmount('0.0000001'), true);
  assert.is(isPositiveAmount('12.50'), true);
  assert.is(isPositiveAmount('0'), false);
  assert.is(isPositiveAmount('0.0000000'), false);
  assert.is(isPositiveAmount(null), false);
  assert.is(isPositiveAmount(undefined), false);
});

positive('a malformed amount is an error, not a silent false', () => {
  assert.throws(() => isPositiveAmount('-1'), RangeError);
  assert.throws(() => isPositiveAmount('1e3'), RangeError);
});

positive.run();
