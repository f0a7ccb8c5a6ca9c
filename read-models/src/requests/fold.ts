import type { DomainEvent, PaymentRequestCustomer, PaymentRequestLine } from '@cagnotte/event-schemas';
import { fromMinor, toMinor } from '../reservations/amounts';
import type { FoldEvent } from '../shared';

/**
 * One payment request as GET /v1/requests/{id} serves it, folded from its own stream (`request-<id>`): a pure function
 * of the events; an event at or below `revision` is a replay and changes nothing.
 */
export interface RequestDoc {
  requestId: string;
  tenantId: string;
  livemode: boolean;
  payeeId: string;
  payeeName: string;
  payeeWallet: string;
  asset: { code: string; issuer: string };
  memoHash: string;
  status: 'open' | 'paid' | 'expired' | 'void';
  lines: PaymentRequestLine[];
  subtotal: string;
  tax: string;
  amountDue: string;
  /** Σ of the payments that count (late ones excluded), 2 to 7 decimals. */
  amountPaid: string;
  dueAt: string;
  customer: PaymentRequestCustomer | null;
  description: string | null;
  metadata: Record<string, string>;
  payments: Array<{ txHash: string; from: string; amount: string; ledger: number; late: boolean; recordedAt: string }>;
  createdAt: string;
  paidAt: string | null;
  expiredAt: string | null;
  voidedAt: string | null;
  revision: bigint;
}

export const REQUEST_STREAM_PREFIX = 'request-';

/** The request a stream's events fold into: `request-<id>`, or null for any other stream. */
export const requestKeyOf = (e: FoldEvent): string | null => (e.streamId.startsWith(REQUEST_STREAM_PREFIX) ? e.streamId.slice(REQUEST_STREAM_PREFIX.length) : null);

/** What the fold reads of an event: its type, data and revision (the command side folds its own events the same way). */
export type RequestFoldEvent = DomainEvent & { revision: bigint };

export const foldRequest = (doc: RequestDoc | null, e: RequestFoldEvent): RequestDoc | null => {
  if (doc && e.revision <= doc.revision) return doc;
  if (e.type === 'PaymentRequestCreated') {
    if (doc) return doc;
    const d = e.data;
    return {
      requestId: d.requestId,
      tenantId: d.tenantId,
      livemode: d.livemode,
      payeeId: d.payeeId,
      payeeName: d.payeeName,
      payeeWallet: d.payeeWallet,
      asset: d.asset,
      memoHash: d.memoHash,
      status: 'open',
      lines: d.lines,
      subtotal: d.subtotal,
      tax: d.tax,
      amountDue: d.amountDue,
      amountPaid: '0.00',
      dueAt: d.dueAt,
      customer: d.customer,
      description: d.description,
      metadata: d.metadata,
      payments: [],
      createdAt: d.createdAt,
      paidAt: null,
      expiredAt: null,
      voidedAt: null,
      revision: e.revision,
    };
  }
  if (!doc) return doc;
  switch (e.type) {
    case 'PaymentRequestPaymentRecorded': {
      const { txHash, from, amount, ledger, late, recordedAt, amountPaid } = e.data;
      return { ...doc, payments: [...doc.payments, { txHash, from, amount, ledger, late, recordedAt }], amountPaid: fromMinor(toMinor(amountPaid)), revision: e.revision };
    }
    case 'PaymentRequestPaid':
      return { ...doc, status: 'paid', paidAt: e.data.paidAt, revision: e.revision };
    case 'PaymentRequestExpired':
      return { ...doc, status: 'expired', expiredAt: e.data.expiredAt, revision: e.revision };
    case 'PaymentRequestVoided':
      return { ...doc, status: 'void', voidedAt: e.data.voidedAt, revision: e.revision };
    default:
      return { ...doc, revision: e.revision };
  }
};
