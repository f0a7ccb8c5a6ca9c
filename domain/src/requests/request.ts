import { isPaymentRequestEvent, type DomainEvent, type EventData, type PaymentRequestCustomer, type PaymentRequestEvent, type PaymentRequestLine } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { fitsLedger, formatAmount, ledgerBoundMessage, parseAmount, type Minor } from '../money';
import type { ObservedPayment } from '../personas/organiser-grant';
import { requestTotals, stroopsOfCents } from './amounts';

/**
 * A payment request (docs/v1/requests.md): open → paid | expired | void. Its payments are read on the ledger by the
 * command side and handed in as ObservedPayment; the decider says whether each pays this request, records it once per
 * transaction, and marks the request paid when what counts reaches the amount due (bigint stroops, exact).
 */
export type RequestStatus = 'open' | 'paid' | 'expired' | 'void';

export interface RecordedPayment {
  txHash: string;
  from: string;
  amount: string;
  ledger: number;
  late: boolean;
  recordedAt: string;
}

export type PaymentRequest =
  | { status: 'none' }
  | (EventData<'PaymentRequestCreated'> & {
      status: RequestStatus;
      payments: RecordedPayment[];
      /** Σ of the payments that count (not late), in stroops. */
      paid: Minor;
      paidAt: string | null;
      expiredAt: string | null;
      voidedAt: string | null;
    });
export type ExistingRequest = Exclude<PaymentRequest, { status: 'none' }>;

interface Meta {
  now: string;
}

export interface CreateRequestInput {
  requestId: string;
  tenantId: string;
  livemode: boolean;
  payeeId: string;
  payeeName: string;
  /** The payee's linked ledger account (null: none linked, refused). */
  payeeWallet: string | null;
  /** The payee's VAT id, if any: without one only O (not subject to VAT) applies (BR-O, BR-S-02 …). */
  payeeVatId: string | null;
  asset: { code: string; issuer: string };
  memoHash: string;
  lines: PaymentRequestLine[];
  dueAt: string;
  customer: PaymentRequestCustomer | null;
  description: string | null;
  metadata: Record<string, string>;
}

export type PaymentRequestCommand =
  | { type: 'CreateRequest'; data: CreateRequestInput; metadata: Meta }
  | { type: 'RecordPayment'; data: { payment: ObservedPayment }; metadata: Meta }
  | { type: 'VoidRequest'; data: { requestId: string }; metadata: Meta }
  | { type: 'ExpireRequest'; data: { requestId: string }; metadata: Meta };

export const initialPaymentRequest = (): PaymentRequest => ({ status: 'none' });

export const evolvePaymentRequest = (state: PaymentRequest, event: PaymentRequestEvent): PaymentRequest => {
  if (event.type === 'PaymentRequestCreated') return { ...event.data, status: 'open', payments: [], paid: 0n, paidAt: null, expiredAt: null, voidedAt: null };
  if (state.status === 'none') return state;
  switch (event.type) {
    case 'PaymentRequestPaymentRecorded': {
      const { txHash, from, amount, ledger, late, recordedAt } = event.data;
      return { ...state, payments: [...state.payments, { txHash, from, amount, ledger, late, recordedAt }], paid: late ? state.paid : state.paid + parseAmount(amount) };
    }
    case 'PaymentRequestPaid':
      return { ...state, status: 'paid', paidAt: event.data.paidAt };
    case 'PaymentRequestExpired':
      return { ...state, status: 'expired', expiredAt: event.data.expiredAt };
    case 'PaymentRequestVoided':
      return { ...state, status: 'void', voidedAt: event.data.voidedAt };
    default:
      return assertNever(event);
  }
};

/** What is left to pay (0 once reached) and what was paid beyond the amount due, in stroops. */
export const balanceOf = (r: ExistingRequest): { remaining: Minor; overpaid: Minor } => {
  const due = stroopsOfCents(r.amountDue);
  return { remaining: r.paid >= due ? 0n : due - r.paid, overpaid: r.paid > due ? r.paid - due : 0n };
};

const NEEDS_BUYER_VAT_ID = new Set(['AE', 'K']);

/** The VAT categories the payee may invoice (EN 16931 BR-*-02: every category but O needs the seller's VAT id). */
const checkVat = (input: CreateRequestInput): void => {
  const errors: Record<string, string[]> = {};
  input.lines.forEach((l, k) => {
    if (!input.payeeVatId && l.vatCategory !== 'O') errors[`lineItems.${k}.vatCategory`] = ['the payee has no VAT id: only O (not subject to VAT) applies'];
    if (input.payeeVatId && l.vatCategory === 'O') errors[`lineItems.${k}.vatCategory`] = ['the payee has a VAT id: O (not subject to VAT) does not apply'];
    if (NEEDS_BUYER_VAT_ID.has(l.vatCategory) && !input.customer?.vatId) errors[`lineItems.${k}.vatCategory`] = [`${l.vatCategory} needs the customer's VAT id (customer.vatId)`];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'The VAT categories do not fit the parties', 'invalid_vat_category');
};

const requireRequest = (state: PaymentRequest): ExistingRequest => {
  if (state.status === 'none') throw new NotFoundError('request');
  return state;
};

/** Why an observed payment does not pay this request, or null: it succeeded, it is one payment, to the payee, in the asset, with the memo. */
export const requestPaymentMismatch = (r: ExistingRequest, p: ObservedPayment): { field: string; message: string } | null => {
  if (!p.successful) return { field: 'transaction', message: 'the transaction failed on the ledger' };
  if (p.paymentCount !== 1) return { field: 'transaction', message: 'the transaction must hold exactly one payment' };
  if (p.memoHash !== r.memoHash) return { field: 'memo', message: 'the memo does not bind this payment to this request' };
  if (p.to !== r.payeeWallet) return { field: 'destination', message: 'the payment was not made to the payee' };
  if (p.assetCode !== r.asset.code || p.assetIssuer !== r.asset.issuer) return { field: 'asset', message: `the payment must be in ${r.asset.code} issued by ${r.asset.issuer}` };
  if (!/^\d+(\.\d{1,7})?$/.test(p.amount) || parseAmount(p.amount) <= 0n) return { field: 'amount', message: 'the payment moved no money' };
  return null;
};

export const decidePaymentRequest = (command: PaymentRequestCommand, state: PaymentRequest): PaymentRequestEvent[] => {
  const now = command.metadata.now;
  switch (command.type) {
    case 'CreateRequest': {
      if (state.status !== 'none') return [];
      const d = command.data;
      if (!d.payeeWallet) throw new ValidationError({ payee: ['the payee has no linked ledger wallet (POST /api/me/ledger/link)'] }, 'The payee needs a linked ledger wallet', 'payee_wallet_required');
      if (Date.parse(d.dueAt) <= Date.parse(now)) throw new ValidationError({ dueAt: ['must be in the future'] });
      const totals = requestTotals(d.lines);
      if (stroopsOfCents(totals.amountDue) <= 0n) throw new ValidationError({ lineItems: ['the request must ask for more than 0.00'] }, 'Nothing to pay', 'invalid_line_items');
      // It may be paid in one ledger payment (MAX_LEDGER_AMOUNT, the rule every request amount asks).
      if (!fitsLedger(stroopsOfCents(totals.amountDue))) throw new ValidationError({ lineItems: [ledgerBoundMessage('the amount due')] }, 'The amount due is too large', 'invalid_line_items');
      checkVat(d);
      return [
        {
          type: 'PaymentRequestCreated',
          data: {
            requestId: d.requestId,
            tenantId: d.tenantId,
            livemode: d.livemode,
            payeeId: d.payeeId,
            payeeName: d.payeeName,
            payeeWallet: d.payeeWallet,
            asset: d.asset,
            memoHash: d.memoHash,
            lines: d.lines,
            ...totals,
            currency: 'EUR',
            dueAt: new Date(d.dueAt).toISOString(),
            customer: d.customer,
            description: d.description,
            metadata: d.metadata,
            createdAt: now,
          },
        },
      ];
    }
    case 'RecordPayment': {
      const r = requireRequest(state);
      const p = command.data.payment;
      if (r.payments.some((x) => x.txHash === p.txHash)) return [];
      const mismatch = requestPaymentMismatch(r, p);
      if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The payment does not pay this request: ${mismatch.message}`, 'payment_mismatch');
      // A payment after the request expired or was voided pays nothing: it is recorded (the money moved) as late.
      const late = r.status === 'expired' || r.status === 'void';
      const amount = formatAmount(parseAmount(p.amount));
      const paid = late ? r.paid : r.paid + parseAmount(amount);
      const events: PaymentRequestEvent[] = [
        { type: 'PaymentRequestPaymentRecorded', data: { requestId: r.requestId, livemode: r.livemode, txHash: p.txHash, ledger: p.ledger, from: p.from, amount, amountPaid: formatAmount(paid), late, recordedAt: now } },
      ];
      const due = stroopsOfCents(r.amountDue);
      if (r.status === 'open' && paid >= due) {
        events.push({ type: 'PaymentRequestPaid', data: { requestId: r.requestId, livemode: r.livemode, amountPaid: formatAmount(paid), amountOverpaid: formatAmount(paid - due), paidAt: now } });
      }
      return events;
    }
    case 'VoidRequest': {
      const r = requireRequest(state);
      if (r.status === 'void') return [];
      if (r.status !== 'open') throw new IllegalStateError('request_not_open', `Only an open request can be voided (this one is ${r.status})`);
      return [{ type: 'PaymentRequestVoided', data: { requestId: r.requestId, livemode: r.livemode, amountPaid: formatAmount(r.paid), voidedAt: now } }];
    }
    case 'ExpireRequest': {
      if (state.status !== 'open' || Date.parse(now) < Date.parse(state.dueAt)) return [];
      return [{ type: 'PaymentRequestExpired', data: { requestId: state.requestId, livemode: state.livemode, amountPaid: formatAmount(state.paid), expiredAt: now } }];
    }
    default:
      return assertNever(command);
  }
};

/** The request's fold over its stream `request-<id>` (any other event is skipped, as every stream's fold does). */
export const paymentRequestAggregate = {
  initial: initialPaymentRequest,
  evolve: (state: PaymentRequest, event: DomainEvent): PaymentRequest => (isPaymentRequestEvent(event) ? evolvePaymentRequest(state, event) : state),
};
