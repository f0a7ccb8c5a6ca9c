import { z } from 'zod';
import { event, type EventOf } from '../define';
import { CountryCode, Id, IsoDate } from '../common';

// Invoicing: one stream per issuer and series, `invoices-<tenantId>-<issuerKey>` (docs/invoicing.md#numbering). The
// document mirrors domain/src/invoicing/model.ts (a published shape: only optional fields may be added to either).

/** 2 decimals, signed (a rounding may be negative). */
const Money2 = z.string().regex(/^-?(0|[1-9]\d{0,14})\.\d{2}$/, 'must be a decimal string with exactly 2 decimals');
/** A unit price: up to 4 decimals. */
const UnitPrice = z.string().regex(/^(0|[1-9]\d{0,14})(\.\d{1,4})?$/, 'must be a decimal string with at most 4 decimals');
const VatRate = z.string().regex(/^(100|[1-9]?\d)(\.\d{1,2})?$/, 'must be a percentage with at most 2 decimals');
const Day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');

export const VatCategoryCode = z.enum(['S', 'Z', 'E', 'AE', 'K', 'G', 'O']);

const PostalAddress = z
  .object({ line1: z.string().max(300).nullish(), city: z.string().max(120).nullish(), postcode: z.string().max(16).nullish(), country: CountryCode })
  .strict();

const InvoiceParty = z
  .object({
    name: z.string().min(1).max(200),
    id: z.string().min(1).max(120),
    siret: z.string().regex(/^\d{9}(\d{5})?$/).nullish(),
    vatId: z.string().regex(/^[A-Z]{2}[0-9A-Za-z+*.]{2,13}$/).nullish(),
    taxRegistrationId: z.string().min(1).max(40).nullish(),
    address: PostalAddress,
    email: z.string().email().nullish(),
  })
  .strict();

const InvoiceLine = z
  .object({
    id: z.string().min(1).max(120),
    name: z.string().min(1).max(300),
    quantity: z.number().int().min(1),
    netUnitPrice: UnitPrice,
    grossUnitPrice: UnitPrice.nullish(),
    vatCategory: VatCategoryCode,
    vatRate: VatRate,
    netAmount: Money2,
  })
  .strict();

const VatBreakdown = z
  .object({
    category: VatCategoryCode,
    rate: VatRate,
    taxableAmount: Money2,
    taxAmount: Money2,
    exemptionReason: z.string().max(300).nullish(),
    exemptionReasonCode: z.string().max(40).nullish(),
  })
  .strict();

const InvoiceTotals = z
  .object({ lineTotal: Money2, taxBasisTotal: Money2, taxTotal: Money2, grandTotal: Money2, prepaid: Money2, rounding: Money2, duePayable: Money2 })
  .strict();

/** The invoice or credit note itself (EN 16931 semantic model, reduced): what the CII renderer turns into XML. */
export const InvoiceDocumentSchema = z
  .object({
    typeCode: z.enum(['380', '381']),
    number: z.string().min(1).max(40),
    issueDate: Day,
    currency: z.literal('EUR'),
    seller: InvoiceParty,
    buyer: InvoiceParty,
    lines: z.array(InvoiceLine).min(1).max(2000),
    vatBreakdown: z.array(VatBreakdown).min(1).max(20),
    totals: InvoiceTotals,
    precedingInvoice: z.object({ number: z.string().min(1).max(40), issueDate: Day }).strict().nullish(),
    paymentReference: z.string().max(140).nullish(),
    buyerReference: z.string().max(140).nullish(),
    deliveryDate: Day.nullish(),
    notes: z.array(z.string().max(1000)).max(20).optional(),
  })
  .strict();

/** REQUEST: a paid payment request (/v1/requests), invoiced by its payee to its customer. */
export const InvoiceKind = z.enum(['GOODS', 'PLATFORM_FEE', 'COMMISSION', 'CREDIT_NOTE', 'DEPOSIT_FEE', 'LISTING_FEE', 'ACTIVATION_FEE', 'REQUEST']);
export type InvoiceKind = z.infer<typeof InvoiceKind>;

/**
 * Who issues or receives an invoice: the platform, an account (organiser or seller, a buyer), a merchant, or the
 * customer of a payment request (no account of the tenant: its id is the request's id).
 */
export const InvoiceSubject = z.object({ kind: z.enum(['platform', 'account', 'merchant', 'customer']), id: z.string().min(1).max(120) }).strict();
export type InvoiceSubject = z.infer<typeof InvoiceSubject>;

/**
 * An invoice or credit note was issued. `sequence` is the issuer stream's revision + 1 (the append states the expected
 * revision, so two issues never take one number and none is skipped); `sourceKey` is what it invoices
 * (`goods:<reservationId>`, `credit:<reservationId>`, `fee:<settlementId>:<round>`, `commission:<settlementId>:<round>`,
 * `deposit-fee:<reservationId>`, `listing:<listingId>`, `listing-refund:<listingId>`, `activation:<grantId>`),
 * issued once per issuer.
 */
export const InvoiceIssued = event(
  'InvoiceIssued',
  1,
  z
    .object({
      invoiceId: Id,
      tenantId: Id,
      issuer: InvoiceSubject,
      recipient: InvoiceSubject,
      kind: InvoiceKind,
      /** The pool it invoices for; absent for the organiser activation fee (an account's, not a pool's). */
      poolId: Id.optional(),
      reservationId: Id.optional(),
      sourceKey: z.string().min(1).max(200),
      /** The invoice a credit note corrects. */
      corrects: Id.optional(),
      sequence: z.number().int().min(1),
      document: InvoiceDocumentSchema,
      issuedAt: IsoDate,
    })
    .strict(),
);

export const invoicingEvents = [InvoiceIssued] as const;
export type InvoicingEvent = EventOf<(typeof invoicingEvents)[number]>;
