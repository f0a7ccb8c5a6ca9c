import type { PoolEvent } from '@cagnotte/event-schemas';
import { IllegalStateError, ValidationError } from '../errors';
import { formatAmount, parseAmount } from '../money';
import type { ExistingPool } from '../pools/pool';
import { expired, ownReservation, type ReservationCommand } from './decide';
import { depositMismatch, type ObservedDeposit } from './deposit';
import { beforeExpiry, holdsAt, isStale, lineFit, type Reservation } from './holdings';

// What a deposit does to its reservation, decided from the ledger's close time: /pay and the expiry job.

/** When a deposit landed: the ledger's close time; the command's time only when the ledger does not say. */
const landedAt = (deposit: ObservedDeposit, now: string): string => deposit.closedAt ?? now;

/** The deposit a signed reservation expects, checked by depositMismatch. */
const expectedDeposit = (r: Reservation & { signed: NonNullable<Reservation['signed']> }, asset: { code: string; issuer: string }) => ({
  ...r.signed,
  assetCode: asset.code,
  assetIssuer: asset.issuer,
  amount: r.amount,
});

/**
 * Whether a reservation that no longer holds could hold its units again now: the pool still takes reservations, and
 * its lines fit the stock and the buyer's limits beside everything that holds at `now` (it does not count itself).
 */
const fitsAgain = (pool: ExistingPool, r: Reservation, now: string): boolean => {
  if (pool.status !== 'OPEN' || pool.archivedAt) return false;
  if (pool.type !== 'GROUPS') return true;
  return lineFit(pool.fields.config, pool.holdings, r.lines, r.buyerId, now).every((f) => f.unit !== undefined && !f.short && !f.overMax);
};

/**
 * What a verified deposit does to its reservation: the one rule of /pay and of the expiry job. When it came is the
 * ledger's close time, never when it was reported (the command's time only when the ledger does not say). A deposit
 * that landed before `expiresAt` pays a PENDING reservation that still holds, or one that stopped holding since
 * (stale, or expired by the job or another command) if its units fit again now; anything else (too late, cancelled,
 * a second deposit, units taken by others in between) is recorded as owed back and never counted.
 */
const depositEvents = (
  pool: ExistingPool,
  r: Reservation & { signed: NonNullable<Reservation['signed']> },
  deposit: ObservedDeposit,
  via: 'txHash' | 'signedXdr',
  now: string,
): PoolEvent[] => {
  const money = { txHash: deposit.txHash, ledger: deposit.ledger, balanceId: deposit.balanceId!, amount: formatAmount(parseAmount(deposit.amount)) };
  const inTime = (r.status === 'PENDING' || r.status === 'EXPIRED') && beforeExpiry(r, landedAt(deposit, now));
  if (inTime && (holdsAt(r, now) || fitsAgain(pool, r, now))) {
    return [{ type: 'ReservationPaid', data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, ...money, via, paidAt: now } }];
  }
  const events: PoolEvent[] = r.status === 'PENDING' ? [expired(pool, r, now)] : [];
  events.push({ type: 'ReservationLatePaymentReceived', data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, ...money, reclaimAfter: r.signed.reclaimAfter, receivedAt: now } });
  return events;
};

export const decidePay = (pool: ExistingPool, command: Extract<ReservationCommand, { type: 'PayReservation' }>): PoolEvent[] => {
  const { actor, now } = command.metadata;
  const { reservationId, deposit, via, asset } = command.data;
  const r = ownReservation(pool, reservationId, actor.userId);
  if (!r.signed) throw new IllegalStateError('reservation_not_signed', 'Sign the reservation first: the deposit is bound to it then');
  const signed = { ...r, signed: r.signed };
  // This very deposit was already recorded (as the payment or as owed back): a repeat changes nothing.
  if (r.payment?.txHash === deposit.txHash || r.latePayments.some((p) => p.txHash === deposit.txHash)) return [];
  const mismatch = depositMismatch(expectedDeposit(signed, asset), deposit);
  if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The deposit does not pay this reservation: ${mismatch.message}`, 'payment_mismatch');
  return depositEvents(pool, signed, deposit, via, now);
};

/**
 * The expiry job: a stale PENDING reservation expires, unless the ledger shows its deposit (the first that pays it
 * exactly): then that deposit is decided as /pay decides it, by when the ledger closed it.
 */
export const decideExpire = (pool: ExistingPool, command: Extract<ReservationCommand, { type: 'ExpireReservation' }>): PoolEvent[] => {
  const { now } = command.metadata;
  const { reservationId, ledger } = command.data;
  const r = pool.holdings.byId.get(reservationId);
  if (!r || !isStale(r, now)) return [];
  if (r.signed && ledger) {
    const signed = { ...r, signed: r.signed };
    const paying = ledger.deposits.filter((d) => depositMismatch(expectedDeposit(signed, ledger.asset), d) === null);
    const deposit = paying.find((d) => beforeExpiry(r, landedAt(d, now))) ?? paying[0];
    if (deposit) return depositEvents(pool, signed, deposit, 'txHash', now);
  }
  return [expired(pool, r, now)];
};
