import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import type { ExistingPool } from '../pools/pool';
import {
  EXPIRES,
  NOW,
  POOL_ID,
  R1,
  R2,
  R3,
  alice,
  at,
  bob,
  fundingFields,
  groupsFields,
  openPool,
  organiserActor,
  place,
  placedEvent,
  poolCreated,
  reservationSpec,
} from './fixtures.testing';
import { unitCounts } from './holdings';
import { decideReservation } from './decide';
import { LEDGER_AMOUNT_EXCEEDED, MAX_LEDGER_AMOUNT, formatAmount } from '../money';

// decideReservation: PlaceReservation. Sign, pay, cancel, expire and the fold are in decide-lifecycle.unit.spec.ts.

const { given } = reservationSpec();

const placed = placedEvent;
const expiredEvent = (id: string, buyerId: string, expiresAt: string, expiredAt: string) => ({
  type: 'ReservationExpired' as const,
  data: { poolId: POOL_ID, reservationId: id, buyerId, expiresAt, expiredAt },
});

const groups = suite('reservation: place in a GROUPS pool');

groups('a buyer holds units at a pick-up point: PENDING until now + ttl, amount Σ quantity × price', () => {
  given(...openPool())
    .when(place({ lines: [{ unitId: 'u1', quantity: 2 }, { unitId: 'u2', quantity: 2 }] }))
    .then([
      placed({
        lines: [
          { unitId: 'u1', quantity: 2, unitPrice: '10.00' },
          { unitId: 'u2', quantity: 2, unitPrice: '2.50' },
        ],
        amount: '25.00',
      }),
    ]);
});

groups('a pool that is not OPEN, archived, past its deadline, or without escrow takes no reservation', () => {
  given(poolCreated()).when(place()).thenThrows(IllegalStateError, 'pool_not_open');
  given(...openPool(), { type: 'PoolArchived', data: { poolId: POOL_ID, archivedAt: NOW } }).when(place()).thenThrows(IllegalStateError, 'pool_not_open');
  given(...openPool(groupsFields({ deadline: NOW }))).when(place()).thenThrows(IllegalStateError, 'pool_deadline_passed');
  given(poolCreated(), openPool()[1]!).when(place()).thenThrows(IllegalStateError, 'escrow_not_open');
  given().when(place()).thenThrows(NotFoundError, 'pool_not_found');
});

groups('the organiser does not reserve in their own pool; a reservation id is used once', () => {
  given(...openPool()).when(place({ buyer: organiserActor })).thenThrows(ForbiddenError, 'organiser_cannot_reserve');
  given(...openPool(), placed({})).when(place({ buyer: bob })).thenThrows(ConflictError, 'reservation_exists');
});

groups('lines: at least one, each unit known and listed once, a positive whole quantity', () => {
  const keys = (e: ValidationError) => Object.keys(e.errors).sort();
  assert.equal(keys(given(...openPool()).when(place({ lines: [] })).thenThrows(ValidationError, 'validation_failed')), ['lines']);
  assert.equal(keys(given(...openPool()).when(place({ lines: [{ unitId: 'nope', quantity: 1 }] })).thenThrows(ValidationError, 'validation_failed')), ['lines.0.unitId']);
  const twice = place({ lines: [{ unitId: 'u1', quantity: 1 }, { unitId: 'u1', quantity: 1 }] });
  assert.equal(keys(given(...openPool()).when(twice).thenThrows(ValidationError, 'validation_failed')), ['lines.1.unitId']);
  for (const quantity of [0, -1, 1.5]) {
    const e = given(...openPool()).when(place({ lines: [{ unitId: 'u1', quantity }] })).thenThrows(ValidationError, 'validation_failed');
    assert.equal(keys(e), ['lines.0.quantity'], `quantity ${quantity}`);
  }
  const pledge = given(...openPool()).when(place({ pledge: '5.00' })).thenThrows(ValidationError, 'validation_failed');
  assert.equal(keys(pledge), ['pledge']);
  given(...openPool()).when(place({ lines: [{ unitId: 'u0', quantity: 1 }] })).thenThrows(ValidationError, 'nothing_to_pay');
});

groups('pick-up point: required when the pool has some, known, refused when it has none', () => {
  given(...openPool()).when(place({ relaisId: null })).thenThrows(ValidationError, 'validation_failed');
  given(...openPool()).when(place({ relaisId: 'r9' })).thenThrows(ValidationError, 'validation_failed');
  const noRelais = groupsFields({ config: { units: [{ id: 'u1', label: 'Panier', price: '10.00' }] } });
  given(...openPool(noRelais)).when(place({ relaisId: 'r1' })).thenThrows(ValidationError, 'validation_failed');
  const p = placed({});
  given(...openPool(noRelais)).when(place({ relaisId: null })).then([{ ...p, data: { ...p.data, relaisId: null } } as typeof p]);
});

groups('per-buyer limits count every holding reservation of that buyer, not other buyers’', () => {
  const e = given(...openPool(), placed({}))
    .when(place({ id: R2, lines: [{ unitId: 'u1', quantity: 2 }] }))
    .thenThrows(ValidationError, 'per_buyer_limit');
  assert.equal(e.errors, { 'lines.0.quantity': ['at most 3 per buyer (you hold 2)'] });
  given(...openPool(), placed({}))
    .when(place({ id: R2, lines: [{ unitId: 'u1', quantity: 1 }] }))
    .then([placed({ id: R2, lines: [{ unitId: 'u1', quantity: 1, unitPrice: '10.00' }], amount: '10.00' })]);
  given(...openPool(), placed({}))
    .when(place({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 3 }] }))
    .then([placed({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 3, unitPrice: '8.00' }], amount: '24.00' })]);
  given(...openPool()).when(place({ lines: [{ unitId: 'u2', quantity: 1 }] })).thenThrows(ValidationError, 'per_buyer_limit');
  // One held already: one more reaches the minimum.
  given(...openPool(), placed({ lines: [{ unitId: 'u2', quantity: 2, unitPrice: '2.50' }], amount: '5.00' }))
    .when(place({ id: R2, lines: [{ unitId: 'u2', quantity: 1 }] }))
    .then([placed({ id: R2, lines: [{ unitId: 'u2', quantity: 1, unitPrice: '2.50' }], amount: '2.50' })]);
});

groups('stock: exactly up to the stock is held; one more is 409 insufficient_stock saying what is left', () => {
  const held = [placed({ lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00' })];
  given(...openPool(), ...held)
    .when(place({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 2 }] }))
    .then([placed({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 2, unitPrice: '8.00' }], amount: '16.00' })]);
  const e = given(...openPool(), ...held)
    .when(place({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 3 }] }))
    .thenThrows(ConflictError, 'insufficient_stock');
  assert.equal(e.errors, { 'lines.0.quantity': ['only 2 of u1 left'] });
  const full = [...held, placed({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 2, unitPrice: '8.00' }], amount: '16.00' })];
  const none = given(...openPool(), ...full).when(place({ id: R3, buyer: { ...bob, userId: 'c0000000-0000-4000-8000-00000000000c' }, lines: [{ unitId: 'u1', quantity: 1 }] }));
  assert.equal(none.thenThrows(ConflictError, 'insufficient_stock').errors, { 'lines.0.quantity': ['only 0 of u1 left'] });
});

groups('stale PENDING reservations do not count and are expired on the way', () => {
  const stale = placed({ lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00', placedAt: at(NOW, -1000), expiresAt: at(NOW, -100) });
  given(...openPool(), stale)
    .when(place({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 3 }] }))
    .then([
      expiredEvent(R1, alice.userId, at(NOW, -100), NOW),
      placed({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00' }),
    ]);
  // Expiring exactly at now is stale too (a hold lasts strictly before expiresAt).
  const edge = placed({ lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00', placedAt: at(NOW, -900), expiresAt: NOW });
  const after = given(...openPool(), edge).when(place({ id: R2, lines: [{ unitId: 'u1', quantity: 3 }] })).then([
    expiredEvent(R1, alice.userId, NOW, NOW),
    placed({ id: R2, lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00' }),
  ]);
  assert.equal(unitCounts((after as ExistingPool).holdings, NOW).get('u1'), { held: 3, paid: 0 });
});

groups('tiers: the tier price applies when the pool’s total, this reservation included, reaches it', () => {
  given(...openPool())
    .when(place({ lines: [{ unitId: 'u1', quantity: 3 }] }))
    .then([placed({ lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00' })]);
  given(...openPool(), placed({ lines: [{ unitId: 'u1', quantity: 3, unitPrice: '10.00' }], amount: '30.00' }))
    .when(place({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 1 }] }))
    .then([placed({ id: R2, buyer: bob, lines: [{ unitId: 'u1', quantity: 1, unitPrice: '8.00' }], amount: '8.00' })]);
});

const funding = suite('reservation: pledge in a FUNDING pool');

funding('a buyer pledges an amount within the bounds; the amount is the pledge, canonical', () => {
  given(...openPool(fundingFields(), 'FUNDING'))
    .when(place({ lines: [], pledge: '12.5' }))
    .then([placed({ lines: [], pledge: '12.50', amount: '12.50' })]);
});

funding('a pledge outside the bounds, absent, zero, or with units is refused', () => {
  const pool = openPool(fundingFields(), 'FUNDING');
  given(...pool).when(place({ lines: [], pledge: '4.99' })).thenThrows(ValidationError, 'pledge_out_of_bounds');
  given(...pool).when(place({ lines: [], pledge: '100.01' })).thenThrows(ValidationError, 'pledge_out_of_bounds');
  given(...pool).when(place({ lines: [], pledge: null })).thenThrows(ValidationError, 'validation_failed');
  given(...pool).when(place({ lines: [], pledge: '0' })).thenThrows(ValidationError, 'validation_failed');
  given(...pool).when(place({ pledge: '10.00' })).thenThrows(ValidationError, 'validation_failed');
});

funding('expiry and lazy expiry apply to pledges too', () => {
  const stale = placed({ lines: [], pledge: '10.00', amount: '10.00', placedAt: at(NOW, -1000), expiresAt: at(NOW, -1) });
  given(...openPool(fundingFields(), 'FUNDING'), stale)
    .when(place({ id: R2, buyer: bob, lines: [], pledge: '10.00' }))
    .then([expiredEvent(R1, alice.userId, at(NOW, -1), NOW), placed({ id: R2, buyer: bob, lines: [], pledge: '10.00', amount: '10.00' })]);
});

groups.run();
funding.run();

const quoted = suite('reservation: placed as quoted, or not at all');
const quote = (o: Partial<{ validUntil: string; amount: string; unitPrice: string; quantity: number; depositFee: string }> = {}) => ({
  validUntil: o.validUntil ?? at(NOW, 60),
  ...(o.depositFee ? { depositFee: o.depositFee } : {}),
  amount: o.amount ?? '20.00',
  pledge: null,
  lines: [{ unitId: 'u1', quantity: o.quantity ?? 2, unitPrice: o.unitPrice ?? '10.00' }],
});
const placeQuoted = (q: ReturnType<typeof quote>, o: { now?: string; quantity?: number } = {}) => {
  const c = place({ lines: [{ unitId: 'u1', quantity: o.quantity ?? 2 }], ...(o.now ? { now: o.now } : {}) });
  return { ...c, data: { ...c.data, quote: q } } as typeof c;
};

quoted('given a quote still valid at the quoted prices, when the buyer reserves with it, then the reservation is charged exactly the quote', () => {
  given(...openPool())
    .when(placeQuoted(quote()))
    .then([placed({ lines: [{ unitId: 'u1', quantity: 2, unitPrice: '10.00' }], amount: '20.00' })]);
});

quoted('given a quote past its validUntil, when the buyer reserves with it, then 409 quote_expired and nothing is placed', () => {
  given(...openPool()).when(placeQuoted(quote({ validUntil: at(NOW, -1) }))).thenThrows(ConflictError, 'quote_expired');
});

quoted('given prices that moved since the quote, when the buyer reserves with it, then 409 quote_changed naming what moved', () => {
  given(...openPool()).when(placeQuoted(quote({ unitPrice: '9.00', amount: '18.00' }))).thenThrows(ConflictError, 'quote_changed');
});

quoted('given a quote for other lines, when the buyer reserves different quantities with it, then 400 quote_mismatch', () => {
  given(...openPool()).when(placeQuoted(quote(), { quantity: 3 })).thenThrows(ValidationError, 'quote_mismatch');
});

quoted('given a deposit fee in the quote, when the buyer reserves with it, then the reservation pays goods + fee; a fee that moved since is 409 quote_changed', () => {
  const rule = { percent: '2', fixed: '0.30', min: '0', cap: null };
  const c = placeQuoted(quote({ amount: '20.70', depositFee: '0.70' }));
  const withFee = { ...c, data: { ...c.data, depositFeeRule: rule } } as typeof c;
  given(...openPool())
    .when(withFee)
    .then([placed({ lines: [{ unitId: 'u1', quantity: 2, unitPrice: '10.00' }], amount: '20.70', depositFee: '0.70' })]);
  const raised = { ...withFee, data: { ...withFee.data, depositFeeRule: { ...rule, fixed: '0.50' } } } as typeof c;
  given(...openPool()).when(raised).thenThrows(ConflictError, 'quote_changed');
});

quoted.run();

const fee = suite('reservation: the escrow-deposit fee');
const withRule = (c: ReturnType<typeof place>, rule: { percent: string; fixed: string; min: string; cap: string | null }) => ({ ...c, data: { ...c.data, depositFeeRule: rule } }) as typeof c;

fee('given the tenant charges a deposit fee, when a buyer reserves units, then the amount is the goods plus the fee (percent + fixed, down to the cent), the fee recorded apart', () => {
  given(...openPool())
    .when(withRule(place({ lines: [{ unitId: 'u1', quantity: 2 }, { unitId: 'u2', quantity: 2 }] }), { percent: '1.5', fixed: '0.25', min: '0', cap: null }))
    // goods 25.00; 1.5 % = 0.375, + 0.25 = 0.625 → 0.62 (down to the cent)
    .then([placed({ lines: [{ unitId: 'u1', quantity: 2, unitPrice: '10.00' }, { unitId: 'u2', quantity: 2, unitPrice: '2.50' }], amount: '25.62', depositFee: '0.62' })]);
});

fee('given a minimum and a cap, then the fee is raised to the minimum and lowered to the cap; a FUNDING pledge pays it too', () => {
  given(...openPool())
    .when(withRule(place({ lines: [{ unitId: 'u2', quantity: 2 }] }), { percent: '1', fixed: '0', min: '1.00', cap: null }))
    .then([placed({ lines: [{ unitId: 'u2', quantity: 2, unitPrice: '2.50' }], amount: '6.00', depositFee: '1.00' })]);
  given(...openPool(fundingFields(), 'FUNDING'))
    .when(withRule(place({ lines: [], pledge: '100' }), { percent: '10', fixed: '0', min: '0', cap: '4.00' }))
    .then([placed({ lines: [], pledge: '100.00', amount: '104.00', depositFee: '4.00' })]);
});

fee('given a v1 ReservationPlaced (no deposit fee), when folded, then the reservation paid goods only', () => {
  const v1 = placed({ amount: '20.00' });
  delete (v1.data as { depositFee?: string }).depositFee;
  const state = given(...openPool(), v1).state() as ExistingPool;
  assert.is(state.holdings.byId.get(R1)!.depositFee, '0.00');
  assert.is(state.holdings.byId.get(R1)!.amount, '20.00', 'the amount is the goods');
});

fee.run();

const ledger = suite('reservation: what one ledger payment carries (MAX_LEDGER_AMOUNT)');

const MAX = formatAmount(MAX_LEDGER_AMOUNT);
const pastMax = formatAmount(MAX_LEDGER_AMOUNT + 1n);
const bigUnits = (units: Array<{ id: string; price: string }>) => groupsFields({ config: { units: units.map((u) => ({ ...u, label: u.id })), relais: [{ id: 'r1', name: 'Épicerie' }] } });
const openFunding = () => openPool(fundingFields({ config: { relais: [{ id: 'r1', name: 'Épicerie' }] } }), 'FUNDING');

ledger('a pledge at the bound is placed; one stroop past it is refused on pledge', () => {
  given(...openFunding()).when(place({ lines: [], pledge: MAX })).then([placed({ lines: [], pledge: MAX, amount: MAX })]);
  const e = given(...openFunding()).when(place({ lines: [], pledge: pastMax })).thenThrows(ValidationError, LEDGER_AMOUNT_EXCEEDED);
  assert.ok(e.errors.pledge);
});

ledger('price × quantity past the bound is refused on the line’s quantity, saying how many fit', () => {
  const e = given(...openPool(bigUnits([{ id: 'big', price: '1000000' }]))).when(place({ lines: [{ unitId: 'big', quantity: 1_000_000 }] })).thenThrows(ValidationError, LEDGER_AMOUNT_EXCEEDED);
  assert.match(e.errors['lines.0.quantity']![0]!, /at most 922337 of big/);
});

ledger('lines within the bound each, past it together, are refused on lines; so is a pool priced past it before the bound existed', () => {
  const two = given(...openPool(bigUnits([{ id: 'a', price: '500000' }, { id: 'b', price: '500000' }])))
    .when(place({ lines: [{ unitId: 'a', quantity: 1_000_000 }, { unitId: 'b', quantity: 1_000_000 }] }))
    .thenThrows(ValidationError, LEDGER_AMOUNT_EXCEEDED);
  assert.ok(two.errors.lines);
  given(...openPool(bigUnits([{ id: 'old', price: '999999999999999' }]))).when(place({ lines: [{ unitId: 'old', quantity: 1 }] })).thenThrows(ValidationError, LEDGER_AMOUNT_EXCEEDED);
});

ledger('goods within the bound plus the deposit fee past it are refused', () => {
  const withFee = { ...place({ lines: [], pledge: MAX }), data: { ...place({ lines: [], pledge: MAX }).data, depositFeeRule: { percent: '0', fixed: '0.01', min: '0', cap: null } } } as ReturnType<typeof place>;
  const e = given(...openFunding()).when(withFee).thenThrows(ValidationError, LEDGER_AMOUNT_EXCEEDED);
  assert.match(e.errors.pledge![0]!, /plus a fee of 0.01/);
});

ledger('a reservation that would take what the pool holds past the bound is refused; expired ones hold nothing', () => {
  const half = formatAmount(MAX_LEDGER_AMOUNT / 2n + 1n);
  const first = placed({ lines: [], pledge: half, amount: half });
  const e = given(...openFunding(), first).when(place({ id: R2, buyer: bob, lines: [], pledge: half })).thenThrows(ValidationError, LEDGER_AMOUNT_EXCEEDED);
  assert.match(e.errors.pledge![0]!, /can take deposits of/);
  const later = at(EXPIRES, 1);
  const placedLater = decideReservation(place({ id: R2, buyer: bob, lines: [], pledge: half, now: later }), given(...openFunding(), first).state());
  assert.ok(placedLater.some((ev) => ev.type === 'ReservationPlaced'));
});

ledger.run();
