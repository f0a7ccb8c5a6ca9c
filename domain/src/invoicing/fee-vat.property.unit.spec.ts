import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { FeeSchedule } from '@cagnotte/event-schemas';
import { formatAmount } from '../money';
import { CENT } from '../fees/rounding';
import { frozenFeeVat, frozenVatTreatment, vatOnFee, type VatParties } from '../fees/vat';
import { activationFeeInvoice, commissionInvoice, depositFeeInvoice, listingFeeInvoice, listingRefundCreditNote, platformFeeInvoice, type InvoiceDraft } from './builders';
import { computeInvoice } from './compute';
import { feeVat, item, POOL_ID, R1, SETTLE_TX, TX } from './fixtures.testing';
import type { InvoiceParty } from './model';

// One rule for VAT on a fee: whatever the parties (EU or not, same country or not, with a VAT id or not), the tenant's
// rates (0 included) and the fee, every fee invoice carries the VAT of its fee line: the same category, the same rate,
// the same amount (docs/fees.md#vat-on-fees). Seeded (PROPERTY_SEED); fast-check prints the shrunk counterexample.
const RUNS = Number(process.env.PROPERTY_RUNS ?? 2000);
const SEED = Number(process.env.PROPERTY_SEED ?? 20_261_126);
const options = { numRuns: RUNS, seed: SEED };

const countryArb = fc.constantFrom('FR', 'DE', 'BE', 'IT', 'CH', 'US', 'GB');
const vatIdFor: Record<string, string> = { FR: 'FR40123456824', DE: 'DE123456789', BE: 'BE0123456789', IT: 'IT12345678901', CH: 'CHE123456789', US: 'US123456789', GB: 'GB123456789' };
/** Percentages with at most two decimals; 0 often (a tenant that charges no VAT on fees somewhere). */
const rateArb = fc.oneof(fc.constant('0'), fc.constantFrom('20', '19', '8.1', '5.5', '21', '0.01', '100'), fc.integer({ min: 0, max: 10_000 }).map((h) => `${Math.floor(h / 100)}.${String(h % 100).padStart(2, '0')}`));
const partyArb = fc.record({ country: countryArb, business: fc.boolean() });
const scheduleVatArb = fc.record({ default: rateArb, byCountry: fc.dictionary(countryArb, rateArb) });
/** A fee in whole cents (every fee is: docs/fees.md#rounding), from one cent to a million. */
const feeArb = fc.oneof(fc.bigInt({ min: 1n, max: 1000n }), fc.bigInt({ min: 1n, max: 10n ** 8n })).map((c) => c * CENT);

const inputArb = fc.record({ issuer: partyArb, payer: partyArb, vat: scheduleVatArb, fee: feeArb });
type Input = typeof inputArb extends fc.Arbitrary<infer T> ? T : never;

const schedule = (vat: FeeSchedule['vat']): FeeSchedule => ({
  payment: { percent: '2', fixed: '0', min: '0', cap: null },
  escrowDeposit: { percent: '0', fixed: '0', min: '0', cap: null },
  listing: { LISTED: '5', FEATURED: '20' },
  organiserActivation: '1',
  vat,
});
const invoiceParty = (id: string, p: { country: string; business: boolean }): InvoiceParty => ({ name: id, id, vatId: p.business ? vatIdFor[p.country]! : null, address: { country: p.country } });
const vatParties = (i: Input): VatParties => ({
  schedule: schedule(i.vat),
  issuerCountry: i.issuer.country,
  issuerVatId: i.issuer.business ? vatIdFor[i.issuer.country]! : null,
  payerCountry: i.payer.country,
  payerVatId: i.payer.business ? vatIdFor[i.payer.country]! : null,
});
/** The VAT the invoices of a fee carry, as the invoice issuance asks it (command-api/src/invoicing/parties.ts `feeVatOf`). */
const invoiceVat = (i: Input) => feeVat(invoiceParty('platform', i.issuer), invoiceParty('payer', i.payer), i.vat);

const issued = (draft: InvoiceDraft) => computeInvoice({ ...draft, number: 'X-2026-000001', issueDate: '2026-03-03' });
const pool = { poolId: POOL_ID, title: 'Fromages du Jura', unitLabels: new Map<string, string>() };

/** Every fee invoice of a fee paid as its fee line says (fee + its VAT): platform fee, commission, deposit, listing (and its refund), activation. */
const invoicesOf = (i: Input) => {
  const line = vatOnFee(i.fee, vatParties(i));
  const paid = formatAmount(i.fee + line.amount);
  const issuer = invoiceParty('platform', i.issuer);
  const payer = invoiceParty('payer', i.payer);
  const vat = invoiceVat(i);
  const charge = { platform: issuer, payer, vat, amount: paid, txHash: TX, paidOn: '2026-03-01' };
  // What a closing froze (PoolClosed v2) for the same parties: the platform fee and, the issuer as organiser, the commission.
  const p = vatParties(i);
  const frozen = frozenFeeVat({ schedule: p.schedule, platform: { country: p.issuerCountry, vatId: p.issuerVatId }, seller: { id: 's', country: p.payerCountry, vatId: p.payerVatId }, organiser: { id: 'o', country: p.issuerCountry, vatId: p.issuerVatId } });
  const round = { pool, issuer, payer, settlementId: R1, round: 0, percent: '2', txHash: SETTLE_TX, settledOn: '2026-03-03' };
  const drafts = {
    PLATFORM_FEE: platformFeeInvoice({ ...round, vat, items: [item(R1, paid, [['PLATFORM', paid]])] })!.draft,
    'PLATFORM_FEE frozen at closing': platformFeeInvoice({ ...round, vat: frozenVatTreatment(frozen.platformFee), items: [item(R1, paid, [['PLATFORM', paid]])] })!.draft,
    'COMMISSION frozen at closing': commissionInvoice({ ...round, vat: frozenVatTreatment(frozen.commission!), items: [item(R1, paid, [['ORGANISER', paid]])], mandate: { id: R1, acceptedAt: '2026-02-01T00:00:00Z' } })!.draft,
    DEPOSIT_FEE: depositFeeInvoice({ ...charge, pool, reservationId: R1 })!.draft,
    LISTING_FEE: listingFeeInvoice({ ...charge, pool, listingId: R1, tier: 'LISTED' })!.draft,
    ACTIVATION_FEE: activationFeeInvoice({ ...charge, grantId: R1 })!.draft,
    'CREDIT_NOTE of a listing fee': listingRefundCreditNote({ ...charge, pool, listingId: R1, tier: 'LISTED', corrects: { invoiceId: R1, number: 'L-2026-000001', issueDate: '2026-03-01' } })!.draft,
  };
  return { line, invoices: Object.entries(drafts).map(([kind, draft]) => ({ kind, doc: issued(draft) })) };
};

const test = suite('fee VAT: every fee invoice carries the VAT of its fee line');

test('given issuer and payer both in Switzerland with the tenant rate CH 8.1 %, then the fee line and every invoice say S 8.1', () => {
  const i: Input = { issuer: { country: 'CH', business: true }, payer: { country: 'CH', business: false }, vat: { default: '20', byCountry: { CH: '8.1' } }, fee: 1000n * CENT };
  const { line, invoices } = invoicesOf(i);
  assert.equal([line.category, line.rate, formatAmount(line.amount)], ['S', '8.1', '0.81']);
  for (const { kind, doc } of invoices) assert.equal(doc.vatBreakdown.map((b) => [b.category, b.rate, b.taxAmount]), [['S', '8.1', '0.81']], kind);
});

test('given a tenant rate of 0 %, then the fee line and every invoice say Z at 0 (zero rated: the issuer is registered for VAT)', () => {
  const i: Input = { issuer: { country: 'FR', business: true }, payer: { country: 'FR', business: false }, vat: { default: '20', byCountry: { FR: '0' } }, fee: 1000n * CENT };
  const { line, invoices } = invoicesOf(i);
  assert.equal([line.category, line.rate, line.amount], ['Z', '0', 0n]);
  for (const { kind, doc } of invoices) assert.equal(doc.vatBreakdown.map((b) => [b.category, b.rate, b.taxAmount]), [['Z', '0', '0.00']], kind);
});

test('property: for random parties, tenant rates (0 included) and fees, each fee invoice has its fee line’s category, rate, net and VAT', () => {
  fc.assert(
    fc.property(inputArb, (i) => {
      const { line, invoices } = invoicesOf(i);
      for (const { kind, doc } of invoices) {
        const ctx = `${kind} ${JSON.stringify(i, (_k, x) => (typeof x === 'bigint' ? x.toString() : x))}`;
        assert.equal(
          doc.vatBreakdown.map((b) => [b.category, b.rate, b.taxableAmount, b.taxAmount]),
          [[line.category, line.rate, formatAmount(i.fee), formatAmount(line.amount)]],
          ctx,
        );
        assert.is(doc.totals.rounding, '0.00', `paid exactly fee + VAT: nothing to round (${ctx})`);
      }
    }),
    options,
  );
});

test.run();
