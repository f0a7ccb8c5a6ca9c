import type { FeeRule, PoolEvent, ReservationEvent, ReservationLine } from '@cagnotte/event-schemas';
import { quoteDeposit, type DepositQuote } from '../fees/quote';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError, assertNever, type FieldErrors } from '../errors';
import { LEDGER_AMOUNT_EXCEEDED, MAX_LEDGER_AMOUNT, formatAmount, ledgerBoundMessage, parseAmount, type Minor } from '../money';
import type { ExistingPool, Pool } from '../pools/pool';
import { requireBuyerIn } from './buyer';
import { pointUnavailable } from '../relais/pool-points';
import type { ObservedDeposit } from './deposit';
import { decideExpire, decidePay } from './decide-deposit';
import { holdsAt, isStale, lineFit, linesAmount, tierPrice, unitOf, type Reservation } from './holdings';

export interface BuyerActor {
  userId: string;
  displayName: string;
}

interface Meta {
  actor: BuyerActor;
  now: string;
  ip: string | null;
}

export type ReservationCommand =
  | {
      type: 'PlaceReservation';
      data: {
        reservationId: string;
        lines: Array<{ unitId: string; quantity: number }>;
        pledge: string | null;
        relaisId: string | null;
        ttlSeconds: number;
        /** The deposit quote the buyer accepts (POST /api/pools/{id}/quote, verified by the route): placed as quoted, or refused. */
        quote?: QuotedReservation;
        /** The tenant's escrow-deposit fee rule in force (its fee schedule): charged on top of the goods. Absent: none. */
        depositFeeRule?: FeeRule;
      };
      metadata: Meta;
    }
  | {
      type: 'SignReservation';
      data: { reservationId: string; terms: { version: string; hash: string }; source: string; memoHash: string };
      metadata: Meta;
    }
  | {
      type: 'PayReservation';
      data: { reservationId: string; deposit: ObservedDeposit; via: 'txHash' | 'signedXdr'; asset: { code: string; issuer: string } };
      metadata: Meta;
    }
  | { type: 'CancelReservation'; data: { reservationId: string }; metadata: Meta }
  /**
   * The delayed job expiring a stale PENDING reservation: the system acts, no buyer. `ledger`: what the ledger shows
   * of the reservation's deposit (every transaction bearing its memo), which the job asks first: a deposit that
   * landed in time is recorded as the payment instead. Absent: the ledger was not asked (the reservation expires).
   */
  | {
      type: 'ExpireReservation';
      data: { reservationId: string; ledger?: { deposits: ObservedDeposit[]; asset: { code: string; issuer: string } } };
      metadata: { now: string };
    };

/** How many stale reservations one command expires on its way (the job catches the rest). */
const LAZY_EXPIRY_BATCH = 50;

/** Stale PENDING reservations, expired on the way: their units are free again before this command decides. */
export const staleExpirations = (pool: ExistingPool, now: string, limit = LAZY_EXPIRY_BATCH): ReservationEvent[] => {
  const events: ReservationEvent[] = [];
  for (const id of pool.holdings.pending) {
    if (events.length >= limit) break;
    const r = pool.holdings.byId.get(id)!;
    if (isStale(r, now)) events.push(expired(pool, r, now));
  }
  return events;
};

/** The expiry of a stale PENDING reservation, at `now`. */
export const expired = (pool: ExistingPool, r: Reservation, now: string): ReservationEvent => ({
  type: 'ReservationExpired',
  data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, expiresAt: r.expiresAt, expiredAt: now },
});

/** The pool is taking reservations: published and OPEN, not archived, escrow opened, before its deadline. */
const requireOpenForReservations = (pool: ExistingPool, now: string) => {
  if (pool.status !== 'OPEN' || pool.archivedAt) throw new IllegalStateError('pool_not_open', 'This pool is not taking reservations');
  if (pool.fields.deadline && Date.parse(pool.fields.deadline) <= Date.parse(now)) throw new IllegalStateError('pool_deadline_passed', 'This pool’s deadline has passed');
  if (!pool.escrow) throw new IllegalStateError('escrow_not_open', 'This pool has no escrow account yet');
};

/** A buyer sees only their own reservations: anyone else's is not found. */
export const ownReservation = (pool: ExistingPool, reservationId: string, buyerId: string): Reservation => {
  const r = pool.holdings.byId.get(reservationId);
  if (!r || r.buyerId !== buyerId) throw new NotFoundError('reservation');
  return r;
};

const placeGroups = (pool: ExistingPool, input: Pick<Extract<ReservationCommand, { type: 'PlaceReservation' }>['data'], 'lines' | 'pledge'>, buyerId: string, now: string): ReservationLine[] => {
  const errors: FieldErrors = {};
  if (input.pledge !== null) errors.pledge = ['a GROUPS pool takes units, not a pledge'];
  if (input.lines.length === 0) errors.lines = ['reserve at least one unit'];
  const seen = new Set<string>();
  input.lines.forEach((l, i) => {
    if (seen.has(l.unitId)) errors[`lines.${i}.unitId`] = [`${l.unitId} is listed twice`];
    seen.add(l.unitId);
    if (!unitOf(pool.fields.config, l.unitId)) errors[`lines.${i}.unitId`] = [`no unit ${l.unitId} in this pool`];
    // The route's schema says so too; the decider must not rely on it: a negative line would free stock (oversell).
    if (!Number.isSafeInteger(l.quantity) || l.quantity < 1) errors[`lines.${i}.quantity`] = ['a whole number of units, at least 1'];
  });
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);

  const fits = lineFit(pool.fields.config, pool.holdings, input.lines, buyerId, now);
  const limits: FieldErrors = {};
  const short: FieldErrors = {};
  const lines = input.lines.map((l, i): ReservationLine => {
    const { unit: found, taken, buyerTotal, underMin, overMax, short: isShort } = fits[i]!;
    const unit = found!;
    if (underMin) limits[`lines.${i}.quantity`] = [`at least ${unit.minPerBuyer} per buyer`];
    if (overMax) limits[`lines.${i}.quantity`] = [`at most ${unit.maxPerBuyer} per buyer (you hold ${buyerTotal - l.quantity})`];
    if (isShort) short[`lines.${i}.quantity`] = [`only ${unit.quantity! - taken} of ${unit.id} left`];
    return { unitId: unit.id, quantity: l.quantity, unitPrice: tierPrice(unit, taken + l.quantity) };
  });
  if (Object.keys(limits).length > 0) throw new ValidationError(limits, 'Outside the per-buyer limits', 'per_buyer_limit');
  if (Object.keys(short).length > 0) {
    throw new ConflictError('insufficient_stock', `Not enough units left: ${Object.values(short).flat().join('; ')}`, short);
  }
  return lines;
};

const placeFunding = (pool: ExistingPool, pledge: string | null, lines: unknown[]): string => {
  if (lines.length > 0) throw new ValidationError({ lines: ['a FUNDING pool takes a pledge, not units'] });
  if (pledge === null || parseAmount(pledge) <= 0n) throw new ValidationError({ pledge: ['pledge a positive amount'] });
  const { min, max } = pool.fields.config.pledge ?? {};
  if (min !== undefined && parseAmount(pledge) < parseAmount(min)) throw new ValidationError({ pledge: [`at least ${min}`] }, 'Outside the pledge bounds', 'pledge_out_of_bounds');
  if (max !== undefined && parseAmount(pledge) > parseAmount(max)) throw new ValidationError({ pledge: [`at most ${max}`] }, 'Outside the pledge bounds', 'pledge_out_of_bounds');
  return formatAmount(parseAmount(pledge));
};

const requireRelais = (pool: ExistingPool, relaisId: string | null) => {
  const points = pool.fields.config.relais ?? [];
  if (points.length === 0) {
    if (relaisId !== null) throw new ValidationError({ relaisId: ['this pool has no pick-up points'] });
    return;
  }
  if (relaisId === null) throw new ValidationError({ relaisId: ['choose a pick-up point of this pool'] });
  if (!points.some((p) => p.id === relaisId)) throw new ValidationError({ relaisId: [`no pick-up point ${relaisId} in this pool`] });
  // A point the directory no longer vouches for (docs/relais.md): its buyers are choosing again, no one new goes there.
  if (pool.relais.unavailable.has(relaisId)) throw pointUnavailable(pool, relaisId);
};

/**
 * What a reservation placed now would hold and be charged: its lines at the tier-aware unit prices (GROUPS), or the
 * pledge (FUNDING), and the amount. The one pricing of a reservation: placing one and quoting one (domain/src/fees)
 * both call it, so they cannot diverge.
 */
export const priceReservation = (
  pool: ExistingPool,
  input: { lines: Array<{ unitId: string; quantity: number }>; pledge: string | null },
  buyerId: string,
  now: string,
): { lines: ReservationLine[]; pledge: string | null; amount: string } => {
  const lines = pool.type === 'GROUPS' ? placeGroups(pool, input, buyerId, now) : [];
  const pledge = pool.type === 'FUNDING' ? placeFunding(pool, input.pledge, input.lines) : null;
  const amount = pledge ?? linesAmount(lines);
  if (parseAmount(amount) <= 0n) throw new ValidationError({ lines: ['these units cost nothing: there is nothing to pay into escrow'] }, 'Nothing to pay', 'nothing_to_pay');
  return { lines, pledge, amount };
};

/**
 * A pool's deposits are released (or refunded) together, a round's payouts summing many of them: what the pool holds
 * (its live PENDING and PAID reservations) plus this deposit must fit one ledger payment, or the release could never
 * be built. Refused naming what the buyer chose (`pledge` or `lines`).
 */
const requireRoomInPool = (pool: ExistingPool, deposit: Minor, now: string) => {
  let held = 0n;
  for (const r of pool.holdings.byId.values()) if (holdsAt(r, now)) held += parseAmount(r.payment?.amount ?? r.amount);
  if (held + deposit <= MAX_LEDGER_AMOUNT) return;
  const room = held >= MAX_LEDGER_AMOUNT ? 0n : MAX_LEDGER_AMOUNT - held;
  throw new ValidationError(
    { [pool.type === 'FUNDING' ? 'pledge' : 'lines']: [`this pool can take deposits of ${formatAmount(room)} more: ${ledgerBoundMessage('what one pool holds')}`] },
    'The pool would hold more than one ledger payment can carry',
    LEDGER_AMOUNT_EXCEEDED,
  );
};

/**
 * The deposit of a reservation the buyer could place now under the tenant's escrow-deposit fee `rule` (the same
 * refusals as placing it, bar the pick-up point): the priced lines or pledge, and the deposit quote.
 */
export const quoteReservation = (
  pool: ExistingPool,
  input: { lines: Array<{ unitId: string; quantity: number }>; pledge: string | null },
  buyerId: string,
  now: string,
  rule: FeeRule | undefined,
): { priced: ReturnType<typeof priceReservation>; quote: DepositQuote } => {
  requireOpenForReservations(pool, now);
  if (buyerId === pool.organiserId) throw new ForbiddenError('organiser_cannot_reserve', 'An organiser does not reserve in their own pool');
  const priced = priceReservation(pool, input, buyerId, now);
  const quote = depositQuoteOf(priced, rule);
  requireRoomInPool(pool, quote.total, now);
  return { priced, quote };
};

const depositQuoteOf = (priced: ReturnType<typeof priceReservation>, rule: FeeRule | undefined): DepositQuote =>
  quoteDeposit({ lines: priced.lines, pledge: priced.pledge === null ? null : parseAmount(priced.pledge), schedule: { escrowDeposit: rule ?? NO_FEE } });

/** A priced reservation with its escrow-deposit fee: `amount` is what the buyer pays into escrow (goods + fee). */
export interface PricedDeposit {
  lines: ReservationLine[];
  pledge: string | null;
  goods: string;
  depositFee: string;
  amount: string;
}

/**
 * The deposit of a priced reservation: the goods plus the escrow-deposit fee, by quoteDeposit (domain/src/fees), the
 * function the quote route answers with: the quote, the placed amount and so the payment the buyer signs agree.
 */
export const priceDeposit = (priced: ReturnType<typeof priceReservation>, rule: FeeRule | undefined): PricedDeposit => {
  const q = depositQuoteOf(priced, rule);
  if (q.goods !== parseAmount(priced.amount)) throw new Error('the quote and the placement priced different goods');
  return { lines: priced.lines, pledge: priced.pledge, goods: priced.amount, depositFee: formatAmount(q.depositFee), amount: formatAmount(q.total) };
};

const NO_FEE: FeeRule = { percent: '0', fixed: '0', min: '0', cap: null };

/** What a deposit quote promised: these lines at these unit prices (or this pledge), this amount into escrow, until `validUntil`. */
export interface QuotedReservation {
  validUntil: string;
  /** What the reservation pays into escrow: the quote's total (goods + deposit fee). */
  amount: string;
  /** The quote's escrow-deposit fee (absent in quotes made before deposit fees were collected: read as 0). */
  depositFee?: string;
  pledge: string | null;
  lines: Array<{ unitId: string; quantity: number; unitPrice: string }>;
}

const sameAmount = (a: string, b: string) => parseAmount(a) === parseAmount(b);

/**
 * A quoted reservation is charged exactly the quoted amount or not placed at all: decided on the same revision as the
 * placement, so no price can move between the check and the append.
 */
const holdToQuote = (quote: QuotedReservation, asked: { lines: Array<{ unitId: string; quantity: number }>; pledge: string | null }, priced: PricedDeposit, now: string) => {
  const askedKey = asked.lines.map((l) => `${l.unitId}×${l.quantity}`).join(',');
  const quotedKey = quote.lines.map((l) => `${l.unitId}×${l.quantity}`).join(',');
  const samePledge = quote.pledge === null ? asked.pledge === null : asked.pledge !== null && sameAmount(asked.pledge, quote.pledge);
  if (askedKey !== quotedKey || !samePledge) throw new ValidationError({ quoteId: ['this quote is for other lines or another pledge'] }, 'The quote does not match this reservation', 'quote_mismatch');
  if (Date.parse(now) > Date.parse(quote.validUntil)) throw new ConflictError('quote_expired', `The quote was valid until ${quote.validUntil}: ask for a new one`, { quoteId: ['expired'] });
  const moved: FieldErrors = {};
  priced.lines.forEach((l, i) => {
    const q = quote.lines[i];
    if (q && !sameAmount(q.unitPrice, l.unitPrice)) (moved[`lines.${i}.unitPrice`] ??= []).push(`quoted ${q.unitPrice}, now ${l.unitPrice}`);
  });
  if (!sameAmount(priced.depositFee, quote.depositFee ?? '0')) (moved['depositFee'] ??= []).push(`quoted ${quote.depositFee ?? '0'}, now ${priced.depositFee}`);
  if (!sameAmount(priced.amount, quote.amount)) (moved['amount'] ??= []).push(`quoted ${quote.amount}, now ${priced.amount}`);
  if (Object.keys(moved).length > 0) throw new ConflictError('quote_changed', 'The prices moved since the quote: ask for a new one', moved);
};

const decidePlace = (pool: ExistingPool, command: Extract<ReservationCommand, { type: 'PlaceReservation' }>): PoolEvent[] => {
  const { actor, now } = command.metadata;
  const input = command.data;
  if (pool.holdings.byId.has(input.reservationId)) throw new ConflictError('reservation_exists', 'A reservation with this id exists');
  requireOpenForReservations(pool, now);
  if (actor.userId === pool.organiserId) throw new ForbiddenError('organiser_cannot_reserve', 'An organiser does not reserve in their own pool');
  requireRelais(pool, input.relaisId);
  const priced = priceDeposit(priceReservation(pool, input, actor.userId, now), input.depositFeeRule);
  requireRoomInPool(pool, parseAmount(priced.amount), now);
  if (input.quote) holdToQuote(input.quote, input, priced, now);
  const { lines, pledge, amount, depositFee } = priced;
  const expiresAt = new Date(Date.parse(now) + input.ttlSeconds * 1000).toISOString();
  return [
    ...staleExpirations(pool, now),
    {
      type: 'ReservationPlaced',
      data: {
        poolId: pool.id,
        reservationId: input.reservationId,
        buyerId: actor.userId,
        buyerName: actor.displayName,
        lines,
        pledge,
        amount,
        depositFee,
        relaisId: input.relaisId,
        expiresAt,
        placedAt: now,
      },
    },
  ];
};

const decideSign = (pool: ExistingPool, command: Extract<ReservationCommand, { type: 'SignReservation' }>): PoolEvent[] => {
  const { actor, now, ip } = command.metadata;
  const { reservationId, terms, source, memoHash } = command.data;
  const r = ownReservation(pool, reservationId, actor.userId);
  if (r.status === 'PAID') throw new IllegalStateError('reservation_paid', 'This reservation is already paid');
  if (r.status !== 'PENDING' || isStale(r, now)) throw new IllegalStateError(`reservation_${r.status === 'CANCELLED' ? 'cancelled' : 'expired'}`, 'This reservation no longer holds');
  if (!pool.escrow) throw new IllegalStateError('escrow_not_open', 'This pool has no escrow account yet');
  // The same terms from the same account again: nothing new (the route rebuilds the deposit to sign).
  if (r.signed && r.signed.source === source && r.signed.terms.hash === terms.hash) return [];
  return [
    {
      type: 'ReservationSigned',
      data: {
        poolId: pool.id,
        reservationId,
        buyerId: actor.userId,
        terms,
        source,
        escrowAccount: pool.escrow.accountId,
        memoHash,
        reclaimAfter: pool.escrow.reclaimAfter,
        ip,
        signedAt: now,
      },
    },
  ];
};

/** Who gives a command on a reservation of theirs (requireBuyerIn); none for placing (the route hands no pool the buyer may not read) and the expiry job. */
const buyerOnOwnReservation = (command: ReservationCommand): string | null => {
  switch (command.type) {
    case 'SignReservation':
    case 'PayReservation':
    case 'CancelReservation':
      return command.metadata.actor.userId;
    case 'PlaceReservation':
    case 'ExpireReservation':
      return null;
    default:
      return assertNever(command);
  }
};

/** Reservation commands, decided by the pool (it owns the capacity). The route hides pools of other tenants. */
export const decideReservation = (command: ReservationCommand, state: Pool): PoolEvent[] => {
  const buyerId = buyerOnOwnReservation(command);
  if (buyerId !== null) requireBuyerIn(state, buyerId);
  if (state.status === 'none') throw new NotFoundError('pool');
  const pool = state;
  switch (command.type) {
    case 'PlaceReservation':
      return decidePlace(pool, command);
    case 'SignReservation':
      return decideSign(pool, command);
    case 'PayReservation':
      return decidePay(pool, command);
    case 'CancelReservation': {
      const { actor, now } = command.metadata;
      const r = ownReservation(pool, command.data.reservationId, actor.userId);
      if (r.status === 'CANCELLED') return [];
      if (r.status === 'PAID') throw new IllegalStateError('reservation_paid', 'A paid reservation is refunded through the escrow, not cancelled');
      if (r.status === 'EXPIRED' || isStale(r, now)) throw new IllegalStateError('reservation_expired', 'This reservation already expired');
      return [{ type: 'ReservationCancelled', data: { poolId: pool.id, reservationId: r.id, buyerId: r.buyerId, cancelledAt: now } }];
    }
    case 'ExpireReservation':
      return decideExpire(pool, command);
    default:
      return assertNever(command);
  }
};
