import { paidRequestInvoice } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { requestPublicId } from '@cagnotte/read-models';
import { requestAggregate, requestStream } from '../requests/aggregate';
import { loadState } from '../shared/run-command';
import { issueInvoice, type IssueOutcome } from './issue';
import { accountParty, loadRegistered, newInvoiceId } from './parties';
import type { InvoicingDeps } from './settlement-invoices';

/** A payment request was paid (PaymentRequestPaid), keyed by that event's id (projectors/src/invoicing/issuer.ts). */
export interface RequestInvoiceJob {
  type: 'request';
  tenantId: string | null;
  requestId: string;
}

/**
 * The payee's invoice to the customer of a paid request (series R of the payee, docs/v1/requests.md), decided from the
 * request's stream when the job runs and issued once per request (`request:<requestId>`). The seller is the payee's
 * account as it is now (their business persona: company, SIRET, VAT id); the buyer the request's customer.
 */
export const issueRequestInvoice = async (deps: InvoicingDeps, job: RequestInvoiceJob, metadata: EventMetadata): Promise<IssueOutcome[]> => {
  const { request } = await loadState(deps.store, requestStream(job.requestId), requestAggregate);
  if (request.status !== 'paid') return [];
  const payee = await loadRegistered(deps.store, request.payeeId);
  const requestRef = requestPublicId(request.requestId);
  const facts = paidRequestInvoice(request, { seller: accountParty(payee, payee.country), requestRef });
  const now = deps.clock().toISOString();
  return [
    await issueInvoice(
      deps,
      { ...facts, invoiceId: newInvoiceId(), tenantId: request.tenantId, issuer: { kind: 'account', id: request.payeeId }, recipient: { kind: 'customer', id: request.requestId }, now },
      metadata,
    ),
  ];
};
