import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { TOTAL_BPS, splitAmount, splitProblem } from './split';

// The split of a funded deal, over random amounts (1 stroop to 10^18) and random splits of 1 to 20 lines.
const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

/** n positive basis points summing to 10,000: n − 1 distinct cut points in 1..9999. */
const bpsArb = fc.integer({ min: 1, max: 20 }).chain((n) =>
  fc.uniqueArray(fc.integer({ min: 1, max: TOTAL_BPS - 1 }), { minLength: n - 1, maxLength: n - 1 }).map((cuts) => {
    const points = [0, ...cuts.sort((a, b) => a - b), TOTAL_BPS];
    return points.slice(1).map((p, i) => p - points[i]!);
  }),
);
const splitArb = bpsArb.chain((bps) =>
  fc.integer({ min: -1, max: bps.length - 1 }).map((sellerAt) => bps.map((b, i) => ({ accountId: `a${i}`, bps: b, role: i === sellerAt ? ('seller' as const) : ('payee' as const) }))),
);

const properties = suite('deals: the split, by property');

properties('the parts sum to the funded amount to the stroop; each line gets its floor share, only the seller (else the first line) the remainder', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: 10n ** 18n }), splitArb, (amount, split) => {
      assert.is(splitProblem(split), null);
      const parts = splitAmount(amount, split);
      assert.is(parts.reduce((s, p) => s + p.amount, 0n), amount);
      const sellerAt = split.findIndex((l) => l.role === 'seller');
      const takesRemainder = sellerAt === -1 ? 0 : sellerAt;
      parts.forEach((p, i) => {
        const share = (amount * BigInt(p.bps)) / BigInt(TOTAL_BPS);
        if (i === takesRemainder) {
          assert.ok(p.amount >= share && p.amount - share < BigInt(split.length), 'the remainder is less than a stroop per line');
        } else assert.is(p.amount, share);
      });
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('a split is refused unless its positive lines sum to exactly 10,000, each account once', () => {
  assert.is(splitProblem([{ accountId: 'a', bps: 8000 }, { accountId: 'b', bps: 1999 }]), 'the basis points sum to 9999, not 10000');
  assert.is(splitProblem([{ accountId: 'a', bps: 5000 }, { accountId: 'a', bps: 5000 }]), 'each account appears once');
  assert.is(splitProblem([{ accountId: 'a', bps: 10_001 }, { accountId: 'b', bps: -1 }]), 'each line takes from 1 to 10000 basis points');
  assert.throws(() => splitAmount(10n, [{ bps: 9000, role: 'seller' }]));
});

properties('the e2e example: 100.0000001 split 8,000 / 1,500 / 500 gives the seller the stroop left over', () => {
  const parts = splitAmount(1_000_000_001n, [{ bps: 8000, role: 'seller' as const }, { bps: 1500, role: 'broker' as const }, { bps: 500, role: 'payee' as const }]);
  assert.equal(parts.map((p) => p.amount), [800_000_001n, 150_000_000n, 50_000_000n]);
});

properties.run();
