import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { compareFeedPositions, decodeCursor, encodeCursor } from './cursor';

const test = suite('webhooks: the feed cursor');

test('given a position, when encoded and decoded, then the same position comes back', () => {
  for (const p of [
    { commit: 0n, prepare: 0n, idx: 0 },
    { commit: 10n, prepare: 12_345n, idx: 3 },
    { commit: 18_446_744_073_709_551_615n, prepare: 9_223_372_036_854_775_807n, idx: 32_767 },
  ]) {
    const c = encodeCursor(p);
    assert.match(c, /^[A-Za-z0-9_-]+$/, 'base64url, no padding');
    assert.equal(decodeCursor(c), p);
  }
});

test('given garbage, when decoded, then null', () => {
  const b64 = (s: string) => Buffer.from(s).toString('base64url');
  for (const bad of [
    '',
    'not a cursor!',
    '%%%',
    b64('1.2'),
    b64('1.2.3.4'),
    b64('a.b.c'),
    b64('-1.2.3'),
    b64('1.-2.3'),
    b64('1.2.32768'),
    b64('01.2.3'),
    b64('1.2.3 '),
    b64('18446744073709551616.0.0'),
    b64('1.9223372036854775808.0'),
    b64('1e3.2.3'),
    `${b64('1.2.3')}=`,
    'x'.repeat(500),
  ]) {
    assert.is(decodeCursor(bad), null, bad);
  }
});

test('given cursors at commit 9 and 10, then 10 is after 9 although "10" < "9" as text', () => {
  const nine = decodeCursor(encodeCursor({ commit: 9n, prepare: 500n, idx: 0 }))!;
  const ten = decodeCursor(encodeCursor({ commit: 10n, prepare: 1n, idx: 0 }))!;
  assert.ok('10' < '9', 'the text order is the trap');
  assert.ok(compareFeedPositions(ten, nine) > 0);
  assert.ok(compareFeedPositions(nine, ten) < 0);
  assert.ok(compareFeedPositions({ commit: 10n, prepare: 1n, idx: 10 }, { commit: 10n, prepare: 1n, idx: 9 }) > 0, 'idx as a number too');
  assert.ok(compareFeedPositions({ commit: 10n, prepare: 100n, idx: 0 }, { commit: 10n, prepare: 99n, idx: 5 }) > 0, 'prepare before idx');
  assert.is(compareFeedPositions(ten, { ...ten }), 0);
});

test.run();
