import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { FeeRule, FeeSchedule } from '@cagnotte/event-schemas';
import { formatAmount, parseAmount } from '../money';
import { CENT } from './rounding';
import { feeOf } from './fee';
import { resolveCommission, type CommissionInput } from './commission';
import { quoteDeposit } from './quote';
import { vatOnFee } from './vat';
import { splitDeposit } from '../escrow/split';

// The resolver over random amounts (0 to 10^15 stroops), fee rules, VAT tables and parties. Seeded, so a run is
// reproducible (PROPERTY_SEED); fast-check prints the seed and the shrunk counterexample of a failure.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 3000);
const SEED = Number(process.env.PROPERTY_SEED ?? 20_240_612);
const options = { numRuns: RUNS, seed: SEED };

const MAX = 10n ** 15n;
const percentArb = fc.integer({ min: 0, max: 10_000 }).map((h) => ({ text: `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`, hundredths: BigInt(h) }));
/** Amounts of the schedule: mostly whole cents, sometimes sub-cent (a DecimalAmount may have 7 decimals). */
const scheduleAmount = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 10n }).map((c) => c * CENT), fc.bigInt({ min: 0n, max: 10n ** 12n }));
const ruleArb = fc
  .tuple(percentArb, scheduleAmount, scheduleAmount, fc.option(scheduleAmount, { nil: null }))
  .map(([p, fixed, min, cap]): { rule: FeeRule; hundredths: bigint } => ({
    rule: { percent: p.text, fixed: formatAmount(fixed), min: formatAmount(min), cap: cap === null ? null : formatAmount(cap < min ? min : cap) },
    hundredths: p.hundredths,
  }));
const amountArb = fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 1000n }), fc.bigInt({ min: 0n, max: MAX }));
const countryArb = fc.constantFrom('FR', 'DE', 'BE', 'US', 'CH', 'IT');
const vatIdArb = fc.option(fc.constantFrom('FR40123456824', 'DE123456789', 'BE0123456789'), { nil: null });
const partyArb = (id: string) => fc.record({ id: fc.constant(id), country: countryArb, vatId: vatIdArb });

const scheduleArb = fc.tuple(ruleArb, percentArb, fc.dictionary(countryArb, percentArb.map((p) => p.text))).map(
  ([payment, vatDefault, byCountry]): FeeSchedule => ({
    payment: payment.rule,
    escrowDeposit: payment.rule,
    listing: { LISTED: '0', FEATURED: '0' },
    organiserActivation: '1',
    vat: { default: vatDefault.text, byCountry },
  }),
);

const inputArb = fc
  .record({
    amount: amountArb,
    schedule: scheduleArb,
    platform: partyArb('platform'),
    seller: fc.oneof(partyArb('seller'), partyArb('organiser')),
    organiser: fc.record({ id: fc.constant('organiser'), country: countryArb, vatId: vatIdArb, accountType: fc.constantFrom('BUSINESS' as const, 'CONSUMER' as const) }),
    commission: fc.option(percentArb, { nil: null }),
    commissionMandate: fc.boolean(),
  })
  .map((r): CommissionInput & { commissionHundredths: bigint } => ({
    amount: r.amount,
    schedule: r.schedule,
    platform: r.platform,
    seller: r.seller,
    organiser: r.organiser,
    organiserCommissionPercent: r.commission?.text ?? null,
    commissionMandate: r.commissionMandate,
    commissionHundredths: r.commission?.hundredths ?? 0n,
  }));

const properties = suite('fees: the resolver, by property');

properties('feeOf: never negative, never above the base, a whole number of cents, within [min, cap] when the base allows', () => {
  fc.assert(
    fc.property(ruleArb, amountArb, ({ rule, hundredths }, base) => {
      const fee = feeOf(rule, base);
      const ctx = `${JSON.stringify(rule)} on ${formatAmount(base)} → ${formatAmount(fee)}`;
      assert.ok(fee >= 0n && fee <= base, `0 ≤ fee ≤ base (${ctx})`);
      assert.is(fee % CENT, 0n, `whole cents (${ctx})`);
      const exact = base * hundredths + parseAmount(rule.fixed) * 10_000n; // × 10⁴
      const min = parseAmount(rule.min);
      assert.ok(fee * 10_000n <= (exact > min * 10_000n ? exact : min * 10_000n), `fee ≤ max(min, percent × base + fixed) (${ctx})`);
      if (rule.cap !== null) assert.ok(fee <= parseAmount(rule.cap), `fee ≤ cap (${ctx})`);
      if (base > 0n && base >= min && (rule.cap === null || parseAmount(rule.cap) >= min)) assert.ok(fee >= min - (min % CENT), `fee ≥ min, down to the cent (${ctx})`);
      assert.is(feeOf(rule, base), fee, 'the same inputs give the same fee');
    }),
    options,
  );
});

properties('resolveCommission: the lines sum exactly to the amount, none negative, fee ≤ its rule, commission ≤ its percentage, deterministic', () => {
  fc.assert(
    fc.property(inputArb, (input) => {
      const r = resolveCommission(input);
      const ctx = JSON.stringify(input, (_k, v) => (typeof v === "bigint" ? v.toString() : v));
      assert.is(r.lines.reduce((s, l) => s + l.amount, 0n), input.amount, `the lines sum to the amount (${ctx})`);
      for (const l of r.lines) assert.ok(l.amount >= 0n, `${l.kind} is not negative (${ctx})`);
      const kinds = r.lines.map((l) => l.kind);
      const order = ['SELLER_PAYOUT', 'ORGANISER_COMMISSION', 'VAT_ON_ORGANISER_COMMISSION', 'PLATFORM_FEE', 'VAT_ON_PLATFORM_FEE'];
      assert.equal(kinds, order.filter((k) => kinds.includes(k as never)), 'the lines come in the stated order');
      const line = (k: string) => r.lines.find((l) => l.kind === k)?.amount ?? 0n;
      assert.ok(line('PLATFORM_FEE') <= feeOf(input.schedule.payment, input.amount), `fee ≤ its rule (${ctx})`);
      assert.ok(line('ORGANISER_COMMISSION') * 10_000n <= input.amount * input.commissionHundredths, `commission ≤ percentage × amount (${ctx})`);
      for (const k of ['PLATFORM_FEE', 'ORGANISER_COMMISSION', 'VAT_ON_PLATFORM_FEE', 'VAT_ON_ORGANISER_COMMISSION']) assert.is(line(k) % CENT, 0n, `${k} in whole cents (${ctx})`);
      const applies = input.seller.id !== input.organiser.id && input.organiser.accountType === 'BUSINESS' && input.commissionMandate && input.commissionHundredths > 0n;
      assert.is(kinds.includes('ORGANISER_COMMISSION'), applies, `commission only for a BUSINESS organiser with the mandate on a brokered pool (${ctx})`);
      assert.equal(resolveCommission(input), r, 'the same inputs give the same lines');
    }),
    options,
  );
});

properties('the split at closing and the resolver give the same lines for the same frozen rule, rates and amount', () => {
  fc.assert(
    fc.property(inputArb, (input) => {
      const r = resolveCommission(input);
      const line = (k: string) => r.lines.find((l) => l.kind === k);
      const rateOf = (issuer: { country: string; vatId: string | null }) =>
        vatOnFee(0n, { schedule: input.schedule, issuerCountry: issuer.country, issuerVatId: issuer.vatId, payerCountry: input.seller.country, payerVatId: input.seller.vatId }).rate;
      const applies = r.commission.applies;
      const s = splitDeposit({
        deposit: input.amount,
        due: input.amount,
        disputeRefund: 0n,
        platformFeePercent: input.schedule.payment.percent,
        platformFee: input.schedule.payment,
        organiserCommissionPercent: applies ? input.organiserCommissionPercent : null,
        vat: { platformFee: { rate: rateOf(input.platform) }, commission: applies ? { rate: rateOf(input.organiser) } : null },
      });
      assert.equal(
        [s.seller, s.commission, s.commissionVat, s.platformFee, s.platformFeeVat],
        [line('SELLER_PAYOUT')!.amount, line('ORGANISER_COMMISSION')?.amount ?? 0n, line('VAT_ON_ORGANISER_COMMISSION')?.amount ?? 0n, line('PLATFORM_FEE')!.amount, line('VAT_ON_PLATFORM_FEE')!.amount],
      );
    }),
    options,
  );
});

properties('quoteDeposit: total = goods + deposit fee, goods = Σ quantity × unit price', () => {
  const lineArb = fc.record({ unitId: fc.constantFrom('a', 'b', 'c'), quantity: fc.integer({ min: 1, max: 500 }), unitPrice: fc.bigInt({ min: 0n, max: 10n ** 11n }).map((p) => formatAmount(p)) });
  fc.assert(
    fc.property(fc.array(lineArb, { minLength: 1, maxLength: 4 }), scheduleArb, (lines, schedule) => {
      const q = quoteDeposit({ lines, schedule });
      const goods = lines.reduce((s, l) => s + parseAmount(l.unitPrice) * BigInt(l.quantity), 0n);
      assert.is(q.goods, goods);
      assert.is(q.depositFee, feeOf(schedule.escrowDeposit, goods));
      assert.is(q.total, goods + q.depositFee);
      assert.equal(quoteDeposit({ lines, schedule }), q);
    }),
    options,
  );
});

properties.run();
