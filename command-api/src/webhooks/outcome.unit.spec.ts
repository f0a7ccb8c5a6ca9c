import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { DEFAULT_RETRY_SCHEDULE_MS, failingTooLong, outcomeOf, retryAfterMs, withJitter } from './outcome';

const test = suite('webhook attempt outcomes');
const now = new Date('2026-11-27T10:00:00Z');
const answered = (status: number, retryAfter: string | null = null) => ({ kind: 'answered' as const, status, retryAfter });

test('given a 2xx, then delivered; given 410, then gone, whatever the step', () => {
  for (const s of [200, 201, 204, 299]) assert.equal(outcomeOf(answered(s), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'delivered' });
  assert.equal(outcomeOf(answered(410), 10, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'gone' });
  assert.equal(outcomeOf(answered(300), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5).kind, 'retry');
});

test('given failures, then each retry waits the next delay of the schedule within ±10 %, and the attempt after the last fails for good', () => {
  for (let step = 1; step < DEFAULT_RETRY_SCHEDULE_MS.length; step += 1) {
    const expected = DEFAULT_RETRY_SCHEDULE_MS[step]!;
    const low = outcomeOf(answered(500), step, DEFAULT_RETRY_SCHEDULE_MS, now, 0);
    const high = outcomeOf(answered(500), step, DEFAULT_RETRY_SCHEDULE_MS, now, 0.999999);
    assert.equal(low, { kind: 'retry', delayMs: Math.round(expected * 0.9) });
    assert.ok(high.kind === 'retry' && high.delayMs <= Math.round(expected * 1.1) && high.delayMs > expected);
  }
  assert.equal(outcomeOf({ kind: 'error', error: 'timeout' }, 10, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'failed' });
  assert.equal(outcomeOf({ kind: 'error', error: 'timeout' }, 9, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5).kind, 'retry');
});

test('given Retry-After on 429/502/503/504, then it is honoured (seconds or HTTP date, capped at 24 h); on a 500 it is not', () => {
  assert.equal(outcomeOf(answered(429, '7'), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'retry', delayMs: 7_000 });
  assert.equal(outcomeOf(answered(503, 'Fri, 27 Nov 2026 10:02:00 GMT'), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'retry', delayMs: 120_000 });
  assert.equal(outcomeOf(answered(502, '999999'), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'retry', delayMs: 86_400_000 });
  assert.equal(outcomeOf(answered(500, '7'), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'retry', delayMs: 5_000 });
  assert.equal(outcomeOf(answered(504, 'soon'), 1, DEFAULT_RETRY_SCHEDULE_MS, now, 0.5), { kind: 'retry', delayMs: 5_000 });
  assert.is(retryAfterMs('Thu, 26 Nov 2026 10:00:00 GMT', now), 0, 'a past date: at once');
  assert.is(retryAfterMs(null, now), null);
});

test('jitter stays within ±10 %; an endpoint is disabled after exactly 5 days failing', () => {
  assert.is(withJitter(1000, 0), 900);
  assert.is(withJitter(1000, 0.5), 1000);
  assert.is(withJitter(0, 0.7), 0);
  const since = new Date(now.getTime() - 5 * 86_400_000);
  assert.ok(failingTooLong(since, now));
  assert.not.ok(failingTooLong(new Date(since.getTime() + 1), now));
});

test.run();
