import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FeeSchedule } from '@cagnotte/event-schemas';
import { formatAmount, parseAmount } from '../money';
import { feeOf, describeRule } from './fee';
import { frozenFeeVat, vatOnFee } from './vat';
import { vatIdOf } from '../invoicing/vat-treatment';
import { resolveCommission, type CommissionInput } from './commission';
import { quoteDeposit } from './quote';
import { defaultFeeSchedule, percentRule } from './schedule';

const m = parseAmount;
const show = (x: bigint) => formatAmount(x);
const rule = (percent: string, fixed = '0', min = '0', cap: string | null = null) => ({ percent, fixed, min, cap });
const schedule = (over: Partial<FeeSchedule> = {}): FeeSchedule => ({
  ...defaultFeeSchedule({ platformFeePercent: '2.5', listingFees: { LISTED: '5', FEATURED: '15' } }),
  vat: { default: '20', byCountry: { DE: '19', FR: '20' } },
  ...over,
});

const feeRules = suite('fees: feeOf, rule by rule');

feeRules('given 2.5 %, when the base is 100.00, then the fee is 2.50', () => {
  assert.is(show(feeOf(rule('2.5'), m('100'))), '2.50');
});
feeRules('given 2.5 %, when the base is 0.99, then the fee is 0.02 (0.02475 down to the cent)', () => {
  assert.is(show(feeOf(rule('2.5'), m('0.99'))), '0.02');
});
feeRules('given a fixed part of 0.30, when the base is 10.00 at 2.5 %, then the fee is 0.55', () => {
  assert.is(show(feeOf(rule('2.5', '0.30'), m('10'))), '0.55');
});
feeRules('given a minimum of 0.50, when 2.5 % gives 0.25, then the fee is the minimum', () => {
  assert.is(show(feeOf(rule('2.5', '0', '0.50'), m('10'))), '0.50');
});
feeRules('given a minimum of 0.50, when the base is 0.40, then the fee is the base (never above it)', () => {
  assert.is(show(feeOf(rule('2.5', '0', '0.50'), m('0.40'))), '0.40');
});
feeRules('given a cap of 20, when 2.5 % of 10000 gives 250, then the fee is the cap', () => {
  assert.is(show(feeOf(rule('2.5', '0', '0', '20'), m('10000'))), '20.00');
});
feeRules('given any rule, when the base is 0, then there is no fee (a fixed part has nothing to come from)', () => {
  assert.is(feeOf(rule('10', '1', '1'), 0n), 0n);
});
feeRules('given a base with sub-cent digits, when the fee is the whole base, then it is the base down to the cent', () => {
  assert.is(show(feeOf(rule('100'), m('1.2345678'))), '1.23');
});
feeRules('the rule in words names every part that applies', () => {
  assert.is(describeRule(rule('2.5', '0.3', '0.5', '20')), '2.5 % + 0.30, min 0.50, cap 20.00');
  assert.is(describeRule(percentRule('2')), '2 %');
});
feeRules.run();

const vat = suite('fees: VAT on a fee, case by case');
const parties = { schedule: schedule(), issuerCountry: 'FR', issuerVatId: 'FR40123456824' };

vat('given payer and issuer in France, then S at the French rate of the schedule (20 %), half-up to the cent', () => {
  const v = vatOnFee(m('0.55'), { ...parties, payerCountry: 'FR', payerVatId: null });
  assert.equal([v.category, v.rate, show(v.amount)], ['S', '20', '0.11']);
  const half = vatOnFee(m('0.05'), { ...parties, schedule: schedule({ vat: { default: '10', byCountry: {} } }), payerCountry: 'FR', payerVatId: null });
  assert.is(show(half.amount), '0.01', '0.005 rounds half up');
});
vat('given an EU payer in another country with a VAT id, then reverse charge (AE, 0)', () => {
  const v = vatOnFee(m('10'), { ...parties, payerCountry: 'DE', payerVatId: 'DE123456789' });
  assert.equal([v.category, v.rate, v.amount], ['AE', '0', 0n]);
});
vat('given an EU payer in another country without a VAT id, then S at the issuer country rate', () => {
  const v = vatOnFee(m('10'), { ...parties, payerCountry: 'DE', payerVatId: null });
  assert.equal([v.category, v.rate, show(v.amount)], ['S', '20', '2.00']);
});
vat('given a payer outside the EU, then G (services outside the EU, 0)', () => {
  const v = vatOnFee(m('10'), { ...parties, payerCountry: 'CH', payerVatId: 'CHE-123.456.789' });
  assert.equal([v.category, v.rate, v.amount, v.exemption], ['G', '0', 0n, { reason: 'Services supplied outside the EU', code: 'VATEX-EU-G' }]);
});
vat('given issuer and payer both in Switzerland, then S at the CH rate of the schedule (a domestic supply), not G', () => {
  const ch = { ...parties, schedule: schedule({ vat: { default: '20', byCountry: { CH: '8.1' } } }), issuerCountry: 'CH', issuerVatId: 'CHE123456789' };
  const v = vatOnFee(m('10'), { ...ch, payerCountry: 'CH', payerVatId: null });
  assert.equal([v.category, v.rate, show(v.amount), v.exemption], ['S', '8.1', '0.81', null]);
});
vat('given an issuer outside the EU and a payer in another country, then G (the service leaves its VAT area), EU payer or not', () => {
  const ch = { ...parties, issuerCountry: 'CH', issuerVatId: 'CHE123456789' };
  for (const payer of [{ payerCountry: 'FR', payerVatId: 'FR40123456824' }, { payerCountry: 'FR', payerVatId: null }, { payerCountry: 'US', payerVatId: null }]) {
    assert.equal([vatOnFee(m('10'), { ...ch, ...payer }).category], ['G'], JSON.stringify(payer));
  }
});
vat('given an issuer without a VAT id, then O (not subject), whoever pays', () => {
  const v = vatOnFee(m('10'), { ...parties, issuerVatId: null, payerCountry: 'FR', payerVatId: 'FR40123456824' });
  assert.equal([v.category, v.rate, v.amount], ['O', '0', 0n]);
});
vat('given a country in the table, then its rate; else the default', () => {
  const de = vatOnFee(m('10'), { ...parties, issuerCountry: 'DE', payerCountry: 'DE', payerVatId: null });
  assert.equal([de.category, de.rate, show(de.amount)], ['S', '19', '1.90']);
  const it = vatOnFee(m('10'), { ...parties, issuerCountry: 'IT', payerCountry: 'IT', payerVatId: null });
  assert.equal([it.rate, show(it.amount)], ['20', '2.00']);
});
vat('given a rate of 0 in the schedule, then Z (EN 16931 wants S above 0)', () => {
  const v = vatOnFee(m('10'), { ...parties, schedule: schedule({ vat: { default: '0', byCountry: {} } }), payerCountry: 'FR', payerVatId: null });
  assert.equal([v.category, v.rate, v.amount, v.exemption], ['Z', '0', 0n, null]);
  const listed = vatOnFee(m('10'), { ...parties, schedule: schedule({ vat: { default: '20', byCountry: { FR: '0.00' } } }), payerCountry: 'FR', payerVatId: null });
  assert.equal([listed.category, listed.rate], ['Z', '0'], 'a country listed at 0 as well');
});
vat('a French business without a tax id: its VAT number derives from the SIREN', () => {
  assert.is(vatIdOf({ taxCountry: 'FR', taxId: null, siret: '40483304800022' }), 'FR83404833048');
  assert.is(vatIdOf({ taxCountry: 'DE', taxId: 'DE123456789', siret: null }), 'DE123456789');
  assert.is(vatIdOf({ taxCountry: 'BE', taxId: null, siret: null }), null);
  assert.is(vatIdOf(null), null);
});
vat('at closing: the rates frozen for the fee and, on a brokered pool, the commission', () => {
  const platform = { country: 'FR', vatId: 'FR40123456824' };
  const seller = { id: 's', country: 'DE', vatId: 'DE123456789' };
  const organiser = { id: 'o', country: 'FR', vatId: null };
  assert.equal(frozenFeeVat({ schedule: schedule(), platform, seller, organiser }), { platformFee: { category: 'AE', rate: '0' }, commission: { category: 'O', rate: '0' } });
  assert.equal(frozenFeeVat({ schedule: schedule(), platform, seller: { id: 'o', country: 'FR', vatId: null }, organiser }), { platformFee: { category: 'S', rate: '20' }, commission: null });
});
vat.run();

const commission = suite('fees: the commission resolver');
const brokered = (over: Partial<CommissionInput> = {}): CommissionInput => ({
  amount: m('100'),
  schedule: schedule(),
  platform: { id: 'platform', country: 'FR', vatId: 'FR40123456824' },
  seller: { id: 'seller', country: 'FR', vatId: 'FR83404833048' },
  organiser: { id: 'organiser', country: 'FR', vatId: 'FR12345678901', accountType: 'BUSINESS' },
  organiserCommissionPercent: '10',
  commissionMandate: true,
  ...over,
});
const table = (lines: ReturnType<typeof resolveCommission>['lines']) => lines.map((l) => [l.kind, show(l.amount), l.recipient.id]);

commission('given a brokered pool, a BUSINESS organiser with the mandate, then five lines that sum to the amount', () => {
  const r = resolveCommission(brokered());
  assert.equal(table(r.lines), [
    ['SELLER_PAYOUT', '85.00', 'seller'],
    ['ORGANISER_COMMISSION', '10.00', 'organiser'],
    ['VAT_ON_ORGANISER_COMMISSION', '2.00', 'organiser'],
    ['PLATFORM_FEE', '2.50', 'platform'],
    ['VAT_ON_PLATFORM_FEE', '0.50', 'platform'],
  ]);
  assert.ok(r.commission.applies);
  assert.match(r.lines[3]!.rule, /payment fee 2.5 %/);
  assert.equal(r.lines[4]!.vat, { category: 'S', rate: '20' });
});
commission('given no mandate, a CONSUMER organiser, or the organiser selling, then no commission lines, and why', () => {
  for (const [over, why] of [
    [{ commissionMandate: false }, /COMMISSION mandate/],
    [{ organiser: { id: 'organiser', country: 'FR', vatId: null, accountType: 'CONSUMER' as const } }, /not a BUSINESS/],
    [{ seller: { id: 'organiser', country: 'FR', vatId: null } }, /not a brokered pool/],
    [{ organiserCommissionPercent: null }, /sets no organiserCommissionPercent/],
  ] as const) {
    const r = resolveCommission(brokered(over));
    assert.equal(r.lines.map((l) => l.kind), ['SELLER_PAYOUT', 'PLATFORM_FEE', 'VAT_ON_PLATFORM_FEE']);
    assert.not.ok(r.commission.applies);
    assert.match(r.commission.rule, why);
  }
});
commission('given an amount with sub-cent digits, then the fees are whole cents and the seller takes the sub-cent', () => {
  const r = resolveCommission(brokered({ amount: m('33.3333333') }));
  assert.equal(table(r.lines), [
    ['SELLER_PAYOUT', '28.3333333', 'seller'],
    ['ORGANISER_COMMISSION', '3.33', 'organiser'],
    ['VAT_ON_ORGANISER_COMMISSION', '0.67', 'organiser'],
    ['PLATFORM_FEE', '0.83', 'platform'],
    ['VAT_ON_PLATFORM_FEE', '0.17', 'platform'],
  ]);
});
commission('given rates above 100 % in all, then each line takes what is left and the seller gets 0, never less', () => {
  const r = resolveCommission(brokered({ schedule: schedule({ payment: rule('90') }), organiserCommissionPercent: '50' }));
  assert.equal(table(r.lines), [
    ['SELLER_PAYOUT', '0.00', 'seller'],
    ['ORGANISER_COMMISSION', '0.00', 'organiser'],
    ['VAT_ON_ORGANISER_COMMISSION', '0.00', 'organiser'],
    ['PLATFORM_FEE', '90.00', 'platform'],
    ['VAT_ON_PLATFORM_FEE', '10.00', 'platform'],
  ]);
  assert.match(r.lines[4]!.rule, /limited to what was left/);
});
commission('given the default schedule, then the platform fee is the tenant percent, as before schedules', () => {
  const d = defaultFeeSchedule({ platformFeePercent: '7.77', listingFees: { LISTED: '0', FEATURED: '0' } });
  assert.equal(d.payment, { percent: '7.77', fixed: '0', min: '0', cap: null });
  assert.equal(d.escrowDeposit.percent, '0');
  assert.is(d.organiserActivation, '1');
  const r = resolveCommission(brokered({ schedule: d, platform: { id: 'platform', country: 'FR', vatId: null } }));
  assert.is(show(r.lines.find((l) => l.kind === 'PLATFORM_FEE')!.amount), '7.77');
  assert.is(r.lines.find((l) => l.kind === 'VAT_ON_PLATFORM_FEE')!.amount, 0n, 'a platform without a VAT id charges none');
});
commission.run();

const quote = suite('fees: the escrow-deposit quote');
quote('given two lines and a deposit fee of 1 % + 0.10, then goods, fee and total', () => {
  const q = quoteDeposit({ lines: [{ unitId: 'a', quantity: 3, unitPrice: '12.50' }, { unitId: 'b', quantity: 1, unitPrice: '9.99' }], schedule: schedule({ escrowDeposit: rule('1', '0.10') }) });
  assert.equal([show(q.goods), show(q.depositFee), show(q.total)], ['47.49', '0.57', '48.06']);
  assert.equal(q.lines.map((l) => show(l.amount)), ['37.50', '9.99']);
});
quote('given a FUNDING pledge, then the pledge is the goods; the default schedule adds no fee', () => {
  const q = quoteDeposit({ lines: [], pledge: m('25'), schedule: defaultFeeSchedule({ platformFeePercent: '2', listingFees: { LISTED: '0', FEATURED: '0' } }) });
  assert.equal([show(q.goods), show(q.depositFee), show(q.total)], ['25.00', '0.00', '25.00']);
});
quote.run();
