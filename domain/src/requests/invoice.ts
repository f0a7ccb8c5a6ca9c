import type { InvoiceRequestFacts } from '../invoicing/builders';
import type { InvoiceParty } from '../invoicing/model';
import type { ExistingRequest } from './request';

/**
 * Payee → customer for a paid request: its lines as they were asked (unit amounts VAT excluded, their categories and
 * rates), prepaid by exactly the amount due (the payments reached it; an overpayment is not the invoice's, the notes
 * name it). Its totals are those the request showed, by the same rule (requestTotals asks computeInvoice).
 */
export const paidRequestInvoice = (r: ExistingRequest, f: { seller: InvoiceParty; requestRef: string }): InvoiceRequestFacts => {
  if (r.status !== 'paid' || !r.paidAt) throw new Error(`request ${r.requestId} is not paid`);
  const counted = r.payments.filter((p) => !p.late);
  const c = r.customer;
  const buyer: InvoiceParty = c
    ? { name: c.name, id: f.requestRef, email: c.email, vatId: c.vatId ?? null, address: { line1: c.address?.line1 ?? null, city: c.address?.city ?? null, postcode: c.address?.postcode ?? null, country: c.country } }
    : { name: `Ledger account ${counted[0]?.from ?? 'unknown'}`, id: f.requestRef, address: { country: f.seller.address.country } };
  return {
    kind: 'REQUEST',
    sourceKey: `request:${r.requestId}`,
    draft: {
      typeCode: '380',
      currency: 'EUR',
      seller: f.seller,
      buyer,
      lines: r.lines.map((l, k) => ({ id: String(k + 1), name: l.description, quantity: l.quantity, netUnitPrice: l.unitAmount, vatCategory: l.vatCategory, vatRate: l.vatRate })),
      prepaid: r.amountDue,
      paymentReference: counted[counted.length - 1]?.txHash ?? null,
      buyerReference: f.requestRef,
      deliveryDate: r.paidAt.slice(0, 10),
      notes: [
        ...(r.description ? [r.description.slice(0, 1000)] : []),
        `Payment request ${f.requestRef}: paid on the ledger to the payee's account by ${counted.length === 1 ? 'one payment' : `${counted.length} payments`} (${counted.map((p) => p.txHash).join(', ')}).`.slice(0, 1000),
      ],
    },
  };
};
