import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DurationError, MAX_ADVANCE_SECONDS, parseDuration } from './sandbox-duration';

const test = suite('sandbox clock: durations');

const refused = (text: string, why: RegExp) => {
  try {
    parseDuration(text);
  } catch (e) {
    assert.instance(e, DurationError, text);
    assert.match((e as Error).message, why, text);
    assert.not.match((e as Error).message, /\n/, 'one line');
    return;
  }
  assert.unreachable(`${text} was accepted`);
};

test('the short forms: seconds, minutes, hours, days, weeks, and their sums from the largest unit down', () => {
  assert.is(parseDuration('90s'), 90);
  assert.is(parseDuration('15m'), 900);
  assert.is(parseDuration('2h'), 7_200);
  assert.is(parseDuration('7d'), 604_800);
  assert.is(parseDuration('1d12h'), 129_600);
  assert.is(parseDuration('1w2d3h4m5s'), 604_800 + 2 * 86_400 + 3 * 3_600 + 4 * 60 + 5);
  assert.is(parseDuration(' 2H '), 7_200, 'trimmed, any case');
});

test('ISO 8601 durations without years or months', () => {
  assert.is(parseDuration('P7D'), 604_800);
  assert.is(parseDuration('PT2H'), 7_200);
  assert.is(parseDuration('P1DT12H'), 129_600);
  assert.is(parseDuration('PT90S'), 90);
  assert.is(parseDuration('PT1H30M'), 5_400);
  assert.is(parseDuration('P2W'), 1_209_600);
  assert.is(parseDuration('p1d'), 86_400, 'lower case too');
});

test('not a duration: one line naming the accepted forms', () => {
  for (const bad of ['', '7', 'd', '7 days', '1.5h', '-1d', '+1d', '12h1d', '1d1d', 'P', 'PT', 'P1DT', '7x', 'now', 'P1.5D']) refused(bad, /not a duration: use e\.g\. 90s, 15m, 2h, 7d, 1d12h or ISO 8601 P7D, PT2H/);
  refused('P1Y', /years and months have no fixed length/);
  refused('P2M', /years and months have no fixed length/);
  assert.is(parseDuration('PT2M'), 120, 'minutes after T are minutes');
});

test('bounds: forward by 1 s at least, 3650 days at most', () => {
  refused('0s', /no time at all/);
  refused('PT0S', /no time at all/);
  refused('0d0h', /no time at all/);
  assert.is(parseDuration('1s'), 1);
  assert.is(parseDuration('3650d'), MAX_ADVANCE_SECONDS);
  refused('3650d1s', /more than 3650 days/);
  refused('3651d', /more than 3650 days/);
  refused('99999999999999999999d', /more than 3650 days/);
});

test.run();
