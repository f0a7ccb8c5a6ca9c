/** Fixtures of the escrow specs: one pool's stream, from creation to the escrow merged back. */
import type { EventData, PoolEvent } from '@cagnotte/event-schemas';
import { foldEscrow } from './fold';
import { initialEscrow, type EscrowDoc } from './document';

export const POOL = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
export const ORGANISER = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
export const [B1, B2, B3] = ['11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', '33333333-3333-4333-8333-333333333333'];
export const [R1, R2, R3] = ['a1111111-1111-4111-8111-111111111111', 'a2222222-2222-4222-8222-222222222222', 'a3333333-3333-4333-8333-333333333333'];
export const DISPUTE = 'd1111111-1111-4111-8111-111111111111';
export const [S1, S2] = ['51111111-1111-4111-8111-111111111111', '52222222-2222-4222-8222-222222222222'];
export const G = (c: string) => `G${c.repeat(55)}`;
export const hex = (c: string, n = 64) => c.repeat(n);
export const at = (day: number) => new Date(Date.UTC(2026, 2, day, 9)).toISOString();

const p = { poolId: POOL };
const balance = (c: string) => `00000000${hex(c)}`;
export const BAL = { r1: balance('1'), r2: balance('2'), late3: balance('3') };

export const created = (type: 'GROUPS' | 'FUNDING' = 'GROUPS'): PoolEvent => ({
  type: 'PoolCreated',
  data: {
    ...p,
    tenantId: TENANT,
    type,
    organiserId: ORGANISER,
    organiserName: 'Org',
    title: 'Miel',
    description: '',
    country: 'FR',
    currency: 'EUR',
    marketplaceVisibility: 'PRIVATE',
    config: { units: [{ id: 'u1', label: 'Pot', price: '10.00' }], release: { after: 'RECEIPT' } },
    sellerId: null,
    payoutAccount: null,
    organiserCommissionPercent: null,
    targetAmount: null,
    deadline: at(10),
    createdAt: at(1),
  },
});
export const published: PoolEvent = { type: 'PoolPublished', data: { ...p, publishedAt: at(2) } };
export const escrowOpened: PoolEvent = {
  type: 'PoolEscrowOpened',
  data: { ...p, accountId: G('E'), organiserSigner: G('O'), platformSigner: G('P'), threshold: 2, reclaimAfter: at(40), setupTxHash: hex('0'), openedAt: at(2) },
};
const placed = (reservationId: string, buyerId: string, amount: string): PoolEvent => ({
  type: 'ReservationPlaced',
  data: { ...p, reservationId, buyerId, buyerName: 'B', lines: [{ unitId: 'u1', quantity: Number(amount) / 10, unitPrice: '10.00' }], pledge: null, amount, relaisId: null, expiresAt: at(4), placedAt: at(3) },
});
const paid = (reservationId: string, buyerId: string, amount: string, balanceId: string): PoolEvent => ({
  type: 'ReservationPaid',
  data: { ...p, reservationId, buyerId, txHash: hex('f'), ledger: 7, balanceId, amount, via: 'txHash', paidAt: at(3) },
});
export const closed = (outcome: 'SUCCEEDED' | 'FAILED' = 'SUCCEEDED'): PoolEvent => ({
  type: 'PoolClosed',
  data: {
    ...p,
    outcome,
    reason: 'DEADLINE',
    paidUnits: 5,
    paidAmount: '50.00',
    finalPrices: [{ unitId: 'u1', price: '10.00' }],
    fees: { platformFeePercent: '5', organiserCommissionPercent: null },
    release: { after: 'RECEIPT', inspectionDays: 7, disputeResponseDays: 3 },
    closedAt: at(10),
  },
});

/** Three buyers: R1 and R2 pay (20.00, 30.00), R3 expires and then pays late (5.00). */
export const depositsPhase: PoolEvent[] = [
  created(),
  published,
  escrowOpened,
  placed(R1, B1, '20.00'),
  placed(R2, B2, '30.00'),
  placed(R3, B3, '10.00'),
  paid(R1, B1, '20.00', BAL.r1),
  paid(R2, B2, '30.00', BAL.r2),
  { type: 'ReservationExpired', data: { ...p, reservationId: R3, buyerId: B3, expiresAt: at(4), expiredAt: at(4) } },
  { type: 'ReservationLatePaymentReceived', data: { ...p, reservationId: R3, buyerId: B3, txHash: hex('e'), ledger: 8, balanceId: BAL.late3, amount: '5.00', reclaimAfter: at(40), receivedAt: at(5) } },
];

export const settlementItem = (ref: string, reservationId: string, kind: 'DEPOSIT' | 'LATE_DEPOSIT', balanceId: string, amount: string): EventData<'EscrowSettlementPrepared'>['items'][number] => ({
  ref,
  reservationId,
  kind,
  balanceId,
  amount,
  refundTo: G('B'),
  payouts: [{ role: 'BUYER', destination: G('B'), amount }],
});
export const prepared = (settlementId: string, items: ReturnType<typeof settlementItem>[], final: boolean, supersedes: string | null = null): PoolEvent => ({
  type: 'EscrowSettlementPrepared',
  data: {
    ...p,
    settlementId,
    kind: 'RELEASE',
    escrowAccount: G('E'),
    escrowSequence: '123',
    strayBalance: '0.00',
    hadTrustline: true,
    strayReturns: [],
    deadPreAuthSigners: [],
    final,
    releaseUntil: at(20),
    recoveryFrom: at(21),
    recoveryUntil: at(39),
    items,
    rounds: [{ index: 0, refs: items.map((i) => i.ref), lockHash: hex('a'), releaseHash: hex('b'), recoveryHash: hex('c') }],
    supersedes,
    preparedAt: at(15),
  },
});
export const roundSettled = (settlementId: string, merged: boolean): PoolEvent => ({
  type: 'EscrowRoundSettled',
  data: { ...p, settlementId, round: 0, path: 'RELEASE', txHash: hex('b'), ledger: 99, merged, settledAt: at(16) },
});
export const payout = (settlementId: string, role: 'SELLER' | 'PLATFORM' | 'BUYER', amount: string): PoolEvent => ({
  type: 'EscrowPayoutSettled',
  data: { ...p, settlementId, round: 0, role, destination: G('S'), amount, txHash: hex('b'), settledAt: at(16) },
});
export const reservationSettled = (settlementId: string, reservationId: string, buyerId: string, kind: 'DEPOSIT' | 'LATE_DEPOSIT', balanceId: string, released: string, refunded: string): PoolEvent => ({
  type: 'ReservationSettled',
  data: { ...p, reservationId, buyerId, settlementId, kind, balanceId, path: 'RELEASE', released, refunded, txHash: hex('b'), settledAt: at(16) },
});

export const disputeOpened: PoolEvent = {
  type: 'DisputeOpened',
  data: { ...p, reservationId: R2, disputeId: DISPUTE, buyerId: B2, reason: 'DAMAGED', details: 'Cracked pots', evidence: ['https://img.example/p.jpg'], amount: '30.00', respondBy: at(14), openedAt: at(12) },
};
export const disputeContested: PoolEvent = { type: 'DisputeContested', data: { ...p, reservationId: R2, disputeId: DISPUTE, statement: 'Sent intact', lapsesAt: at(17), contestedAt: at(13) } };
export const disputeRefunded: PoolEvent = { type: 'DisputeResolved', data: { ...p, reservationId: R2, disputeId: DISPUTE, outcome: 'REFUNDED', refund: '10.00', resolvedAt: at(17) } };

/** After the deposits: closes, delivered, R1 confirms, R2 disputes; the first settlement releases R1 and refunds R3's late deposit. */
export const firstSettlement: PoolEvent[] = [
  closed(),
  { type: 'PoolDelivered', data: { ...p, note: null, inspectionEndsAt: at(18), deliveredAt: at(11) } },
  { type: 'ReservationReceiptConfirmed', data: { ...p, reservationId: R1, buyerId: B1, confirmedAt: at(12) } },
  disputeOpened,
  disputeContested,
  prepared(S1, [settlementItem(R1, R1, 'DEPOSIT', BAL.r1, '20.00'), settlementItem(`late:${BAL.late3}`, R3, 'LATE_DEPOSIT', BAL.late3, '5.00')], false),
  roundSettled(S1, false),
  payout(S1, 'SELLER', '19.00'),
  payout(S1, 'PLATFORM', '1.00'),
  payout(S1, 'BUYER', '5.00'),
  reservationSettled(S1, R1, B1, 'DEPOSIT', BAL.r1, '20.00', '0.00'),
  reservationSettled(S1, R3, B3, 'LATE_DEPOSIT', BAL.late3, '0.00', '5.00'),
];

/** The dispute ends with a partial refund; the final settlement releases R2 and merges the escrow back. */
export const finalSettlement: PoolEvent[] = [
  disputeRefunded,
  prepared(S2, [settlementItem(R2, R2, 'DEPOSIT', BAL.r2, '30.00')], true),
  roundSettled(S2, true),
  payout(S2, 'SELLER', '19.00'),
  payout(S2, 'PLATFORM', '1.00'),
  payout(S2, 'BUYER', '10.00'),
  reservationSettled(S2, R2, B2, 'DEPOSIT', BAL.r2, '20.00', '10.00'),
  { type: 'PoolSettled', data: { ...p, settlementId: S2, released: '40.00', refunded: '15.00', settledAt: at(16) } },
];

/** Folds events at revisions 0, 1, … from initialEscrow(). */
export const foldAll = (events: PoolEvent[], from: EscrowDoc = initialEscrow(), start = 0): EscrowDoc =>
  events.reduce((doc, e, i) => foldEscrow(doc, e, BigInt(start + i)), from);
