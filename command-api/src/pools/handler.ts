import {
  ValidationError,
  decidePool,
  evolveMerchant,
  evolvePool,
  holdsAt,
  initialMerchant,
  initialPool,
  isUuid,
  type Merchant,
  type Pool,
  type PoolCommand,
} from '@cagnotte/domain';
import { parseEvent, type DomainEvent, type FeeSchedule, type PoolEvent } from '@cagnotte/event-schemas';
import {
  formatPosition,
  lookupOrUnavailable,
  type AuthContext,
  type CheckpointWaiter,
  type EventStore,
  type IdempotencyClaim,
  type JobQueue,
  type Position,
  type RouteAnswer,
} from '@cagnotte/infra';
import { foldPool, groupBuyOf, reservationView, type PoolDoc, type PoolDocument } from '@cagnotte/read-models';
import { factsOf } from '../reservations/facts';
import { loadAccount, loadActor, metadataFor, poolStream } from '../shared/context';
import { runCommand, type Aggregate, type CommandOutcome, type CommandRuntime } from '../shared/run-command';
import { merchantStream } from '../catalogue/merchants';

/** What the pool commands take, and nothing else. */
export interface PoolCommandDeps extends CommandRuntime {
  waiter: Pick<CheckpointWaiter, 'waitFor'>;
  /** How long a command waits for the pools projection before it answers anyway (read-your-writes). */
  readYourWritesMs: number;
  /** Resolves an email or phone to an account id: the one lookup no stream can answer (a stream is named by id). */
  accounts: { findInTenant(tenantId: string, identifier: string): Promise<{ id: string } | null> };
  clock: () => Date;
  /** Opens a pool's escrow account on the ledger (idempotent per pool: a retry finds the same account). */
  escrow: EscrowOpener;
  /** How long after its deadline (or, without one, after publishing plus the longest open period) a buyer may reclaim. */
  reclaimAfterDays: number;
  /** Background jobs (the delist refund is one). */
  jobs: JobQueue;
  /** The tenant's commercial settings with the service's defaults filled in. */
  tenantPolicy: (tenantId: string) => Promise<TenantPolicy>;
}

export interface TenantPolicy {
  reservationTtlSeconds: number;
  listingFees: { LISTED: string; FEATURED: string };
  delistRefundWindowHours: number;
  platformFeePercent: string;
  inspectionDays: number;
  disputeResponseDays: number;
  /** The fee schedule in force (docs/fees.md): the one set, else the default made of the settings above. */
  feeSchedule: FeeSchedule;
  /** Who invoices the platform fee: its tax country and VAT id (config PLATFORM_COUNTRY, PLATFORM_VAT_ID). */
  platform: { id: string; country: string; vatId: string | null };
}

/** The ledger side of publishing (infra/src/ledger/escrow.ts), as the pool commands need it. */
export interface EscrowOpener {
  openEscrow(input: { poolId: string; organiserAccount: string }): Promise<{ accountId: string; platformSigner: string; threshold: number; setupTxHash: string | null }>;
}

export const POSITION_HEADER = 'X-Event-Position';
const READ_PROJECTIONS = ['pools'];

/**
 * One read of the pool's stream feeds both folds: the aggregate's (what the decider decides on) and the pools read
 * model's own (what the answer renders, through the same view the query side serves). A stream's revisions are
 * 0-based and consecutive, so counting events gives each its revision.
 */
export interface PoolCommandState {
  pool: Pool;
  doc: PoolDoc | null;
  revision: bigint;
}

const aggregate: Aggregate<PoolCommandState, PoolEvent> = {
  initial: () => ({ pool: initialPool(), doc: null, revision: -1n }),
  evolve: (s, e) => ({ pool: evolvePool(s.pool, e), doc: foldPool(s.doc, e, s.revision + 1n), revision: s.revision + 1n }),
};

export const poolAggregate = aggregate;

export type PoolOutcome = CommandOutcome<PoolCommandState, PoolEvent>;

export const positionHeaders = (position: Position | null): Record<string, string> => (position ? { [POSITION_HEADER]: formatPosition(position) } : {});

/** The read model's document as of the command's own revision: the decider let the command through, so the pool exists. */
export const documentOf = (outcome: PoolOutcome): PoolDocument => {
  if (!outcome.state.doc) throw new Error('a pool command answered without a pool');
  return outcome.state.doc.pool;
};

/**
 * The answer of a pool command: the pool as of the command's own revision, rendered by the query side's view from
 * the read model's fold (never from the read model itself, which may already show a later writer). Pure, so it can
 * be written with the events under an Idempotency-Key and replayed unchanged.
 */
export const poolAnswer =
  (auth: AuthContext, status = 200, extra: (outcome: PoolOutcome) => Record<string, unknown> = () => ({}), now: () => Date = () => new Date()) =>
  (outcome: PoolOutcome): RouteAnswer => ({
    status,
    data: { ...groupBuyOf(documentOf(outcome), outcome.revision, { userId: auth.userId }, holdingsOf(outcome.state.pool, auth.userId, now())), ...extra(outcome) },
    headers: positionHeaders(outcome.position),
  });

/** The buyers holding units (first hold first) and the viewer's own reservations, from the command's own fold. */
const holdingsOf = (pool: Pool, viewerId: string, now: Date) => {
  if (pool.status === 'none') return { buyers: [], mine: [] };
  const at = now.toISOString();
  const first = new Map<string, { pool_id: string; user_id: string; display_name: string; joined_at: Date }>();
  const mine = [];
  for (const r of pool.holdings.byId.values()) {
    if (holdsAt(r, at) && (!first.has(r.buyerId) || Date.parse(r.placedAt) < first.get(r.buyerId)!.joined_at.getTime())) {
      first.set(r.buyerId, { pool_id: pool.id, user_id: r.buyerId, display_name: r.buyerName, joined_at: new Date(r.placedAt) });
    }
    if (r.buyerId === viewerId) mine.push(reservationView(factsOf(pool.id, r), now, pool));
  }
  mine.sort((a, b) => Date.parse(a.placedAt) - Date.parse(b.placedAt) || a.id.localeCompare(b.id));
  return { buyers: [...first.values()], mine };
};

export type CommandCtx = { auth: AuthContext | null; tenant: { id: string } | null; requestId: string; ip: string; idempotency: IdempotencyClaim | null };

/**
 * Runs a pool command as the signed-in user, inside the resolved tenant, and answers with `respond` (written with
 * the events when the request has an Idempotency-Key), once the pools projection shows the write (or the wait
 * times out: the answer is the same either way).
 */
export const runPoolCommand = async (
  deps: PoolCommandDeps,
  ctx: CommandCtx,
  poolId: string,
  build: (meta: PoolCommand['metadata']) => PoolCommand,
  respond: (outcome: PoolOutcome) => RouteAnswer,
): Promise<RouteAnswer> => {
  const auth = ctx.auth!;
  const actor = await loadActor(deps.store, auth);
  const now = deps.clock().toISOString();
  const tenantId = ctx.tenant?.id ?? auth.tenantId;
  const command = build({ actor, now, ip: ctx.ip });
  const outcome = await runCommand(
    deps,
    poolStream(poolId),
    aggregate,
    ({ pool }) =>
      // A pool of another tenant does not exist for this caller: the decider sees no pool (and checks the role first where it should).
      decidePool(command, pool.status !== 'none' && pool.tenantId !== tenantId ? initialPool() : pool),
    metadataFor(ctx, tenantId, now),
    { respond, idempotency: ctx.idempotency },
  );
  if (outcome.position) await deps.waiter.waitFor(READ_PROJECTIONS, outcome.position, deps.readYourWritesMs);
  return outcome.answer!;
};

/** What any decision on a pool's stream needs: the write path, the clock, read-your-writes. */
export type PoolDecisionDeps = CommandRuntime & Pick<PoolCommandDeps, 'waiter' | 'readYourWritesMs' | 'clock'>;

/**
 * Like runPoolCommand, for any decision on the pool's stream (the paid listing, closing, disputes, settlement): the
 * pool of another tenant is none. Answers once `projections` show the write.
 */
export const runOnPool = async (
  deps: PoolDecisionDeps,
  ctx: CommandCtx,
  poolId: string,
  decide: (pool: Pool, meta: PoolCommand['metadata']) => PoolEvent[],
  respond: (outcome: PoolOutcome) => RouteAnswer,
  projections: string[] = READ_PROJECTIONS,
): Promise<RouteAnswer> => {
  const auth = ctx.auth!;
  const actor = await loadActor(deps.store, auth);
  const now = deps.clock().toISOString();
  const tenantId = ctx.tenant?.id ?? auth.tenantId;
  const meta = { actor, now, ip: ctx.ip };
  const outcome = await runCommand(
    deps,
    poolStream(poolId),
    aggregate,
    ({ pool }) => decide(pool.status !== 'none' && pool.tenantId !== tenantId ? initialPool() : pool, meta),
    metadataFor(ctx, tenantId, now),
    { respond, idempotency: ctx.idempotency },
  );
  if (outcome.position) await deps.waiter.waitFor(projections, outcome.position, deps.readYourWritesMs);
  return outcome.answer!;
};

// ---------------------------------------------------------------------------------------------------------------
// The seller a command names, checked from the streams that own the facts (the account's, the merchant's).
// ---------------------------------------------------------------------------------------------------------------

/** What a pool command may say about its seller: an id, or something the merchant path resolves to one. */
export interface SellerReference {
  sellerId?: string | null;
  sellerIdentifier?: string;
  sellerMerchantSlug?: string;
}

/** The account of that id, if it is a user of the tenant (its own stream says so). An outage is a 503. */
const accountInTenant = (store: EventStore, tenantId: string, userId: string) =>
  lookupOrUnavailable(async () => {
    const account = await loadAccount(store, userId);
    return account.status !== 'none' && account.tenantId === tenantId ? account : null;
  });

/** `sellerIdentifier`: an id names a stream; an email or phone goes through the accounts index, then the stream decides. */
const accountByIdentifier = async (deps: PoolCommandDeps, tenantId: string, identifier: string) => {
  if (isUuid(identifier)) return accountInTenant(deps.store, tenantId, identifier);
  const found = await lookupOrUnavailable(() => deps.accounts.findInTenant(tenantId, identifier));
  return found ? accountInTenant(deps.store, tenantId, found.id) : null;
};

/** The merchant as its stream (`merchant-<tenant>-<slug>`: the slug names it) folds it. */
const merchantOf = (store: EventStore, tenantId: string, slug: string): Promise<Merchant> =>
  lookupOrUnavailable(async () =>
    (await store.readStream(merchantStream(tenantId, slug))).map((r) => parseEvent(r) as DomainEvent).reduce(evolveMerchant, initialMerchant()),
  );

/**
 * Resolves and checks the seller a create or update names, inside the pool's tenant, for the caller:
 * - `sellerId` must be a user of the tenant;
 * - `sellerIdentifier` (id, email or phone) must find one;
 * - `sellerMerchantSlug` must be an ACTIVE merchant of the tenant that has an owner, and the caller must be that owner.
 * Each refusal is a 400 naming the field. A lookup the database cannot answer is a 503, never a 400.
 * Answers the seller id to record, `null` for none, or `undefined` when the input says nothing about the seller.
 */
export const resolveSeller = async (deps: PoolCommandDeps, tenantId: string, callerId: string, input: SellerReference): Promise<string | null | undefined> => {
  if (input.sellerIdentifier !== undefined && input.sellerMerchantSlug !== undefined) {
    throw new ValidationError({ sellerIdentifier: ['give sellerIdentifier or sellerMerchantSlug, not both'] });
  }
  let resolved: string | undefined;
  if (input.sellerIdentifier !== undefined) {
    const account = await accountByIdentifier(deps, tenantId, input.sellerIdentifier);
    if (!account) throw new ValidationError({ sellerIdentifier: ['no account with this id, email or phone in the tenant'] });
    resolved = account.userId;
  } else if (input.sellerMerchantSlug !== undefined) {
    const merchant = await merchantOf(deps.store, tenantId, input.sellerMerchantSlug);
    if (merchant.status !== 'ACTIVE') throw new ValidationError({ sellerMerchantSlug: ['no active merchant with this slug in the tenant'] });
    if (!merchant.ownerUserId) throw new ValidationError({ sellerMerchantSlug: ['this merchant has no owner account: it cannot be paid as a seller'] });
    if (merchant.ownerUserId !== callerId) throw new ValidationError({ sellerMerchantSlug: ['you can name only a merchant you own'] });
    resolved = merchant.ownerUserId;
  }
  if (resolved !== undefined) {
    if (input.sellerId && input.sellerId !== resolved) {
      throw new ValidationError({ sellerId: [`does not match ${input.sellerIdentifier !== undefined ? 'sellerIdentifier' : 'sellerMerchantSlug'}`] });
    }
    return resolved;
  }
  if (input.sellerId) {
    const account = await accountInTenant(deps.store, tenantId, input.sellerId);
    if (!account) throw new ValidationError({ sellerId: ['no user with this id in the tenant'] });
  }
  return input.sellerId;
};
