import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { ConflictError, IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { decideAccount, type AccountCommand, type AccountEvent } from './account';
import { accountAggregate } from './account-stream';

// /v1/accounts on the account aggregate: a partner's creation (no password) and its profile updates.

const USER = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const T0 = '2026-01-01T09:00:00+01:00';
const T1 = '2026-01-02T09:00:00+01:00';
const SIRET = '73282932000074';

const { given } = deciderSpec({ ...accountAggregate, decide: decideAccount });

const create = (over: Partial<Extract<AccountCommand, { type: 'CreateAccountForPartner' }>['data']> = {}): AccountCommand => ({
  type: 'CreateAccountForPartner',
  data: {
    userId: USER,
    tenantId: TENANT,
    email: 'Bea@Example.test',
    phone: null,
    displayName: 'Bea',
    role: 'user',
    accountType: 'CONSUMER',
    signupSource: 'v1',
    business: null,
    livemode: false,
    createdVia: 'k1',
    metadata: { crm: '42' },
    ...over,
  },
  metadata: { now: T0 },
});
const update = (data: Extract<AccountCommand, { type: 'UpdateAccountProfile' }>['data']): AccountCommand => ({ type: 'UpdateAccountProfile', data, metadata: { now: T1 } });
const created = (): AccountEvent[] => decideAccount(create(), accountAggregate.initial());

const test = suite('partner accounts (/v1/accounts)');

test('a partner creates an account: AccountRegistered then AccountCreatedByPartner with its livemode, key and metadata', () => {
  const [registered, byPartner] = created();
  assert.is(registered!.type, 'AccountRegistered');
  assert.equal(byPartner, { type: 'AccountCreatedByPartner', data: { userId: USER, tenantId: TENANT, livemode: false, createdVia: 'k1', metadata: { crm: '42' }, createdAt: T0 } });
  const state = given(...created()).state();
  assert.ok(state.status === 'registered');
  assert.equal([state.email, state.partner, state.metadata], ['bea@example.test', { livemode: false, createdVia: 'k1' }, { crm: '42' }]);
  given(...created()).when(create()).thenThrows(ConflictError, 'account_exists');
});

test('a business account records its DAC7 identity in the same append; an invalid one is refused', () => {
  const events = decideAccount(create({ accountType: 'BUSINESS', business: { companyName: 'Acme', siret: SIRET } }), accountAggregate.initial());
  assert.equal(events.map((e) => e.type), ['AccountRegistered', 'BusinessIdentityCaptured', 'AccountCreatedByPartner']);
  given().when(create({ accountType: 'BUSINESS', business: { companyName: 'Acme' } })).thenThrows(ValidationError, 'business_identity_invalid');
});

test('an update records what changed: the name, the whole metadata after the patch ("" removes a key); nothing when nothing changes', () => {
  const after = given(...created())
    .when(update({ displayName: 'Béa', metadata: { crm: '', tier: 'gold' } }))
    .then([{ type: 'AccountProfileUpdated', data: { userId: USER, livemode: false, displayName: 'Béa', metadata: { tier: 'gold' }, updatedAt: T1 } }]);
  assert.ok(after.status === 'registered' && after.displayName === 'Béa');
  assert.equal(after.status === 'registered' && after.metadata, { tier: 'gold' });
  given(...created()).when(update({ displayName: 'Bea', metadata: { crm: '42' } })).then([]);
  given(...created()).when(update({ metadata: { other: '1' } })).then([{ type: 'AccountProfileUpdated', data: { userId: USER, livemode: false, metadata: { crm: '42', other: '1' }, updatedAt: T1 } }]);
  given().when(update({ displayName: 'X' })).thenThrows(NotFoundError, 'account_not_found');
});

test('a wallet linked to a partner’s account carries its mode (its public event says it); a signup’s does not', () => {
  const link: AccountCommand = { type: 'LinkLedgerAccount', data: { ledgerAccount: 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H', challengeHash: 'cd'.repeat(32) }, metadata: { now: T1 } };
  given(...created())
    .when(link)
    .then([{ type: 'LedgerAccountLinked', data: { userId: USER, ledgerAccount: 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H', challengeHash: 'cd'.repeat(32), livemode: false, linkedAt: T1 } }]);
  const { livemode: _l, createdVia: _c, metadata: _m, ...input } = (create() as Extract<AccountCommand, { type: 'CreateAccountForPartner' }>).data;
  const [signup] = decideAccount({ type: 'RegisterAccount', data: input, metadata: { now: T0 } }, accountAggregate.initial());
  const events = decideAccount(link, given(signup!).state());
  assert.not.ok('livemode' in events[0]!.data);
});

test('a business account without its identity gets it later, once; an individual account never', () => {
  const business = decideAccount(create({ accountType: 'BUSINESS' }), accountAggregate.initial());
  const after = given(...business)
    .when(update({ business: { companyName: 'Acme', siret: SIRET } }))
    .then([{ type: 'BusinessIdentityCaptured', data: { userId: USER, companyName: 'Acme', siret: SIRET, taxCountry: 'FR', taxId: null, rccm: null, via: 'partner', capturedAt: T1 } }]);
  assert.ok(after.status === 'registered' && after.business?.companyName === 'Acme');
  const captured = decideAccount(update({ business: { companyName: 'Acme', siret: SIRET } }), given(...business).state());
  given(...business, ...captured).when(update({ business: { companyName: 'Other', siret: SIRET } })).thenThrows(IllegalStateError, 'business_identity_recorded');
  given(...business).when(update({ business: { companyName: 'Acme' } })).thenThrows(ValidationError, 'business_identity_invalid');
  given(...created()).when(update({ business: { companyName: 'Acme', siret: SIRET } })).thenThrows(ValidationError, 'validation_failed');
});

test('metadata holds at most 50 keys', () => {
  const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, 'v']));
  const state = given(...created()).when(update({ metadata: many })).thenThrows(ValidationError, 'validation_failed');
  assert.ok(state.errors.metadata);
});

test.run();
