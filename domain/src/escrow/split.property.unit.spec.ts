import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { formatAmount } from '../money';
import { dueOf, percentHundredths, percentOf, splitDeposit } from './split';

// The split of one deposit (fee lines: domain/src/fees feeLines, the resolver's arithmetic), over random deposits (1 stroop to 10^15 stroops), due amounts, dispute refunds and rates.
// Runs: PROPERTY_RUNS (default 1000) per property, in the normal test run; fast-check prints the seed and the shrunk
// counterexample of a failure (replay it with `fc.assert(…, { seed, path })`).
const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

const MAX_DEPOSIT = 10n ** 15n;

/** A percentage from 0 to 100 with at most two decimals, as the Percent schema writes it ("0", "2.5", "12.34", "100.00"). */
const percentArb = fc.integer({ min: 0, max: 10_000 }).chain((h) => {
  const whole = Math.floor(h / 100);
  const cents = h % 100;
  const forms = [cents === 0 ? `${whole}` : null, cents % 10 === 0 ? `${whole}.${cents / 10}` : null, `${whole}.${String(cents).padStart(2, '0')}`];
  return fc.constantFrom(...forms.filter((f): f is string => f !== null)).map((text) => ({ text, hundredths: BigInt(h) }));
});

/** deposit ≥ 1 stroop; 0 ≤ due ≤ deposit (often all of it: a FUNDING pledge, a tier not reached); 0 ≤ refund ≤ due. */
const amountsArb = fc
  .bigInt({ min: 1n, max: MAX_DEPOSIT })
  .chain((deposit) => fc.tuple(fc.constant(deposit), fc.oneof(fc.constant(deposit), fc.bigInt({ min: 0n, max: deposit }))))
  .chain(([deposit, due]) => fc.tuple(fc.constant(deposit), fc.constant(due), fc.oneof(fc.constant(0n), fc.constant(due), fc.bigInt({ min: 0n, max: due }))));

const properties = suite('escrow: the split, by property');

properties('a percentage reads as hundredths of a percent, whatever its form', () => {
  fc.assert(
    fc.property(percentArb, (p) => percentHundredths(p.text) === p.hundredths),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('every deposit splits exactly: no line negative, fee and commission never above their rate, the seller takes what is left', () => {
  fc.assert(
    fc.property(amountsArb, percentArb, fc.option(percentArb, { nil: null }), ([deposit, due, disputeRefund], fee, commission) => {
      const s = splitDeposit({ deposit, due, disputeRefund, platformFeePercent: fee.text, organiserCommissionPercent: commission?.text ?? null });
      const context = `deposit ${formatAmount(deposit)}, due ${formatAmount(due)}, refund ${formatAmount(disputeRefund)}, fee ${fee.text} %, commission ${commission?.text ?? 'none'}`;
      // The lines paid out: seller, organiser, platform, buyer. They add up to the deposit, to the stroop.
      assert.is(s.seller + s.commission + s.platformFee + s.buyerRefund, deposit, `the lines add up to the deposit (${context})`);
      for (const [name, v] of Object.entries({ seller: s.seller, commission: s.commission, platformFee: s.platformFee, buyerRefund: s.buyerRefund, tierRefund: s.tierRefund, net: s.net })) {
        assert.ok(v >= 0n, `${name} is not negative (${context})`);
      }
      assert.is(s.net, due - disputeRefund, context);
      assert.is(s.tierRefund, deposit - due, context);
      assert.is(s.buyerRefund, deposit - due + disputeRefund, context);
      // Rounded DOWN to the cent (docs/fees.md#rounding), as exact rationals: fee ≤ rate × net < fee + 1 cent.
      const CENT = 100_000n;
      assert.ok(s.platformFee * 10_000n <= s.net * fee.hundredths, `fee ≤ rate × net (${context})`);
      assert.ok((s.platformFee + CENT) * 10_000n > s.net * fee.hundredths, `the fee loses less than a cent (${context})`);
      assert.is(s.platformFee % CENT, 0n, `the fee is whole cents (${context})`);
      const rate = commission?.hundredths ?? 0n;
      assert.ok(s.commission * 10_000n <= s.net * rate, `commission ≤ rate × net (${context})`);
      // The commission is rounded down to the cent too, unless the two rates together exceed 100 %: then it is the whole cents the fee leaves.
      const floor = ((s.net * rate) / (10_000n * CENT)) * CENT;
      const left = s.net - s.platformFee - ((s.net - s.platformFee) % CENT);
      assert.is(s.commission, floor < left ? floor : left, `commission (${context})`);
      assert.is(s.platformFeeVat + s.commissionVat, 0n, 'no VAT rates frozen: none withheld');
      assert.ok(s.seller >= 0n, `the seller is never negative (${context})`);
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('a deposit that included an escrow-deposit fee: the platform takes the fee whole, the goods split as before, the lines still add up to the deposit', () => {
  fc.assert(
    fc.property(amountsArb, fc.bigInt({ min: 0n, max: 10n ** 12n }), percentArb, fc.option(percentArb, { nil: null }), ([goods, due, disputeRefund], fee, rate, commission) => {
      const deposit = goods + fee;
      const s = splitDeposit({ deposit, depositFee: fee, due, disputeRefund, platformFeePercent: rate.text, organiserCommissionPercent: commission?.text ?? null });
      const bare = splitDeposit({ deposit: goods, due, disputeRefund, platformFeePercent: rate.text, organiserCommissionPercent: commission?.text ?? null });
      const context = `goods ${formatAmount(goods)}, deposit fee ${formatAmount(fee)}, due ${formatAmount(due)}, refund ${formatAmount(disputeRefund)}`;
      assert.is(s.depositFee, fee, context);
      assert.is(s.seller + s.commission + s.commissionVat + s.platformFee + s.platformFeeVat + s.depositFee + s.buyerRefund, deposit, `the lines add up to the deposit (${context})`);
      // The fee changes nobody else's line: the seller, the organiser and the buyer's refunds are those of the goods alone.
      assert.equal([s.seller, s.commission, s.platformFee, s.tierRefund, s.buyerRefund], [bare.seller, bare.commission, bare.platformFee, bare.tierRefund, bare.buyerRefund], context);
      assert.is(s.tierRefund, goods - due, context);
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('out-of-range inputs are refused, never split: due above the deposit, a refund above the due amount', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 1n, max: MAX_DEPOSIT }), fc.bigInt({ min: 1n, max: 1000n }), (deposit, over) => {
      assert.throws(() => splitDeposit({ deposit, due: deposit + over, disputeRefund: 0n, platformFeePercent: '1', organiserCommissionPercent: null }), RangeError);
      assert.throws(() => splitDeposit({ deposit, due: deposit, disputeRefund: deposit + over, platformFeePercent: '1', organiserCommissionPercent: null }), RangeError);
      assert.throws(() => splitDeposit({ deposit, depositFee: deposit + over, due: 0n, disputeRefund: 0n, platformFeePercent: '1', organiserCommissionPercent: null }), RangeError);
      assert.throws(() => splitDeposit({ deposit: deposit + over, depositFee: over, due: deposit + 1n, disputeRefund: 0n, platformFeePercent: '1', organiserCommissionPercent: null }), RangeError, 'due above the goods');
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('percentOf rounds down: the part is never above the exact product, and less than a stroop below it', () => {
  fc.assert(
    fc.property(fc.bigInt({ min: 0n, max: MAX_DEPOSIT }), percentArb, (amount, p) => {
      const part = percentOf(amount, p.text);
      return part * 10_000n <= amount * p.hundredths && (part + 1n) * 10_000n > amount * p.hundredths;
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('dueOf: Σ quantity × the lower of the final and the charged price, line by line, never above the deposit', () => {
  const line = fc.record({ unitId: fc.constantFrom('u1', 'u2', 'u3'), quantity: fc.integer({ min: 1, max: 50 }), unitPrice: fc.bigInt({ min: 1n, max: 10n ** 10n }) });
  fc.assert(
    fc.property(fc.uniqueArray(line, { minLength: 1, maxLength: 3, selector: (l) => l.unitId }), fc.dictionary(fc.constantFrom('u1', 'u2'), fc.bigInt({ min: 0n, max: 10n ** 10n })), (lines, finals) => {
      const deposit = lines.reduce((sum, l) => sum + l.unitPrice * BigInt(l.quantity), 0n);
      const prices = new Map(Object.entries(finals));
      const lower = (a: bigint, b: bigint) => (a < b ? a : b);
      const atFinal = lines.reduce((sum, l) => sum + lower(prices.get(l.unitId) ?? l.unitPrice, l.unitPrice) * BigInt(l.quantity), 0n);
      const due = dueOf(lines.map((l) => ({ unitId: l.unitId, quantity: l.quantity, unitPrice: formatAmount(l.unitPrice) })), deposit, prices);
      assert.is(due, atFinal < deposit ? atFinal : deposit);
      assert.ok(due <= deposit);
    }),
    { numRuns: PROPERTY_RUNS },
  );
  assert.is(dueOf([], 123n, new Map([['u1', 1n]])), 123n, 'a FUNDING pledge owes itself');
  // One unit charged 8.00 whose final price rose to 10.00, two at 2.50 now 2.00: 8.00 + 4.00, not 10.00 + 4.00 capped.
  const mixed = [
    { unitId: 'u1', quantity: 1, unitPrice: '8.00' },
    { unitId: 'u2', quantity: 2, unitPrice: '2.50' },
  ];
  assert.is(dueOf(mixed, 130_000_000n, new Map([['u1', 100_000_000n], ['u2', 20_000_000n]])), 120_000_000n, 'a lapsed tier on one line never eats another line’s discount');
});

properties.run();
