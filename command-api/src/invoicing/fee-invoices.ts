import { activationFeeInvoice, listingFeeInvoice, listingRefundCreditNote, type PoolFacts } from '@cagnotte/domain';
import type { EventData, EventMetadata, InvoiceSubject } from '@cagnotte/event-schemas';
import { poolAggregate } from '../pools/handler';
import { accountStream, poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { issueInvoice, type IssueOutcome } from './issue';
import { accountParty, loadRegistered, newInvoiceId, platformParty } from './parties';
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
  const { pool } = await loadState(deps.store, poolStream(job.poolId), poolAggregate);
  if (pool.status === 'none' || (job.tenantId && pool.tenantId !== job.tenantId)) return [];
  const events = await deps.store.readStream(poolStream(job.poolId));
  const listed = events.find((e) => e.type === 'PoolListed' && (e.data as EventData<'PoolListed'>).listingId === job.listingId)?.data as EventData<'PoolListed'> | undefined;
  if (!listed || listed.txHash === null) return [];
  const refunded = events.find((e) => e.type === 'PoolListingFeeRefunded' && (e.data as EventData<'PoolListingFeeRefunded'>).listingId === job.listingId)?.data as
    | EventData<'PoolListingFeeRefunded'>
    | undefined;
  const now = deps.clock().toISOString();
  const platform = platformParty(deps.platform);
  const organiser = accountParty(await loadRegistered(deps.store, pool.organiserId), pool.fields.country);
  const vat = deps.vat.service(platform, organiser);
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
  const events = await deps.store.readStream(accountStream(job.userId));
  const prepared = events.find((e) => e.type === 'OrganiserGrantPrepared' && (e.data as EventData<'OrganiserGrantPrepared'>).grantId === job.grantId)?.data as EventData<'OrganiserGrantPrepared'> | undefined;
  const settled = events.find((e) => e.type === 'OrganiserGrantSettled' && (e.data as EventData<'OrganiserGrantSettled'>).grantId === job.grantId)?.data as EventData<'OrganiserGrantSettled'> | undefined;
  const account_ = await loadRegistered(deps.store, job.userId);
  const tenantId = job.tenantId ?? account_.tenantId;
  if (!prepared || !settled || !tenantId) return [];
  const platform = platformParty(deps.platform);
  const payer = accountParty(account_, deps.platform.PLATFORM_COUNTRY);
  const request = activationFeeInvoice({ platform, payer, vat: deps.vat.service(platform, payer), amount: prepared.amount, txHash: settled.txHash, paidOn: day(settled.settledAt), grantId: job.grantId });
  if (!request) return [];
  const now = deps.clock().toISOString();
  return [await issueInvoice(deps, { ...request, invoiceId: newInvoiceId(), tenantId, issuer: PLATFORM, recipient: account(job.userId), now }, metadata)];
};
