/**
 * `pnpm bench -- --only soak --seconds N`: the stress of projectors/src/stress.ts (live runners, catch-ups and rebuilds
 * of a counter and of the pools projection at once, random delays at the runtime's hook points, appends all along,
 * every row checked against a fold of the feed after each round) for N seconds. Prints rounds and violations (0).
 */
import { PostgresEventStore, createKnex, createLogger, createPgPool } from '@cagnotte/infra';
import { runStress } from '@cagnotte/projectors/src/stress';
import { freshDatabase, type SummaryRow } from './lib';

export const runSoak = async (o: { url: string; seconds: number }): Promise<{ rows: SummaryRow[]; details: Record<string, unknown> }> => {
  await freshDatabase(o.url);
  const pool = createPgPool(o.url, 20);
  const knex = createKnex(o.url, 16);
  const store = new PostgresEventStore({ pool, pollMs: 20 });
  console.log(`\n## Soak: exactly once under interleavings for ${o.seconds} s`);
  try {
    const started = Date.now();
    let lastPrint = 0;
    const result = await runStress({
      knex,
      store,
      logger: createLogger('silent', 'soak'),
      durationMs: o.seconds * 1000,
      onRound: (r) => {
        if (r.violations > 0 || Date.now() - lastPrint > 10_000) {
          lastPrint = Date.now();
          console.log(`  ${((Date.now() - started) / 1000).toFixed(0)} s: round ${r.round}, ${r.events} events, ${r.violations} new violations (round ${r.ms} ms)`);
        }
      },
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`  seed ${result.seed}: ${result.rounds} rounds (iterations), ${result.events} events, ${result.rebuilds} rebuilds, ${result.catchUps} catch-ups in ${seconds.toFixed(0)} s`);
    console.log(`  hook points reached: ${JSON.stringify(result.points)}`);
    console.log(`  violations: ${result.violations.length}`);
    for (const v of result.violations.slice(0, 20)) console.log(`    ${v.split('\n')[0]}`);
    return {
      rows: [
        {
          part: 'soak',
          metric: `soak: rows differing from the fold of the feed (${result.rounds} rounds, ${result.rebuilds} rebuilds)`,
          measured: String(result.violations.length),
          baseline: '',
          target: '0',
          pass: result.violations.length === 0,
          raw: { ...result, seconds },
        },
      ],
      details: { ...result, violations: result.violations.slice(0, 100), seconds },
    };
  } finally {
    await store.close();
    await knex.destroy();
    await pool.end();
  }
};
