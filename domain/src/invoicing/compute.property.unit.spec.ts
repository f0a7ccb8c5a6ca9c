import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { computeInvoice, netUnitPriceFromInclusive, parseCents, parseUnitPrice } from './compute';
import type { InvoiceLineInput, VatCategory } from './model';

// computeInvoice over random invoices: 1 to 8 lines, quantities 1 to 100, unit prices up to 10 000.0000, S at the
// EU rates or one of the 0 categories; paid either nothing or the VAT-inclusive price the buyer would have paid.
// PROPERTY_RUNS (default 1000) per property; fast-check prints the seed and the shrunk counterexample of a failure.
const PROPERTY_RUNS = Number(process.env.PROPERTY_RUNS ?? 1000);

const categoryArb: fc.Arbitrary<{ category: VatCategory; rate: string }> = fc.oneof(
  fc.constantFrom('20', '5.5', '10', '2.1', '19', '25.5', '27', '17').map((rate) => ({ category: 'S' as const, rate })),
  fc.constantFrom<VatCategory>('Z', 'E', 'AE', 'K', 'G').map((category) => ({ category, rate: '0' })),
);

const priceArb = fc.bigInt({ min: 0n, max: 100_000_000n }).map((t) => `${t / 10_000n}.${(t % 10_000n).toString().padStart(4, '0')}`);

const linesArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 100 }), priceArb, categoryArb, fc.boolean()), { minLength: 1, maxLength: 8 });

const header = {
  typeCode: '380' as const,
  number: 'F-1',
  issueDate: '2025-09-01',
  currency: 'EUR' as const,
  seller: { name: 'S', id: 's', vatId: 'FR83404833048', address: { country: 'FR' } },
  buyer: { name: 'B', id: 'b', address: { country: 'FR' } },
};

const toLines = (raw: Array<[number, string, { category: VatCategory; rate: string }, boolean]>): InvoiceLineInput[] =>
  raw.map(([quantity, price, { category, rate }, inclusive], i) => ({
    id: String(i + 1),
    name: `item ${i + 1}`,
    quantity,
    // Half the lines come from a VAT-inclusive price, as goods do.
    netUnitPrice: inclusive ? netUnitPriceFromInclusive(price, rate) : price,
    vatCategory: category,
    vatRate: rate,
  }));

const properties = suite('invoicing: computeInvoice, by property');

properties('totals are consistent: Σ lines = Σ taxable = basis; Σ tax = total tax; grand = basis + tax; grand − prepaid + rounding = due', () => {
  fc.assert(
    fc.property(linesArb, fc.boolean(), (raw, paid) => {
      const lines = toLines(raw);
      // What a buyer pays for VAT-inclusive prices: Σ quantity × inclusive price, to the stroop (a ledger amount).
      const unpaid = computeInvoice({ ...header, lines, prepaid: '0' });
      const prepaid = paid ? unpaid.totals.grandTotal : '0';
      const doc = computeInvoice({ ...header, lines, prepaid });
      const t = doc.totals;
      const sum = (xs: string[]) => xs.reduce((a, x) => a + parseCents(x), 0n);
      assert.is(sum(doc.lines.map((l) => l.netAmount)), parseCents(t.lineTotal));
      assert.is(sum(doc.vatBreakdown.map((b) => b.taxableAmount)), parseCents(t.taxBasisTotal));
      assert.is(parseCents(t.lineTotal), parseCents(t.taxBasisTotal));
      assert.is(sum(doc.vatBreakdown.map((b) => b.taxAmount)), parseCents(t.taxTotal));
      assert.is(parseCents(t.grandTotal), parseCents(t.taxBasisTotal) + parseCents(t.taxTotal));
      assert.is(parseCents(t.grandTotal) - parseCents(t.prepaid) + parseCents(t.rounding), parseCents(t.duePayable));
      assert.is(parseCents(t.duePayable), paid && parseCents(t.grandTotal) > 0n ? 0n : parseCents(t.grandTotal));
      for (const l of doc.lines) {
        // |net − quantity × price| ≤ half a cent, in ten-thousandths: 50.
        const exact = BigInt(l.quantity) * parseUnitPrice(l.netUnitPrice);
        const diff = parseCents(l.netAmount) * 100n - exact;
        assert.ok(diff <= 50n && diff >= -50n, `line ${l.id} rounded to the nearest cent`);
      }
      const keys = doc.vatBreakdown.map((b) => `${b.category}:${b.rate}`);
      assert.is(new Set(keys).size, keys.length, 'one breakdown entry per (category, rate)');
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties('a buyer who paid VAT-inclusive prices owes nothing: the rounding stays within the tolerance, never a throw', () => {
  fc.assert(
    fc.property(linesArb, (raw) => {
      const inclusiveRaw = raw.map(([q, p, c]) => [q, p, c, true] as [number, string, { category: VatCategory; rate: string }, boolean]);
      const lines = toLines(inclusiveRaw);
      // The ledger amount the buyer moved: Σ quantity × inclusive price (4 decimals here, a valid 7-decimal amount).
      const paidTenThousandths = inclusiveRaw.reduce((a, [q, p]) => a + BigInt(q) * parseUnitPrice(p), 0n);
      const prepaid = `${paidTenThousandths / 10_000n}.${(paidTenThousandths % 10_000n).toString().padStart(4, '0')}`;
      if (paidTenThousandths < 50n) return; // rounds to 0.00: an unpaid invoice, not this property
      const doc = computeInvoice({ ...header, lines, prepaid });
      assert.is(doc.totals.duePayable, '0.00');
      const rounding = parseCents(doc.totals.rounding);
      const bound = BigInt(lines.length) * 2n + 1n;
      assert.ok(rounding <= bound && rounding >= -bound, `rounding ${doc.totals.rounding} for ${lines.length} line(s)`);
    }),
    { numRuns: PROPERTY_RUNS },
  );
});

properties.run();
