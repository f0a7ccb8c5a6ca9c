import { percentHundredths } from '../escrow/split';
import { parseAmount } from '../money';
import type { InvoiceDocument, InvoiceLine, InvoiceLineInput, InvoiceTotals, VatBreakdown, VatCategory } from './model';

/**
 * The invoice document from its lines, exact: bigint cents inside (unit prices in ten-thousandths), decimal strings
 * outside, no float anywhere.
 *
 * The rounding rule (docs/invoicing.md#the-rounding-rule):
 * - a line's net amount is quantity × net unit price, rounded half-up to the cent (BT-131);
 * - the VAT breakdown has one entry per (category, rate), in the order the lines first use it; its taxable amount is
 *   the sum of its lines (BT-116), its tax that sum × rate, rounded half-up to the cent once per entry (BT-117);
 * - grandTotal = taxBasisTotal + taxTotal (no document-level allowances or charges, so taxBasisTotal = lineTotal);
 * - `prepaid` is what the ledger moved for it (up to 7 decimals, rounded half-up to the cent: invoices have 2). When
 *   it is zero the invoice is unpaid and duePayable = grandTotal. Otherwise the invoice is settled: duePayable = 0 and
 *   rounding = prepaid − grandTotal (BR-CO-16: due = grand − prepaid + rounding) absorbs the sub-cent drift between a
 *   VAT-inclusive price the buyer paid and the net price × rate the invoice shows. That drift is bounded by the
 *   roundings above (see `roundingTolerance`); a larger difference means the wrong amount was passed, and throws.
 *
 * An invoice under O (not subject to VAT) drops the VAT identifiers of both parties (BR-O-02): a consumer organiser
 * invoicing a business still shows none.
 */
export interface ComputeInvoiceInput extends Omit<InvoiceDocument, 'lines' | 'vatBreakdown' | 'totals'> {
  lines: InvoiceLineInput[];
  /** What was paid already for it (the escrow deposit share, the fee withheld): a ledger amount, up to 7 decimals. */
  prepaid: string;
  /** BT-120 / BT-121 per category, replacing the defaults of `DEFAULT_EXEMPTIONS`. */
  exemptions?: Partial<Record<VatCategory, { reason: string; code?: string | null }>>;
}

/**
 * The exemption reason each category without VAT must carry (BR-E-10, BR-AE-10, BR-IC-10, BR-G-10, BR-O-10), with
 * its VATEX code (the CEF VATEX code list). S and Z carry none (BR-S-10, BR-Z-10).
 */
export const DEFAULT_EXEMPTIONS: Readonly<Partial<Record<VatCategory, { reason: string; code: string | null }>>> = Object.freeze({
  E: { reason: 'Exempt from VAT', code: null },
  AE: { reason: 'Reverse charge', code: 'VATEX-EU-AE' },
  K: { reason: 'Intra-community supply', code: 'VATEX-EU-IC' },
  G: { reason: 'Export outside the EU', code: 'VATEX-EU-G' },
  O: { reason: 'Not subject to VAT', code: 'VATEX-EU-O' },
});

// ---------------------------------------------------------------------------------------------------------------------
// Exact decimals: cents (2 decimals) and ten-thousandths (4 decimals, unit prices).

const UNIT_PRICE = /^(0|[1-9]\d*)(?:\.(\d{1,4}))?$/;

/** A unit price with at most 4 decimals → ten-thousandths of a euro. */
export const parseUnitPrice = (text: string): bigint => {
  const m = UNIT_PRICE.exec(text);
  if (!m) throw new RangeError(`not a unit price with at most 4 decimals: ${text}`);
  return BigInt(m[1]!) * 10_000n + BigInt((m[2] ?? '').padEnd(4, '0'));
};

/** Ten-thousandths → "12.50", "8.325", "0.0001": at least 2 decimals, at most 4, no trailing zero beyond 2. */
export const formatUnitPrice = (tenThousandths: bigint): string => {
  if (tenThousandths < 0n) throw new RangeError('a unit price is never negative');
  const whole = tenThousandths / 10_000n;
  const frac = (tenThousandths % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${whole}.${frac.padEnd(2, '0')}`;
};

/** Cents → "12.50", "-0.01". */
export const formatCents = (cents: bigint): string => {
  const negative = cents < 0n;
  const abs = negative ? -cents : cents;
  return `${negative ? '-' : ''}${abs / 100n}.${(abs % 100n).toString().padStart(2, '0')}`;
};

/** "12.50" (at most 2 decimals) → cents; more decimals are a RangeError, never a silent rounding. */
export const parseCents = (text: string): bigint => {
  const m = /^(-)?(0|[1-9]\d*)(?:\.(\d{1,2}))?$/.exec(text);
  if (!m) throw new RangeError(`not an invoice amount with at most 2 decimals: ${text}`);
  const value = BigInt(m[2]!) * 100n + BigInt((m[3] ?? '').padEnd(2, '0'));
  return m[1] ? -value : value;
};

/** n / d rounded half-up (half away from zero), for d > 0. */
const divHalfUp = (n: bigint, d: bigint): bigint => (n >= 0n ? (2n * n + d) / (2n * d) : -((2n * -n + d) / (2n * d)));

/** A percentage in canonical form: 2000 hundredths → "20", 550 → "5.5", 0 → "0". */
export const formatRate = (hundredths: bigint): string => {
  const whole = hundredths / 100n;
  const frac = (hundredths % 100n).toString().padStart(2, '0').replace(/0+$/, '');
  return frac ? `${whole}.${frac}` : `${whole}`;
};

/** A ledger amount (up to 7 decimals) → cents, rounded half-up. */
export const centsFromLedger = (ledgerAmount: string): bigint => divHalfUp(parseAmount(ledgerAmount), 100_000n);

/** A ledger amount (up to 7 decimals) as an invoice amount: rounded half-up to the cent ("12.3456789" → "12.35"). */
export const invoiceAmountFromLedger = (ledgerAmount: string): string => formatCents(centsFromLedger(ledgerAmount));

/**
 * The VAT-exclusive unit price of a VAT-inclusive one: inclusive / (1 + rate), rounded half-up to 4 decimals (BT-146
 * and BT-148 allow more, 4 keep the drift on a line under half a cent for up to 100 units). The inclusive price is a
 * ledger amount (up to 7 decimals: a pool's unit price); the rate a percentage with at most two decimals.
 */
export const netUnitPriceFromInclusive = (inclusive: string, vatRate: string): string =>
  formatUnitPrice(divHalfUp(parseAmount(inclusive) * 10n, 10_000n + percentHundredths(vatRate)));

/** The plan's name for `netUnitPriceFromInclusive` (a gross price in the EN 16931 sense is also VAT-exclusive). */
export const grossFromInclusive = netUnitPriceFromInclusive;

// ---------------------------------------------------------------------------------------------------------------------

const sameRate = (category: VatCategory, hundredths: bigint, lineId: string): void => {
  if (category === 'S' && hundredths === 0n) throw new RangeError(`line ${lineId}: category S needs a rate above 0 (BR-S-05)`);
  if (category !== 'S' && hundredths !== 0n) throw new RangeError(`line ${lineId}: category ${category} has a rate of 0`);
};

/**
 * How far `prepaid` may sit from grandTotal and still be the same payment, in millionths of a euro: half a cent per
 * line net and per breakdown tax, half a cent for rounding the paid amount itself, and half a ten-thousandth per unit
 * (a 4-decimal net unit price) — each line's part scaled by (1 + rate), since its VAT is computed on it.
 */
const roundingTolerance = (lines: InvoiceLineInput[], breakdownCount: number): bigint => {
  let micro = 5_000n * BigInt(breakdownCount) + 5_000n;
  for (const l of lines) {
    const perLine = 50n * BigInt(l.quantity) + 5_000n;
    micro += (perLine * (10_000n + percentHundredths(l.vatRate)) + 9_999n) / 10_000n;
  }
  return micro;
};

export const computeInvoice = (input: ComputeInvoiceInput): InvoiceDocument => {
  const { lines: lineInputs, prepaid, exemptions, ...header } = input;
  if (lineInputs.length === 0) throw new RangeError('an invoice has at least one line (BR-16)');
  const ids = new Set<string>();
  const lines: InvoiceLine[] = [];
  const groups = new Map<string, { category: VatCategory; hundredths: bigint; taxable: bigint }>();
  for (const l of lineInputs) {
    if (ids.has(l.id)) throw new RangeError(`line id ${l.id} appears twice (BT-126 is unique in an invoice)`);
    ids.add(l.id);
    if (!Number.isSafeInteger(l.quantity) || l.quantity <= 0) throw new RangeError(`line ${l.id}: the quantity is a positive integer`);
    const net = parseUnitPrice(l.netUnitPrice);
    if (l.grossUnitPrice != null && parseUnitPrice(l.grossUnitPrice) < net) {
      throw new RangeError(`line ${l.id}: the gross unit price is never below the net one (the difference is a discount)`);
    }
    const hundredths = percentHundredths(l.vatRate);
    sameRate(l.vatCategory, hundredths, l.id);
    const netAmount = divHalfUp(BigInt(l.quantity) * net, 100n);
    lines.push({
      ...l,
      netUnitPrice: formatUnitPrice(net),
      ...(l.grossUnitPrice != null ? { grossUnitPrice: formatUnitPrice(parseUnitPrice(l.grossUnitPrice)) } : {}),
      vatRate: formatRate(hundredths),
      netAmount: formatCents(netAmount),
    });
    const key = `${l.vatCategory}:${hundredths}`;
    const group = groups.get(key) ?? { category: l.vatCategory, hundredths, taxable: 0n };
    group.taxable += netAmount;
    groups.set(key, group);
  }
  const categories = new Set([...groups.values()].map((g) => g.category));
  if (categories.has('O') && categories.size > 1) throw new RangeError('an invoice not subject to VAT (O) has no other VAT category (BR-O-11)');

  let lineTotal = 0n;
  let taxTotal = 0n;
  const vatBreakdown: VatBreakdown[] = [];
  for (const g of groups.values()) {
    const tax = divHalfUp(g.taxable * g.hundredths, 10_000n);
    lineTotal += g.taxable;
    taxTotal += tax;
    const exemption = g.category === 'S' || g.category === 'Z' ? undefined : (exemptions?.[g.category] ?? DEFAULT_EXEMPTIONS[g.category]);
    vatBreakdown.push({
      category: g.category,
      rate: formatRate(g.hundredths),
      taxableAmount: formatCents(g.taxable),
      taxAmount: formatCents(tax),
      ...(exemption ? { exemptionReason: exemption.reason, exemptionReasonCode: exemption.code ?? null } : {}),
    });
  }
  const grandTotal = lineTotal + taxTotal;
  const paid = centsFromLedger(prepaid);
  let rounding = 0n;
  let due = grandTotal;
  if (paid !== 0n) {
    rounding = paid - grandTotal;
    const abs = rounding < 0n ? -rounding : rounding;
    if (abs * 10_000n > roundingTolerance(lineInputs, vatBreakdown.length)) {
      throw new RangeError(`prepaid ${prepaid} is not the payment of an invoice of ${formatCents(grandTotal)}: the rounding would be ${formatCents(rounding)}`);
    }
    due = 0n;
  }
  const totals: InvoiceTotals = {
    lineTotal: formatCents(lineTotal),
    taxBasisTotal: formatCents(lineTotal),
    taxTotal: formatCents(taxTotal),
    grandTotal: formatCents(grandTotal),
    prepaid: formatCents(paid),
    rounding: formatCents(rounding),
    duePayable: formatCents(due),
  };
  // BR-O-02: an invoice not subject to VAT carries no VAT identifier at all, the buyer's included.
  const notSubject = categories.has('O');
  const seller = notSubject ? { ...header.seller, vatId: null } : header.seller;
  const buyer = notSubject ? { ...header.buyer, vatId: null } : header.buyer;
  return { ...header, seller, buyer, lines, vatBreakdown, totals };
};
