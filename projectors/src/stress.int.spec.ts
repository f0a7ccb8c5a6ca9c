/**
 * Exactly once under interleavings (projectors/src/stress.ts): live runners, catch-ups and rebuilds of a counter and
 * of the real pools projection at once, with random delays at the runtime's dangerous points while events arrive;
 * every row checked against a fold of the feed. Bounded here (STRESS_SECONDS, default 20 s); the soak is
 * `pnpm bench -- --only soak --seconds N`.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { createKnex } from '@cagnotte/infra';
import { onTestTeardown, testDatabaseUrl } from '@cagnotte/infra/src/testing/resources';
import { runStress } from './stress';
import { silent as logger, specStore as store } from './spec-support';

const test = suite('projectors: exactly once under interleavings (stress)');

// A pool of its own: runners, catch-ups and rebuilds (each holding a connection for its turn) all at once.
let k: ReturnType<typeof createKnex> | null = null;
const knex = () => {
  if (!k) {
    const inst = createKnex(testDatabaseUrl(), 16);
    k = inst;
    onTestTeardown(() => inst.destroy());
  }
  return k;
};

const seconds = Number(process.env.STRESS_SECONDS ?? 20);

test('concurrent runners, catch-ups and rebuilds with injected delays: every row is the fold of the feed', async () => {
  const result = await runStress({ knex: knex(), store: store(), logger, durationMs: seconds * 1000, maxRounds: 40 });
  const summary = `seed ${result.seed}: ${result.rounds} rounds, ${result.events} events, ${result.rebuilds} rebuilds, ${result.catchUps} catch-ups, points ${JSON.stringify(result.points)}`;
  assert.equal(result.violations, [], summary);
  assert.ok(result.rounds >= 2, summary);
  assert.ok(result.rebuilds >= result.rounds, summary);
  for (const p of ['before-lock', 'after-lock', 'before-commit', 'checkpoint-read', 'between-pages', 'before-swap', 'in-swap'] as const) {
    assert.ok((result.points[p] ?? 0) > 0, `reached ${p}: ${summary}`);
  }
  if (process.env.STRESS_VERBOSE) console.log(summary);
});

test('the check notices a projection that applies an event twice now and then', async () => {
  let n = 0;
  const result = await runStress({
    knex: knex(),
    store: store(),
    logger,
    durationMs: 1,
    maxRounds: 1,
    eventsPerRound: 60,
    counterOverride: (base) => ({
      ...base,
      applyMany: undefined,
      async apply(trx, e, t) {
        await base.apply(trx, e, t);
        if (++n % 25 === 0) await base.apply(trx, e, t);
      },
    }),
  });
  assert.ok(result.violations.some((v) => /counter .*applied/.test(v)), `violations: ${result.violations.join('\n')}`);
});

test.run();
