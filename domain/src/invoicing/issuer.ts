import type { EventData, InvoiceKind, InvoiceSubject } from '@cagnotte/event-schemas';
import { IllegalStateError } from '../errors';
import { computeInvoice } from './compute';
import type { InvoiceRequestFacts } from './builders';

/**
 * The invoice issuer: one stream per issuer and series (`invoiceStream`), holding only InvoiceIssued. Its revision is
 * the series' counter: the n-th invoice is revision n − 1, and the append states the expected revision, so two issues
 * racing for a number cannot both win and none is lost (docs/invoicing.md#numbering).
 */
export type InvoiceIssuedData = EventData<'InvoiceIssued'>;

/**
 * The series prefix of each kind: F (factures), A (avoirs), P (platform fees), C (commission), D (escrow-deposit fees),
 * L (listing fees), O (organiser activation fees), R (paid payment requests).
 */
export const SERIES: Record<InvoiceKind, string> = { GOODS: 'F', CREDIT_NOTE: 'A', PLATFORM_FEE: 'P', COMMISSION: 'C', DEPOSIT_FEE: 'D', LISTING_FEE: 'L', ACTIVATION_FEE: 'O', REQUEST: 'R' };

/** `platform`, `acct-<accountId>`, `merchant-<merchantId>`. */
export const issuerKey = (issuer: InvoiceSubject): string => (issuer.kind === 'platform' ? 'platform' : issuer.kind === 'account' ? `acct-${issuer.id}` : `${issuer.kind}-${issuer.id}`);

/** The stream of one issuer's series: `invoices-<tenantId>-<issuerKey>-<series>`. */
export const invoiceStream = (tenantId: string, issuer: InvoiceSubject, kind: InvoiceKind): string => `invoices-${tenantId}-${issuerKey(issuer)}-${SERIES[kind]}`;

/** `<series>-<YYYY>-<sequence on 6 digits>`: the year is the issue date's; the sequence runs on across years. */
export const invoiceNumber = (kind: InvoiceKind, issueDate: string, sequence: number): string => `${SERIES[kind]}-${issueDate.slice(0, 4)}-${String(sequence).padStart(6, '0')}`;

export interface IssuedRef {
  invoiceId: string;
  number: string;
  issueDate: string;
  sequence: number;
}

export interface InvoiceSeries {
  /** The last sequence issued (0: none). */
  sequence: number;
  lastIssueDate: string | null;
  bySource: Map<string, IssuedRef>;
}

export const initialSeries = (): InvoiceSeries => ({ sequence: 0, lastIssueDate: null, bySource: new Map() });

export const evolveSeries = (state: InvoiceSeries, event: { type: 'InvoiceIssued'; data: InvoiceIssuedData }): InvoiceSeries => {
  const d = event.data;
  const ref = { invoiceId: d.invoiceId, number: d.document.number, issueDate: d.document.issueDate, sequence: d.sequence };
  return { sequence: d.sequence, lastIssueDate: d.document.issueDate, bySource: new Map(state.bySource).set(d.sourceKey, ref) };
};

export interface IssueInvoice extends InvoiceRequestFacts {
  invoiceId: string;
  tenantId: string;
  issuer: InvoiceSubject;
  recipient: InvoiceSubject;
  corrects?: string;
  /** The command's time (ISO); the issue date is its UTC day, or the series' last one if that is later. */
  now: string;
}

/**
 * The InvoiceIssued to append, or none when this source was already invoiced in the series (a retried job, a replayed
 * event). Chronological by construction: an issue date never goes before the previous invoice's.
 */
export const decideIssue = (state: InvoiceSeries, command: IssueInvoice): Array<{ type: 'InvoiceIssued'; data: InvoiceIssuedData }> => {
  if (state.bySource.has(command.sourceKey)) return [];
  if (command.kind === 'CREDIT_NOTE' && !command.corrects) throw new IllegalStateError('credit_note_without_invoice', 'A credit note corrects an invoice');
  const today = command.now.slice(0, 10);
  const issueDate = state.lastIssueDate && state.lastIssueDate > today ? state.lastIssueDate : today;
  const sequence = state.sequence + 1;
  const { draft, kind, sourceKey, poolId, reservationId } = command;
  const document = computeInvoice({ ...draft, number: invoiceNumber(kind, issueDate, sequence), issueDate });
  return [
    {
      type: 'InvoiceIssued',
      data: {
        invoiceId: command.invoiceId,
        tenantId: command.tenantId,
        issuer: command.issuer,
        recipient: command.recipient,
        kind,
        ...(poolId ? { poolId } : {}),
        ...(reservationId ? { reservationId } : {}),
        sourceKey,
        ...(command.corrects ? { corrects: command.corrects } : {}),
        sequence,
        document,
        issuedAt: command.now,
      },
    },
  ];
};

export const invoiceSeriesAggregate = { initial: initialSeries, evolve: evolveSeries };
