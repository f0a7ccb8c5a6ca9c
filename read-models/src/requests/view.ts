import { z } from 'zod';
import { fromMinor, toMinor } from '../reservations/amounts';
import type { RequestDoc } from './fold';

/** `req_` + the uuid's 32 hex digits (the /v1 id form, docs/v1.md). */
export const requestPublicId = (uuid: string): string => `req_${uuid.replace(/-/g, '')}`;
/** `acct_` + the account's uuid hex. */
export const accountPublicId = (uuid: string): string => `acct_${uuid.replace(/-/g, '')}`;

const HEX32 = /^[0-9a-f]{32}$/;
/** `<prefix>_<32 hex>` → the uuid, or null for anything else (the caller answers the 404 of that object). */
export const uuidOfPublicId = (prefix: string, id: string): string | null => {
  const hex = id.startsWith(`${prefix}_`) ? id.slice(prefix.length + 1) : '';
  return HEX32.test(hex) ? `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}` : null;
};

const Amount = z.string().describe('Decimal string, never a float');
const Time = z.string().describe('ISO 8601 date-time');
const Status = z.enum(['open', 'paid', 'expired', 'void']);

const LineItem = z.object({
  description: z.string(),
  quantity: z.number().int(),
  unitAmount: Amount.describe('VAT excluded, up to 4 decimals'),
  vatCategory: z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O']).describe('UNCL5305 (EN 16931 BT-151)'),
  vatRate: z.string().describe('Percent'),
});

/** How to pay: one payment of the stablecoin to `destination` with MEMO_HASH `memo.value` (POST …/payment builds it for a payer). */
const PaymentInstructions = z.object({
  destination: z.string().describe('The payee’s ledger account (G…)'),
  asset: z.object({ code: z.string(), issuer: z.string() }),
  memo: z.object({ type: z.literal('hash'), value: z.string().describe('hex') }),
  amount: Amount.describe('What remains to pay'),
});

const Payment = z.object({
  txHash: z.string(),
  from: z.string().describe('The paying ledger account'),
  amount: Amount,
  late: z.boolean().describe('Came after the request expired or was voided: it pays nothing'),
  recordedAt: Time,
});

export const PaymentRequestSchema = z
  .object({
    id: z.string().describe('`req_…`'),
    object: z.literal('payment_request'),
    livemode: z.boolean(),
    created: Time,
    status: Status,
    currency: z.literal('EUR'),
    lineItems: z.array(LineItem),
    subtotal: Amount,
    tax: Amount,
    amountDue: Amount,
    amountPaid: Amount,
    amountRemaining: Amount,
    amountOverpaid: Amount,
    underpaid: z.boolean().describe('Something was paid, not yet the whole amount due'),
    dueAt: Time,
    payee: z.string().describe('`acct_…`'),
    customer: z
      .object({
        name: z.string(),
        email: z.string(),
        address: z.object({ line1: z.string().nullish(), city: z.string().nullish(), postcode: z.string().nullish() }).nullish(),
        country: z.string(),
        vatId: z.string().nullish(),
      })
      .nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    url: z.string().describe('The public page of the request: `/pay/req_…` (served as JSON by GET /v1/requests/{id}/public)'),
    payment: PaymentInstructions,
    payments: z.array(Payment),
    paidAt: Time.nullable(),
    expiredAt: Time.nullable(),
    voidedAt: Time.nullable(),
  })
  .describe('PaymentRequest');
export type PaymentRequestView = z.infer<typeof PaymentRequestSchema>;

/** What a payer holding the link may see: what to pay, to whom, how, and whether it is still open. Nothing of the payee's books. */
export const PublicPaymentRequestSchema = z
  .object({
    id: z.string(),
    object: z.literal('payment_request'),
    livemode: z.boolean(),
    status: Status,
    currency: z.literal('EUR'),
    payeeName: z.string(),
    description: z.string().nullable(),
    lineItems: z.array(LineItem),
    subtotal: Amount,
    tax: Amount,
    amountDue: Amount,
    amountPaid: Amount,
    amountRemaining: Amount,
    dueAt: Time,
    payment: PaymentInstructions,
  })
  .describe('PublicPaymentRequest');
export type PublicPaymentRequestView = z.infer<typeof PublicPaymentRequestSchema>;

const cents = (amount: string) => toMinor(amount);

/** What remains and what went beyond, from the document (exact, in stroops). */
export const requestBalance = (d: RequestDoc): { remaining: string; overpaid: string } => {
  const due = cents(d.amountDue);
  const paid = toMinor(d.amountPaid);
  return { remaining: fromMinor(paid >= due ? 0n : due - paid), overpaid: fromMinor(paid > due ? paid - due : 0n) };
};

const instructions = (d: RequestDoc, remaining: string) => ({
  destination: d.payeeWallet,
  asset: d.asset,
  memo: { type: 'hash' as const, value: d.memoHash },
  amount: remaining,
});

export const paymentRequestView = (d: RequestDoc): PaymentRequestView => {
  const { remaining, overpaid } = requestBalance(d);
  const id = requestPublicId(d.requestId);
  return {
    id,
    object: 'payment_request',
    livemode: d.livemode,
    created: d.createdAt,
    status: d.status,
    currency: 'EUR',
    lineItems: d.lines,
    subtotal: d.subtotal,
    tax: d.tax,
    amountDue: d.amountDue,
    amountPaid: d.amountPaid,
    amountRemaining: remaining,
    amountOverpaid: overpaid,
    underpaid: toMinor(d.amountPaid) > 0n && toMinor(remaining) > 0n,
    dueAt: d.dueAt,
    payee: accountPublicId(d.payeeId),
    customer: d.customer,
    description: d.description,
    metadata: d.metadata,
    url: `/pay/${id}`,
    payment: instructions(d, remaining),
    payments: d.payments.map((p) => ({ txHash: p.txHash, from: p.from, amount: p.amount, late: p.late, recordedAt: p.recordedAt })),
    paidAt: d.paidAt,
    expiredAt: d.expiredAt,
    voidedAt: d.voidedAt,
  };
};

export const publicPaymentRequestView = (d: RequestDoc): PublicPaymentRequestView => {
  const { remaining } = requestBalance(d);
  return {
    id: requestPublicId(d.requestId),
    object: 'payment_request',
    livemode: d.livemode,
    status: d.status,
    currency: 'EUR',
    payeeName: d.payeeName,
    description: d.description,
    lineItems: d.lines,
    subtotal: d.subtotal,
    tax: d.tax,
    amountDue: d.amountDue,
    amountPaid: d.amountPaid,
    amountRemaining: remaining,
    dueAt: d.dueAt,
    payment: instructions(d, remaining),
  };
};
