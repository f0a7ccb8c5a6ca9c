import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { ConflictError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import type { BusinessIdentityInput } from '../personas/business-identity';
import { decideAccount, type AccountCommand, type AccountEvent, type AccountInput } from './account';
import { accountAggregate } from './account-stream';

const USER = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const MANDATE_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const T0 = '2026-01-01T09:00:00+01:00';
const T1 = '2026-01-02T09:00:00+01:00';
const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const SIRET = '73282932000074';

const { given } = deciderSpec({ ...accountAggregate, decide: decideAccount });

const input = (over: Partial<AccountInput> = {}): AccountInput => ({
  userId: USER,
  tenantId: TENANT,
  email: 'Ana@Example.test',
  phone: null,
  displayName: 'Ana',
  role: 'user',
  accountType: 'CONSUMER',
  signupSource: 'acme',
  ...over,
});
const register = (over: Partial<AccountInput> = {}, business: BusinessIdentityInput | null = null): AccountCommand => ({
  type: 'RegisterAccount',
  data: { ...input(over), business },
  metadata: { now: T0 },
});
const registered = (over: Partial<{ role: 'user' | 'organiser'; accountType: 'CONSUMER' | 'BUSINESS' }> = {}): AccountEvent =>
  decideAccount(register(over), accountAggregate.initial())[0]!;
const linked: DomainEvent = { type: 'LedgerAccountLinked', data: { userId: USER, ledgerAccount: WALLET, challengeHash: 'cd'.repeat(32), linkedAt: T0 } };
const becomeSeller = (data: BusinessIdentityInput): AccountCommand => ({ type: 'CaptureBusinessIdentity', data, metadata: { now: T1 } });

const test = suite('account decider and fold');

test('register: email lower-cased, FR/EUR/Europe/Paris defaults; the fold starts a plain account', () => {
  const state = given().when(register()).then([
    {
      type: 'AccountRegistered',
      data: {
        userId: USER,
        tenantId: TENANT,
        email: 'ana@example.test',
        phone: null,
        displayName: 'Ana',
        role: 'user',
        accountType: 'CONSUMER',
        country: 'FR',
        currency: 'EUR',
        timezone: 'Europe/Paris',
        signupSource: 'acme',
        registeredAt: T0,
      },
    },
  ]);
  assert.ok(state.status === 'registered');
  assert.equal([state.email, state.country, state.currency, state.timezone, state.business, state.ledgerAccount], ['ana@example.test', 'FR', 'EUR', 'Europe/Paris', null, null]);
});

test('register: a business signup records its identity in the same decision; an invalid one is refused; twice is a conflict', () => {
  const state = given().when(register({ accountType: 'BUSINESS' }, { companyName: ' Acme ', siret: SIRET })).then([
    registered({ accountType: 'BUSINESS' }),
    { type: 'BusinessIdentityCaptured', data: { userId: USER, companyName: 'Acme', siret: SIRET, taxCountry: 'FR', taxId: null, rccm: null, via: 'register', capturedAt: T0 } },
  ]);
  assert.ok(state.status === 'registered' && state.accountType === 'BUSINESS' && state.business?.companyName === 'Acme');
  const err = given().when(register({ accountType: 'BUSINESS' }, { companyName: 'Acme' })).thenThrows(ValidationError, 'business_identity_invalid');
  assert.ok(err.errors.siret);
  given(registered()).when(register()).thenThrows(ConflictError, 'account_exists');
});

test('become-seller: a CONSUMER becomes BUSINESS with the identity kept, role unchanged; BUSINESS again changes nothing', () => {
  const after = given(registered()).when(becomeSeller({ companyName: 'Acme', siret: SIRET })).then([
    { type: 'BusinessIdentityCaptured', data: { userId: USER, companyName: 'Acme', siret: SIRET, taxCountry: 'FR', taxId: null, rccm: null, via: 'become-seller', capturedAt: T1 } },
  ]);
  assert.ok(after.status === 'registered');
  assert.equal([after.accountType, after.role, after.business?.companyName], ['BUSINESS', 'user', 'Acme']);
  const captured = decideAccount(becomeSeller({ companyName: 'Acme', siret: SIRET }), given(registered()).state());
  given(registered(), ...captured).when(becomeSeller({ companyName: 'Other', siret: SIRET })).then([]);
  const err = given(registered()).when(becomeSeller({ companyName: 'Acme' })).thenThrows(ValidationError, 'business_identity_invalid');
  assert.ok(err.errors.siret);
  given().when(becomeSeller({ companyName: 'Acme', siret: SIRET })).thenThrows(NotFoundError, 'account_not_found');
});

test('linking a ledger account records it once', () => {
  const link: AccountCommand = { type: 'LinkLedgerAccount', data: { ledgerAccount: WALLET, challengeHash: 'cd'.repeat(32) }, metadata: { now: T1 } };
  const after = given(registered()).when(link).then([{ type: 'LedgerAccountLinked', data: { userId: USER, ledgerAccount: WALLET, challengeHash: 'cd'.repeat(32), linkedAt: T1 } }]);
  assert.is(after.status === 'registered' && after.ledgerAccount, WALLET);
  given(registered(), linked).when(link).then([]);
  given().when(link).thenThrows(NotFoundError, 'account_not_found');
});

test('a password reset is recorded for the audit, and changes nothing else in the account', () => {
  const reset: AccountCommand = { type: 'RecordPasswordReset', data: { sessionsRevoked: 2, ip: '203.0.113.9' }, metadata: { now: T1 } };
  const after = given(registered(), linked).when(reset).then([{ type: 'PasswordResetCompleted', data: { userId: USER, sessionsRevoked: 2, ip: '203.0.113.9', resetAt: T1 } }]);
  assert.equal(after, given(registered(), linked).state());
});

test('the role granted with a settled grant is the account\'s; the stream\'s grant and mandate events are skipped', () => {
  const state = given(
    registered(),
    { type: 'MandateAccepted', data: { mandateId: MANDATE_ID, userId: USER, kind: 'FEE', version: '2026-01', hash: 'aa'.repeat(32), ip: null, acceptedAt: T0 } },
    { type: 'RoleGranted', data: { userId: USER, role: 'organiser', reason: 'organiser activation fee paid', grantId: MANDATE_ID, grantedAt: T1 } },
  ).state();
  assert.ok(state.status === 'registered' && state.role === 'organiser');
  assert.equal(Object.keys(state).sort(), [...Object.keys(given(registered()).state())].sort(), 'no grant or mandate in the account');
});

test.run();
