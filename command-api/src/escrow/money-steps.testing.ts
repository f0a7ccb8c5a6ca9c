import fc from 'fast-check';
import { decideEscrow, decideReservation, formatAmount, parseAmount } from '@cagnotte/domain';
import { alone, prepare, recover, settle, submit } from './money-settlement.testing';
import { KEYS } from './money-ledger.testing';
import { MoneyWorld, disputeId, reservationId, type PoolSpec } from './money-world.testing';

// The money property's commands (money.property.int.spec.ts): what is generated (a pool, its buyers, each party's
// stream of commands, their interleaving, an ending) and how each step runs against a MoneyWorld.

const UNIT = 10_000_000n;

// ---- what is generated ----------------------------------------------------------------------------------------

const stale = fc.oneof({ weight: 5, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) });
/** Mostly the buyer's first reservation: commands on one that does not exist only get a 404. */
const slot = fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.constant(1) });

const unit = fc
  .record({
    price: fc.oneof(fc.bigInt({ min: 1n, max: 50n * UNIT }), fc.constantFrom(10n * UNIT, 12_345_678n, 1n, 3n)),
    quantity: fc.option(fc.integer({ min: 1, max: 8 }), { nil: null }),
    maxPerBuyer: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null, freq: 3 }),
    tier: fc.option(fc.record({ minQuantity: fc.integer({ min: 2, max: 5 }), permille: fc.integer({ min: 1, max: 999 }) }), { nil: null }),
  })
  .map((u) => ({ ...u, tier: u.tier ? { minQuantity: u.tier.minQuantity, price: (u.price * BigInt(u.tier.permille)) / 1000n || 1n } : null }));

const poolSpec: fc.Arbitrary<PoolSpec> = fc.record({
  type: fc.constantFrom('GROUPS' as const, 'FUNDING' as const),
  units: fc.array(unit, { minLength: 1, maxLength: 2 }),
  minimumUnits: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null, freq: 1 }),
  release: fc.option(fc.record({ after: fc.constantFrom('CLOSE' as const, 'RECEIPT' as const), inspectionDays: fc.integer({ min: 1, max: 5 }) }), { nil: null }),
  target: fc.oneof(fc.bigInt({ min: 1n, max: 10n * UNIT }), fc.bigInt({ min: 1n, max: 50n * UNIT })),
  deadlineHours: fc.integer({ min: 12, max: 120 }),
  brokered: fc.boolean(),
  commissionPercent: fc.option(fc.constantFrom('5', '12.5', '0.01', '33.33', '60'), { nil: null }),
  platformFeePercent: fc.constantFrom('0', '2', '2.5', '7.77', '50', '100'),
  depositFee: fc.option(
    fc.record({
      percent: fc.constantFrom('0', '1', '2.5', '12.34'),
      fixed: fc.constantFrom('0', '0.30', '1'),
      min: fc.constantFrom('0', '0.50'),
      cap: fc.constantFrom(null, '2.00', '0.60'),
    }),
    { nil: null },
  ),
  ttlSeconds: fc.constantFrom(600, 900, 3600),
  buyers: fc.integer({ min: 1, max: 3 }),
});

const qty = fc.oneof({ weight: 3, arbitrary: fc.integer({ min: 1, max: 2 }) }, { weight: 1, arbitrary: fc.integer({ min: 1, max: 4 }) });
const lines = fc.uniqueArray(fc.record({ unit: fc.integer({ min: 0, max: 1 }), qty }), { minLength: 1, maxLength: 2, selector: (l) => l.unit });
const pledge = fc.oneof(fc.bigInt({ min: 1n, max: 60n * UNIT }), fc.bigInt({ min: 5n * UNIT, max: 20n * UNIT }), fc.constantFrom(UNIT, 7n));

type BuyerCmd =
  | { kind: 'buy'; slot: number; lines: Array<{ unit: number; qty: number }>; pledge: bigint; pay: boolean }
  | { kind: 'reserve'; slot: number; lines: Array<{ unit: number; qty: number }>; pledge: bigint; stale: number }
  | { kind: 'sign' | 'cancel' | 'receipt' | 'dispute' | 'withdraw'; slot: number; stale: number }
  | { kind: 'deposit'; slot: number; pay: boolean }
  | { kind: 'pay'; slot: number; which: number; stale: number }
  /** The buyer pays the escrow straight (not their deposit); `record`: the service learns it at once (their app calls /pay). */
  | { kind: 'stray'; amount: bigint; record: boolean };
type OrganiserCmd =
  | { kind: 'close' | 'cancelPool' | 'deliver' | 'prepare'; stale: number }
  | { kind: 'contest'; buyer: number; slot: number; stale: number }
  | { kind: 'refund'; buyer: number; slot: number; permille: number; stale: number }
  /** The organiser submits the current plan, or an older one they had cosigned (superseded since, perhaps). */
  | { kind: 'submit'; what: 'all' | 'lock' | 'release' | 'unsignedRelease' | 'platformLock'; oldest: boolean; stale: number }
  | { kind: 'settle'; stale: number }
  | { kind: 'alone'; what: 'claim' | 'merge' | 'signer'; signer: 'platform' | 'platformAndEscrowKey' | 'organiser' };
type SystemCmd =
  | { kind: 'time'; seconds: number }
  | { kind: 'expire'; buyer: number; slot: number; stale: number }
  | { kind: 'deadline' | 'inspectionEnd' | 'lapse'; stale: number }
  | { kind: 'recovery' }
  /** The ending's waits: just past the deadline, the inspection period, every open dispute's time, the latest release window. */
  | { kind: 'toDeadline' | 'toInspectionEnd' | 'toLapse' | 'toRecovery' }
  /** Every buyer's app pays what it deposited and never recorded (late, most of them). */
  | { kind: 'payAll' }
  /** Someone who is no buyer pays the escrow straight. */
  | { kind: 'stray'; amount: bigint; record: boolean };

const strayAmount = fc.oneof(fc.bigInt({ min: 1n, max: 20n * UNIT }), fc.constantFrom(10n * UNIT, 1n));
const stray = fc.record({ kind: fc.constant('stray' as const), amount: strayAmount, record: fc.boolean() });

const buyerCmd: fc.Arbitrary<BuyerCmd> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('buy' as const), slot, lines, pledge, pay: fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reserve' as const), slot, lines, pledge, stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('sign' as const), slot, stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deposit' as const), slot, pay: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('pay' as const), slot, which: fc.nat(2), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancel' as const), slot, stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('receipt' as const), slot, stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('dispute' as const), slot, stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), slot, stale }) },
  { weight: 1, arbitrary: stray },
);
/** Most buyers start by buying (their own stream still interleaves with everyone else's). */
const firstBuy: fc.Arbitrary<BuyerCmd> = fc.record({ kind: fc.constant('buy' as const), slot: fc.constant(0), lines, pledge, pay: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) });
/** A buyer of the pool (taken modulo the pool's buyers). */
const buyer = fc.integer({ min: 0, max: 2 });
const organiserCmd: fc.Arbitrary<OrganiserCmd> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('close' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('cancelPool' as const), stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deliver' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('contest' as const), buyer, slot, stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('refund' as const), buyer, slot, permille: fc.integer({ min: 1, max: 1200 }), stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prepare' as const), stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('submit' as const), what: fc.constantFrom('all' as const, 'lock' as const, 'release' as const, 'unsignedRelease' as const, 'platformLock' as const), oldest: fc.boolean(), stale }) },
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('settle' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('alone' as const), what: fc.constantFrom('claim' as const, 'merge' as const, 'signer' as const), signer: fc.constantFrom('platform' as const, 'platformAndEscrowKey' as const, 'organiser' as const) }) },
);
const systemCmd: fc.Arbitrary<SystemCmd> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('time' as const), seconds: fc.oneof({ weight: 4, arbitrary: fc.integer({ min: 60, max: 1800 }) }, { weight: 3, arbitrary: fc.integer({ min: 3600, max: 43_200 }) }, { weight: 1, arbitrary: fc.integer({ min: 86_400, max: 2 * 86_400 }) }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('expire' as const), buyer, slot, stale }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('deadline' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('inspectionEnd' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('lapse' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('recovery' as const) }) },
  { weight: 1, arbitrary: stray },
);

export type Step = ({ actor: 'organiser' } & OrganiserCmd) | ({ actor: 'system' } & SystemCmd) | ({ actor: 'buyer'; buyer: number } & BuyerCmd);

/**
 * How a sequence ends, after its random part, so that most of them reach a settlement: the deadline passes and its
 * job runs, the organiser delivers, buyers confirm or dispute and the organiser answers (or settles what is due
 * already), the inspection period ends (what is accepted may settle then, released or recovered, while open disputes
 * hold theirs), every dispute's time runs out, the buyers' apps pay what they deposited, then the organiser settles
 * with their signature, or locks and vanishes (the recovery runs), or submits a release they did not sign (refused)
 * and then settles, or nothing happens.
 */
const inspection: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ actor: fc.constant('buyer' as const), buyer, kind: fc.constant('dispute' as const), slot, stale }) },
  { weight: 2, arbitrary: fc.record({ actor: fc.constant('buyer' as const), buyer, kind: fc.constantFrom('receipt' as const, 'withdraw' as const), slot, stale }) },
  { weight: 2, arbitrary: fc.record({ actor: fc.constant('organiser' as const), kind: fc.constant('contest' as const), buyer, slot, stale }) },
  { weight: 3, arbitrary: fc.record({ actor: fc.constant('organiser' as const), kind: fc.constant('refund' as const), buyer, slot, permille: fc.integer({ min: 1, max: 1200 }), stale }) },
  { weight: 1, arbitrary: fc.record({ actor: fc.constant('organiser' as const), kind: fc.constantFrom('settle' as const, 'prepare' as const), stale }) },
  { weight: 1, arbitrary: fc.record({ actor: fc.constant('organiser' as const), kind: fc.constant('submit' as const), what: fc.constantFrom('all' as const, 'lock' as const), oldest: fc.boolean(), stale }) },
  { weight: 1, arbitrary: fc.record({ actor: fc.constant('system' as const), kind: fc.constant('time' as const), seconds: fc.integer({ min: 3600, max: 3 * 86_400 }) }) },
);

const ending = (length: number) =>
  fc
    .record({
      early: fc.constantFrom('none' as const, 'release' as const, 'recovery' as const, 'replanned' as const, 'replannedLock' as const),
      path: fc.constantFrom('release' as const, 'recovery' as const, 'unsigned' as const, 'none' as const),
      inspection: fc.array(inspection, { maxLength: 8 * length, size: 'max' }),
    })
    .map(({ early, path, inspection }): Step[] => {
      const sys = (c: SystemCmd): Step => ({ actor: 'system', ...c });
      const org = (c: OrganiserCmd): Step => ({ actor: 'organiser', ...c });
      const lockThenRecover = [org({ kind: 'prepare', stale: 0 }), org({ kind: 'submit', what: 'lock', oldest: false, stale: 0 }), sys({ kind: 'toRecovery' }), sys({ kind: 'recovery' })];
      const replanned = early === 'replanned' || early === 'replannedLock';
      const settle = { none: [], release: [org({ kind: 'settle', stale: 0 })], recovery: lockThenRecover, replanned: [], replannedLock: [] };
      return [
        sys({ kind: 'toDeadline' }),
        sys({ kind: 'deadline', stale: 0 }),
        org({ kind: 'deliver', stale: 0 }),
        ...inspection,
        // The organiser cosigns a plan of what is accepted so far, the inspection period ends (more is due: the plan is
        // replaced), then the old plan, cosigned, is submitted all the same (or only its lock).
        ...(replanned ? [org({ kind: 'prepare', stale: 0 })] : []),
        sys({ kind: 'toInspectionEnd' }),
        sys({ kind: 'inspectionEnd', stale: 0 }),
        ...(replanned ? [org({ kind: 'prepare', stale: 0 }), org({ kind: 'submit', what: early === 'replanned' ? 'all' : 'lock', oldest: true, stale: 0 })] : []),
        // What is accepted settles while open disputes still hold theirs: the escrow is re-armed, not merged.
        ...settle[early],
        sys({ kind: 'toLapse' }),
        sys({ kind: 'lapse', stale: 0 }),
        sys({ kind: 'payAll' }),
        ...(path === 'unsigned' ? [org({ kind: 'prepare', stale: 0 }), org({ kind: 'submit', what: 'unsignedRelease', oldest: false, stale: 0 }), org({ kind: 'settle', stale: 0 })] : []),
        ...(path === 'recovery' ? [...lockThenRecover, org({ kind: 'settle', stale: 0 })] : []),
        ...(path === 'release' ? settle.release : []),
      ];
    });

/** Each actor's stream in its own order, merged in a random interleaving (the picks shrink on their own), then an ending. */
export const scenario = (length: number) =>
  poolSpec.chain((spec) =>
    fc
      .record({
        organiser: fc.array(organiserCmd, { maxLength: 5 * length, size: 'max' }),
        system: fc.array(systemCmd, { maxLength: 5 * length, size: 'max' }),
        buyers: fc.tuple(...Array.from({ length: spec.buyers }, () => fc.tuple(fc.option(firstBuy, { nil: null, freq: 5 }), fc.array(buyerCmd, { maxLength: 4 * length, size: 'max' })))),
        picks: fc.array(fc.nat(spec.buyers + 1), { maxLength: 25 * length, size: 'max' }),
        ending: ending(length),
      })
      .map(({ organiser, system, buyers, picks, ending }) => ({
        spec,
        steps: [...interleave(organiser, system, buyers.map(([first, rest]) => (first ? [first, ...rest] : rest)), picks), ...ending],
      })),
  );

const interleave = (organiser: OrganiserCmd[], system: SystemCmd[], buyers: BuyerCmd[][], picks: number[]): Step[] => {
  const streams: Step[][] = [
    organiser.map((c) => ({ actor: 'organiser' as const, ...c })),
    system.map((c) => ({ actor: 'system' as const, ...c })),
    ...buyers.map((list, b) => list.map((c) => ({ actor: 'buyer' as const, buyer: b, ...c }) as Step)),
  ];
  const at = streams.map(() => 0);
  const steps: Step[] = [];
  const total = streams.reduce((n, s) => n + s.length, 0);
  for (let i = 0; steps.length < total; i++) {
    let k = (picks[i] ?? i) % streams.length;
    while (at[k]! >= streams[k]!.length) k = (k + 1) % streams.length;
    steps.push(streams[k]![at[k]!++]!);
  }
  return steps;
};

// ---- how each step runs ---------------------------------------------------------------------------------------

export const run = (w: MoneyWorld, step: Step): void => {
  const party = step.actor === 'buyer' ? `buyer-${step.buyer % w.spec.buyers}` : step.actor;
  w.actAs(party);
  if (step.actor === 'buyer') runBuyer(w, step.buyer % w.spec.buyers, step);
  else if (step.actor === 'organiser') runOrganiser(w, step);
  else runSystem(w, step);
  w.doneAs(party);
};

const place = (w: MoneyWorld, b: number, c: { slot: number; lines: Array<{ unit: number; qty: number }>; pledge: bigint }, stale: number) => {
  const units = w.spec.units.length;
  const groups = w.spec.type === 'GROUPS';
  const data = {
    reservationId: reservationId(b, c.slot),
    lines: groups ? c.lines.filter((l, i) => i === 0 || l.unit < units).map((l) => ({ unitId: `u${l.unit % units}`, quantity: l.qty })) : [],
    pledge: groups ? null : formatAmount(c.pledge),
    relaisId: null,
    ttlSeconds: w.spec.ttlSeconds,
    ...(w.spec.depositFee ? { depositFeeRule: w.spec.depositFee } : {}),
  };
  return w.decide((p) => decideReservation({ type: 'PlaceReservation', data, metadata: w.buyerMeta(b) }, p), stale);
};

const runBuyer = (w: MoneyWorld, b: number, c: BuyerCmd): void => {
  if (c.kind === 'stray') return w.payStraight(KEYS.buyers[b]!, c.amount, c.record);
  const rid = reservationId(b, c.slot);
  const escrow = (command: Parameters<typeof decideEscrow>[0], stale: number) => w.decide((p) => decideEscrow(command, p), stale);
  switch (c.kind) {
    case 'buy': {
      if ('refused' in place(w, b, c, 0) || 'refused' in w.sign(b, c.slot, 0)) return;
      if (w.submitDeposit(b, c.slot) && c.pay) w.pay(b, c.slot, 9, 0);
      return;
    }
    case 'reserve':
      return void place(w, b, c, c.stale);
    case 'sign':
      return void w.sign(b, c.slot, c.stale);
    case 'deposit': {
      const landed = w.submitDeposit(b, c.slot);
      if (landed && c.pay) w.pay(b, c.slot, [...w.landed.values()].filter((l) => l.reservationId === rid).indexOf(landed), 0);
      return;
    }
    case 'pay':
      return void w.pay(b, c.slot, c.which, c.stale);
    case 'cancel':
      return void w.decide((p) => decideReservation({ type: 'CancelReservation', data: { reservationId: rid }, metadata: w.buyerMeta(b) }, p), c.stale);
    case 'receipt':
      return void escrow({ type: 'ConfirmReceipt', data: { reservationId: rid }, metadata: w.escrowMeta(b) }, c.stale);
    case 'dispute': {
      const data = { reservationId: rid, disputeId: disputeId(b, c.slot), reason: 'NOT_AS_DESCRIBED' as const, details: 'Broken', evidence: [] };
      return void escrow({ type: 'OpenDispute', data, metadata: w.escrowMeta(b) }, c.stale);
    }
    case 'withdraw':
      return void escrow({ type: 'WithdrawDispute', data: { disputeId: disputeId(b, c.slot) }, metadata: w.escrowMeta(b) }, c.stale);
    default:
      c satisfies never;
  }
};

const runOrganiser = (w: MoneyWorld, c: OrganiserCmd): void => {
  const escrow = (command: Parameters<typeof decideEscrow>[0], stale: number) => w.decide((p) => decideEscrow(command, p), stale);
  const meta = w.escrowMeta('organiser');
  switch (c.kind) {
    case 'close':
      return void escrow({ type: 'ClosePool', data: { reason: 'ORGANISER', policy: w.policy }, metadata: meta }, c.stale);
    case 'cancelPool':
      return void escrow({ type: 'CancelPool', data: { reason: null }, metadata: meta }, c.stale);
    case 'deliver':
      return void escrow({ type: 'MarkDelivered', data: { note: null }, metadata: meta }, c.stale);
    case 'contest':
      return void escrow({ type: 'ContestDispute', data: { disputeId: disputeId(c.buyer % w.spec.buyers, c.slot), statement: 'Delivered as described' }, metadata: meta }, c.stale);
    case 'refund': {
      // The organiser refunds a share of what the dispute holds (above it sometimes: refused).
      const b = c.buyer % w.spec.buyers;
      const held = w.existing.holdings.byId.get(reservationId(b, c.slot))?.dispute?.amount ?? '1';
      const amount = (parseAmount(held) * BigInt(c.permille)) / 1000n || 1n;
      return void escrow({ type: 'RefundDispute', data: { disputeId: disputeId(b, c.slot), amount: formatAmount(amount) }, metadata: meta }, c.stale);
    }
    case 'prepare':
      return void prepare(w, c.stale);
    case 'submit':
      return void submit(w, c.what, c.stale, c.oldest ? 'oldest' : null);
    case 'settle':
      return settle(w, c.stale);
    case 'alone':
      return alone(w, c.what, c.signer);
    default:
      c satisfies never;
  }
};

const runSystem = (w: MoneyWorld, c: SystemCmd): void => {
  const system = w.escrowMeta('system');
  switch (c.kind) {
    case 'time':
      return w.advance(c.seconds);
    case 'expire':
      return void w.decide((p) => decideReservation({ type: 'ExpireReservation', data: { reservationId: reservationId(c.buyer % w.spec.buyers, c.slot) }, metadata: { now: w.iso } }, p), c.stale);
    case 'deadline':
      return void w.decide((p) => (p.status === 'none' ? [] : decideEscrow({ type: 'ClosePool', data: { reason: 'DEADLINE', policy: w.policy }, metadata: system }, p)), c.stale);
    case 'inspectionEnd':
      return void w.decide((p) => decideEscrow({ type: 'EndInspection', data: {}, metadata: system }, p), c.stale);
    case 'lapse':
      return void w.decide((p) => decideEscrow({ type: 'LapseDisputes', data: {}, metadata: system }, p), c.stale);
    case 'recovery':
      return recover(w);
    case 'toDeadline':
      return w.advance(Math.max(60, (Date.parse(w.existing.fields.deadline!) - w.now) / 1000 + 60));
    case 'toInspectionEnd': {
      const ends = w.existing.closing?.inspectionEndsAt;
      return ends ? w.advance(Math.max(60, (Date.parse(ends) - w.now) / 1000 + 60)) : undefined;
    }
    case 'toLapse': {
      const due = [...w.existing.holdings.byId.values()].flatMap((r) => (r.dispute?.status === 'OPEN' ? [r.dispute.respondBy] : r.dispute?.status === 'CONTESTED' ? [r.dispute.lapsesAt!] : []));
      return w.advance(Math.max(60, ...due.map((d) => (Date.parse(d) - w.now) / 1000 + 60)));
    }
    case 'toRecovery': {
      const s = [...w.existing.settlement.byId.values()].at(-1);
      return s ? w.advance(Math.max(60, (Date.parse(s.recoveryFrom) - w.now) / 1000 + 60)) : undefined;
    }
    case 'payAll':
      for (const l of [...w.landed.values()]) {
        const [b, slotOf] = [l.buyer, Number(l.reservationId.slice(-1))];
        const mine = [...w.landed.values()].filter((x) => x.reservationId === l.reservationId);
        w.pay(b, slotOf, mine.indexOf(l), 0);
      }
      return;
    case 'stray':
      return w.payStraight(KEYS.stranger, c.amount, c.record);
    default:
      c satisfies never;
  }
};
