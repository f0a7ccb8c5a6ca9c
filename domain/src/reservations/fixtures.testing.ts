import type { DomainEvent, PoolDraftFields, PoolEvent, PoolType } from '@cagnotte/event-schemas';
import { evolvePool, initialPool, type Pool } from '../pools/pool';
import { deciderSpec } from '../testing/decider';
import { decideReservation, type BuyerActor, type ReservationCommand } from './decide';
import type { ObservedDeposit } from './deposit';

// Shared by the reservation deciders' unit specs: one published pool with its escrow, buyers, and the events and
// commands they exchange. Times are fixed: the pool opens at T_OPEN, commands run at NOW, reservations live 15 min.

export const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
export const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
export const R1 = '10000000-0000-4000-8000-000000000001';
export const R2 = '10000000-0000-4000-8000-000000000002';
export const R3 = '10000000-0000-4000-8000-000000000003';

export const alice: BuyerActor = { userId: 'a0000000-0000-4000-8000-00000000000a', displayName: 'Alice' };
export const bob: BuyerActor = { userId: 'b0000000-0000-4000-8000-00000000000b', displayName: 'Bob' };
export const organiserActor: BuyerActor = { userId: ORGANISER_ID, displayName: 'Olga' };

export const T_CREATE = '2026-03-01T09:00:00.000Z';
export const T_OPEN = '2026-03-01T10:00:00.000Z';
export const NOW = '2026-03-02T12:00:00.000Z';
export const TTL = 900;
/** NOW + TTL: when a reservation placed at NOW expires. */
export const EXPIRES = '2026-03-02T12:15:00.000Z';
export const LATER = '2026-03-02T13:00:00.000Z';
export const at = (iso: string, plusSeconds: number) => new Date(Date.parse(iso) + plusSeconds * 1000).toISOString();

export const ESCROW = {
  accountId: `G${'E'.repeat(55)}`,
  organiserSigner: `G${'O'.repeat(55)}`,
  platformSigner: `G${'P'.repeat(55)}`,
  threshold: 2,
  reclaimAfter: '2026-06-01T00:00:00.000Z',
  setupTxHash: 'ab'.repeat(32),
};
export const ASSET = { code: 'EURC', issuer: `G${'I'.repeat(55)}` };
export const ALICE_ACCOUNT = `G${'A'.repeat(55)}`;
export const MEMO = 'cd'.repeat(32);
export const TERMS = { version: '2026-01', hash: 'ef'.repeat(32) };

/** u1: 10.00, stock 5, at most 3 per buyer, 8.00 from 4 in all; u2: 2.50, no stock, at least 2 per buyer; u0: free. */
export const groupsFields = (overrides: Partial<PoolDraftFields> = {}): PoolDraftFields => ({
  title: 'Paniers',
  description: 'Commande groupée',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: {
    units: [
      { id: 'u1', label: 'Panier', price: '10.00', quantity: 5, maxPerBuyer: 3, tiers: [{ minQuantity: 4, price: '8.00' }] },
      { id: 'u2', label: 'Oeufs', price: '2.50', minPerBuyer: 2 },
      { id: 'u0', label: 'Sac', price: '0' },
    ],
    relais: [{ id: 'r1', name: 'Épicerie' }],
  },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
  ...overrides,
});

export const fundingFields = (overrides: Partial<PoolDraftFields> = {}): PoolDraftFields =>
  groupsFields({ config: { pledge: { min: '5.00', max: '100.00' }, relais: [{ id: 'r1', name: 'Épicerie' }] }, targetAmount: '250.00', ...overrides });

export const poolCreated = (fields: PoolDraftFields = groupsFields(), type: PoolType = 'GROUPS'): PoolEvent => ({
  type: 'PoolCreated',
  data: { ...fields, poolId: POOL_ID, tenantId: TENANT_ID, type, organiserId: ORGANISER_ID, organiserName: 'Olga', createdAt: T_CREATE },
});
export const published = (): PoolEvent[] => [
  { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T_OPEN } },
  { type: 'PoolEscrowOpened', data: { poolId: POOL_ID, ...ESCROW, openedAt: T_OPEN } },
];
/** A GROUPS pool (or the given fields/type), created, published, escrow open. */
export const openPool = (fields?: PoolDraftFields, type?: PoolType): PoolEvent[] => [poolCreated(fields, type), ...published()];

export const placedEvent = (o: {
  id?: string;
  buyer?: BuyerActor;
  lines?: Array<{ unitId: string; quantity: number; unitPrice: string }>;
  pledge?: string | null;
  amount?: string;
  depositFee?: string;
  placedAt?: string;
  expiresAt?: string;
}): PoolEvent => ({
  type: 'ReservationPlaced',
  data: {
    poolId: POOL_ID,
    reservationId: o.id ?? R1,
    buyerId: (o.buyer ?? alice).userId,
    buyerName: (o.buyer ?? alice).displayName,
    lines: o.lines ?? [{ unitId: 'u1', quantity: 2, unitPrice: '10.00' }],
    pledge: o.pledge ?? null,
    amount: o.amount ?? '20.00',
    depositFee: o.depositFee ?? '0.00',
    relaisId: 'r1',
    expiresAt: o.expiresAt ?? EXPIRES,
    placedAt: o.placedAt ?? NOW,
  },
});
export const signedEvent = (id = R1, buyer = alice, signedAt = NOW): PoolEvent => ({
  type: 'ReservationSigned',
  data: {
    poolId: POOL_ID,
    reservationId: id,
    buyerId: buyer.userId,
    terms: TERMS,
    source: ALICE_ACCOUNT,
    escrowAccount: ESCROW.accountId,
    memoHash: MEMO,
    reclaimAfter: ESCROW.reclaimAfter,
    ip: null,
    signedAt,
  },
});

const RECLAIM_EPOCH = Math.floor(Date.parse(ESCROW.reclaimAfter) / 1000);
export const TX = '11'.repeat(32);
export const TX2 = '22'.repeat(32);
export const BALANCE = `00000000${'33'.repeat(32)}`;
export const BALANCE2 = `00000000${'44'.repeat(32)}`;

/** The exact deposit R1 (20.00 from Alice's account) expects, landed a minute after NOW. */
export const deposit = (overrides: Partial<ObservedDeposit> = {}): ObservedDeposit => ({
  txHash: TX,
  ledger: 42,
  successful: true,
  closedAt: at(NOW, 60),
  from: ALICE_ACCOUNT,
  operationCount: 1,
  isClaimableBalance: true,
  assetCode: ASSET.code,
  assetIssuer: ASSET.issuer,
  amount: '20.0000000',
  memoHash: MEMO,
  balanceId: BALANCE,
  claimants: [
    { destination: ESCROW.accountId, predicate: { before: RECLAIM_EPOCH } },
    { destination: ALICE_ACCOUNT, predicate: { notBefore: RECLAIM_EPOCH } },
  ],
  ...overrides,
});

const meta = (actor: BuyerActor, now: string) => ({ actor, now, ip: null });

export const place = (o: { id?: string; buyer?: BuyerActor; lines?: Array<{ unitId: string; quantity: number }>; pledge?: string | null; relaisId?: string | null; now?: string } = {}): ReservationCommand => ({
  type: 'PlaceReservation',
  data: { reservationId: o.id ?? R1, lines: o.lines ?? [{ unitId: 'u1', quantity: 2 }], pledge: o.pledge ?? null, relaisId: o.relaisId === undefined ? 'r1' : o.relaisId, ttlSeconds: TTL },
  metadata: meta(o.buyer ?? alice, o.now ?? NOW),
});
export const sign = (o: { id?: string; buyer?: BuyerActor; now?: string; terms?: { version: string; hash: string }; source?: string } = {}): ReservationCommand => ({
  type: 'SignReservation',
  data: { reservationId: o.id ?? R1, terms: o.terms ?? TERMS, source: o.source ?? ALICE_ACCOUNT, memoHash: MEMO },
  metadata: meta(o.buyer ?? alice, o.now ?? NOW),
});
export const pay = (d: ObservedDeposit = deposit(), o: { id?: string; buyer?: BuyerActor; now?: string } = {}): ReservationCommand => ({
  type: 'PayReservation',
  data: { reservationId: o.id ?? R1, deposit: d, via: 'txHash', asset: ASSET },
  metadata: meta(o.buyer ?? alice, o.now ?? at(NOW, 90)),
});
export const cancel = (o: { id?: string; buyer?: BuyerActor; now?: string } = {}): ReservationCommand => ({
  type: 'CancelReservation',
  data: { reservationId: o.id ?? R1 },
  metadata: meta(o.buyer ?? alice, o.now ?? at(NOW, 120)),
});
/** The expiry job's command; `deposits`: what the ledger showed it of the reservation's deposit (absent: not asked). */
export const expire = (id = R1, now = LATER, deposits?: ObservedDeposit[]): ReservationCommand => ({
  type: 'ExpireReservation',
  data: { reservationId: id, ...(deposits ? { ledger: { deposits, asset: ASSET } } : {}) },
  metadata: { now },
});

export const reservationSpec = () =>
  deciderSpec<Pool, ReservationCommand, PoolEvent>({
    initial: initialPool,
    evolve: (s, e: DomainEvent) => evolvePool(s, e as PoolEvent),
    decide: decideReservation,
  });
