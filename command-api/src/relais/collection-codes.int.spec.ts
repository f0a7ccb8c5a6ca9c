import { randomUUID } from 'node:crypto';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { RateLimitedError, createKnex } from '@cagnotte/infra';
import { onTestTeardown, testDatabaseUrl, testKnex } from '@cagnotte/infra/src/testing/resources';
import { ATTEMPTS_PER_WINDOW, ATTEMPT_WINDOW_MS, claimCodeAttempt } from './collection-codes';

/**
 * The wrong-code limit of a community host, on the real database: codes entered at once, from two processes (two
 * connection pools), never get more than ATTEMPTS_PER_WINDOW past the limit's check, whatever their interleaving; a
 * right code does not count; the window slides.
 */
const test = suite('relais collection codes: the wrong-code limit under simultaneous attempts');

const NOW = new Date('2026-03-02T10:00:00.000Z');
let second: ReturnType<typeof createKnex> | null = null;
const otherProcess = () => {
  if (!second) {
    const k = createKnex(testDatabaseUrl(), 4);
    second = k;
    onTestTeardown(() => k.destroy());
  }
  return second;
};

const refusedWith429 = async (attempt: Promise<unknown>) => {
  const error = await attempt.then(() => null, (e: unknown) => e);
  assert.instance(error, RateLimitedError, 'refused: too many codes in the window');
};

const outcomes = async (attempts: Array<Promise<unknown>>) => {
  const settled = await Promise.allSettled(attempts);
  const refused = settled.filter((s) => s.status === 'rejected');
  for (const r of refused) assert.instance((r as PromiseRejectedResult).reason, RateLimitedError);
  return { counted: settled.length - refused.length, refused: refused.length };
};

test('30 codes at once on one host, half from each process, 20 rounds: exactly 10 counted, 20 refused with 429', async () => {
  for (let round = 0; round < 20; round++) {
    const hostId = randomUUID();
    const services = [{ knex: testKnex() }, { knex: otherProcess() }];
    const { counted, refused } = await outcomes(Array.from({ length: 30 }, (_, i) => claimCodeAttempt(services[i % 2]!, hostId, NOW)));
    assert.equal([counted, refused], [ATTEMPTS_PER_WINDOW, 30 - ATTEMPTS_PER_WINDOW], `round ${round}`);
  }
});

test('a right code is forgiven: it frees its place; other hosts are counted apart', async () => {
  const hostId = randomUUID();
  const s = { knex: testKnex() };
  const attempts = [];
  for (let i = 0; i < ATTEMPTS_PER_WINDOW; i++) attempts.push(await claimCodeAttempt(s, hostId, NOW));
  await refusedWith429(claimCodeAttempt(s, hostId, NOW));
  await attempts[0]!.forgive();
  await claimCodeAttempt(s, hostId, NOW);
  await refusedWith429(claimCodeAttempt(s, hostId, NOW));
  await claimCodeAttempt(s, randomUUID(), NOW);
});

test('the refusal says when to retry, and the window slides: 15 minutes after the first code a place is free', async () => {
  const hostId = randomUUID();
  const s = { knex: testKnex() };
  for (let i = 0; i < ATTEMPTS_PER_WINDOW; i++) await claimCodeAttempt(s, hostId, new Date(NOW.getTime() + i * 60_000));
  const at = new Date(NOW.getTime() + 10 * 60_000);
  try {
    await claimCodeAttempt(s, hostId, at);
    assert.unreachable('the 11th code in the window is refused');
  } catch (e) {
    assert.instance(e, RateLimitedError);
    assert.is((e as RateLimitedError).retryAfterSeconds, 5 * 60);
  }
  await claimCodeAttempt(s, hostId, new Date(NOW.getTime() + ATTEMPT_WINDOW_MS + 1));
});

test.run();
