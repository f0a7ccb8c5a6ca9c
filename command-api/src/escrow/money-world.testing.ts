import * as assert from 'uvu/assert';
import { Account, Operation, TransactionBuilder, type Keypair, type Transaction } from '@stellar/stellar-sdk';
import {
  AppError,
  NotFoundError,
  decidePool,
  decideReservation,
  decideStrays,
  evolvePool,
  foldPool,
  formatAmount,
  initialPool,
  type ClosingPolicy,
  type EscrowMeta,
  type ExistingPool,
  type Pool,
  type SettlementAccounts,
} from '@cagnotte/domain';
import { eventRegistry, type FeeRule, type PoolDraftFields, type PoolEvent, type PoolType } from '@cagnotte/event-schemas';
import { depositTransaction, type MemoryLedger } from '@cagnotte/infra';
import { reservationMemoHash } from '../reservations/runtime';
import { ASSET, ESCROW, EURC, KEYS, PASSPHRASE, PLATFORM, escrowLedger, escrowPaymentsOf, newNetwork, openEscrowOn, signWith, signedCopy } from './money-ledger.testing';

// One pool's life on the memory ledger, driven the way the service drives it: each command is decided by the domain's
// deciders on the pool's stream (with runCommand's conflict retry when it was read stale), every deposit is built by
// EscrowLedger's builder and applied by the sandbox engine, and the routes' glue around the deciders (sign hands out
// the deposit, pay reads it back) is mirrored here. The settlement's side is money-settlement.testing.ts.

export const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
export const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
export const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
export const SELLER_ID = 'd4f2c8b3-2a5e-4d9f-8c3b-8e7f6a5b4c32';
const uuid = (prefix: string, n: number) => `${prefix}-0000-4000-8000-${n.toString().padStart(12, '0')}`;
export const buyerId = (b: number) => uuid('b0000000', b);
export const reservationId = (b: number, slot: number) => uuid('10000000', b * 10 + slot);
export const disputeId = (b: number, slot: number) => uuid('d0000000', b * 10 + slot);
const TERMS = { version: '2026-01', hash: 'ef'.repeat(32) };
const DAY_MS = 86_400_000;
export const RECLAIM_AFTER_DAYS = 30;
export const RELEASE_WINDOW_HOURS = 168;

export interface PoolSpec {
  type: PoolType;
  /** GROUPS: prices in stroops, stock, per-buyer cap, one tier. */
  units: Array<{ price: bigint; quantity: number | null; maxPerBuyer: number | null; tier: { minQuantity: number; price: bigint } | null }>;
  minimumUnits: number | null;
  release: { after: 'CLOSE' | 'RECEIPT'; inspectionDays: number } | null;
  /** FUNDING: the target, stroops. */
  target: bigint;
  deadlineHours: number;
  /** A brokered pool: the seller is another user, paid on the payout account; the organiser takes a commission. */
  brokered: boolean;
  commissionPercent: string | null;
  platformFeePercent: string;
  /** The tenant's escrow-deposit fee rule (on top of each reservation's goods), or none. */
  depositFee: FeeRule | null;
  ttlSeconds: number;
  buyers: number;
}

/** A refusal the service answers (4xx): the command changed nothing. Anything else thrown is a bug and fails the property. */
export type Outcome = { events: PoolEvent[] } | { refused: string };

const refusalOf = (e: unknown): Outcome => {
  if (e instanceof AppError) return { refused: e.code };
  throw e;
};

const storable = (events: PoolEvent[]) => {
  const metadata = { tenantId: TENANT_ID, actor: { kind: 'system', id: 'money-property' }, correlationId: uuid('11111111', 1), causationId: null, occurredAt: '2026-01-01T09:00:00+01:00' };
  for (const e of events) {
    try {
      eventRegistry.parse({ type: e.type, schemaVersion: eventRegistry.currentVersion(e.type), data: e.data, metadata });
    } catch (error) {
      assert.unreachable(`${e.type} does not match its schema: ${(error as Error).message}`);
    }
  }
};

/** A fold's state as text: Maps, Sets and bigints included, so two folds compare exactly. */
export const snapshot = (pool: Pool): string =>
  JSON.stringify(pool, (_k, v: unknown) => (v instanceof Map ? [...v.entries()] : v instanceof Set ? [...v] : typeof v === 'bigint' ? `${v}n` : v));

const isOpenDispute = (d: { status: string } | null) => d !== null && (d.status === 'OPEN' || d.status === 'CONTESTED');

/** A deposit that landed on the ledger (recorded by a pay command or not). */
export interface Landed {
  balanceId: string;
  reservationId: string;
  buyer: number;
  amount: bigint;
  txHash: string;
  tx: Transaction;
  ledger: number;
  closedAt: string;
}

/** A payment straight into the escrow that landed on the ledger (a stray: never a deposit). */
export interface LandedStray {
  operationId: string;
  txHash: string;
  from: string;
  amount: bigint;
}

export class MoneyWorld {
  readonly ledger: MemoryLedger;
  readonly events: PoolEvent[] = [];
  pool: Pool = initialPool();
  now: number;
  readonly policy: ClosingPolicy;
  /** The deposit the sign route handed out last, per reservation. */
  private readonly handedOut = new Map<string, Transaction>();
  readonly landed = new Map<string, Landed>();
  /** Stray payments that landed, by operation id. */
  readonly strays = new Map<string, LandedStray>();
  private settlements = 0;
  readonly refusals = new Map<string, number>();
  /** What the acting party has seen for sure (its own last command's outcome): a stale read never goes behind it. */
  private seen = 0;
  private readonly seenBy = new Map<string, number>();

  constructor(readonly spec: PoolSpec, start: number) {
    this.now = start;
    this.ledger = newNetwork(BigInt(Math.floor(start / 1000)));
    this.policy = { platformFeePercent: spec.platformFeePercent, inspectionDays: 3, disputeResponseDays: 7 };
    this.createAndPublish();
  }

  /**
   * The party about to act: what another party appended since its last command may still be missing from a read
   * (concurrent requests), what it saw itself may not (it had the answer before acting again).
   */
  actAs(party: string): void {
    this.seen = this.seenBy.get(party) ?? 0;
  }

  /** The party's command is over: it saw the stream as it is now. */
  doneAs(party: string): void {
    this.seenBy.set(party, this.events.length);
  }

  get iso(): string {
    return new Date(this.now).toISOString();
  }

  get existing(): ExistingPool {
    if (this.pool.status === 'none') throw new Error('no pool');
    return this.pool;
  }

  get reclaimAfter(): number {
    return Date.parse(this.existing.escrow!.reclaimAfter);
  }

  /** Time passes, for the service and the ledger alike (never up to reclaimAfter: each buyer's own reclaim is out of scope). */
  advance(seconds: number): void {
    this.now = Math.min(this.now + seconds * 1000, this.reclaimAfter - 3_600_000);
    this.ledger.setCloseTime(BigInt(Math.floor(this.now / 1000)));
  }

  count(outcome: Outcome): Outcome {
    if ('refused' in outcome) this.refusals.set(outcome.refused, (this.refusals.get(outcome.refused) ?? 0) + 1);
    return outcome;
  }

  /**
   * runCommand: decide on the stream as read, append with the revision read. Read `stale` events ago, another
   * process appended since: a refusal or a no-op stands (as if decided then), events conflict and the command is
   * decided again on the fresh stream. Deciding must not change the state it reads, and deciding again on an
   * independent fold of the same stream must decide the same events.
   */
  decide(decide: (pool: Pool) => PoolEvent[], stale = 0): Outcome {
    stale = Math.min(stale, this.events.length - this.seen);
    if (stale > 0) {
      let first: PoolEvent[];
      try {
        first = decide(foldPool(this.events.slice(0, this.events.length - stale)));
      } catch (e) {
        return this.count(refusalOf(e));
      }
      if (first.length === 0) return { events: [] };
      storable(first);
    }
    const before = stale > 0 ? snapshot(this.pool) : null;
    let events: PoolEvent[];
    try {
      events = decide(this.pool);
    } catch (e) {
      return this.count(refusalOf(e));
    }
    if (before !== null) {
      assert.is(snapshot(this.pool), before, 'deciding changed the state it decided on');
      assert.equal(decide(foldPool(this.events)), events, 'deciding again on a fresh fold of the same stream decides other events');
    }
    this.append(events);
    return { events };
  }

  /** Appends decided events: each must match its schema and keep the money rules, checked on the state before it. */
  private append(events: PoolEvent[]): void {
    storable(events);
    for (const e of events) {
      this.checkEvent(e);
      this.events.push(e);
      this.pool = evolvePool(this.pool, e);
    }
  }

  private checkEvent(e: PoolEvent): void {
    if (this.pool.status === 'none') return;
    const pool = this.pool;
    if (e.type === 'ReservationSettled') {
      const d = e.data;
      const r = pool.holdings.byId.get(d.reservationId);
      assert.ok(r, `ReservationSettled for an unknown reservation ${d.reservationId}`);
      const deposit = r.payment?.balanceId === d.balanceId ? r.payment : r.latePayments.find((l) => l.balanceId === d.balanceId);
      assert.ok(deposit, `ReservationSettled for ${d.balanceId}, not a deposit of ${d.reservationId}`);
      assert.not.ok(r.settled.has(d.balanceId), `deposit ${d.balanceId} settled twice`);
      assert.is(toStroops(d.released) + toStroops(d.refunded), toStroops(deposit.amount), `deposit ${d.balanceId}: released + refunded is not the deposit`);
      if (toStroops(d.released) > 0n) {
        assert.is(d.kind, 'DEPOSIT', 'a late deposit is released');
        assert.is(pool.status, 'LOCKED', `a deposit is released from a ${pool.status} pool`);
        assert.not.ok(isOpenDispute(r.dispute), `deposit ${d.balanceId} is released while its dispute is open`);
      }
    }
    if (e.type === 'EscrowSettlementPrepared' && e.data.kind === 'RELEASE') {
      for (const item of e.data.items) {
        if (item.kind === 'DEPOSIT') assert.not.ok(isOpenDispute(pool.holdings.byId.get(item.reservationId)?.dispute ?? null), `a release planned for ${item.reservationId} with an open dispute`);
      }
    }
    if (e.type === 'EscrowRoundSettled') {
      const s = pool.settlement.byId.get(e.data.settlementId)!;
      const planned = s.rounds[e.data.round]!;
      const [mine, twin] = e.data.path === 'RELEASE' ? [planned.releaseHash, planned.recoveryHash] : [planned.recoveryHash, planned.releaseHash];
      assert.ok(this.ledger.transaction(mine)?.successful, `round ${e.data.round} recorded, its ${e.data.path} is not a success on the ledger`);
      assert.is(this.ledger.transaction(twin), null, `round ${e.data.round}: release and recovery both applied`);
    }
    if (e.type === 'PoolSettled') assert.is(this.ledger.account(ESCROW), null, 'PoolSettled while the escrow account exists');
  }

  // ---- the pool -------------------------------------------------------------------------------------------

  private fields(): PoolDraftFields {
    const s = this.spec;
    const units = s.units.map((u, i) => ({
      id: `u${i}`,
      label: `Unit ${i}`,
      price: formatAmount(u.price),
      ...(u.quantity !== null ? { quantity: u.quantity } : {}),
      ...(u.maxPerBuyer !== null ? { maxPerBuyer: u.maxPerBuyer } : {}),
      ...(u.tier ? { tiers: [{ minQuantity: u.tier.minQuantity, price: formatAmount(u.tier.price) }] } : {}),
    }));
    const release = s.release ? { release: s.release } : {};
    return {
      title: 'Money property',
      description: '',
      country: 'FR',
      currency: 'EUR',
      marketplaceVisibility: 'PRIVATE',
      config: s.type === 'GROUPS' ? { units, ...(s.minimumUnits !== null ? { minimumUnits: s.minimumUnits } : {}), ...release } : { ...release },
      sellerId: s.brokered ? SELLER_ID : null,
      payoutAccount: s.brokered ? KEYS.seller.publicKey() : null,
      organiserCommissionPercent: s.brokered ? s.commissionPercent : null,
      targetAmount: s.type === 'FUNDING' ? formatAmount(s.target) : null,
      deadline: new Date(this.now + s.deadlineHours * 3_600_000).toISOString(),
    };
  }

  private createAndPublish(): void {
    const actor = { userId: ORGANISER_ID, role: 'organiser' as const, accountType: 'BUSINESS' as const, displayName: 'Olga' };
    const meta = { actor, now: this.iso, ip: null };
    const fields = this.fields();
    const mandate = this.spec.brokered && this.spec.commissionPercent !== null ? { version: '2026-01', hash: 'ab'.repeat(32) } : null;
    const created = this.decide((p) => decidePool({ type: 'CreatePool', data: { poolId: POOL_ID, tenantId: TENANT_ID, poolType: this.spec.type, fields, commissionMandate: mandate }, metadata: meta }, p));
    if ('refused' in created) throw new Error(`the pool was not created: ${created.refused}`);
    const setupTxHash = openEscrowOn(this.ledger);
    const reclaimAfter = new Date(Math.ceil((Date.parse(fields.deadline!) + RECLAIM_AFTER_DAYS * DAY_MS) / 1000) * 1000).toISOString();
    const escrow = { accountId: ESCROW, organiserSigner: KEYS.organiser.publicKey(), platformSigner: PLATFORM, threshold: 2, reclaimAfter, setupTxHash };
    const published = this.decide((p) => decidePool({ type: 'PublishPool', data: { escrow }, metadata: meta }, p));
    if ('refused' in published) throw new Error(`the pool was not published: ${published.refused}`);
  }

  buyerMeta(b: number) {
    return { actor: { userId: buyerId(b), displayName: `Buyer ${b}` }, now: this.iso, ip: null };
  }

  escrowMeta(who: 'organiser' | 'system' | number): EscrowMeta {
    const actor = who === 'organiser' ? { userId: ORGANISER_ID, role: 'organiser' } : who === 'system' ? null : { userId: buyerId(who) };
    return { actor, now: this.iso };
  }

  // ---- reservations: the sign route hands out the deposit, the buyer submits it, the pay route observes it --------

  /** The sign route: the deposit is built (EscrowLedger.buildDeposit's builder, the buyer's sequence now) before deciding; handed out when signed. */
  sign(b: number, slot: number, stale: number): Outcome {
    const rid = reservationId(b, slot);
    const r = this.existing.holdings.byId.get(rid);
    if (!r || r.buyerId !== buyerId(b)) return this.count({ refused: new NotFoundError('reservation').code });
    const source = KEYS.buyers[b]!.publicKey();
    const memoHash = reservationMemoHash(rid);
    const { reclaimAfter } = this.existing.escrow!;
    const deposit = depositTransaction({
      account: new Account(source, this.ledger.account(source)!.seqNum.toString()),
      source,
      escrowAccount: ESCROW,
      asset: EURC,
      amount: r.amount,
      memoHash,
      reclaimAfter: new Date(reclaimAfter),
      validUntil: new Date(r.expiresAt),
      networkPassphrase: PASSPHRASE,
    });
    const outcome = this.decide((p) => decideReservation({ type: 'SignReservation', data: { reservationId: rid, terms: TERMS, source, memoHash }, metadata: this.buyerMeta(b) }, p), stale);
    if (!('refused' in outcome)) this.handedOut.set(rid, deposit);
    return outcome;
  }

  /** The buyer signs the deposit handed out and submits it: it lands, or the ledger refuses it (too late, a stale sequence). */
  submitDeposit(b: number, slot: number): Landed | null {
    const tx = this.handedOut.get(reservationId(b, slot));
    if (!tx) return null;
    const signed = signedCopy(tx, KEYS.buyers[b]!);
    const result = this.ledger.submit(signed);
    if (!result.applied || !result.successful) return null;
    const balanceId = tx.getClaimableBalanceId(0);
    const known = this.landed.get(balanceId);
    if (known) return known;
    const at = this.ledger.transaction(result.hash)!;
    const landed: Landed = {
      balanceId,
      reservationId: reservationId(b, slot),
      buyer: b,
      amount: toStroops(tx.operations[0]!.type === 'createClaimableBalance' ? tx.operations[0].amount : '0'),
      txHash: result.hash,
      tx: signed,
      ledger: at.ledger,
      closedAt: new Date(Number(at.closeTime) * 1000).toISOString(),
    };
    this.landed.set(balanceId, landed);
    return landed;
  }

  /** The pay route with a txHash: the deposit read back from the ledger (EscrowLedger.describeDeposit), then decided. */
  pay(b: number, slot: number, which: number, stale: number): Outcome {
    const rid = reservationId(b, slot);
    const mine = [...this.landed.values()].filter((l) => l.reservationId === rid);
    const l = mine[which % Math.max(1, mine.length)];
    if (!l) return { events: [] };
    const deposit = escrowLedger.describeDeposit(l.tx, { txHash: l.txHash, ledger: l.ledger, successful: true, closedAt: l.closedAt });
    return this.decide((p) => decideReservation({ type: 'PayReservation', data: { reservationId: rid, deposit, via: 'txHash', asset: ASSET }, metadata: this.buyerMeta(b) }, p), stale);
  }

  /**
   * Someone pays the escrow straight (not a deposit): it lands while the escrow trusts the stablecoin (before the first
   * lock), else the ledger fails it (op_no_trust). With `record`, the service then learns it (the sender's app hands
   * the hash to /pay, or the reconciliation runs).
   */
  payStraight(sender: Keypair, amount: bigint, record: boolean): void {
    const account = this.ledger.account(sender.publicKey())!;
    const tx = new TransactionBuilder(new Account(sender.publicKey(), account.seqNum.toString()), { fee: '100', networkPassphrase: PASSPHRASE, timebounds: { minTime: 0, maxTime: 0 } })
      .addOperation(Operation.payment({ destination: ESCROW, asset: EURC, amount: formatAmount(amount, 0) }))
      .build();
    const result = this.ledger.submit(signWith(tx, sender));
    if (!result.applied || !result.successful) return;
    for (const p of escrowPaymentsOf(this.ledger).filter((x) => x.txHash === result.hash)) {
      this.strays.set(p.operationId, { operationId: p.operationId, txHash: p.txHash, from: p.from, amount: toStroops(p.amount) });
    }
    if (record) this.recordStrays(0);
  }

  /** recordStrayPayments: the escrow's payments on the ledger, the strays not recorded yet recorded. */
  recordStrays(stale: number): Outcome {
    const payments = escrowPaymentsOf(this.ledger);
    return this.decide((p) => decideStrays({ type: 'RecordStrayPayments', data: { payments }, metadata: { now: this.iso } }, p), stale);
  }

  /** settlementAccounts: the payout account (a brokered pool), else the organiser's; the organiser's cosigning account; the platform. */
  accounts(): SettlementAccounts {
    const organiser = this.existing.escrow!.organiserSigner;
    return { seller: this.existing.fields.payoutAccount ?? organiser, organiser, platform: PLATFORM };
  }

  /** The pool as a route read it `stale` events ago (never behind what the acting party saw); null before it existed (404). */
  readStale(stale: number): ExistingPool | null {
    const behind = Math.min(stale, this.events.length - this.seen);
    const read = foldPool(this.events.slice(0, this.events.length - behind));
    return read.status === 'none' ? null : read;
  }

  /** Counts a refusal the service answers (an AppError); anything else is a bug and is thrown on. */
  refused(e: unknown): null {
    this.count(refusalOf(e));
    return null;
  }

  nextSettlementId(): string {
    return uuid('5e000000', ++this.settlements);
  }
}

export const toStroops = (amount: string): bigint => {
  const [whole, frac = ''] = amount.split('.');
  return BigInt(whole!) * 10_000_000n + BigInt(frac.padEnd(7, '0'));
};
