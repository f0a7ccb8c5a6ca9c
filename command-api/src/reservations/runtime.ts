import type { QuoteSigner } from '../fees/quote-token';
import { createHash } from 'node:crypto';
import { NotFoundError, decideReservation, initialPool, requireBuyerIn, type Pool, type ReservationCommand } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { JOB_QUEUES, type AuthContext, type CheckpointWaiter, type EscrowLedger, type JobQueue, type LedgerGateway, type RouteAnswer } from '@cagnotte/infra';
import { isOpenToBuyers, reservationView, type ReservationView } from '@cagnotte/read-models';
import { factsOf } from './facts';
export { factsOf } from './facts';
import { loadActor, metadataFor, poolStream } from '../shared/context';
import { loadState, runCommand, type CommandRuntime } from '../shared/run-command';
import { poolAggregate, positionHeaders, type CommandCtx, type PoolCommandState, type PoolOutcome, type TenantPolicy } from '../pools/handler';

/** What the reservation commands take, and nothing else. */
export interface ReservationDeps extends CommandRuntime {
  waiter: Pick<CheckpointWaiter, 'waitFor'>;
  readYourWritesMs: number;
  clock: () => Date;
  ledger: LedgerGateway;
  escrow: EscrowLedger;
  jobs: JobQueue;
  /** The tenant's reservation TTL and fee schedule (its settings, else the service's defaults). */
  tenantPolicy: (tenantId: string) => Promise<Pick<TenantPolicy, 'reservationTtlSeconds' | 'feeSchedule'>>;
  /** Verifies the deposit quote a reservation may be placed under (command-api/src/fees/quote-token.ts). */
  quotes: QuoteSigner;
}

export const RESERVATION_PROJECTIONS = ['pools', 'reservations'];
export const RESERVATION_EXPIRY_QUEUE = JOB_QUEUES.reservationExpiry;

/** The MEMO_HASH that binds a deposit to one reservation: it pays that reservation and no other. */
export const reservationMemoHash = (reservationId: string): string => createHash('sha256').update(`cagnotte:reservation:${reservationId}`).digest('hex');


/** The reservation as of the command's own revision, rendered by the query side's view. */
export const reservationOf = (state: PoolCommandState, reservationId: string, now: Date): ReservationView => {
  const pool = state.pool;
  const r = pool.status === 'none' ? undefined : pool.holdings.byId.get(reservationId);
  if (pool.status === 'none' || !r) throw new NotFoundError('reservation');
  return reservationView(factsOf(pool.id, r), now, pool);
};

/** The pool as the caller may see it: another tenant's pool does not exist. */
export const poolInTenant = (state: PoolCommandState, tenantId: string): PoolCommandState['pool'] =>
  state.pool.status !== 'none' && state.pool.tenantId !== tenantId ? initialPool() : state.pool;

/**
 * The pool a buyer may reserve in or ask a quote of: one open to buyers (the read side's rule, isOpenToBuyers: what
 * anyone may read, and a PRIVATE FUNDING pot shared by its link) or their own. Any other (another organiser's DRAFT,
 * an archived pool, another tenant's) is handed as none: the same 404 pool_not_found as a random id. Its organiser
 * keeps the informative answers (pool_not_open, organiser_cannot_reserve).
 */
export const poolToReserveIn = (state: PoolCommandState, tenantId: string, userId: string): Pool => {
  const pool = poolInTenant(state, tenantId);
  if (pool.status === 'none' || pool.organiserId === userId) return pool;
  const facts = { type: pool.type, status: pool.status, marketplaceVisibility: pool.fields.marketplaceVisibility, archived: pool.archivedAt !== null };
  return isOpenToBuyers(facts) ? pool : initialPool();
};

export const loadPool = async (deps: ReservationDeps, poolId: string, tenantId: string) => poolInTenant(await loadState(deps.store, poolStream(poolId), poolAggregate), tenantId);

export const tenantOf = (ctx: CommandCtx): string => ctx.tenant?.id ?? ctx.auth!.tenantId;

/** The caller's own reservation in the pool, as the pool's stream says: a pool they hold nothing in is none (requireBuyerIn), anyone else's reservation is not found. */
export const ownReservation = async (deps: ReservationDeps, ctx: CommandCtx, poolId: string, reservationId: string) => {
  const pool = requireBuyerIn(await loadPool(deps, poolId, tenantOf(ctx)), ctx.auth!.userId);
  const r = pool.holdings.byId.get(reservationId);
  if (!r || r.buyerId !== ctx.auth!.userId) throw new NotFoundError('reservation');
  return { pool, r };
};

/**
 * Runs a reservation command on the pool's stream as the signed-in buyer (the pool decides capacity), answers with
 * `respond` (written with the events under an Idempotency-Key), once the projections show the write.
 */
export const runReservationCommand = async (
  deps: ReservationDeps,
  ctx: CommandCtx,
  poolId: string,
  build: (meta: { actor: { userId: string; displayName: string }; now: string; ip: string | null }) => ReservationCommand,
  respond: (outcome: PoolOutcome) => RouteAnswer,
  metadata?: (now: string) => EventMetadata,
): Promise<RouteAnswer> => {
  const auth: AuthContext = ctx.auth!;
  const actor = await loadActor(deps.store, auth);
  const now = deps.clock().toISOString();
  const tenantId = tenantOf(ctx);
  const command = build({ actor: { userId: actor.userId, displayName: actor.displayName }, now, ip: ctx.ip.slice(0, 64) });
  const outcome = await runCommand(
    deps,
    poolStream(poolId),
    poolAggregate,
    (state) => decideReservation(command, command.type === 'PlaceReservation' ? poolToReserveIn(state, tenantId, actor.userId) : poolInTenant(state, tenantId)),
    metadata ? metadata(now) : metadataFor(ctx, tenantId, now),
    { respond, idempotency: ctx.idempotency },
  );
  if (outcome.position) await deps.waiter.waitFor(RESERVATION_PROJECTIONS, outcome.position, deps.readYourWritesMs);
  return outcome.answer!;
};

export const answerWith =
  (status: number, data: (outcome: PoolOutcome) => Record<string, unknown>) =>
  (outcome: PoolOutcome): RouteAnswer => ({ status, data: data(outcome), headers: positionHeaders(outcome.position) });
