import { JOB_QUEUES, Scheduler, type JobQueue } from '@cagnotte/infra';
import { parseAmount } from '@cagnotte/domain';
import type { Projection } from '../runtime';

/** What the invoicing worker is asked to do (command-api/src/invoicing/jobs.ts, InvoiceJob). */
type InvoiceJobPayload =
  | { type: 'settlement'; tenantId: string | null; poolId: string; reservationId: string; settlementId: string }
  | { type: 'listing'; tenantId: string | null; poolId: string; listingId: string }
  | { type: 'activation'; tenantId: string | null; userId: string; grantId: string }
  | { type: 'request'; tenantId: string | null; requestId: string };

const HANDLED: ReadonlySet<string> = new Set(['ReservationSettled', 'PoolListed', 'PoolListingFeeRefunded', 'OrganiserGrantSettled', 'PaymentRequestPaid']);

/**
 * The invoicing process manager: an event that makes the platform or a seller invoice someone schedules the job that
 * issues it (command-api/src/invoicing/jobs.ts), keyed `invoice:<eventId>`, in the checkpoint's transaction:
 * - a reservation whose deposit a round RELEASED (something went to the seller side); a RECOVERY (the deposit went
 *   back whole) invoices nothing;
 * - a listing paid on the ledger (PoolListed with a fee), and its fee paid back (PoolListingFeeRefunded: a credit note);
 * - an organiser grant settled (the activation fee);
 * - a payment request paid (its payee's invoice to the customer, docs/v1/requests.md).
 * A redelivered batch or a rebuild schedules the same key again, which the queue ignores within its keep window; after
 * it, the job runs again and finds every invoice issued (each is issued once per source).
 */
export const makeInvoiceIssuerProjection = (deps: { jobs: JobQueue }): Projection => {
  const scheduler = new Scheduler<InvoiceJobPayload>(deps.jobs, JOB_QUEUES.invoice);
  return {
    name: 'invoice-issuer',
    tables: [],
    handles: (type) => HANDLED.has(type),
    apply: async (_trx, e) => {
      const tenantId = e.metadata.tenantId;
      switch (e.type) {
        case 'ReservationSettled': {
          if (e.data.path !== 'RELEASE' || parseAmount(e.data.released) <= 0n) return;
          const { poolId, reservationId, settlementId } = e.data;
          await scheduler.at(JOB_QUEUES.invoice, e.id, new Date(e.data.settledAt), { type: 'settlement', tenantId, poolId, reservationId, settlementId });
          return;
        }
        case 'PoolListed': {
          if (e.data.txHash === null || parseAmount(e.data.amount) <= 0n) return;
          await scheduler.at(JOB_QUEUES.invoice, e.id, new Date(e.data.listedAt), { type: 'listing', tenantId, poolId: e.data.poolId, listingId: e.data.listingId });
          return;
        }
        case 'PoolListingFeeRefunded':
          await scheduler.at(JOB_QUEUES.invoice, e.id, new Date(e.data.refundedAt), { type: 'listing', tenantId, poolId: e.data.poolId, listingId: e.data.listingId });
          return;
        case 'OrganiserGrantSettled':
          await scheduler.at(JOB_QUEUES.invoice, e.id, new Date(e.data.settledAt), { type: 'activation', tenantId, userId: e.data.userId, grantId: e.data.grantId });
          return;
        case 'PaymentRequestPaid':
          await scheduler.at(JOB_QUEUES.invoice, e.id, new Date(e.data.paidAt), { type: 'request', tenantId, requestId: e.data.requestId });
          return;
        default:
          return;
      }
    },
  };
};
