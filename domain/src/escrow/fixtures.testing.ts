import type { DisputeReason, DomainEvent, PoolEvent, ReservationLine } from '@cagnotte/event-schemas';
import { percentRule } from '../fees/schedule';
import { evolvePool, foldPool, initialPool, type ExistingPool, type Pool } from '../pools/pool';
import type { BuyerActor } from '../reservations/decide';
import { linesAmount } from '../reservations/holdings';
import { ESCROW, EXPIRES, NOW, ORGANISER_ID, POOL_ID, TERMS, MEMO, at, groupsFields, openPool, placedEvent } from '../reservations/fixtures.testing';
import { deciderSpec } from '../testing/decider';
import { decideEscrow, type ClosingPolicy, type EscrowCommand, type EscrowMeta } from './decide';
import { decideSettlement, dueSettlement, type SettlementAccounts, type SettlementCommand } from './settlement';

// Shared by the escrow specs: the reservations' published GROUPS pool (u1 10.00, 8.00 from 4 in all; u2 2.50; u0
// free) with a deadline, paid and pending reservations from three buyers, closing, delivery, disputes, settlement.
// Reservations are placed at NOW (expire at EXPIRES) and paid 90 s later; the pool closes at DEADLINE.

export { ESCROW, EXPIRES, NOW, ORGANISER_ID, POOL_ID, at, groupsFields, openPool };
export const DEADLINE = '2026-03-10T12:00:00.000Z';
export const EARLY = '2026-03-05T12:00:00.000Z';
export const DELIVERED = '2026-03-11T12:00:00.000Z';
/** DELIVERED + the policy's 7 inspection days. */
export const INSPECTION_ENDS = '2026-03-18T12:00:00.000Z';
export const DAY = 86_400;

export const POLICY: ClosingPolicy = { platformFeePercent: '2.5', inspectionDays: 7, disputeResponseDays: 5 };

export const rid = (n: number) => `10000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
export const did = (n: number) => `d0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
export const sid = (n: number) => `50000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
export const hash = (n: number) => n.toString(16).padStart(64, '0');
export const balance = (n: number) => `00000000${hash(n)}`;
export const [R1, R2, R3, R4] = [rid(1), rid(2), rid(3), rid(4)];
export const [D1, D2] = [did(1), did(2)];

export const alice: BuyerActor = { userId: 'a0000000-0000-4000-8000-00000000000a', displayName: 'Alice' };
export const bob: BuyerActor = { userId: 'b0000000-0000-4000-8000-00000000000b', displayName: 'Bob' };
export const carol: BuyerActor = { userId: 'c0000000-0000-4000-8000-00000000000c', displayName: 'Carol' };
const account = (c: string) => `G${c.repeat(55)}`;
/** Each buyer's linked ledger account: where their deposit came from and where refunds go. */
export const SOURCE: Record<string, string> = { [alice.userId]: account('A'), [bob.userId]: account('B'), [carol.userId]: account('C') };
export const ACCOUNTS: SettlementAccounts = { seller: account('S'), organiser: account('Q'), platform: account('P') };
export const SELLER_ID = '5e11e500-0000-4000-8000-000000000001';

export const organiser: EscrowMeta['actor'] = { userId: ORGANISER_ID, role: 'organiser' };
export const otherOrganiser: EscrowMeta['actor'] = { userId: 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b99', role: 'organiser' };
export const asBuyer = (b: BuyerActor): EscrowMeta['actor'] => ({ userId: b.userId, role: 'user' });

/** The reservations' pool with a deadline (and any other fields). */
export const poolWithDeadline = (overrides: Parameters<typeof groupsFields>[0] = {}) => openPool(groupsFields({ deadline: DEADLINE, ...overrides }));

type Lines = ReservationLine[];
interface ReservationSpec {
  id: string;
  buyer: BuyerActor;
  lines?: Lines;
  amount?: string;
  pledge?: string | null;
  /** A number for the deposit's balance id and transaction hash (distinct per deposit). */
  n?: number;
}

const amountOf = (lines: Lines) => linesAmount(lines);

export const placed = (r: ReservationSpec): PoolEvent =>
  placedEvent({ id: r.id, buyer: r.buyer, lines: r.lines ?? [], amount: r.amount ?? amountOf(r.lines ?? []), pledge: r.pledge ?? null });

export const signed = (r: Pick<ReservationSpec, 'id' | 'buyer'>): PoolEvent => ({
  type: 'ReservationSigned',
  data: {
    poolId: POOL_ID,
    reservationId: r.id,
    buyerId: r.buyer.userId,
    terms: TERMS,
    source: SOURCE[r.buyer.userId]!,
    escrowAccount: ESCROW.accountId,
    memoHash: MEMO,
    reclaimAfter: ESCROW.reclaimAfter,
    ip: null,
    signedAt: NOW,
  },
});

export const paidEvent = (r: ReservationSpec): PoolEvent => ({
  type: 'ReservationPaid',
  data: {
    poolId: POOL_ID,
    reservationId: r.id,
    buyerId: r.buyer.userId,
    txHash: hash(r.n ?? 1),
    ledger: 42,
    balanceId: balance(r.n ?? 1),
    amount: r.amount ?? amountOf(r.lines ?? []),
    via: 'txHash',
    paidAt: at(NOW, 90),
  },
});

/** Placed, signed and paid. */
export const paid = (r: ReservationSpec): PoolEvent[] => [placed(r), signed(r), paidEvent(r)];
/** Placed only: it holds its units until EXPIRES (or the closing). */
export const pending = (r: ReservationSpec): PoolEvent[] => [placed(r)];

export const expiredEvent = (id: string, buyer: BuyerActor, expiredAt: string): PoolEvent => ({
  type: 'ReservationExpired',
  data: { poolId: POOL_ID, reservationId: id, buyerId: buyer.userId, expiresAt: EXPIRES, expiredAt },
});

export const lateEvent = (id: string, buyer: BuyerActor, n: number, amount: string, receivedAt = at(EXPIRES, 60)): PoolEvent => ({
  type: 'ReservationLatePaymentReceived',
  data: { poolId: POOL_ID, reservationId: id, buyerId: buyer.userId, txHash: hash(n), ledger: 43, balanceId: balance(n), amount, reclaimAfter: ESCROW.reclaimAfter, receivedAt },
});

/** Placed, signed, expired, then its deposit landed: owed back. */
export const late = (r: ReservationSpec & { n: number }): PoolEvent[] => [placed(r), signed(r), expiredEvent(r.id, r.buyer, EXPIRES), lateEvent(r.id, r.buyer, r.n, r.amount ?? amountOf(r.lines ?? []))];

export const u1 = (quantity: number, unitPrice = '10.00'): Lines => [{ unitId: 'u1', quantity, unitPrice }];

/**
 * The reference pool: Alice paid 2 × u1 at 10.00 (R1, 20.00), Bob paid 2 × u1 at 8.00 (R2, 16.00: the tier was reached
 * with Alice's hold), Carol holds 1 × u1 at 8.00 (R3, PENDING). 4 paid units: the final u1 price is 8.00.
 */
export const ALICE_R1: ReservationSpec = { id: R1, buyer: alice, lines: u1(2), n: 1 };
export const BOB_R2: ReservationSpec = { id: R2, buyer: bob, lines: u1(2, '8.00'), n: 2 };
export const CAROL_R3: ReservationSpec = { id: R3, buyer: carol, lines: u1(1, '8.00'), n: 3 };
export const reservations = (): PoolEvent[] => [...paid(ALICE_R1), ...paid(BOB_R2), ...pending(CAROL_R3)];

/** The PoolClosed the reference pool gets at its deadline (or with the given fields). */
export const closedEvent = (o: Partial<Extract<PoolEvent, { type: 'PoolClosed' }>['data']> = {}): PoolEvent => ({
  type: 'PoolClosed',
  data: {
    poolId: POOL_ID,
    outcome: 'SUCCEEDED',
    reason: 'DEADLINE',
    paidUnits: 4,
    paidAmount: '36.00',
    finalPrices: [
      { unitId: 'u1', price: '8.00' },
      { unitId: 'u2', price: '2.50' },
      { unitId: 'u0', price: '0.00' },
    ],
    fees: { platformFeePercent: POLICY.platformFeePercent, organiserCommissionPercent: null, platformFee: percentRule(POLICY.platformFeePercent), vat: null },
    release: { after: 'RECEIPT', inspectionDays: POLICY.inspectionDays, disputeResponseDays: POLICY.disputeResponseDays },
    closedAt: DEADLINE,
    ...o,
  },
});

/** The reference pool, closed at its deadline (Carol's hold expired): LOCKED, releases on receipt. */
export const lockedPool = (closed: Partial<Extract<PoolEvent, { type: 'PoolClosed' }>['data']> = {}): PoolEvent[] => [
  ...poolWithDeadline(),
  ...reservations(),
  expiredEvent(R3, carol, DEADLINE),
  closedEvent(closed),
];

export const deliveredEvent = (deliveredAt = DELIVERED, inspectionEndsAt = INSPECTION_ENDS): PoolEvent => ({
  type: 'PoolDelivered',
  data: { poolId: POOL_ID, note: null, inspectionEndsAt, deliveredAt },
});
/** The reference pool, closed and delivered: the inspection period runs until INSPECTION_ENDS. */
export const deliveredPool = (): PoolEvent[] => [...lockedPool(), deliveredEvent()];

export const receiptEvent = (id: string, buyer: BuyerActor, confirmedAt = at(DELIVERED, DAY)): PoolEvent => ({
  type: 'ReservationReceiptConfirmed',
  data: { poolId: POOL_ID, reservationId: id, buyerId: buyer.userId, confirmedAt },
});
export const autoAcceptedEvent = (id: string, buyer: BuyerActor, acceptedAt = INSPECTION_ENDS): PoolEvent => ({
  type: 'ReservationAutoAccepted',
  data: { poolId: POOL_ID, reservationId: id, buyerId: buyer.userId, inspectionEndedAt: INSPECTION_ENDS, acceptedAt },
});

export const OPENED_AT = at(DELIVERED, DAY);
export const disputeOpenedEvent = (o: { id?: string; buyer?: BuyerActor; disputeId?: string; amount?: string; openedAt?: string; reason?: DisputeReason } = {}): PoolEvent => {
  const openedAt = o.openedAt ?? OPENED_AT;
  return {
    type: 'DisputeOpened',
    data: {
      poolId: POOL_ID,
      reservationId: o.id ?? R1,
      disputeId: o.disputeId ?? D1,
      buyerId: (o.buyer ?? alice).userId,
      reason: o.reason ?? 'DAMAGED',
      details: 'Two baskets arrived crushed',
      evidence: ['https://example.com/photo.jpg'],
      amount: o.amount ?? '16.00',
      respondBy: at(openedAt, POLICY.disputeResponseDays * DAY),
      openedAt,
    },
  };
};
export const disputeContestedEvent = (contestedAt: string, o: { id?: string; disputeId?: string } = {}): PoolEvent => ({
  type: 'DisputeContested',
  data: { poolId: POOL_ID, reservationId: o.id ?? R1, disputeId: o.disputeId ?? D1, statement: 'They left intact', lapsesAt: at(contestedAt, POLICY.disputeResponseDays * DAY), contestedAt },
});
export const disputeResolvedEvent = (outcome: 'REFUNDED' | 'WITHDRAWN' | 'LAPSED', refund: string, resolvedAt: string, o: { id?: string; disputeId?: string } = {}): PoolEvent => ({
  type: 'DisputeResolved',
  data: { poolId: POOL_ID, reservationId: o.id ?? R1, disputeId: o.disputeId ?? D1, outcome, refund, resolvedAt },
});

// Commands.
const meta = (actor: EscrowMeta['actor'], now: string): EscrowMeta => ({ actor, now });
export const closePool = (reason: 'DEADLINE' | 'ORGANISER', now: string, actor: EscrowMeta['actor'] = reason === 'DEADLINE' ? null : organiser, policy = POLICY): EscrowCommand => ({
  type: 'ClosePool',
  data: { reason, policy },
  metadata: meta(actor, now),
});
export const cancelPool = (now = EARLY, actor: EscrowMeta['actor'] = organiser): EscrowCommand => ({ type: 'CancelPool', data: { reason: 'Supplier gone' }, metadata: meta(actor, now) });
export const markDelivered = (now = DELIVERED, actor: EscrowMeta['actor'] = organiser): EscrowCommand => ({ type: 'MarkDelivered', data: { note: null }, metadata: meta(actor, now) });
export const confirmReceipt = (id: string, buyer: BuyerActor, now = at(DELIVERED, DAY)): EscrowCommand => ({
  type: 'ConfirmReceipt',
  data: { reservationId: id },
  metadata: meta(asBuyer(buyer), now),
});
export const endInspection = (now: string): EscrowCommand => ({ type: 'EndInspection', data: {}, metadata: meta(null, now) });
export const openDispute = (o: { id?: string; buyer?: BuyerActor; disputeId?: string; now?: string } = {}): EscrowCommand => ({
  type: 'OpenDispute',
  data: { reservationId: o.id ?? R1, disputeId: o.disputeId ?? D1, reason: 'DAMAGED', details: 'Two baskets arrived crushed', evidence: ['https://example.com/photo.jpg'] },
  metadata: meta(asBuyer(o.buyer ?? alice), o.now ?? OPENED_AT),
});
export const contestDispute = (now: string, actor: EscrowMeta['actor'] = organiser, disputeId = D1): EscrowCommand => ({
  type: 'ContestDispute',
  data: { disputeId, statement: 'They left intact' },
  metadata: meta(actor, now),
});
export const refundDispute = (amount: string, now: string, actor: EscrowMeta['actor'] = organiser, disputeId = D1): EscrowCommand => ({
  type: 'RefundDispute',
  data: { disputeId, amount },
  metadata: meta(actor, now),
});
export const withdrawDispute = (now: string, actor: EscrowMeta['actor'] = asBuyer(alice), disputeId = D1): EscrowCommand => ({
  type: 'WithdrawDispute',
  data: { disputeId },
  metadata: meta(actor, now),
});
export const lapseDisputes = (now: string): EscrowCommand => ({ type: 'LapseDisputes', data: {}, metadata: meta(null, now) });

const evolve = (s: Pool, e: DomainEvent) => evolvePool(s, e as PoolEvent);
export const escrowSpec = () => deciderSpec<Pool, EscrowCommand, PoolEvent>({ initial: initialPool, evolve, decide: decideEscrow });
export const settlementSpec = () => deciderSpec<Pool, SettlementCommand, PoolEvent>({ initial: initialPool, evolve, decide: decideSettlement });

export const existing = (p: Pool): ExistingPool => {
  if (p.status === 'none') throw new Error('no pool');
  return p;
};

/**
 * The PrepareSettlement the route would send for what is due now: the items split into rounds of `perRound`, fake
 * transaction hashes (distinct per settlement, round and path: `hashes(settlement, round)`).
 */
export const roundHashes = (settlement: number, round: number) => ({
  lockHash: hash(settlement * 1_000_000 + round * 10 + 1),
  releaseHash: hash(settlement * 1_000_000 + round * 10 + 2),
  recoveryHash: hash(settlement * 1_000_000 + round * 10 + 3),
});
export const PREPARED_AT = '2026-03-20T12:00:00.000Z';
export const prepareSettlement = (
  pool: Pool,
  o: { n?: number; perRound?: number; supersedes?: string | null; now?: string; actor?: EscrowMeta['actor']; releaseUntil?: string } = {},
): SettlementCommand => {
  const n = o.n ?? 1;
  const due = dueSettlement(existing(pool), ACCOUNTS);
  const perRound = o.perRound ?? 100;
  const rounds = [];
  for (let i = 0; i === 0 || i * perRound < due.items.length; i++) {
    rounds.push({ index: i, refs: due.items.slice(i * perRound, (i + 1) * perRound).map((item) => item.ref), ...roundHashes(n, i) });
  }
  const now = o.now ?? PREPARED_AT;
  return {
    type: 'PrepareSettlement',
    data: {
      settlementId: sid(n),
      accounts: ACCOUNTS,
      kind: due.kind,
      items: due.items,
      final: due.final,
      escrowSequence: '123456789012',
      strayBalance: '0.00',
      hadTrustline: true,
      strayReturns: [],
      deadPreAuthSigners: [],
      rounds,
      supersedes: o.supersedes ?? null,
      releaseUntil: o.releaseUntil ?? at(now, 2 * DAY),
      recoveryFrom: at(o.releaseUntil ?? at(now, 2 * DAY), 1),
      recoveryUntil: at(ESCROW.reclaimAfter, -60),
    },
    metadata: { actor: o.actor === undefined ? organiser : o.actor, now },
  };
};

export const recordRound = (o: { n?: number; round?: number; path?: 'RELEASE' | 'RECOVERY'; txHash?: string; now?: string } = {}): SettlementCommand => {
  const n = o.n ?? 1;
  const round = o.round ?? 0;
  const path = o.path ?? 'RELEASE';
  const h = roundHashes(n, round);
  return {
    type: 'RecordSettledRound',
    data: { settlementId: sid(n), round, path, txHash: o.txHash ?? (path === 'RELEASE' ? h.releaseHash : h.recoveryHash), ledger: 100 + round },
    metadata: { now: o.now ?? at(PREPARED_AT, 3600 * (round + 1)) },
  };
};

/** `history` followed by what each settlement command decides, in turn (each command is built from the state so far). */
export const thenSettle = (history: PoolEvent[], ...commands: Array<(pool: Pool) => SettlementCommand>): PoolEvent[] => {
  let events = history;
  for (const command of commands) {
    const pool = foldPool(events);
    events = [...events, ...decideSettlement(command(pool), pool)];
  }
  return events;
};

/** The reference pool, delivered; Alice confirmed receipt and her deposit was released (one round, not final). */
export const aliceSettled = (): PoolEvent[] =>
  thenSettle([...deliveredPool(), receiptEvent(R1, alice)], (pool) => prepareSettlement(pool), () => recordRound());
