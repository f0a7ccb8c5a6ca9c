import type { PaymentRequestLine } from '@cagnotte/event-schemas';
import { ValidationError } from '../errors';
import { formatAmount, parseAmount, type Minor } from '../money';
import { computeInvoice, parseCents } from '../invoicing/compute';

/**
 * What a request's lines come to: the invoice's own rounding rule (computeInvoice, docs/invoicing.md#the-rounding-rule),
 * so the invoice issued when it is paid shows exactly the amount that was due. Lines net, VAT per (category, rate),
 * all in bigint cents inside.
 */
export interface RequestTotals {
  subtotal: string;
  tax: string;
  amountDue: string;
}

export const requestTotals = (lines: readonly PaymentRequestLine[]): RequestTotals => {
  let doc;
  try {
    doc = computeInvoice({
      typeCode: '380',
      number: 'draft',
      issueDate: '2000-01-01',
      currency: 'EUR',
      seller: { name: 'payee', id: 'payee', address: { country: 'FR' } },
      buyer: { name: 'customer', id: 'customer', address: { country: 'FR' } },
      lines: lines.map((l, k) => ({ id: String(k + 1), name: l.description, quantity: l.quantity, netUnitPrice: l.unitAmount, vatCategory: l.vatCategory, vatRate: l.vatRate })),
      prepaid: '0',
    });
  } catch (e) {
    if (!(e instanceof RangeError)) throw e;
    const at = /^line (\d+)/.exec(e.message);
    const field = at ? `lineItems.${Number(at[1]) - 1}` : 'lineItems';
    throw new ValidationError({ [field]: [e.message.replace(/^line \d+: /, '')] }, 'Invalid line items', 'invalid_line_items');
  }
  return { subtotal: doc.totals.taxBasisTotal, tax: doc.totals.taxTotal, amountDue: doc.totals.grandTotal };
};

/** An invoice amount (2 decimals) in stroops, the ledger's unit: what the payments are compared with. */
export const stroopsOfCents = (amount: string): Minor => parseCents(amount) * 100_000n;

export const addAmounts = (a: string, b: string): string => formatAmount(parseAmount(a) + parseAmount(b));
