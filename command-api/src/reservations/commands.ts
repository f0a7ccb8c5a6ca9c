import { randomUUID } from 'node:crypto';
import { ValidationError, decideReservation, depositMismatch, type ObservedDeposit, type Pool } from '@cagnotte/domain';
import { currentReservationTerms } from '@cagnotte/event-schemas';
import { ledgerCall, type AuthContext, type RouteAnswer } from '@cagnotte/infra';
import { decodeSignedXdr, submitClientSigned } from '../ledger/client-signed';
import { metadataFor, poolStream } from '../shared/context';
import { executeCommand, fromRequest, type CommandCtx } from '../shared/execute-command';
import { loadState } from '../shared/run-command';
import { recordStrayPayments } from '../escrow/strays';
import { poolAggregate, poolInTenant, type PoolCommandState, type PoolOutcome } from '../pools/aggregate';
import { buyerMeta, ownReservation, poolToReserveIn, reservationMemoHash, tenantOf, type ReservationDeps } from './runtime';

/** What a reservation is placed with (the /api body; the /v1 order maps onto it). */
export interface ReserveInput {
  lines: Array<{ unitId: string; quantity: number }>;
  pledge?: string | undefined;
  relaisId?: string | null | undefined;
  quoteId?: string | undefined;
}

// ---------------------------------------------------------------------------------------------------------------
// The commands, for the /api routes (routes.ts: the buyer is the caller) and the /v1 group-buy orders (the organiser's
// API key places and pays an order for a buyer account of its tenant: command-api/src/pools/v1-orders.ts). `buyer`
// is whom the reservation is decided for; the events' metadata names the caller.
// ---------------------------------------------------------------------------------------------------------------

/** What narrows the pool a command decides on beyond its tenant (the /v1 key's mode and owner): what it hides is none. */
export type ReservationVisibility = (state: PoolCommandState, pool: Pool) => Pool;
const asIs: ReservationVisibility = (_s, pool) => pool;

/** Places a reservation for `buyer`: the units held until it expires. */
export const placeReservation = async (
  deps: ReservationDeps,
  ctx: CommandCtx,
  poolId: string,
  body: ReserveInput,
  buyer: AuthContext,
  respond: (o: PoolOutcome, reservationId: string) => RouteAnswer,
  visible: ReservationVisibility = asIs,
): Promise<RouteAnswer> => {
  const reservationId = randomUUID();
  const claims = body.quoteId === undefined ? null : deps.quotes.verify(body.quoteId);
  if (body.quoteId !== undefined && (!claims || claims.poolId !== poolId || claims.buyerId !== buyer.userId)) {
    throw new ValidationError({ quoteId: ['not a quote of yours for this pool'] }, 'Unknown quote', 'invalid_quote');
  }
  // What the quote promised: its claims but whose and where (checked above).
  const quote = claims && (({ poolId: _pool, buyerId: _buyer, ...promised }) => promised)(claims);
  const tenantId = tenantOf(ctx);
  const { actor, policy } = await deps.facts.of(buyer, tenantId);
  const now = deps.clock().toISOString();
  const data = {
    reservationId,
    lines: body.lines,
    pledge: body.pledge ?? null,
    relaisId: body.relaisId ?? null,
    ttlSeconds: policy.reservationTtlSeconds,
    depositFeeRule: policy.feeSchedule.escrowDeposit,
    ...(quote ? { quote } : {}),
  };
  // The expiry job is scheduled from the ReservationPlaced event (projectors/src/escrow/timers.ts), not here.
  const { answer } = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: (state) =>
      decideReservation({ type: 'PlaceReservation', data, metadata: buyerMeta(actor, now, ctx.ip) }, visible(state, poolToReserveIn(state, tenantId, actor.userId))),
    respond: (o) => respond(o, reservationId),
    ...fromRequest(ctx, tenantId, now),
  });
  return answer;
};

/** The deposit handed out to sign, and the buyer's reclaim (networkPassphrase added by the caller). */
export interface DepositToSign {
  payment: { xdr: string; hash: string; expiresAt: string; balanceId: string; amount: string; escrowAccount: string };
  reclaim: { xdr: string; hash: string; balanceId: string; validAfter: string };
}

/** Records the terms `buyer` accepts (the current ones) and builds the deposit they sign, from their linked ledger account. */
export const signReservation = async (
  deps: ReservationDeps,
  ctx: CommandCtx,
  poolId: string,
  reservationId: string,
  buyer: AuthContext,
  respond: (o: PoolOutcome, deposit: DepositToSign) => RouteAnswer,
  visible: ReservationVisibility = asIs,
): Promise<RouteAnswer> => {
  const { escrow } = deps;
  const current = currentReservationTerms();
  const tenantId = tenantOf(ctx);
  // The deposit is built on the ledger before the command: the pool is read once for it; the decider checks again.
  const [{ actor, account }, state] = await Promise.all([deps.facts.persona(buyer), loadState(deps.store, poolStream(poolId), poolAggregate)]);
  const { pool, r } = ownReservation(visible(state, poolInTenant(state.pool, tenantId)), actor.userId, reservationId);
  const source = account.ledgerAccount;
  if (!source) {
    throw new ValidationError({ ledgerAccount: ['link a ledger account first (POST /api/me/ledger/challenge, then /api/me/ledger/link): you pay from it'] }, 'A linked ledger account is required', 'ledger_account_required');
  }
  const memoHash = reservationMemoHash(reservationId);
  if (!pool.escrow) throw new ValidationError({ poolId: ['this pool has no escrow account yet'] }, 'The pool has no escrow', 'escrow_not_open');
  const { accountId: escrowAccount, reclaimAfter } = pool.escrow;
  // Built before anything is recorded: an unfunded account or a silent ledger leaves no signature behind.
  const deposit = await ledgerCall(() =>
    escrow.buildDeposit({ source, escrowAccount, amount: r.amount, memoHash, reclaimAfter: new Date(reclaimAfter), validUntil: new Date(r.expiresAt) }),
  );
  const back = await ledgerCall(() => escrow.buildReclaim({ buyer: source, balanceId: deposit.balanceId, reclaimAfter, afterSequence: deposit.sequence }));
  const now = deps.clock().toISOString();
  const handed: DepositToSign = {
    payment: { xdr: deposit.xdr, hash: deposit.hash, expiresAt: deposit.expiresAt, balanceId: deposit.balanceId, amount: r.amount, escrowAccount },
    reclaim: { xdr: back.xdr, hash: back.hash, balanceId: back.balanceId, validAfter: back.validAfter },
  };
  const { answer } = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: (s) =>
      decideReservation(
        { type: 'SignReservation', data: { reservationId, terms: current, source, memoHash }, metadata: buyerMeta(actor, now, ctx.ip) },
        visible(s, poolInTenant(s.pool, tenantId)),
      ),
    respond: (o) => respond(o, handed),
    ...fromRequest(ctx, tenantId, now),
  });
  return answer;
};

/** Pays `buyer`'s reservation with the deposit the ledger shows (by hash, or submitted from the signed XDR if it is exactly that deposit). */
export const payReservation = async (
  deps: ReservationDeps,
  ctx: CommandCtx,
  poolId: string,
  reservationId: string,
  body: { txHash?: string | undefined; signedXdr?: string | undefined },
  buyer: AuthContext,
  respond: (o: PoolOutcome, observed: ObservedDeposit) => RouteAnswer,
  visible: ReservationVisibility = asIs,
): Promise<RouteAnswer> => {
  const { ledger, escrow, clock } = deps;
  const tenantId = tenantOf(ctx);
  // The ledger is asked before the command (what the deposit paid): the pool is read once for it; the decider checks again.
  const [actor, state] = await Promise.all([deps.facts.actor(buyer), loadState(deps.store, poolStream(poolId), poolAggregate)]);
  const { r } = ownReservation(visible(state, poolInTenant(state.pool, tenantId)), actor.userId, reservationId);
  if (!r.signed) throw new ValidationError({ reservationId: ['sign the reservation first'] }, 'The reservation is not signed', 'reservation_not_signed');
  const expected = { ...r.signed, assetCode: escrow.asset.code, assetIssuer: escrow.asset.issuer, amount: r.amount };

  let txHash = body.txHash;
  const via = body.signedXdr !== undefined ? ('signedXdr' as const) : ('txHash' as const);
  if (body.signedXdr !== undefined) {
    const { tx, hash } = decodeSignedXdr(ledger, body.signedXdr, txHash);
    txHash = hash;
    if (r.payment?.txHash !== hash) {
      // Nothing is submitted on the buyer's behalf unless it is exactly this reservation's deposit.
      const mismatch = depositMismatch(expected, escrow.describeDeposit(tx, { txHash: hash, ledger: 0, successful: true, closedAt: null }));
      if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, `The deposit does not pay this reservation: ${mismatch.message}`, 'payment_mismatch');
      if ((await submitClientSigned(ledger, tx, hash)) === 'unavailable') return { data: { paid: false, pending: true, reason: 'ledger_unavailable', txHash: hash } };
    }
  }
  const observed: ObservedDeposit | null = await ledgerCall(() => escrow.observeDeposit(txHash!));
  if (!observed) return { data: { paid: false, pending: true, reason: 'not_on_ledger_yet', txHash: txHash! } };
  // Not a deposit at all (a payment straight to the escrow, say): whatever it paid the escrow is recorded as owed
  // back to its sender; the reservation still refuses it below (payment_mismatch).
  if (observed.successful && !observed.isClaimableBalance) await recordStrayPayments(deps, poolId, metadataFor(ctx, tenantId, clock().toISOString()));
  const now = clock().toISOString();
  const { answer } = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: (s) =>
      decideReservation(
        { type: 'PayReservation', data: { reservationId, deposit: observed, via, asset: escrow.asset }, metadata: buyerMeta(actor, now, ctx.ip) },
        visible(s, poolInTenant(s.pool, tenantId)),
      ),
    respond: (o) => respond(o, observed),
    ...fromRequest(ctx, tenantId, now),
  });
  return answer;
};

