import { z } from 'zod';
import { event, type EventOf } from '../define';
import { CountryCode, DecimalAmount, Id, IsoDate, StellarAccountId } from '../common';
import { VatCategoryCode } from '../invoicing/events';

// Payment requests (docs/v1/requests.md): a payment link or an itemised invoice to be paid on the ledger to the payee's
// own wallet. One stream per request, `request-<requestId>`.

/** 2 decimals (an invoice amount). */
const Money2 = z.string().regex(/^(0|[1-9]\d{0,14})\.\d{2}$/, 'must be a decimal string with exactly 2 decimals');
/** A unit price, VAT excluded: up to 4 decimals (BT-146). */
const UnitAmount = z.string().regex(/^(0|[1-9]\d{0,14})(\.\d{1,4})?$/, 'must be a decimal string with at most 4 decimals');
const VatRate = z.string().regex(/^(100|[1-9]?\d)(\.\d{1,2})?$/, 'must be a percentage with at most 2 decimals');

export const PaymentRequestLine = z
  .object({
    description: z.string().min(1).max(300),
    quantity: z.number().int().min(1).max(1_000_000),
    unitAmount: UnitAmount,
    vatCategory: VatCategoryCode,
    vatRate: VatRate,
  })
  .strict();
export type PaymentRequestLine = z.infer<typeof PaymentRequestLine>;

export const PaymentRequestCustomer = z
  .object({
    name: z.string().min(1).max(200),
    email: z.string().email().max(254),
    address: z
      .object({ line1: z.string().max(300).nullish(), city: z.string().max(120).nullish(), postcode: z.string().max(16).nullish() })
      .strict()
      .nullish(),
    country: CountryCode,
    vatId: z.string().regex(/^[A-Z]{2}[0-9A-Za-z+*.]{2,13}$/).nullish(),
  })
  .strict();
export type PaymentRequestCustomer = z.infer<typeof PaymentRequestCustomer>;

/** A request was opened: what it asks (its lines and their exact totals), whom to pay and how the payment is bound to it. */
export const PaymentRequestCreated = event(
  'PaymentRequestCreated',
  1,
  z
    .object({
      requestId: Id,
      tenantId: Id,
      livemode: z.boolean(),
      /** The account paid (the API key's owner): the issuer of the invoice. */
      payeeId: Id,
      /** The payee's name as a payer sees it (their company, else their display name) at creation. */
      payeeName: z.string().min(1).max(200),
      /** The payee's linked ledger account at creation: where the payment goes. */
      payeeWallet: StellarAccountId,
      asset: z.object({ code: z.string().min(1).max(12), issuer: StellarAccountId }).strict(),
      /** The MEMO_HASH (hex) that binds a payment to this request. */
      memoHash: z.string().regex(/^[0-9a-f]{64}$/),
      lines: z.array(PaymentRequestLine).min(1).max(100),
      /** Σ line net amounts, the VAT, and their sum: what is due (computed by the invoice's own rounding rule). */
      subtotal: Money2,
      tax: Money2,
      amountDue: Money2,
      currency: z.literal('EUR'),
      dueAt: IsoDate,
      customer: PaymentRequestCustomer.nullable(),
      description: z.string().max(1000).nullable(),
      metadata: z.record(z.string(), z.string()),
      createdAt: IsoDate,
    })
    .strict(),
);

/**
 * A payment to the payee's wallet carrying this request's memo was read on the ledger and recorded (once per
 * transaction). `late`: it came after the request was expired or voided, so it pays nothing (docs/v1/requests.md).
 */
export const PaymentRequestPaymentRecorded = event(
  'PaymentRequestPaymentRecorded',
  1,
  z
    .object({
      requestId: Id,
      /** The request's mode, on every event of it: its public events carry it (the feed and webhooks filter on it). */
      livemode: z.boolean(),
      txHash: z.string().regex(/^[0-9a-f]{64}$/),
      ledger: z.number().int().min(0),
      from: StellarAccountId,
      amount: DecimalAmount,
      /** Σ of the payments that count, after this one (late ones excluded). */
      amountPaid: DecimalAmount,
      late: z.boolean(),
      recordedAt: IsoDate,
    })
    .strict(),
);

/** The payments reached the amount due: `amountOverpaid` is what they paid beyond it. */
export const PaymentRequestPaid = event(
  'PaymentRequestPaid',
  1,
  z.object({ requestId: Id, livemode: z.boolean(), amountPaid: DecimalAmount, amountOverpaid: DecimalAmount, paidAt: IsoDate }).strict(),
);

/** The due time passed with the request still open. */
export const PaymentRequestExpired = event('PaymentRequestExpired', 1, z.object({ requestId: Id, livemode: z.boolean(), amountPaid: DecimalAmount, expiredAt: IsoDate }).strict());

/** The payee withdrew the request while open. */
export const PaymentRequestVoided = event('PaymentRequestVoided', 1, z.object({ requestId: Id, livemode: z.boolean(), amountPaid: DecimalAmount, voidedAt: IsoDate }).strict());

export const paymentRequestEvents = [PaymentRequestCreated, PaymentRequestPaymentRecorded, PaymentRequestPaid, PaymentRequestExpired, PaymentRequestVoided] as const;
export type PaymentRequestEvent = EventOf<(typeof paymentRequestEvents)[number]>;
export const PAYMENT_REQUEST_EVENT_TYPES: ReadonlySet<string> = new Set(paymentRequestEvents.map((d) => d.type));
export const isPaymentRequestEvent = (e: { type: string }): e is PaymentRequestEvent => PAYMENT_REQUEST_EVENT_TYPES.has(e.type);
