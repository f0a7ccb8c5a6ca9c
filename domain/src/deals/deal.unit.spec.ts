import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import type { ObservedDeposit } from '../reservations/deposit';
import { decideDeal, type DealActor, type DealCommand } from './decide';
import { evolveDeal, initialDeal, isDealEvent, type Deal, type DealEvent } from './state';

const { given } = deciderSpec<Deal, DealCommand, DealEvent>({ initial: initialDeal, evolve: (s, e: DomainEvent) => (isDealEvent(e) ? evolveDeal(s, e) : s), decide: decideDeal });

const id = (n: number, p = 'd') => `${p}0000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
const DEAL = id(1);
const TENANT = id(2, 'e');
const [BUYER, SELLER, BROKER, THIRD, MARKET, STRANGER] = [id(11, 'a'), id(12, 'a'), id(13, 'a'), id(14, 'a'), id(15, 'a'), id(16, 'a')];
const acct = (c: string) => `G${c.repeat(55)}`;
const [E, BUYER_G, SELLER_G, BROKER_G, THIRD_G, PLATFORM_G] = [acct('E'), acct('B'), acct('S'), acct('K'), acct('T'), acct('P')];
const ASSET = { code: 'EURC', issuer: acct('I') };
const MEMO = 'ab'.repeat(32);
const T0 = '2026-03-01T10:00:00.000Z';
const T1 = '2026-03-02T10:00:00.000Z';
const T2 = '2026-03-03T10:00:00.000Z';
const RECLAIM = '2026-07-29T10:00:00.000Z';
const BALANCE = `00000000${'cd'.repeat(32)}`;
const TX = 'ef'.repeat(32);

const as = (userId: string): DealActor => ({ userId });
const meta = (actor: DealActor | null, now = T1) => ({ actor, now });
const market = as(MARKET);

const create = (over: Partial<Extract<DealCommand, { type: 'CreateDeal' }>['data']> = {}, actor = market): DealCommand => ({
  type: 'CreateDeal',
  data: {
    dealId: DEAL,
    tenantId: TENANT,
    livemode: false,
    buyerId: BUYER,
    sellerId: SELLER,
    brokerId: BROKER,
    description: 'A used tractor',
    metadata: { order: '42' },
    items: [{ description: 'Tractor', quantity: 1, unitAmount: '90.0000001' }, { description: 'Trailer', quantity: 2, unitAmount: '5' }],
    split: [{ accountId: SELLER, bps: 8000 }, { accountId: BROKER, bps: 1500 }, { accountId: THIRD, bps: 500 }],
    releaseRule: 'on_acceptance',
    inspectionDays: 3,
    disputeResponseDays: 7,
    ...over,
  },
  metadata: meta(actor, T0),
});

const created: DealEvent = {
  type: 'DealCreated',
  data: {
    dealId: DEAL,
    tenantId: TENANT,
    livemode: false,
    createdBy: MARKET,
    buyerId: BUYER,
    sellerId: SELLER,
    brokerId: BROKER,
    description: 'A used tractor',
    metadata: { order: '42' },
    items: [{ description: 'Tractor', quantity: 1, unitAmount: '90.0000001' }, { description: 'Trailer', quantity: 2, unitAmount: '5' }],
    amount: '100.0000001',
    currency: 'EUR',
    split: [{ accountId: SELLER, role: 'seller', bps: 8000, amount: '80.0000001' }, { accountId: BROKER, role: 'broker', bps: 1500, amount: '15.00' }, { accountId: THIRD, role: 'payee', bps: 500, amount: '5.00' }],
    releaseRule: 'on_acceptance',
    inspectionDays: 3,
    disputeResponseDays: 7,
    createdAt: T0,
  },
};
const opened: DealEvent = { type: 'DealEscrowOpened', data: { dealId: DEAL, livemode: false, accountId: E, cosigner: SELLER_G, platformSigner: PLATFORM_G, threshold: 2, reclaimAfter: RECLAIM, setupTxHash: TX, openedAt: T0 } };
const deposit = (over: Partial<ObservedDeposit> = {}): ObservedDeposit => ({
  txHash: TX,
  ledger: 7,
  successful: true,
  closedAt: T0,
  from: BUYER_G,
  operationCount: 1,
  isClaimableBalance: true,
  assetCode: 'EURC',
  assetIssuer: ASSET.issuer,
  amount: '100.0000001',
  memoHash: MEMO,
  balanceId: BALANCE,
  claimants: [
    { destination: E, predicate: { before: Date.parse(RECLAIM) / 1000 } },
    { destination: BUYER_G, predicate: { notBefore: Date.parse(RECLAIM) / 1000 } },
  ],
  ...over,
});
const record = (d = deposit(), actor = as(BUYER)): DealCommand => ({ type: 'RecordFunding', data: { deposit: d, via: 'txHash', asset: ASSET, memoHash: MEMO, buyerAccount: BUYER_G }, metadata: meta(actor, T0) });
const funded: DealEvent = { type: 'DealFunded', data: { dealId: DEAL, livemode: false, from: BUYER_G, amount: '100.0000001', txHash: TX, ledger: 7, balanceId: BALANCE, via: 'txHash', fundedAt: T0 } };
const delivered: DealEvent = { type: 'DealDelivered', data: { dealId: DEAL, livemode: false, note: null, inspectionEndsAt: '2026-03-05T10:00:00.000Z', deliveredAt: T1 } };

const windows = { releaseUntil: '2026-03-09T10:00:00.000Z', recoveryFrom: '2026-03-09T10:00:01.000Z', recoveryUntil: '2026-07-29T09:59:00.000Z' };
const hashes = { lockHash: '01'.repeat(32), releaseHash: '02'.repeat(32), recoveryHash: '03'.repeat(32) };
const releasePayouts = [
  { role: 'seller' as const, accountId: SELLER, destination: SELLER_G, amount: '80.0000001' },
  { role: 'broker' as const, accountId: BROKER, destination: BROKER_G, amount: '15.00' },
  { role: 'payee' as const, accountId: THIRD, destination: THIRD_G, amount: '5.00' },
];
const prepare = (kind: 'RELEASE' | 'REFUND', actor: DealActor, now = T2, payouts = kind === 'RELEASE' ? releasePayouts : [{ role: 'buyer' as const, accountId: BUYER, destination: BUYER_G, amount: '100.0000001' }]): DealCommand => ({
  type: 'PrepareDealSettlement',
  data: { settlementId: id(77), kind, escrowAccount: E, escrowSequence: '100', hadTrustline: true, deadPreAuthSigners: [], balanceId: BALANCE, amount: '100.0000001', refundTo: BUYER_G, payouts, ...windows, ...hashes },
  metadata: meta(actor, now),
});

const test = suite('deals: the decider, given / when / then');

test('create: the amount is Σ quantity × unitAmount, each split line gets its role; by default the seller takes it all', () => {
  given().when(create()).then([created]);
  const whole = given().when(create({ split: null, brokerId: null })).then([
    { ...created, data: { ...created.data, brokerId: null, split: [{ accountId: SELLER, role: 'seller', bps: 10_000, amount: '100.0000001' }] } } as DealEvent,
  ]);
  assert.is(whole.status, 'created');
});

test('create: refused splits and parties (400 with the field at fault)', () => {
  const e = given().when(create({ split: [{ accountId: SELLER, bps: 8000 }, { accountId: BROKER, bps: 1000 }] })).thenThrows(ValidationError, 'validation_failed');
  assert.equal(Object.keys(e.errors), ['split']);
  given().when(create({ split: [{ accountId: BUYER, bps: 10_000 }] })).thenThrows(ValidationError, 'validation_failed');
  given().when(create({ sellerId: BUYER })).thenThrows(ValidationError, 'validation_failed');
  given().when(create({ items: [{ description: 'x', quantity: 1, unitAmount: '0' }] })).thenThrows(ValidationError, 'validation_failed');
  given().when(create({ releaseRule: { at: '2026-02-01T00:00:00.000Z' } })).thenThrows(ValidationError, 'validation_failed');
  given(created).when(create()).thenThrows(ConflictError, 'deal_exists');
});

test('fund: the escrow opens once; a deposit is recorded only when it is exactly this deal’s (depositMismatch)', () => {
  const open: DealCommand = { type: 'OpenDealEscrow', data: { accountId: E, cosigner: SELLER_G, platformSigner: PLATFORM_G, threshold: 2, reclaimAfter: RECLAIM, setupTxHash: TX }, metadata: meta(as(BUYER), T0) };
  given(created).when(open).then([opened]);
  given(created, opened).when(open).then([]);
  given(created).when(record()).thenThrows(IllegalStateError, 'escrow_not_open');
  const state = given(created, opened).when(record()).then([funded]);
  assert.is(state.status, 'funded');
  given(created, opened).when(record(deposit({ amount: '100' }))).thenThrows(ValidationError, 'payment_mismatch');
  given(created, opened).when(record(deposit({ from: SELLER_G }))).thenThrows(ValidationError, 'payment_mismatch');
  given(created, opened).when(record(deposit({ memoHash: '00'.repeat(32) }))).thenThrows(ValidationError, 'payment_mismatch');
  given(created, opened, funded).when(record()).then([]);
  given(created, opened, funded).when(record(deposit({ txHash: '12'.repeat(32) }))).thenThrows(ConflictError, 'deal_already_funded');
});

test('who: a stranger does not see the deal (404); the seller cannot fund, the buyer cannot deliver (403); the creator (the marketplace) can do both', () => {
  given(created, opened).when(record(deposit(), as(STRANGER))).thenThrows(NotFoundError, 'deal_not_found');
  given(created, opened).when(record(deposit(), as(SELLER))).thenThrows(ForbiddenError, 'buyer_only');
  given(created, opened).when(record(deposit(), market)).then([funded]);
  given(created, opened, funded).when({ type: 'MarkDealDelivered', data: { note: null }, metadata: meta(market) }).then([delivered]);
  const deliver = (actor: DealActor): DealCommand => ({ type: 'MarkDealDelivered', data: { note: null }, metadata: meta(actor) });
  given(created, opened, funded).when(deliver(as(BUYER))).thenThrows(ForbiddenError, 'seller_only');
  given(created, opened, funded).when(deliver(as(SELLER))).then([delivered]);
});

test('on_acceptance: the release is not due before acceptance, nor after delivery until the inspection ends; then the split', () => {
  given(created, opened, funded, delivered).when(prepare('RELEASE', as(SELLER))).thenThrows(IllegalStateError, 'release_not_due');
  const accepted: DealEvent = { type: 'DealAccepted', data: { dealId: DEAL, livemode: false, by: 'BUYER', acceptedAt: T2 } };
  given(created, opened, funded, delivered).when({ type: 'AcceptDeal', data: {}, metadata: meta(as(BUYER), T2) }).then([accepted]);
  const prepared = given(created, opened, funded, delivered, accepted).when(prepare('RELEASE', as(SELLER))).then([{ type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('RELEASE', as(SELLER)).data as object), preparedAt: T2 } } as DealEvent]);
  assert.is(prepared.status !== 'none' && prepared.settlements.length, 1);
  // The inspection period over, silence is acceptance.
  given(created, opened, funded, delivered).when(prepare('RELEASE', as(SELLER), '2026-03-05T10:00:00.000Z')).then([{ type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('RELEASE', as(SELLER)).data as object), preparedAt: '2026-03-05T10:00:00.000Z' } } as DealEvent]);
  // A plan that pays anything but the split is our bug: refused loudly.
  assert.throws(() => decideDeal(prepare('RELEASE', as(SELLER), T2, [...releasePayouts.slice(0, 2), { ...releasePayouts[2]!, amount: '5.0000001' }]), given(created, opened, funded, delivered, accepted).state()));
  const released = given(created, opened, funded, delivered, accepted, { type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('RELEASE', as(SELLER)).data as object), preparedAt: T2 } } as DealEvent)
    .when({ type: 'RecordDealSettled', data: { settlementId: id(77), path: 'RELEASE', txHash: TX, ledger: 9, at: T2 }, metadata: meta(null, T2) })
    .then([{ type: 'DealReleased', data: { dealId: DEAL, livemode: false, settlementId: id(77), txHash: TX, ledger: 9, payouts: releasePayouts, releasedAt: T2 } }]);
  assert.is(released.status, 'released');
  assert.is(released.status !== 'none' && released.transitions.released, T2);
});

test('disputes: within the inspection period; they hold the release; the buyer refunds only once the dispute lapsed; accepting withdraws it', () => {
  const disputed: DealEvent = { type: 'DealDisputed', data: { dealId: DEAL, livemode: false, disputeId: id(5), reason: 'Not as described', respondBy: '2026-03-10T10:00:00.000Z', disputedAt: T2 } };
  const dispute = (now = T2): DealCommand => ({ type: 'DisputeDeal', data: { disputeId: id(5), reason: 'Not as described' }, metadata: meta(as(BUYER), now) });
  given(created, opened, funded, delivered).when(dispute()).then([disputed]);
  given(created, opened, funded, delivered).when(dispute('2026-03-05T10:00:00.000Z')).thenThrows(IllegalStateError, 'inspection_period_over');
  const h = [created, opened, funded, delivered, disputed];
  given(...h).when(dispute()).thenThrows(IllegalStateError, 'dispute_exists');
  given(...h).when(prepare('RELEASE', as(SELLER), '2026-03-05T10:00:00.000Z')).thenThrows(IllegalStateError, 'release_not_due');
  given(...h).when(prepare('REFUND', as(BUYER))).thenThrows(ForbiddenError, 'seller_only');
  const lapsed = '2026-03-10T10:00:00.000Z';
  given(...h).when(prepare('REFUND', as(BUYER), lapsed)).then([{ type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('REFUND', as(BUYER)).data as object), preparedAt: lapsed } } as DealEvent]);
  given(...h).when(prepare('REFUND', as(SELLER))).then([{ type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('REFUND', as(SELLER)).data as object), preparedAt: T2 } } as DealEvent]);
  const accepted = given(...h)
    .when({ type: 'AcceptDeal', data: {}, metadata: meta(as(BUYER), T2) })
    .then([{ type: 'DealDisputeWithdrawn', data: { dealId: DEAL, livemode: false, disputeId: id(5), withdrawnAt: T2 } }, { type: 'DealAccepted', data: { dealId: DEAL, livemode: false, by: 'BUYER', acceptedAt: T2 } }]);
  assert.is(accepted.status, 'accepted');
});

test('refund: recorded from the release of a REFUND plan or the recovery of any plan; everything to the depositor', () => {
  const prepared = { type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('REFUND', as(SELLER)).data as object), preparedAt: T2 } } as DealEvent;
  const state = given(created, opened, funded, prepared)
    .when({ type: 'RecordDealSettled', data: { settlementId: id(77), path: 'RELEASE', txHash: TX, ledger: 9, at: T2 }, metadata: meta(null, T2) })
    .then([{ type: 'DealRefunded', data: { dealId: DEAL, livemode: false, settlementId: id(77), path: 'RELEASE', txHash: TX, ledger: 9, destination: BUYER_G, amount: '100.0000001', refundedAt: T2 } }]);
  assert.is(state.status, 'refunded');
  given(created, opened, funded, prepared).when({ type: 'CancelDeal', data: { reason: null }, metadata: meta(as(BUYER)) }).thenThrows(IllegalStateError, 'deal_funded');
  // A RELEASE whose keyless recovery ran instead: the buyer was repaid, recorded as a refund by the RECOVERY path; once only.
  const release = { type: 'DealSettlementPrepared', data: { dealId: DEAL, livemode: false, ...(prepare('RELEASE', as(SELLER)).data as object), preparedAt: T2 } } as DealEvent;
  const recovered: DealEvent = { type: 'DealRefunded', data: { dealId: DEAL, livemode: false, settlementId: id(77), path: 'RECOVERY', txHash: TX, ledger: 9, destination: BUYER_G, amount: '100.0000001', refundedAt: T2 } };
  const record = (): DealCommand => ({ type: 'RecordDealSettled', data: { settlementId: id(77), path: 'RECOVERY', txHash: TX, ledger: 9, at: T2 }, metadata: meta(null, T2) });
  given(created, opened, funded, release).when(record()).then([recovered]);
  given(created, opened, funded, release, recovered).when(record()).then([]);
});

test('cancel: before funding, by a party; a cancelled deal takes no deposit', () => {
  const cancelled: DealEvent = { type: 'DealCancelled', data: { dealId: DEAL, livemode: false, reason: 'changed my mind', cancelledAt: T1 } };
  given(created, opened).when({ type: 'CancelDeal', data: { reason: 'changed my mind' }, metadata: meta(as(SELLER)) }).then([cancelled]);
  given(created, opened).when({ type: 'CancelDeal', data: { reason: null }, metadata: meta(as(THIRD)) }).thenThrows(ForbiddenError, 'party_only');
  given(created, opened, cancelled).when(record()).thenThrows(IllegalStateError, 'deal_cancelled');
});

test.run();
