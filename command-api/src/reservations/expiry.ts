import { randomUUID } from 'node:crypto';
import { decideReservation } from '@cagnotte/domain';
import type { Services } from '@cagnotte/infra';
import { poolStream } from '../shared/context';
import { runCommand } from '../shared/run-command';
import { poolAggregate } from '../pools/handler';
import { RESERVATION_EXPIRY_QUEUE } from './runtime';

export interface ExpiryJob {
  poolId: string;
  reservationId: string;
}

/**
 * The delayed job of every reservation: at its expiry (plus a second) it expires the reservation if it is still a
 * stale PENDING one. It decides from the pool's stream at run time, so a paid, cancelled or already expired
 * reservation (or a retried job) changes nothing. Readers do not wait for it: a stale PENDING reads as EXPIRED.
 */
export const expireReservation = async (services: Pick<Services, 'store' | 'pgPool' | 'commandQueue'>, job: ExpiryJob, now = new Date()) => {
  const at = now.toISOString();
  return runCommand(
    services,
    poolStream(job.poolId),
    poolAggregate,
    ({ pool }) => (pool.status === 'none' ? [] : decideReservation({ type: 'ExpireReservation', data: { reservationId: job.reservationId }, metadata: { now: at } }, pool)),
    { tenantId: null, actor: { kind: 'system', id: 'reservation-expiry' }, correlationId: randomUUID(), causationId: null, occurredAt: at },
  );
};

/** Runs the expiry worker in this process; answers the stop function. */
export const startReservationExpiry = (services: Services): (() => Promise<void>) => {
  const worker = services.jobs.startWorker<ExpiryJob>(RESERVATION_EXPIRY_QUEUE, async (job) => void (await expireReservation(services, job)), { concurrency: 4 });
  return () => worker.close();
};
