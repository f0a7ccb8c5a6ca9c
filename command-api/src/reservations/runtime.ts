import type { QuoteSigner } from '../fees/quote-token';
import { createHash } from 'node:crypto';
import { NotFoundError, initialPool, requireBuyerIn, type Pool, type PoolActor } from '@cagnotte/domain';
import { JOB_QUEUES, type EscrowLedger, type LedgerGateway } from '@cagnotte/infra';
import { isOpenToBuyers, reservationView, type ReservationView } from '@cagnotte/read-models';
import { factsOf } from './facts';
export { factsOf } from './facts';
import type { CommandCtx, ExecuteRuntime } from '../shared/execute-command';
import type { CommandFacts } from '../shared/facts';
import { poolInTenant, type PoolCommandState } from '../pools/aggregate';

/** What the reservation commands take, and nothing else. */
export interface ReservationDeps extends ExecuteRuntime {
  clock: () => Date;
  ledger: LedgerGateway;
  escrow: EscrowLedger;
  /** The caller's persona (their account stream) and the tenant's policy (its reservation TTL, its fee schedule), kept per process. */
  facts: CommandFacts;
  /** Verifies the deposit quote a reservation may be placed under (command-api/src/fees/quote-token.ts). */
  quotes: QuoteSigner;
}

export const RESERVATION_EXPIRY_QUEUE = JOB_QUEUES.reservationExpiry;

/** The MEMO_HASH that binds a deposit to one reservation: it pays that reservation and no other. */
export const reservationMemoHash = (reservationId: string): string => createHash('sha256').update(`cagnotte:reservation:${reservationId}`).digest('hex');

/** The reservation as of the command's own revision, rendered by the query side's view. */
export const reservationOf = (state: PoolCommandState, reservationId: string, now: Date): ReservationView => {
  const pool = state.pool;
  const r = pool.status === 'none' ? undefined : pool.holdings.byId.get(reservationId);
  if (pool.status === 'none' || !r) throw new NotFoundError('reservation');
  return reservationView(factsOf(pool.id, r, pool.relais), now, pool);
};

/**
 * The pool a buyer may reserve in or ask a quote of: one open to buyers (the read side's rule, isOpenToBuyers: what
 * anyone may read, and a PRIVATE FUNDING pot shared by its link) or their own. Any other (another organiser's DRAFT,
 * an archived pool, another tenant's) is handed as none: the same 404 pool_not_found as a random id. Its organiser
 * keeps the informative answers (pool_not_open, organiser_cannot_reserve).
 */
export const poolToReserveIn = (state: PoolCommandState, tenantId: string, userId: string): Pool => {
  const pool = poolInTenant(state.pool, tenantId);
  if (pool.status === 'none' || pool.organiserId === userId) return pool;
  const facts = { type: pool.type, status: pool.status, marketplaceVisibility: pool.fields.marketplaceVisibility, archived: pool.archivedAt !== null };
  return isOpenToBuyers(facts) ? pool : initialPool();
};

export const tenantOf = (ctx: CommandCtx): string => ctx.tenant?.id ?? ctx.auth!.tenantId;

/** What a reservation decision knows of the buyer giving it: who (from their account stream), when, from where. */
export const buyerMeta = (actor: PoolActor, now: string, ip: string) => ({ actor: { userId: actor.userId, displayName: actor.displayName }, now, ip: ip.slice(0, 64) });

/** The caller's own reservation in the pool: a pool they hold nothing in is none (requireBuyerIn), anyone else's reservation is not found. */
export const ownReservation = (pool: Pool, userId: string, reservationId: string) => {
  const existing = requireBuyerIn(pool, userId);
  const r = existing.holdings.byId.get(reservationId);
  if (!r || r.buyerId !== userId) throw new NotFoundError('reservation');
  return { pool: existing, r };
};
