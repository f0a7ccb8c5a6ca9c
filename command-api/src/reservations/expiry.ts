import { randomUUID } from 'node:crypto';
import { decideReservation, isStale, type ObservedDeposit } from '@cagnotte/domain';
import { EscrowLedger, type Services } from '@cagnotte/infra';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';
import { poolAggregate } from '../pools/aggregate';
import { RESERVATION_EXPIRY_QUEUE } from './runtime';

export interface ExpiryJob {
  poolId: string;
  reservationId: string;
}

/** How far before the reservation's placing the ledger's history is read: the ledger's clock and ours may differ a little. */
const CLOCK_SKEW_MS = 5 * 60_000;

/**
 * What the ledger shows of a stale signed reservation's deposit (every transaction of the buyer's account bearing its
 * memo), or null when there is nothing to ask: not stale (yet, or any more), or never signed.
 */
const ledgerFacts = async (services: Pick<Services, 'store'>, escrow: EscrowLedger, job: ExpiryJob, now: string) => {
  const pool = await loadState(services.store, poolStream(job.poolId), poolAggregate).then((s) => s.pool);
  const r = pool.status === 'none' ? undefined : pool.holdings.byId.get(job.reservationId);
  if (!r?.signed || !isStale(r, now)) return null;
  const since = new Date(Date.parse(r.placedAt) - CLOCK_SKEW_MS);
  const deposits: ObservedDeposit[] = await escrow.depositsBearing({ source: r.signed.source, memoHash: r.signed.memoHash, since });
  return { deposits, asset: escrow.asset };
};

/**
 * The delayed job of every reservation (scheduled from ReservationPlaced by the escrow timers): at its expiry (plus a second) it expires the reservation if it is still a
 * stale PENDING one. It asks the ledger first: a deposit the ledger closed before `expiresAt` (reported late, or not
 * at all) is decided as /pay decides it, so a buyer who paid in time is not expired. It decides from the pool's
 * stream at run time, so a paid, cancelled or already expired reservation (or a retried job) changes nothing. A
 * ledger that does not answer fails the attempt (retried): nobody is expired blind. Readers do not wait for it: a
 * stale PENDING reads as EXPIRED.
 */
export const expireReservation = async (services: Pick<Services, 'store' | 'pgPool' | 'commandQueue' | 'ledger'>, job: ExpiryJob, now = new Date()) => {
  const at = now.toISOString();
  const ledger = await ledgerFacts(services, new EscrowLedger(services.ledger), job, at);
  return executeCommand(services, {
    stream: poolStream(job.poolId),
    aggregate: poolAggregate,
    decide: ({ pool }) =>
      pool.status === 'none'
        ? []
        : decideReservation({ type: 'ExpireReservation', data: { reservationId: job.reservationId, ...(ledger ? { ledger } : {}) }, metadata: { now: at } }, pool),
    metadata: { tenantId: null, actor: { kind: 'system', id: 'reservation-expiry' }, correlationId: randomUUID(), causationId: null, occurredAt: at },
  });
};

/** Runs the expiry worker in this process; answers the stop function. */
export const startReservationExpiry = (services: Services): (() => Promise<void>) => {
  const worker = services.jobs.startWorker<ExpiryJob>(RESERVATION_EXPIRY_QUEUE, async (job) => void (await expireReservation(services, job, services.clock())), { concurrency: 4 });
  return () => worker.close();
};
