import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { parseAmount } from '../money';
import { assertStorable } from '../testing/decider';
import { planArb, play, sum } from './pool-history.testing';

// Random pool histories (pool-history.testing.ts), from the first reservation to the merge. Invariants: money is
// conserved to the stroop, every deposit is settled exactly once and in full, nothing is settled while it is held
// (an open dispute, no receipt yet), what each buyer gets back follows the final prices and the dispute, every event
// passes its schema, and no command fails with anything but a domain error.
// Runs: PROPERTY_RUNS (default 1000), in the normal test run; fast-check prints the seed and the shrunk plan of a
// failure (replay it with `fc.assert(…, { seed, path })`).
const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

const properties = suite('escrow: pool histories, by property');

properties('money is conserved to the stroop; every deposit is settled exactly once, in full, never while it is held', () => {
  fc.assert(
    fc.property(planArb, (plan) => {
      const run = play(plan);
      const events = run.history;
      assertStorable(events);
      const of = <T extends PoolEvent['type']>(type: T) => events.filter((e): e is Extract<PoolEvent, { type: T }> => e.type === type);
      const deposits = [...of('ReservationPaid'), ...of('ReservationLatePaymentReceived')].map((e) => ({ balanceId: e.data.balanceId, amount: parseAmount(e.data.amount) }));
      const settled = of('ReservationSettled');
      const paidIn = sum(deposits.map((d) => d.amount));
      const released = sum(settled.map((e) => parseAmount(e.data.released)));
      const refunded = sum(settled.map((e) => parseAmount(e.data.refunded)));

      // Every deposit settled exactly once, and nothing else.
      const counts = new Map<string, number>();
      for (const e of settled) counts.set(e.data.balanceId, (counts.get(e.data.balanceId) ?? 0) + 1);
      for (const d of deposits) assert.is(counts.get(d.balanceId), 1, `deposit ${d.balanceId} settled once`);
      assert.is(counts.size, deposits.length, 'only deposits are settled');
      for (const e of settled) assert.is(parseAmount(e.data.released) + parseAmount(e.data.refunded), deposits.find((d) => d.balanceId === e.data.balanceId)!.amount, 'a settled deposit is paid out in full');

      // Conservation: what came in went out, to the stroop; the payouts say the same, recipient by recipient.
      assert.is(released + refunded, paidIn, 'Σ deposits = Σ released + Σ refunded');
      const payouts = of('EscrowPayoutSettled');
      assert.is(sum(payouts.filter((p) => p.data.role === 'BUYER').map((p) => parseAmount(p.data.amount))), refunded, 'buyers received what was refunded');
      assert.is(sum(payouts.filter((p) => p.data.role !== 'BUYER').map((p) => parseAmount(p.data.amount))), released, 'seller, organiser and platform received what was released');
      const fee = BigInt(plan.feeHundredths);
      const platform = sum(payouts.filter((p) => p.data.role === 'PLATFORM').map((p) => parseAmount(p.data.amount)));
      assert.ok(platform * 10_000n <= released * fee, 'the platform never takes more than its rate of what was released');

      const pool = run.pool;
      // Each released deposit: the buyer gets back what they paid above the final prices, plus what a dispute refunded
      // (REFUNDED or LAPSED; nothing when WITHDRAWN); a recovery or a failed pool gives everything back.
      for (const e of settled) {
        const r = pool.holdings.byId.get(e.data.reservationId)!;
        const amount = deposits.find((d) => d.balanceId === e.data.balanceId)!.amount;
        let back = amount;
        if (e.data.path === 'RELEASE' && e.data.kind === 'DEPOSIT' && pool.closing?.outcome === 'SUCCEEDED') {
          const atFinal = sum(r.lines.map((l) => (pool.closing!.finalPrices.get(l.unitId) ?? parseAmount(l.unitPrice)) * BigInt(l.quantity)));
          const due = atFinal < amount ? atFinal : amount;
          const disputeRefund = r.dispute && (r.dispute.status === 'REFUNDED' || r.dispute.status === 'LAPSED') ? parseAmount(r.dispute.refund!) : 0n;
          back = amount - due + disputeRefund;
        }
        assert.is(parseAmount(e.data.refunded), back, `what ${r.id} got back (${e.data.path}, ${e.data.kind})`);
      }

      const merged = of('PoolSettled');
      // Even with nothing paid in, the escrow is merged back (by an empty settlement: the platform's reserve returns).
      assert.is(merged.length, 1, `the escrow is merged once (${pool.status})`);
      if (deposits.length === 0) return;
      assert.equal([parseAmount(merged[0]!.data.released), parseAmount(merged[0]!.data.refunded)], [released, refunded], 'PoolSettled states the whole pool');
      assert.ok(pool.settlement.mergedAt);
      if (pool.closing?.outcome === 'SUCCEEDED') assert.is(pool.status, 'SETTLED');
      else assert.is(released, 0n, 'a failed or cancelled pool releases nothing');
    }),
    { numRuns: PROPERTY_RUNS, includeErrorInReport: true },
  );
});

properties.run();
