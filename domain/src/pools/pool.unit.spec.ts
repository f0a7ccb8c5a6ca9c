import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventRegistry, type DomainEvent, type PoolDraftFields, type PoolEvent, type PoolType } from '@cagnotte/event-schemas';
import { AppError, ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { decidePool, evolvePool, foldPool, initialPool, type ExistingPool, type Pool, type PoolActor, type PoolCommand, type PoolPatch } from './pool';

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------

const TENANT_ID = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const POOL_ID = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const ORGANISER_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const OTHER_ORGANISER_ID = 'e8d7c6b5-a4f3-4e2d-8c1b-0a9f8e7d6c5b';
const SELLER_ID = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';

const T0 = '2025-03-01T09:00:00+01:00';
const T1 = '2025-03-02T10:30:00+01:00';
const T2 = '2025-03-03T11:45:00+01:00';
const T3 = '2025-03-04T12:00:00+01:00';

const PAYOUT_ACCOUNT = `G${'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.repeat(2).slice(0, 55)}`;
const MANDATE = { version: '2025-01', hash: 'a'.repeat(64) };

const organiser: PoolActor = { userId: ORGANISER_ID, role: 'organiser', accountType: 'BUSINESS', displayName: 'Alice Martin' };
const consumerOrganiser: PoolActor = { ...organiser, accountType: 'CONSUMER' };
/** The pool's owner whose organise capability is gone (role `user`). */
const ownerWithoutCapability: PoolActor = { ...organiser, role: 'user' };
const plainUser: PoolActor = { userId: OTHER_ORGANISER_ID, role: 'user', accountType: 'CONSUMER', displayName: 'Bob' };
const otherOrganiser: PoolActor = { userId: OTHER_ORGANISER_ID, role: 'organiser', accountType: 'BUSINESS', displayName: 'Bob Durand' };

const groupsFields = (overrides: Partial<PoolDraftFields> = {}): PoolDraftFields => ({
  title: 'Paniers de légumes bio',
  description: 'Commande groupée hebdomadaire',
  country: 'FR',
  currency: 'EUR',
  marketplaceVisibility: 'PRIVATE',
  config: { units: [{ id: 'u1', label: 'Panier moyen', price: '12.50' }] },
  sellerId: null,
  payoutAccount: null,
  organiserCommissionPercent: null,
  targetAmount: null,
  deadline: null,
  ...overrides,
});

const fundingFields = (overrides: Partial<PoolDraftFields> = {}): PoolDraftFields =>
  groupsFields({ title: 'Cagnotte fête des voisins', config: {}, targetAmount: '250.00', ...overrides });

// Events -------------------------------------------------------------------------------------

const poolCreated = (fields: PoolDraftFields = groupsFields(), type: PoolType = 'GROUPS'): PoolEvent => ({
  type: 'PoolCreated',
  data: { ...fields, poolId: POOL_ID, tenantId: TENANT_ID, type, organiserId: ORGANISER_ID, organiserName: 'Alice Martin', createdAt: T0 },
});
const poolPublished = (at = T1): PoolEvent => ({ type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: at } });
const poolArchived = (at = T2): PoolEvent => ({ type: 'PoolArchived', data: { poolId: POOL_ID, archivedAt: at } });
const poolUnarchived = (at = T3): PoolEvent => ({ type: 'PoolUnarchived', data: { poolId: POOL_ID, unarchivedAt: at } });
const draftUpdated = (changes: Partial<PoolDraftFields>, at = T1): PoolEvent => ({
  type: 'PoolDraftUpdated',
  data: { poolId: POOL_ID, changes, updatedAt: at },
});
/**
 * Events of other aggregates are not pool events (the type says so). These two stand for a stray one that reached
 * a pool stream anyway: the fold must still leave the pool as it is.
 */
const stray = (e: DomainEvent): PoolEvent => e as unknown as PoolEvent;
const accountRegistered = stray({
  type: 'AccountRegistered',
  data: {
    userId: OTHER_ORGANISER_ID,
    tenantId: TENANT_ID,
    email: 'bob@example.org',
    phone: null,
    displayName: 'Bob',
    role: 'user',
    accountType: 'CONSUMER',
    country: 'FR',
    currency: 'EUR',
    timezone: 'Europe/Paris',
    signupSource: 'web',
    registeredAt: T2,
  },
});
const tenantCreated = stray({
  type: 'TenantCreated',
  data: { tenantId: TENANT_ID, slug: 'acme', name: 'Acme', whiteLabel: false, approvedOrigins: [], createdAt: T0 },
});

// Commands -----------------------------------------------------------------------------------

const meta = (actor: PoolActor, now = T1) => ({ actor, now, ip: '203.0.113.7' });

const createPool = (
  options: { fields?: PoolDraftFields; poolType?: PoolType; actor?: PoolActor; mandate?: { version: string; hash: string } | null } = {},
): PoolCommand => ({
  type: 'CreatePool',
  data: {
    poolId: POOL_ID,
    tenantId: TENANT_ID,
    poolType: options.poolType ?? 'GROUPS',
    fields: options.fields ?? groupsFields(),
    commissionMandate: options.mandate ?? null,
  },
  metadata: meta(options.actor ?? organiser, T0),
});
const updatePool = (patch: PoolPatch, actor: PoolActor = organiser, now = T2): PoolCommand => ({
  type: 'UpdatePool',
  data: { patch },
  metadata: meta(actor, now),
});
const ESCROW = {
  accountId: `G${'E'.repeat(55)}`,
  organiserSigner: `G${'O'.repeat(55)}`,
  platformSigner: `G${'P'.repeat(55)}`,
  threshold: 2,
  reclaimAfter: '2027-03-01T00:00:00.000Z',
  setupTxHash: 'ab'.repeat(32),
};
const publishPool = (actor: PoolActor = organiser, now = T2): PoolCommand => ({ type: 'PublishPool', data: { escrow: ESCROW }, metadata: meta(actor, now) });
const archivePool = (actor: PoolActor = organiser, now = T2): PoolCommand => ({ type: 'ArchivePool', data: {}, metadata: meta(actor, now) });
const unarchivePool = (actor: PoolActor = organiser, now = T3): PoolCommand => ({ type: 'UnarchivePool', data: {}, metadata: meta(actor, now) });

// ---------------------------------------------------------------------------------------------
// given / when / then
// ---------------------------------------------------------------------------------------------

const eventMetadata = {
  tenantId: TENANT_ID,
  actor: { kind: 'user', id: ORGANISER_ID },
  correlationId: '11111111-2222-4333-8444-555555555555',
  causationId: null,
  occurredAt: T1,
};

/** Every decided event must also be storable: it has to pass its own published schema. */
const assertSchemaValid = (events: PoolEvent[]) => {
  for (const e of events) {
    try {
      eventRegistry.parse({ type: e.type, schemaVersion: eventRegistry.currentVersion(e.type), data: e.data, metadata: eventMetadata });
    } catch (error) {
      assert.unreachable(`${e.type} does not match its schema: ${(error as Error).message} ${JSON.stringify((error as { issues?: unknown }).issues)}`);
    }
  }
};

type ErrorClass<E extends AppError> = new (...args: never[]) => E;

const givenState = (state: Pool) => ({
  when: (command: PoolCommand) => ({
    then: (expected: PoolEvent[]) => {
      const actual = decidePool(command, state);
      assert.equal(actual, expected);
      assertSchemaValid(actual);
    },
    /** Asserts the decision throws an ErrorClass with that code, and hands the error back for more checks. */
    thenThrows: <E extends AppError>(errorClass: ErrorClass<E>, code: string): E => {
      let events: PoolEvent[];
      try {
        events = decidePool(command, state);
      } catch (error) {
        assert.instance(error, errorClass, `expected ${errorClass.name}, got ${String(error)}`);
        assert.is((error as E).code, code);
        return error as E;
      }
      return assert.unreachable(`expected ${errorClass.name} ${code}, got events ${JSON.stringify(events)}`) as never;
    },
  }),
});

const given = (events: PoolEvent[]) => givenState(events.reduce(evolvePool, initialPool()));

const fieldErrorKeys = (error: ValidationError) => Object.keys(error.errors).sort();

const existing = (state: Pool): ExistingPool => {
  if (state.status === 'none') return assert.unreachable('expected an existing pool') as never;
  return state;
};

// ---------------------------------------------------------------------------------------------
// CreatePool
// ---------------------------------------------------------------------------------------------

const create = suite('pool: create');

create('an organiser creates a pool: PoolCreated carries organiserId and organiserName from the actor', () => {
  given([])
    .when(createPool())
    .then([
      {
        type: 'PoolCreated',
        data: {
          ...groupsFields(),
          poolId: POOL_ID,
          tenantId: TENANT_ID,
          type: 'GROUPS',
          organiserId: ORGANISER_ID,
          organiserName: 'Alice Martin',
          createdAt: T0,
        },
      },
    ]);
});

create('the mode it is created in (an API key’s, or the deployment’s) is recorded on PoolCreated, and is no field of the pool', () => {
  const command = createPool();
  if (command.type !== 'CreatePool') return;
  const events = decidePool({ ...command, data: { ...command.data, livemode: true } }, initialPool());
  assert.is(events[0]?.type === 'PoolCreated' && events[0].data.livemode, true);
  const pool = events.reduce(evolvePool, initialPool());
  assert.is(pool.status !== 'none' && 'livemode' in pool.fields, false);
});

create('the organiser identity is the actor’s, whoever the actor is', () => {
  const events = decidePool(createPool({ actor: otherOrganiser }), initialPool());
  const first = events[0];
  assert.is(first?.type, 'PoolCreated');
  if (first?.type !== 'PoolCreated') return;
  assert.is(first.data.organiserId, OTHER_ORGANISER_ID);
  assert.is(first.data.organiserName, 'Bob Durand');
});

create('a FUNDING pool keeps its type', () => {
  given([])
    .when(createPool({ poolType: 'FUNDING', fields: fundingFields() }))
    .then([poolCreated(fundingFields(), 'FUNDING')]);
});

create('a user without the organise capability cannot create a pool', () => {
  given([]).when(createPool({ actor: plainUser })).thenThrows(ForbiddenError, 'organise_capability_required');
});

create('creating a pool that already exists is a conflict', () => {
  given([poolCreated()]).when(createPool()).thenThrows(ConflictError, 'pool_exists');
});

create('creating over an archived pool is still a conflict', () => {
  given([poolCreated(), poolArchived()]).when(createPool()).thenThrows(ConflictError, 'pool_exists');
});

create('organiserCommissionPercent from a CONSUMER account is forbidden', () => {
  given([])
    .when(createPool({ actor: consumerOrganiser, fields: groupsFields({ organiserCommissionPercent: '5' }) }))
    .thenThrows(ForbiddenError, 'business_account_required');
});

create('organiserCommissionPercent of 0 from a CONSUMER account is forbidden too (any value, not only positive)', () => {
  given([])
    .when(createPool({ actor: consumerOrganiser, fields: groupsFields({ organiserCommissionPercent: '0' }) }))
    .thenThrows(ForbiddenError, 'business_account_required');
});

create('a CONSUMER organiser without commission creates a pool', () => {
  given([]).when(createPool({ actor: consumerOrganiser })).then([poolCreated()]);
});

create('organiserCommissionPercent from a BUSINESS account is accepted', () => {
  const fields = groupsFields({ organiserCommissionPercent: '7.5' });
  given([]).when(createPool({ fields })).then([poolCreated(fields)]);
});

const commissionMandateAccepted: PoolEvent = {
  type: 'PoolCommissionMandateAccepted',
  data: { poolId: POOL_ID, userId: ORGANISER_ID, kind: 'COMMISSION', version: MANDATE.version, hash: MANDATE.hash, acceptedAt: T0, ip: '203.0.113.7' },
};

create('the COMMISSION mandate is recorded for a brokered GROUPS pool with a priced unit', () => {
  const fields = groupsFields({ sellerId: SELLER_ID, organiserCommissionPercent: '5' });
  given([])
    .when(createPool({ fields, mandate: MANDATE }))
    .then([poolCreated(fields), commissionMandateAccepted]);
});

create('the COMMISSION mandate is recorded for a brokered FUNDING pool with a positive targetAmount', () => {
  const fields = fundingFields({ sellerId: SELLER_ID, targetAmount: '0.0000001' });
  given([])
    .when(createPool({ poolType: 'FUNDING', fields, mandate: MANDATE }))
    .then([poolCreated(fields, 'FUNDING'), commissionMandateAccepted]);
});

create('one priced unit among free ones makes the pool paid', () => {
  const fields = groupsFields({
    sellerId: SELLER_ID,
    config: { units: [{ id: 'u0', label: 'Gratuit', price: '0' }, { id: 'u1', label: 'Payant', price: '3.00' }] },
  });
  given([])
    .when(createPool({ fields, mandate: MANDATE }))
    .then([poolCreated(fields), commissionMandateAccepted]);
});

create('no mandate is recorded when the organiser is the seller (not brokered)', () => {
  const fields = groupsFields({ sellerId: ORGANISER_ID });
  given([]).when(createPool({ fields, mandate: MANDATE })).then([poolCreated(fields)]);
});

create('no mandate is recorded when there is no seller (not brokered)', () => {
  given([]).when(createPool({ mandate: MANDATE })).then([poolCreated()]);
});

create('no mandate is recorded for a brokered free pool (zero prices, no target)', () => {
  const fields = groupsFields({ sellerId: SELLER_ID, config: { units: [{ id: 'u1', label: 'Gratuit', price: '0.00' }] } });
  given([]).when(createPool({ fields, mandate: MANDATE })).then([poolCreated(fields)]);
});

create('no mandate is recorded for a brokered FUNDING pool whose target is zero', () => {
  const fields = fundingFields({ sellerId: SELLER_ID, targetAmount: '0' });
  given([]).when(createPool({ poolType: 'FUNDING', fields, mandate: MANDATE })).then([poolCreated(fields, 'FUNDING')]);
});

create('no mandate is recorded when the organiser did not tick it, even for a brokered paid pool', () => {
  const fields = groupsFields({ sellerId: SELLER_ID });
  given([]).when(createPool({ fields, mandate: null })).then([poolCreated(fields)]);
});

create('every amount a pool is made of fits one ledger payment: prices, tier prices, pledge bounds, target, a stocked total (create and update)', () => {
  const past = '922337203685.4775808';
  const refused = (fields: PoolDraftFields, field: string, poolType: PoolType = 'GROUPS') => {
    const e = given([]).when(createPool({ poolType, fields })).thenThrows(ValidationError, 'ledger_amount_exceeded');
    assert.ok(e.errors[field], `${field}: ${JSON.stringify(e.errors)}`);
  };
  refused(groupsFields({ config: { units: [{ id: 'u1', label: 'U', price: '999999999999999' }] } }), 'config.units.0.price');
  refused(groupsFields({ config: { units: [{ id: 'u1', label: 'U', price: '1', tiers: [{ minQuantity: 2, price: past }] }] } }), 'config.units.0.tiers.0.price');
  refused(groupsFields({ config: { units: [{ id: 'u1', label: 'U', price: '1000000', quantity: 1_000_000 }] } }), 'config.units');
  refused(fundingFields({ targetAmount: past }), 'targetAmount', 'FUNDING');
  refused(fundingFields({ config: { pledge: { min: past } } }), 'config.pledge.min', 'FUNDING');
  const atBound = groupsFields({ config: { units: [{ id: 'u1', label: 'U', price: '922337203685.4775807' }] } });
  given([]).when(createPool({ fields: atBound })).then([poolCreated(atBound)]);
  const e = given([poolCreated(fundingFields(), 'FUNDING')]).when(updatePool({ targetAmount: past })).thenThrows(ValidationError, 'ledger_amount_exceeded');
  assert.ok(e.errors.targetAmount);
});

create.run();

// ---------------------------------------------------------------------------------------------
// UpdatePool while DRAFT
// ---------------------------------------------------------------------------------------------

const draft = suite('pool: update while DRAFT');

draft('emits PoolDraftUpdated with only the fields that changed', () => {
  given([poolCreated()])
    .when(updatePool({ title: 'Paniers de fruits', description: groupsFields().description, country: 'FR', deadline: '2025-04-01T00:00:00+02:00' }))
    .then([draftUpdated({ title: 'Paniers de fruits', deadline: '2025-04-01T00:00:00+02:00' }, T2)]);
});

draft('emits nothing when every sent value equals the current one', () => {
  given([poolCreated()]).when(updatePool({ ...groupsFields() })).then([]);
});

draft('emits nothing for an empty patch', () => {
  given([poolCreated()]).when(updatePool({})).then([]);
});

draft('compares with the state after earlier updates, not with the creation', () => {
  given([poolCreated(), draftUpdated({ title: 'Second titre' })])
    .when(updatePool({ title: 'Second titre' }))
    .then([]);
});

draft('money-spine fields (seller, payout, commission, relais in config) are editable while DRAFT', () => {
  const config = {
    units: [{ id: 'u1', label: 'Panier moyen', price: '12.50' }],
    relais: [{ id: 'r1', name: 'Épicerie du coin', city: 'Lyon', country: 'FR' }],
  };
  given([poolCreated()])
    .when(updatePool({ sellerId: SELLER_ID, payoutAccount: PAYOUT_ACCOUNT, organiserCommissionPercent: '10', config }))
    .then([draftUpdated({ sellerId: SELLER_ID, payoutAccount: PAYOUT_ACCOUNT, organiserCommissionPercent: '10', config }, T2)]);
});

draft('money-spine fields can be cleared while DRAFT', () => {
  const fields = groupsFields({ sellerId: SELLER_ID, payoutAccount: PAYOUT_ACCOUNT, organiserCommissionPercent: '10' });
  given([poolCreated(fields)])
    .when(updatePool({ sellerId: null, payoutAccount: null, organiserCommissionPercent: null }))
    .then([draftUpdated({ sellerId: null, payoutAccount: null, organiserCommissionPercent: null }, T2)]);
});

draft('a CONSUMER organiser cannot set organiserCommissionPercent', () => {
  given([poolCreated()])
    .when(updatePool({ organiserCommissionPercent: '5' }, consumerOrganiser))
    .thenThrows(ForbiddenError, 'business_account_required');
});

draft('a CONSUMER organiser can still edit other fields', () => {
  given([poolCreated()])
    .when(updatePool({ title: 'Nouveau titre' }, consumerOrganiser))
    .then([draftUpdated({ title: 'Nouveau titre' }, T2)]);
});

for (const visibility of ['LISTED', 'FEATURED'] as const) {
  draft(`setting ${visibility} through update is refused: it goes through the listing operation`, () => {
    const error = given([poolCreated()])
      .when(updatePool({ marketplaceVisibility: visibility }))
      .thenThrows(ValidationError, 'listing_requires_listing_operation');
    assert.equal(fieldErrorKeys(error), ['marketplaceVisibility']);
  });
}

draft('PATCH leaves a DRAFT pool DRAFT: status OPEN is refused with status_not_patchable, alone or with changes', () => {
  for (const patch of [{ status: 'OPEN' as const }, { title: 'Prêt', status: 'OPEN' as const }, { targetAmount: '100', status: 'OPEN' as const }]) {
    const error = given([poolCreated()]).when(updatePool(patch)).thenThrows(ValidationError, 'status_not_patchable');
    assert.equal(fieldErrorKeys(error), ['status']);
  }
});

draft('any other status through update is refused', () => {
  for (const status of ['CANCELLED', 'LOCKED', 'COMPLETED'] as const) {
    const error = given([poolCreated()]).when(updatePool({ status })).thenThrows(ValidationError, 'status_not_patchable');
    assert.equal(fieldErrorKeys(error), ['status']);
  }
});

draft('patch status DRAFT on a DRAFT pool changes nothing', () => {
  given([poolCreated()]).when(updatePool({ status: 'DRAFT' })).then([]);
});

draft('duplicate unit or relais ids are refused on create and on update, naming the duplicate', () => {
  const dupRelais = groupsFields({ config: { units: [{ id: 'u1', label: 'A', price: '1.00' }], relais: [{ id: 'r', name: 'A' }, { id: 'r', name: 'B' }] } });
  const e1 = given([]).when(createPool({ fields: dupRelais })).thenThrows(ValidationError, 'validation_failed') as ValidationError;
  assert.equal(Object.keys(e1.errors), ['config.relais.1.id']);
  const dupUnits = { units: [{ id: 'u', label: 'A', price: '1.00' }, { id: 'u', label: 'B', price: '2.00' }] };
  const e2 = given([poolCreated()]).when(updatePool({ config: dupUnits })).thenThrows(ValidationError, 'validation_failed') as ValidationError;
  assert.equal(Object.keys(e2.errors), ['config.units.1.id']);
});

draft.run();

// ---------------------------------------------------------------------------------------------
// UpdatePool once published
// ---------------------------------------------------------------------------------------------

const published = suite('pool: update once published');

const openPool = (fields: PoolDraftFields = groupsFields()) => [poolCreated(fields), poolPublished()];

published('a title change is refused with a per-field error', () => {
  const error = given(openPool()).when(updatePool({ title: 'Autre titre' })).thenThrows(ValidationError, 'pool_published');
  assert.equal(fieldErrorKeys(error), ['title']);
});

published('money-spine changes (seller, payout, config) are refused, each with its own field error', () => {
  const error = given(openPool())
    .when(
      updatePool({
        sellerId: SELLER_ID,
        payoutAccount: PAYOUT_ACCOUNT,
        config: { units: [{ id: 'u1', label: 'Panier moyen', price: '12.50' }], relais: [{ id: 'r1', name: 'Relais' }] },
      }),
    )
    .thenThrows(ValidationError, 'pool_published');
  assert.equal(fieldErrorKeys(error), ['config', 'payoutAccount', 'sellerId']);
});

published('a commission change by a BUSINESS organiser is refused once published', () => {
  const error = given(openPool()).when(updatePool({ organiserCommissionPercent: '3' })).thenThrows(ValidationError, 'pool_published');
  assert.equal(fieldErrorKeys(error), ['organiserCommissionPercent']);
});

published('a refused field is refused even alongside allowed ones, and nothing is emitted', () => {
  const error = given(openPool())
    .when(updatePool({ country: 'BE', targetAmount: '10', description: 'Autre' }))
    .thenThrows(ValidationError, 'pool_published');
  assert.equal(fieldErrorKeys(error), ['description', 'targetAmount']);
});

published('marketplaceVisibility to PRIVATE emits PoolVisibilityChanged, refund null without a listing fee', () => {
  given(openPool(groupsFields({ marketplaceVisibility: 'LISTED' })))
    .when(updatePool({ marketplaceVisibility: 'PRIVATE' }))
    .then([{ type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'LISTED', to: 'PRIVATE', refund: null, changedAt: T2 } }]);
});

const FEE_TX = 'cd'.repeat(32);
const LISTING_ID = '7b0c1f2e-0000-4000-8000-00000000000a';
const poolListed = (at = T1, amount = '9.90'): PoolEvent => ({
  type: 'PoolListed',
  data: { poolId: POOL_ID, listingId: LISTING_ID, tier: 'FEATURED', from: 'PRIVATE', amount, txHash: FEE_TX, ledger: 12, listedAt: at },
});

published('delisting an OPEN pool within the window of its paid listing refunds the fee (the fee payment is its source)', () => {
  given([...openPool(), poolListed(T1)])
    .when(updatePool({ marketplaceVisibility: 'PRIVATE' }))
    .then([{ type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'FEATURED', to: 'PRIVATE', refund: { amount: '9.90', source: FEE_TX }, changedAt: T2 } }]);
});

published('delisting after the refund window, or after a buyer paid, refunds nothing; a free listing has nothing to refund', () => {
  const delist = (events: PoolEvent[], windowHours?: number) =>
    given(events)
      .when({ type: 'UpdatePool', data: { patch: { marketplaceVisibility: 'PRIVATE' }, ...(windowHours !== undefined ? { delistRefundWindowHours: windowHours } : {}) }, metadata: updatePool({}).metadata })
      .then([{ type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'FEATURED', to: 'PRIVATE', refund: null, changedAt: T2 } }]);
  delist([...openPool(), poolListed(T1)], 24);
  delist([...openPool(), { ...poolListed(T1, '0'), data: { ...(poolListed(T1, '0').data as object), txHash: null, ledger: null } } as PoolEvent]);
  const placed: PoolEvent = {
    type: 'ReservationPlaced',
    data: { poolId: POOL_ID, reservationId: '7b0c1f2e-0000-4000-8000-0000000000b1', buyerId: '7b0c1f2e-0000-4000-8000-0000000000b2', buyerName: 'B', lines: [], pledge: '5.00', amount: '5.00', relaisId: null, expiresAt: T3, placedAt: T1 },
  };
  const paid: PoolEvent = {
    type: 'ReservationPaid',
    data: { poolId: POOL_ID, reservationId: '7b0c1f2e-0000-4000-8000-0000000000b1', buyerId: '7b0c1f2e-0000-4000-8000-0000000000b2', txHash: 'ef'.repeat(32), ledger: 13, balanceId: `00000000${'12'.repeat(32)}`, amount: '5.00', via: 'txHash', paidAt: T1 },
  };
  delist([...openPool(), poolListed(T1), placed, paid]);
});

published('country change emits PoolCountryChanged', () => {
  given(openPool())
    .when(updatePool({ country: 'BE' }))
    .then([{ type: 'PoolCountryChanged', data: { poolId: POOL_ID, from: 'FR', to: 'BE', changedAt: T2 } }]);
});

published('visibility and country together emit both events', () => {
  given(openPool(groupsFields({ marketplaceVisibility: 'LISTED' })))
    .when(updatePool({ country: 'DE', marketplaceVisibility: 'PRIVATE' }))
    .then([
      { type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'LISTED', to: 'PRIVATE', refund: null, changedAt: T2 } },
      { type: 'PoolCountryChanged', data: { poolId: POOL_ID, from: 'FR', to: 'DE', changedAt: T2 } },
    ]);
});

published('the country compared against is the latest one', () => {
  given([...openPool(), { type: 'PoolCountryChanged', data: { poolId: POOL_ID, from: 'FR', to: 'BE', changedAt: T2 } }])
    .when(updatePool({ country: 'FR' }, organiser, T3))
    .then([{ type: 'PoolCountryChanged', data: { poolId: POOL_ID, from: 'BE', to: 'FR', changedAt: T3 } }]);
});

published('sending the unchanged values of every other field is accepted and emits nothing', () => {
  const fields = groupsFields({ sellerId: SELLER_ID, payoutAccount: PAYOUT_ACCOUNT, organiserCommissionPercent: '5', targetAmount: '80' });
  given(openPool(fields)).when(updatePool({ ...fields, status: 'OPEN' })).then([]);
  given(openPool(fields)).when(updatePool({ status: 'OPEN' })).then([]);
});

published('unchanged values alongside a country change: only PoolCountryChanged', () => {
  given(openPool())
    .when(updatePool({ ...groupsFields(), country: 'IT' }))
    .then([{ type: 'PoolCountryChanged', data: { poolId: POOL_ID, from: 'FR', to: 'IT', changedAt: T2 } }]);
});

// The event store keeps data as jsonb, which reorders object keys: an unchanged config sent back in another key order is no change.
published('unchanged config sent with its keys in another order is accepted and emits nothing', () => {
  const config = { units: [{ id: 'u1', label: 'Panier moyen', price: '12.50' }], relais: [{ id: 'r1', name: 'Épicerie', city: 'Lyon' }] };
  given(openPool(groupsFields({ config })))
    .when(updatePool({ config: { relais: [{ city: 'Lyon', name: 'Épicerie', id: 'r1' }], units: [{ price: '12.50', label: 'Panier moyen', id: 'u1' }] } }))
    .then([]);
});

for (const visibility of ['LISTED', 'FEATURED'] as const) {
  published(`setting ${visibility} through update is refused with listing_requires_listing_operation`, () => {
    const error = given(openPool())
      .when(updatePool({ marketplaceVisibility: visibility }))
      .thenThrows(ValidationError, 'listing_requires_listing_operation');
    assert.equal(fieldErrorKeys(error), ['marketplaceVisibility']);
  });
}

published('moving a published pool back to DRAFT through update is refused', () => {
  const error = given(openPool()).when(updatePool({ status: 'DRAFT' })).thenThrows(ValidationError, 'status_not_patchable');
  assert.equal(fieldErrorKeys(error), ['status']);
});

published.run();

// ---------------------------------------------------------------------------------------------
// PublishPool
// ---------------------------------------------------------------------------------------------

const publish = suite('pool: publish');

publish('a complete GROUPS pool is published', () => {
  given([poolCreated()])
    .when(publishPool())
    .then([
      { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T2 } },
      { type: 'PoolEscrowOpened', data: { poolId: POOL_ID, ...ESCROW, openedAt: T2 } },
    ]);
});

publish('a FUNDING pool with a positive targetAmount is published', () => {
  given([poolCreated(fundingFields(), 'FUNDING')])
    .when(publishPool())
    .then([
      { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T2 } },
      { type: 'PoolEscrowOpened', data: { poolId: POOL_ID, ...ESCROW, openedAt: T2 } },
    ]);
});

publish('a GROUPS pool without units is incomplete', () => {
  const error = given([poolCreated(groupsFields({ config: {} }))]).when(publishPool()).thenThrows(ValidationError, 'pool_incomplete');
  assert.equal(fieldErrorKeys(error), ['config.units']);
});

publish('a GROUPS pool with an empty units list is incomplete', () => {
  given([poolCreated(groupsFields({ config: { units: [] } }))]).when(publishPool()).thenThrows(ValidationError, 'pool_incomplete');
});

publish('a FUNDING pool without targetAmount is incomplete', () => {
  const error = given([poolCreated(fundingFields({ targetAmount: null }), 'FUNDING')])
    .when(publishPool())
    .thenThrows(ValidationError, 'pool_incomplete');
  assert.equal(fieldErrorKeys(error), ['targetAmount']);
});

publish('a FUNDING pool with a zero targetAmount is incomplete', () => {
  given([poolCreated(fundingFields({ targetAmount: '0.0000000' }), 'FUNDING')])
    .when(publishPool())
    .thenThrows(ValidationError, 'pool_incomplete');
});

publish('a FUNDING pool needs no units', () => {
  given([poolCreated(fundingFields({ config: { units: [] } }), 'FUNDING')])
    .when(publishPool())
    .then([
      { type: 'PoolPublished', data: { poolId: POOL_ID, publishedAt: T2 } },
      { type: 'PoolEscrowOpened', data: { poolId: POOL_ID, ...ESCROW, openedAt: T2 } },
    ]);
});

publish('an already published pool cannot be published again', () => {
  given([poolCreated(), poolPublished()]).when(publishPool()).thenThrows(IllegalStateError, 'pool_not_draft');
});

publish('an organiser who does not own the pool cannot publish it', () => {
  given([poolCreated()]).when(publishPool(otherOrganiser)).thenThrows(NotFoundError, 'pool_not_found');
});

publish.run();

// ---------------------------------------------------------------------------------------------
// ArchivePool / UnarchivePool
// ---------------------------------------------------------------------------------------------

const archive = suite('pool: archive and unarchive');

archive('archiving a pool emits PoolArchived', () => {
  given([poolCreated()])
    .when(archivePool())
    .then([{ type: 'PoolArchived', data: { poolId: POOL_ID, archivedAt: T2 } }]);
});

archive('archiving a published pool emits PoolArchived', () => {
  given([poolCreated(), poolPublished()])
    .when(archivePool(organiser, T3))
    .then([{ type: 'PoolArchived', data: { poolId: POOL_ID, archivedAt: T3 } }]);
});

archive('archiving twice is an illegal state', () => {
  given([poolCreated(), poolArchived()]).when(archivePool(organiser, T3)).thenThrows(IllegalStateError, 'pool_already_archived');
});

archive('unarchiving a pool that is not archived is an illegal state', () => {
  given([poolCreated()]).when(unarchivePool()).thenThrows(IllegalStateError, 'pool_not_archived');
});

archive('unarchiving an archived pool emits PoolUnarchived', () => {
  given([poolCreated(), poolArchived()])
    .when(unarchivePool())
    .then([{ type: 'PoolUnarchived', data: { poolId: POOL_ID, unarchivedAt: T3 } }]);
});

archive('after unarchive the pool can be archived again, and not unarchived twice', () => {
  const history = [poolCreated(), poolArchived(), poolUnarchived()];
  given(history).when(unarchivePool()).thenThrows(IllegalStateError, 'pool_not_archived');
  given(history)
    .when(archivePool(organiser, '2025-03-05T08:00:00+01:00'))
    .then([{ type: 'PoolArchived', data: { poolId: POOL_ID, archivedAt: '2025-03-05T08:00:00+01:00' } }]);
});

archive.run();

// ---------------------------------------------------------------------------------------------
// Ownership and capability
// ---------------------------------------------------------------------------------------------

const access = suite('pool: ownership and capability');

const ownerCommands: Array<[string, (actor: PoolActor) => PoolCommand]> = [
  ['update', (actor) => updatePool({ title: 'Piraté' }, actor)],
  ['publish', (actor) => publishPool(actor)],
  ['archive', (actor) => archivePool(actor)],
  ['unarchive', (actor) => unarchivePool(actor)],
];

for (const [name, command] of ownerCommands) {
  access(`${name} by another organiser: the pool does not exist for them (pool_not_found)`, () => {
    given([poolCreated(), ...(name === 'unarchive' ? [poolArchived()] : [])])
      .when(command(otherOrganiser))
      .thenThrows(NotFoundError, 'pool_not_found');
  });

  if (name === 'archive' || name === 'unarchive') {
    access(`${name} by a user without the organise capability: forbidden (the role is checked before ownership)`, () => {
      given([poolCreated(), ...(name === 'unarchive' ? [poolArchived()] : [])]).when(command(plainUser)).thenThrows(ForbiddenError, 'organise_capability_required');
      given([]).when(command(plainUser)).thenThrows(ForbiddenError, 'organise_capability_required');
    });
  } else {
    access(`${name} by another user without capability: still pool_not_found, no hint it exists`, () => {
      given([poolCreated()]).when(command(plainUser)).thenThrows(NotFoundError, 'pool_not_found');
    });
  }

  access(`${name} on a missing pool: pool_not_found`, () => {
    given([]).when(command(organiser)).thenThrows(NotFoundError, 'pool_not_found');
  });

  access(`${name} on a stream holding only other aggregates' events: pool_not_found`, () => {
    given([tenantCreated, accountRegistered]).when(command(organiser)).thenThrows(NotFoundError, 'pool_not_found');
  });

  access(`${name} by the owner who lost the organise capability: forbidden`, () => {
    given([poolCreated(), ...(name === 'unarchive' ? [poolArchived()] : [])])
      .when(command(ownerWithoutCapability))
      .thenThrows(ForbiddenError, 'organise_capability_required');
  });
}

access.run();

// ---------------------------------------------------------------------------------------------
// Secret keys
// ---------------------------------------------------------------------------------------------

const secrets = suite('pool: secret keys are never stored');
const SEED = `S${'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567'.repeat(2).slice(0, 55)}`;

secrets('a Stellar secret seed anywhere in a create command is refused with secret_key_refused, naming each field', () => {
  const fields = groupsFields({
    description: `my key: ${SEED}`,
    config: { units: [{ id: 'u1', label: SEED, price: '1' }], notes: SEED, links: [`https://x.test/?k=${SEED}`] },
  });
  const error = given([]).when(createPool({ fields })).thenThrows(ValidationError, 'secret_key_refused');
  assert.equal(fieldErrorKeys(error), ['config.links.0', 'config.notes', 'config.units.0.label', 'description']);
});

secrets('a secret seed in an update is refused, draft or published', () => {
  for (const history of [[poolCreated()], openPool()]) {
    const error = given(history).when(updatePool({ config: { notes: SEED } })).thenThrows(ValidationError, 'secret_key_refused');
    assert.equal(fieldErrorKeys(error), ['config.notes']);
  }
});

secrets('account ids (G…), longer base32 runs and lower case are not secret seeds', () => {
  given([]).when(createPool({ fields: groupsFields({ payoutAccount: PAYOUT_ACCOUNT, description: `${SEED}A ${SEED.toLowerCase()}` }) })).then([poolCreated(groupsFields({ payoutAccount: PAYOUT_ACCOUNT, description: `${SEED}A ${SEED.toLowerCase()}` }))]);
});

secrets.run();

// ---------------------------------------------------------------------------------------------
// evolvePool / foldPool
// ---------------------------------------------------------------------------------------------

const evolve = suite('pool: evolve and fold');

evolve('the initial state is none', () => {
  assert.equal(initialPool(), { status: 'none' });
  assert.equal(foldPool([]), { status: 'none' });
});

evolve('PoolCreated folds to a DRAFT pool with its fields', () => {
  assert.equal(foldPool([poolCreated()]), {
    status: 'DRAFT',
    id: POOL_ID,
    tenantId: TENANT_ID,
    type: 'GROUPS',
    organiserId: ORGANISER_ID,
    organiserName: 'Alice Martin',
    fields: groupsFields(),
    archivedAt: null,
    publishedAt: null,
    listingFee: null,
    escrow: null,
    holdings: { byId: new Map(), pending: new Set() },
    listing: { prepared: [], listedAt: null, listingId: null, source: null, owed: null, refunded: [] },
    closing: null,
    cancelledAt: null,
    settlement: { byId: new Map(), strays: new Map(), currentId: null, mergedAt: null, released: 0n, refunded: 0n },
    commissionMandate: false,
    relais: { unavailable: new Map(), shipments: new Map(), collected: new Map() },
    createdAt: T0,
    updatedAt: T0,
  });
});

evolve('status is OPEN after PoolPublished, with publishedAt', () => {
  const pool = existing(foldPool([poolCreated(), poolPublished(T1)]));
  assert.is(pool.status, 'OPEN');
  assert.is(pool.publishedAt, T1);
  assert.is(pool.updatedAt, T1);
});

evolve('archivedAt is set by PoolArchived and cleared by PoolUnarchived', () => {
  const archived = existing(foldPool([poolCreated(), poolArchived(T2)]));
  assert.is(archived.archivedAt, T2);
  assert.is(archived.updatedAt, T2);
  const unarchived = existing(foldPool([poolCreated(), poolArchived(T2), poolUnarchived(T3)]));
  assert.is(unarchived.archivedAt, null);
  assert.is(unarchived.updatedAt, T3);
  assert.is(unarchived.status, 'DRAFT');
});

evolve('PoolDraftUpdated merges the changed fields into the others', () => {
  const pool = existing(foldPool([poolCreated(), draftUpdated({ title: 'Nouveau', sellerId: SELLER_ID }, T1)]));
  assert.equal(pool.fields, { ...groupsFields(), title: 'Nouveau', sellerId: SELLER_ID });
  assert.is(pool.updatedAt, T1);
  assert.is(pool.createdAt, T0);
});

evolve('successive updates merge in order, the last value wins', () => {
  const pool = existing(foldPool([poolCreated(), draftUpdated({ title: 'Un' }, T1), draftUpdated({ title: 'Deux', country: 'BE' }, T2)]));
  assert.is(pool.fields.title, 'Deux');
  assert.is(pool.fields.country, 'BE');
  assert.is(pool.fields.description, groupsFields().description);
});

evolve('PoolVisibilityChanged and PoolCountryChanged update their field', () => {
  const pool = existing(
    foldPool([
      ...openPool(groupsFields({ marketplaceVisibility: 'LISTED' })),
      { type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'LISTED', to: 'PRIVATE', refund: null, changedAt: T2 } },
      { type: 'PoolCountryChanged', data: { poolId: POOL_ID, from: 'FR', to: 'ES', changedAt: T3 } },
    ]),
  );
  assert.is(pool.fields.marketplaceVisibility, 'PRIVATE');
  assert.is(pool.fields.country, 'ES');
  assert.is(pool.updatedAt, T3);
  assert.is(pool.status, 'OPEN');
});

evolve('a refunded delist clears the listing fee; an unrefunded one keeps it', () => {
  const fee = { amount: '9.90', source: 'listing-payment-1' };
  const listed = { ...existing(foldPool(openPool(groupsFields({ marketplaceVisibility: 'LISTED' })))), listingFee: fee };
  const refunded = existing(
    evolvePool(listed, { type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'LISTED', to: 'PRIVATE', refund: fee, changedAt: T2 } }),
  );
  assert.is(refunded.listingFee, null);
  const notRefunded = existing(
    evolvePool(listed, { type: 'PoolVisibilityChanged', data: { poolId: POOL_ID, from: 'LISTED', to: 'PRIVATE', refund: null, changedAt: T2 } }),
  );
  assert.equal(notRefunded.listingFee, fee);
});

evolve('the fold is deterministic: replaying the same history twice gives the same state', () => {
  const history = [poolCreated(), draftUpdated({ title: 'Un' }), poolPublished(T2), poolArchived(T3)];
  const first = foldPool(history);
  const second = foldPool(history);
  assert.equal(first, second);
  assert.equal(history.reduce(evolvePool, initialPool()), first);
  assert.is.not(first, second, 'each fold builds its own state');
});

evolve('folding does not mutate the given events or earlier states', () => {
  // The settlement book counts money in bigint: serialised as strings here.
  const json = (v: unknown) => JSON.parse(JSON.stringify(v, (_k, x: unknown) => (typeof x === 'bigint' ? `${x}n` : x)));
  const history = [poolCreated(), draftUpdated({ title: 'Un' })];
  const snapshot = json(history);
  const created = foldPool(history.slice(0, 1));
  const createdSnapshot = json(created);
  evolvePool(created, history[1]!);
  evolvePool(created, poolPublished());
  assert.equal(json(history), snapshot);
  assert.equal(json(created), createdSnapshot);
});

evolve('events of other aggregates leave an existing pool unchanged', () => {
  const pool = foldPool(openPool());
  assert.is(evolvePool(pool, accountRegistered), pool);
  assert.is(evolvePool(pool, tenantCreated), pool);
  assert.equal(foldPool([...openPool(), accountRegistered, tenantCreated]), pool);
});

evolve('events of other aggregates leave the none state unchanged', () => {
  assert.equal(foldPool([accountRegistered, tenantCreated]), { status: 'none' });
});

evolve('a pool event before PoolCreated is ignored', () => {
  assert.equal(foldPool([poolPublished()]), { status: 'none' });
});

evolve('PoolCommissionMandateAccepted records the mandate (the commission applies at closing) and changes nothing else', () => {
  const pool = existing(foldPool([poolCreated()]));
  assert.is(pool.commissionMandate, false);
  assert.equal(evolvePool(pool, commissionMandateAccepted), { ...pool, commissionMandate: true });
});

evolve.run();
