import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cutAt, parseAt, poolStateAt, type ExtraFold, type StateEvent } from './state';

const State = suite('audit: the state of a pool at a point of its history');

const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ORGANISER = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const BEA = '9d8c7b6a-5f4e-4d3c-8b2a-1f0e9d8c7b6a';
const BOB = '1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d';
const [R1, R2] = ['2b3c4d5e-6f7a-4b8c-9d0e-1f2a3b4c5d6e', '3c4d5e6f-7a8b-4c9d-8e1f-2a3b4c5d6e7f'];
const at = (minute: number) => new Date(Date.UTC(2026, 0, 5, 9, minute)).toISOString();

let n = 0;
/** The event at `revision`, at feed position commit-prepare, that occurred at `minute`. */
const ev = (revision: number, [commit, prepare]: [number, number], minute: number, type: string, data: object): StateEvent => ({
  id: `00000000-0000-4000-8000-${String(++n).padStart(12, '0')}`,
  revision: BigInt(revision),
  position: { commit: BigInt(commit), prepare: BigInt(prepare) },
  type,
  data,
  metadata: { tenantId: TENANT, occurredAt: at(minute) },
});

const placed = (reservationId: string, buyerId: string, buyerName: string, minute: number) => ({
  poolId: POOL, reservationId, buyerId, buyerName, lines: [{ unitId: 'u1', quantity: 2, unitPrice: '12.50' }], pledge: null, amount: '25.00', relaisId: 'r1', expiresAt: at(minute + 15), placedAt: at(minute),
});

const history: StateEvent[] = [
  ev(0, [100, 1], 0, 'PoolCreated', {
    poolId: POOL, tenantId: TENANT, type: 'GROUPS', organiserId: ORGANISER, organiserName: 'Org Anne', createdAt: at(0),
    title: 'Paniers', description: '', country: 'FR', currency: 'EUR', marketplaceVisibility: 'PRIVATE',
    config: { units: [{ id: 'u1', label: 'Panier', price: '12.50' }], relais: [{ id: 'r1', name: 'Épicerie' }], notes: 'owner only' },
    sellerId: null, payoutAccount: null, organiserCommissionPercent: null, targetAmount: null, deadline: null,
  }),
  ev(1, [101, 2], 1, 'PoolPublished', { poolId: POOL, publishedAt: at(1) }),
  ev(2, [102, 5], 2, 'ReservationPlaced', placed(R1, BEA, 'Bea', 2)),
  // A later transaction with a smaller sequence number: positions compare as two numbers.
  ev(3, [105, 3], 4, 'ReservationPaid', { poolId: POOL, reservationId: R1, buyerId: BEA, txHash: 'a'.repeat(64), ledger: 7, balanceId: 'b'.repeat(72), amount: '25.00', via: 'txHash', paidAt: at(4) }),
  ev(4, [106, 9], 6, 'ReservationPlaced', placed(R2, BOB, 'Bob', 6)),
  // A type no fold knows yet (the escrow's, say): the folds pass over it.
  ev(5, [107, 1], 40, 'PoolEscrowSettled', { poolId: POOL, settledAt: at(40) }),
];

const stateAt = (raw: string | null, options: Parameters<typeof poolStateAt>[1] = {}) => {
  const parsed = raw === null ? null : parseAt(raw);
  if (raw !== null) assert.ok(parsed, `${raw} parses`);
  return poolStateAt(cutAt(history, parsed), options);
};
const statuses = (s: ReturnType<typeof poolStateAt>) => s!.reservations.map((r) => [r.buyerName, r.status]);

State('at a revision: the events up to and including it, rendered when the last one occurred', () => {
  const s = stateAt('2')!;
  assert.is(s.pool.status, 'OPEN');
  assert.equal(statuses(s), [['Bea', 'PENDING']]);
  assert.equal(s.asOf, { position: '102-5', revision: 2, eventId: history[2]!.id, occurredAt: at(2) });
  assert.equal(s.pool.members.map((m) => m.displayName), ['Org Anne', 'Bea']);
  assert.is(s.pool.revision, 2);
  assert.is(s.pool.config.notes, 'owner only', 'the owner view');
});

State('at a position: before the payment PENDING, at it PAID (positions compare as (commit, prepare))', () => {
  assert.equal(statuses(stateAt('104-999')), [['Bea', 'PENDING']]);
  assert.equal(statuses(stateAt('105-3')), [['Bea', 'PAID']]);
  assert.equal(statuses(stateAt('105-2')), [['Bea', 'PENDING']]);
});

State('at a time: inclusive; the reservations are rendered at that time (lazy expiry)', () => {
  assert.equal(statuses(stateAt(at(3))), [['Bea', 'PENDING']]);
  assert.equal(statuses(stateAt(at(4))), [['Bea', 'PAID']]);
  assert.equal(statuses(stateAt('2026-01-05T10:04:00+01:00')), [['Bea', 'PAID']], 'any offset');
  // Bob's hold lapsed at minute 21; nothing recorded it by minute 30, yet at minute 30 it reads EXPIRED.
  const late = poolStateAt(cutAt(history, parseAt(at(30))), { at: new Date(at(30)) })!;
  assert.equal(statuses(late), [['Bea', 'PAID'], ['Bob', 'EXPIRED']]);
  assert.equal(late.pool.members.map((m) => m.displayName), ['Org Anne', 'Bea'], 'an expired hold makes no member');
});

State('without a point: the whole stream; a type no fold knows moves asOf and changes nothing else', () => {
  const head = stateAt(null)!;
  assert.equal(head.asOf.revision, 5);
  const before = poolStateAt(cutAt(history, parseAt('4')), { at: new Date(at(40)) })!;
  assert.equal(head.pool, { ...before.pool, revision: 5 });
  assert.equal(head.reservations, before.reservations);
});

State('before the first event there is no pool', () => {
  assert.is(stateAt('99-1'), null);
  assert.is(stateAt('2026-01-05T08:59:00Z'), null);
  assert.equal(cutAt(history, parseAt('99-1')), []);
});

State('the state is always a prefix of the stream: it stops at the first event past the point', () => {
  const skewed = [...history.slice(0, 3), { ...history[3]!, metadata: { tenantId: TENANT, occurredAt: at(1) } }];
  // The payment says it occurred at minute 1, but it follows the reservation of minute 2.
  assert.equal(cutAt(skewed, parseAt(at(1))).map((e) => Number(e.revision)), [0, 1]);
});

State('extra folds: a view of their own over the same events, beside pool and reservations', () => {
  const deposits: ExtraFold<{ paid: number; seen: string[] }> = {
    initial: () => ({ paid: 0, seen: [] }),
    fold: (s, e) => ({ paid: s.paid + (e.type === 'ReservationPaid' ? 1 : 0), seen: [...s.seen, e.type] }),
    view: (s, ctx) => ({ paid: s.paid, events: s.seen.length, pool: ctx.pool.id, at: ctx.at.toISOString() }),
  };
  const s = stateAt(null, { extraFolds: { escrow: deposits } })!;
  assert.equal(s.escrow, { paid: 1, events: 6, pool: POOL, at: at(40) });
  assert.equal(stateAt('2', { extraFolds: { escrow: deposits } })!.escrow, { paid: 0, events: 3, pool: POOL, at: at(2) });
});

State('parseAt: a position, a revision or a zoned ISO-8601 time; anything else is refused', () => {
  assert.equal(parseAt('12-34'), { kind: 'position', position: { commit: 12n, prepare: 34n } });
  assert.equal(parseAt('7'), { kind: 'revision', revision: 7n });
  assert.equal(parseAt('2026-01-05T09:04:00.5Z'), { kind: 'time', time: new Date('2026-01-05T09:04:00.500Z') });
  for (const bad of ['', '-1', '1.5', '0x10', '12-', '2026-01-05', '2026-01-05T09:04:00', '2026-13-45T99:00:00Z', 'yesterday', '1'.repeat(19)]) assert.is(parseAt(bad), null, bad);
});

State.run();
