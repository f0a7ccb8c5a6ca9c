import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolDraftFields, PoolEvent, PoolType, RelaisPoint } from '@cagnotte/event-schemas';
import { foldPool, pickupPointRowsOf, pickupPointsOf, relaisChanged, type PoolDoc } from './fold';

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';

const T0 = '2025-03-01T09:00:00+01:00';
const T1 = '2025-03-02T10:30:00+01:00';
const T2 = '2025-03-03T11:45:00+01:00';
const T3 = '2025-03-04T12:00:00+01:00';
const T4 = '2025-03-05T08:15:00+01:00';

const RELAIS_A: RelaisPoint = { id: 'r-a', name: 'Épicerie du coin', address: '1 rue de la Paix', postalCode: '75002', city: 'Paris', country: 'FR' };
const RELAIS_B: RelaisPoint = { id: 'r-b', name: 'Boulangerie Martin', lat: 48.85, lng: 2.35, openingHours: 'Mo-Fr 08:00-19:00' };
const RELAIS_C: RelaisPoint = { id: 'r-c', name: 'Mairie annexe' };

const fields = (overrides: Partial<PoolDraftFields> = {}): PoolDraftFields => ({
  title: 'Paniers de légumes bio',
  description: 'Commande groupée hebdomadaire',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: { units: [{ id: 'u1', label: 'Panier moyen', price: '12.50' }], relais: [RELAIS_A, RELAIS_B] },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
  ...overrides,
});

const created = (type: PoolType = 'GROUPS', f: PoolDraftFields = fields()): PoolEvent => ({
  type: 'PoolCreated',
  data: { ...f, poolId: POOL_ID, tenantId: TENANT_ID, type, organiserId: ORGANISER_ID, organiserName: 'Alice Martin', createdAt: T0 },
});
const draftUpdated = (changes: Partial<PoolDraftFields>, at = T1): PoolEvent => ({
  type: 'PoolDraftUpdated',
  data: { poolId: POOL_ID, changes, updatedAt: at },
});
const published = (at = T2): PoolEvent => ({ type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: at } });
const archived = (at = T3): PoolEvent => ({ type: 'PoolArchived', data: { poolId: POOL_ID, archivedAt: at } });
const unarchived = (at = T4): PoolEvent => ({ type: 'PoolUnarchived', data: { poolId: POOL_ID, unarchivedAt: at } });

/** A stream: events with their 0-based revisions. */
type Stream = Array<[PoolEvent, bigint]>;
const stream = (...events: PoolEvent[]): Stream => events.map((e, i) => [e, BigInt(i)]);

const fold = (history: Stream, from: PoolDoc | null = null): PoolDoc | null => history.reduce<PoolDoc | null>((doc, [e, r]) => foldPool(doc, e, r), from);

const docOf = (...events: PoolEvent[]): PoolDoc => {
  const doc = fold(stream(...events));
  assert.ok(doc, 'fixture history must produce a doc');
  return doc!;
};

const fullHistory = () =>
  stream(created(), draftUpdated({ title: 'Paniers XL', config: { units: [{ id: 'u1', label: 'Panier XL', price: '20' }], relais: [RELAIS_C, RELAIS_A] } }), published(), archived(), unarchived());

// ---------------------------------------------------------------------------------------------
// foldPool
// ---------------------------------------------------------------------------------------------

const foldSuite = suite('read-models/pools fold: foldPool');

foldSuite('given no doc, when PoolCreated at revision 3 is folded, then a DRAFT doc at revision 3 is built from its data', () => {
  const doc = foldPool(null, created(), 3n);
  assert.ok(doc);
  assert.is(doc!.revision, 3n);
  const p = doc!.pool;
  assert.is(p.status, 'DRAFT');
  assert.is(p.id, POOL_ID);
  assert.is(p.tenantId, TENANT_ID);
  assert.is(p.type, 'GROUPS');
  assert.is(p.organiserId, ORGANISER_ID);
  assert.is(p.organiserName, 'Alice Martin');
  assert.equal(p.fields, fields());
  assert.is(p.archivedAt, null);
  assert.is(p.publishedAt, null);
  assert.is(p.createdAt, T0);
  assert.is(p.updatedAt, T0);
});

foldSuite('given a doc at revision 2, when an event at revision 2 or below is folded, then the very same doc comes back', () => {
  const doc = fold(stream(created(), draftUpdated({ title: 'Nouveau titre' }), published()))!;
  assert.is(doc.revision, 2n);
  const snapshot = structuredClone(doc);
  for (const [e, r] of [
    [published(T3), 2n],
    [archived(), 2n],
    [draftUpdated({ title: 'Rejoué' }), 1n],
    [created('FUNDING'), 0n],
  ] as Array<[PoolEvent, bigint]>) {
    const again = foldPool(doc, e, r);
    assert.ok(again === doc, `${e.type} at revision ${r} must return the same object`);
  }
  assert.equal(doc, snapshot, 'the doc itself was not mutated');
  assert.is(doc.pool.status, 'OPEN');
  assert.is(doc.pool.fields.title, 'Nouveau titre');
});

foldSuite('given a doc, when a newer event is folded, then a new doc at that revision is returned and the old one is untouched', () => {
  const before = docOf(created());
  const after = foldPool(before, published(), 1n);
  assert.ok(after && after !== before);
  assert.is(after!.revision, 1n);
  assert.is(after!.pool.status, 'OPEN');
  assert.is(after!.pool.publishedAt, T2);
  assert.is(before.pool.status, 'DRAFT');
  assert.is(before.revision, 0n);
});

foldSuite('given no doc, when anything but PoolCreated is folded, then there is still no doc', () => {
  for (const e of [draftUpdated({ title: 'x' }), published(), archived(), unarchived()]) {
    assert.is(foldPool(null, e, 0n), null, e.type);
    assert.is(foldPool(null, e, 7n), null, e.type);
  }
});

foldSuite('given a whole history, when it is folded twice (from scratch, and replayed over the result), then the docs are identical', () => {
  const history = fullHistory();
  const first = fold(history)!;
  const second = fold(history)!;
  assert.equal(second, first);
  const replayed = fold(history, first);
  assert.ok(replayed === first, 'a full replay over the folded doc changes nothing');

  assert.is(first.revision, 4n);
  assert.is(first.pool.status, 'OPEN');
  assert.is(first.pool.archivedAt, null);
  assert.is(first.pool.publishedAt, T2);
  assert.is(first.pool.updatedAt, T4);
  assert.is(first.pool.fields.title, 'Paniers XL');
  assert.equal(pickupPointsOf(first.pool), [RELAIS_C, RELAIS_A]);
});

foldSuite('given at-least-once delivery, when events arrive duplicated and re-ordered backwards, then the doc equals the clean fold', () => {
  const h = fullHistory();
  const messy: Stream = [h[0]!, h[1]!, h[0]!, h[1]!, h[2]!, h[2]!, h[1]!, h[3]!, h[4]!, h[3]!, h[0]!, h[4]!];
  assert.equal(fold(messy), fold(h));
});

foldSuite('given an archived doc, when PoolUnarchived is folded, then archivedAt is cleared', () => {
  const a = docOf(created(), published(), archived());
  assert.is(a.pool.archivedAt, T3);
  const u = foldPool(a, unarchived(), 3n)!;
  assert.is(u.pool.archivedAt, null);
  assert.is(u.pool.updatedAt, T4);
});

foldSuite.run();

// ---------------------------------------------------------------------------------------------
// pickupPointsOf
// ---------------------------------------------------------------------------------------------

const pickup = suite('read-models/pools fold: pickupPointsOf');

pickup('a GROUPS pool shows its config.relais, in order', () => {
  assert.equal(pickupPointsOf(docOf(created()).pool), [RELAIS_A, RELAIS_B]);
  assert.equal(pickupPointsOf(docOf(created('GROUPS', fields({ config: { relais: [RELAIS_B, RELAIS_C, RELAIS_A] } }))).pool), [RELAIS_B, RELAIS_C, RELAIS_A]);
});

pickup('a GROUPS pool without relais has no pick-up points', () => {
  assert.equal(pickupPointsOf(docOf(created('GROUPS', fields({ config: { units: [] } }))).pool), []);
  assert.equal(pickupPointsOf(docOf(created('GROUPS', fields({ config: { relais: [] } }))).pool), []);
});

pickup('a FUNDING pool has no pick-up points, even when its config carries relais', () => {
  const funding = docOf(created('FUNDING', fields({ targetAmount: '250.00' })));
  assert.ok((funding.pool.fields.config.relais ?? []).length === 2, 'fixture: the config does hold relais');
  assert.equal(pickupPointsOf(funding.pool), []);
});

pickup.run();

// ---------------------------------------------------------------------------------------------
// relaisChanged
// ---------------------------------------------------------------------------------------------

const changed = suite('read-models/pools fold: relaisChanged');

changed('a new GROUPS pool with relais: changed; without relais: not changed', () => {
  assert.is(relaisChanged(null, docOf(created())), true);
  assert.is(relaisChanged(null, docOf(created('GROUPS', fields({ config: {} })))), false);
});

changed('a GROUPS pool whose config.relais is edited (added, removed, re-ordered, renamed): changed', () => {
  const before = docOf(created());
  const edits: Array<RelaisPoint[]> = [
    [RELAIS_A, RELAIS_B, RELAIS_C],
    [RELAIS_A],
    [],
    [RELAIS_B, RELAIS_A],
    [RELAIS_A, { ...RELAIS_B, name: 'Boulangerie Martin & fils' }],
  ];
  for (const relais of edits) {
    const after = foldPool(before, draftUpdated({ config: { ...before.pool.fields.config, relais } }), 1n)!;
    assert.is(relaisChanged(before, after), true, JSON.stringify(relais.map((r) => r.id)));
  }
  const dropped = foldPool(before, draftUpdated({ config: { units: [] } }), 1n)!;
  assert.is(relaisChanged(before, dropped), true, 'config replaced without relais');
});

changed('a GROUPS pool changed elsewhere (title, units, published, archived): not changed', () => {
  const before = docOf(created());
  const others: PoolEvent[] = [
    draftUpdated({ title: 'Autre titre' }),
    draftUpdated({ config: { units: [{ id: 'u2', label: 'Grand panier', price: '30' }], relais: [{ ...RELAIS_A }, { ...RELAIS_B }] } }),
    published(),
    archived(),
  ];
  for (const e of others) {
    const after = foldPool(before, e, 1n)!;
    assert.ok(after !== before);
    assert.is(relaisChanged(before, after), false, e.type);
  }
  assert.is(relaisChanged(before, before), false, 'the same doc');
});

changed('a FUNDING pool never changes pick-up points, whatever its config.relais does', () => {
  const before = docOf(created('FUNDING', fields({ targetAmount: '250.00' })));
  assert.is(relaisChanged(null, before), false, 'created');
  const after = foldPool(before, draftUpdated({ config: { relais: [RELAIS_C] } }), 1n)!;
  assert.equal(after.pool.fields.config.relais, [RELAIS_C]);
  assert.is(relaisChanged(before, after), false, 'edited');
});

/** Object keys in the order PostgreSQL jsonb returns them (shorter first, then bytewise), as a doc read back from rm_pools.doc has them. */
const jsonbOrder = (v: unknown): unknown =>
  Array.isArray(v)
    ? v.map(jsonbOrder)
    : v !== null && typeof v === 'object'
      ? Object.fromEntries(
          Object.entries(v)
            .sort(([a], [b]) => a.length - b.length || (a < b ? -1 : a > b ? 1 : 0))
            .map(([k, x]) => [k, jsonbOrder(x)]),
        )
      : v;

changed('the same relais read back from jsonb (keys re-ordered) and re-sent by an edit of the units: not changed', () => {
  const stored = docOf(created());
  const before: PoolDoc = { pool: jsonbOrder(stored.pool) as PoolDoc['pool'], revision: stored.revision };
  assert.equal(pickupPointsOf(before.pool), [RELAIS_A, RELAIS_B], 'same content');
  const after = foldPool(before, draftUpdated({ config: { units: [{ id: 'u2', label: 'Grand panier', price: '30' }], relais: [RELAIS_A, RELAIS_B] } }), 1n)!;
  assert.equal(pickupPointsOf(after.pool), pickupPointsOf(before.pool));
  assert.is(relaisChanged(before, after), false);
});

changed('given a point of the pool that became unavailable, then its row says so (the others stay available), and the rows are rewritten', () => {
  const before = docOf(created());
  const unavailable: PoolEvent = {
    type: 'PickupPointUnavailable',
    data: { poolId: POOL_ID, pointId: RELAIS_B.id, reason: 'temporarily_closed', detail: null, reservationIds: [], detectedAt: T1 },
  };
  const after = foldPool(before, unavailable, 1n)!;
  assert.is(relaisChanged(before, after), true);
  assert.equal(
    pickupPointRowsOf(after.pool).map((r) => [r.point_id, r.available, r.unavailable_reason]),
    [
      [RELAIS_A.id, true, null],
      [RELAIS_B.id, false, 'temporarily_closed'],
    ],
  );
  assert.is(after.pool.updatedAt, before.pool.updatedAt, 'the pool itself did not change');
  assert.is(foldPool(after, unavailable, 1n), after, 'replayed: unchanged');
  const retired = foldPool(after, { ...unavailable, data: { ...unavailable.data, reason: 'retired', detectedAt: T2 } } as PoolEvent, 2n)!;
  assert.is(relaisChanged(after, retired), true, 'another reason');
  assert.is(pickupPointRowsOf(retired.pool)[1]!.unavailable_reason, 'retired');
});

changed.run();
