import { accountAggregate, activationFeeInvoice, findGrant, listingFeeInvoice, listingRefundCreditNote, organiserGrantAggregate, type PoolFacts } from '@cagnotte/domain';
import type { EventData, EventMetadata, InvoiceSubject } from '@cagnotte/event-schemas';
import { poolAggregate } from '../pools/aggregate';
import { accountStream, poolStream } from '../shared/context';
import { foldEvents, readEvents } from '../shared/run-command';
import { issueInvoice, type IssueOutcome } from './issue';
import { accountParty, feeVatOf, loadRegistered, newInvoiceId, platformParty } from './parties';
import type { InvoicingDeps } from './settlement-invoices';

// The platform's invoices for what an organiser paid it on the ledger outside a settlement: the listing fee (and its
// credit note when a delist within the window paid it back) and the organiser activation fee. Scheduled by
// projectors/src/invoicing/issuer.ts on PoolListed, PoolListingFeeRefunded and OrganiserGrantSettled; each is issued
// once per source, so a job that runs twice issues nothing more.

/** A listing paid (PoolListed with a fee) or paid back (PoolListingFeeRefunded), keyed by the event's id. */
export interface ListingInvoiceJob {
  type: 'listing';
  tenantId: string | null;
  poolId: string;
  listingId: string;
}

/** An organiser grant settled: its activation fee is invoiced to the new organiser. */
export interface ActivationInvoiceJob {
  type: 'activation';
  tenantId: string | null;
  userId: string;
  grantId: string;
}

const PLATFORM: InvoiceSubject = { kind: 'platform', id: 'platform' };
const account = (id: string): InvoiceSubject => ({ kind: 'account', id });
const day = (iso: string) => new Date(iso).toISOString().slice(0, 10);

/** The listing's invoice, and its credit note once the fee was paid back: decided from the pool's stream now. */
export const issueListingInvoices = async (deps: InvoicingDeps, job: ListingInvoiceJob, metadata: EventMetadata): Promise<IssueOutcome[]> => {
  // One read of the pool's stream: the pool folded from it, and this listing's events found in it.
  const events = await readEvents(deps.store, poolStream(job.poolId));
  const { pool } = foldEvents(events, poolAggregate);
  if (pool.status === 'none' || (job.tenantId && pool.tenantId !== job.tenantId)) return [];
  let listed: EventData<'PoolListed'> | undefined;
  let refunded: EventData<'PoolListingFeeRefunded'> | undefined;
  for (const e of events) {
    if (e.type === 'PoolListed' && e.data.listingId === job.listingId) listed ??= e.data;
    if (e.type === 'PoolListingFeeRefunded' && e.data.listingId === job.listingId) refunded ??= e.data;
  }
  if (!listed || listed.txHash === null) return [];
  const now = deps.clock().toISOString();
  const platform = platformParty(deps.platform);
  const organiser = accountParty(await loadRegistered(deps.store, pool.organiserId), pool.fields.country);
  const vat = feeVatOf(await deps.feeSchedule(pool.tenantId), platform, organiser);
  const facts: PoolFacts = { poolId: pool.id, title: pool.fields.title, unitLabels: new Map() };
  const issue = (request: NonNullable<ReturnType<typeof listingFeeInvoice>> & { corrects?: string }) =>
    issueInvoice(deps, { ...request, invoiceId: newInvoiceId(), tenantId: pool.tenantId, issuer: PLATFORM, recipient: account(pool.organiserId), now }, metadata);

  const outcomes: IssueOutcome[] = [];
  const fee = listingFeeInvoice({ platform, payer: organiser, vat, amount: listed.amount, txHash: listed.txHash, paidOn: day(listed.listedAt), pool: facts, listingId: listed.listingId, tier: listed.tier });
  if (!fee) return [];
  const invoice = await issue(fee);
  outcomes.push(invoice);
  if (refunded) {
    const note = listingRefundCreditNote({
      platform,
      payer: organiser,
      vat,
      amount: refunded.amount,
      txHash: refunded.txHash,
      paidOn: day(refunded.refundedAt),
      pool: facts,
      listingId: listed.listingId,
      tier: listed.tier,
      corrects: { invoiceId: invoice.invoice.invoiceId, number: invoice.invoice.number, issueDate: invoice.invoice.issueDate },
    });
    if (note) outcomes.push(await issue(note));
  }
  return outcomes;
};

/** The activation fee of a settled organiser grant, from the account's stream (what was asked, and the payment). */
export const issueActivationInvoice = async (deps: InvoicingDeps, job: ActivationInvoiceJob, metadata: EventMetadata): Promise<IssueOutcome[]> => {
  // One read of the account's stream: the account (who is invoiced) and its grants (what was asked, and paid).
  const events = await readEvents(deps.store, accountStream(job.userId));
  const registered = foldEvents(events, accountAggregate);
  const grant = findGrant(foldEvents(events, organiserGrantAggregate), job.grantId);
  if (registered.status === 'none' || grant?.status !== 'SETTLED' || !grant.txHash || !grant.settledAt) return [];
  const tenantId = job.tenantId ?? registered.tenantId;
  if (!tenantId) return [];
  const platform = platformParty(deps.platform);
  const payer = accountParty(registered, deps.platform.PLATFORM_COUNTRY);
  const request = activationFeeInvoice({ platform, payer, vat: feeVatOf(await deps.feeSchedule(tenantId), platform, payer), amount: grant.amount, txHash: grant.txHash, paidOn: day(grant.settledAt), grantId: job.grantId });
  if (!request) return [];
  const now = deps.clock().toISOString();
  return [await issueInvoice(deps, { ...request, invoiceId: newInvoiceId(), tenantId, issuer: PLATFORM, recipient: account(job.userId), now }, metadata)];
};
