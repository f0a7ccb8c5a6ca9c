import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { organiserGrantAggregate } from '../identity/account-stream';
import { checkBusinessIdentity } from './business-identity';
import {
  decideOrganiserGrant,
  findGrant,
  openGrantFor,
  paymentMismatch,
  type ObservedPayment,
  type OrganiserGrantCommand,
  type OrganiserGrantEvent,
  type PrepareGrantInput,
} from './organiser-grant';

const USER = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const GRANT = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const GRANT2 = '6b2e3d4c-5f60-4b7c-9d8e-0f1a2b3c4d5e';
const T0 = '2026-01-01T09:00:00+01:00';
const T1 = '2026-01-02T09:00:00+01:00';
const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const PLATFORM = 'GAIH3ULLFQ4DGSECF2AR555KZ4KNDGEKN4AFI4SU2M7B43MGK3QJZNSR';
const ISSUER = 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG';
const STRANGER = 'GDQNY3PBOJOKYZSRMK2S7LHHGWZIUISD4QORETLMXEWXBI7KFZZMKTL3';
const MEMO = 'ab'.repeat(32);
const TX = 'ef'.repeat(32);

const { given } = deciderSpec({ ...organiserGrantAggregate, decide: decideOrganiserGrant });

const registered = (over: Partial<{ role: 'user' | 'organiser'; accountType: 'CONSUMER' | 'BUSINESS' }> = {}): DomainEvent => ({
  type: 'AccountRegistered',
  data: {
    userId: USER,
    tenantId: TENANT,
    email: 'ana@example.test',
    phone: null,
    displayName: 'Ana',
    role: over.role ?? 'user',
    accountType: over.accountType ?? 'CONSUMER',
    country: 'FR',
    currency: 'EUR',
    timezone: 'Europe/Paris',
    signupSource: 'acme',
    registeredAt: T0,
  },
});
const linked: DomainEvent = { type: 'LedgerAccountLinked', data: { userId: USER, ledgerAccount: WALLET, challengeHash: 'cd'.repeat(32), linkedAt: T0 } };

const grantInput = (over: Partial<PrepareGrantInput> = {}): PrepareGrantInput => ({
  grantId: GRANT,
  nonce: null,
  destination: PLATFORM,
  assetCode: 'EURC',
  assetIssuer: ISSUER,
  amount: '1.0000000',
  memoHash: MEMO,
  ...over,
});
const prepare = (over: Partial<PrepareGrantInput> = {}, now = T0): OrganiserGrantCommand => ({ type: 'PrepareGrant', data: grantInput(over), metadata: { now } });
const prepared: OrganiserGrantEvent = { type: 'OrganiserGrantPrepared', data: { ...grantInput(), userId: USER, ledgerAccount: WALLET, preparedAt: T0 } };

const payment = (over: Partial<ObservedPayment> = {}): ObservedPayment => ({
  txHash: TX,
  ledger: 42,
  successful: true,
  from: WALLET,
  to: PLATFORM,
  assetCode: 'EURC',
  assetIssuer: ISSUER,
  amount: '1.0000000',
  memoHash: MEMO,
  paymentCount: 1,
  ...over,
});
const settle = (p: ObservedPayment = payment(), grantId = GRANT): OrganiserGrantCommand => ({ type: 'SettleGrant', data: { grantId, payment: p, via: 'txHash' }, metadata: { now: T1 } });
const settled: OrganiserGrantEvent[] = [
  { type: 'OrganiserGrantSettled', data: { grantId: GRANT, userId: USER, txHash: TX, ledger: 42, via: 'txHash', settledAt: T1 } },
  { type: 'RoleGranted', data: { userId: USER, role: 'organiser', reason: 'organiser activation fee paid', grantId: GRANT, grantedAt: T1 } },
];

const test = suite('organiser grant decider and fold');

test('DAC7 (the seller persona): company name plus SIRET for France, or tax country with taxId or rccm elsewhere', () => {
  assert.ok('errors' in checkBusinessIdentity({}));
  assert.equal(Object.keys((checkBusinessIdentity({ companyName: 'Acme' }) as { errors: object }).errors), ['siret']);
  assert.equal(Object.keys((checkBusinessIdentity({ companyName: 'Acme', taxCountry: 'FR' }) as { errors: object }).errors), ['siret']);
  assert.equal(Object.keys((checkBusinessIdentity({ companyName: 'Acme', taxCountry: 'BE' }) as { errors: object }).errors), ['taxId']);
  assert.ok('errors' in checkBusinessIdentity({ companyName: 'Acme', taxCountry: 'BE', siret: '73282932000074', taxId: 'BE01234' }), 'a SIRET is French');
  assert.equal(checkBusinessIdentity({ companyName: ' Acme ', siret: '73282932000074' }), {
    identity: { companyName: 'Acme', siret: '73282932000074', taxCountry: 'FR', taxId: null, rccm: null },
  });
  assert.equal(checkBusinessIdentity({ companyName: 'Dakar', taxCountry: 'sn', rccm: 'SN-DKR-1' }), {
    identity: { companyName: 'Dakar', siret: null, taxCountry: 'SN', taxId: null, rccm: 'SN-DKR-1' },
  });
});

test('prepare: needs an account and a linked ledger account; buyers only; organisers need nothing', () => {
  given().when(prepare()).thenThrows(NotFoundError, 'account_not_found');
  given(registered()).when(prepare()).thenThrows(ValidationError, 'ledger_account_required');
  given(registered({ accountType: 'BUSINESS' }), linked).when(prepare()).thenThrows(IllegalStateError, 'not_a_buyer');
  const seller: DomainEvent = {
    type: 'BusinessIdentityCaptured',
    data: { userId: USER, companyName: 'Acme', siret: '73282932000074', taxCountry: 'FR', taxId: null, rccm: null, via: 'become-seller', capturedAt: T0 },
  };
  given(registered(), linked, seller).when(prepare()).thenThrows(IllegalStateError, 'not_a_buyer');
  given(registered({ role: 'organiser' }), linked).when(prepare()).then([]);
});

test('prepare: records the grant with the linked account; an open grant (or the same nonce) is reused, a new nonce is a new grant', () => {
  const state = given(registered(), linked).when(prepare()).then([prepared]);
  assert.equal(openGrantFor(state, grantInput()), { ...prepared.data, status: 'AWAITING_SIGNATURE', settledAt: null, txHash: null } as never);
  given(registered(), linked, prepared).when(prepare({ grantId: GRANT2, memoHash: 'cd'.repeat(32) }, T1)).then([]);
  const again = given(registered(), linked, prepared).state();
  assert.is(openGrantFor(again, grantInput({ grantId: GRANT2, memoHash: 'cd'.repeat(32) }))?.grantId, GRANT, 'the open grant answers');
  const nonce = '11111111-2222-4333-8444-555555555555';
  const withNonce = given(registered(), linked, prepared).when(prepare({ grantId: GRANT2, nonce }, T1)).then([
    { type: 'OrganiserGrantPrepared', data: { ...grantInput({ grantId: GRANT2, nonce }), userId: USER, ledgerAccount: WALLET, preparedAt: T1 } },
  ]);
  assert.is(openGrantFor(withNonce, grantInput({ grantId: 'x', nonce }))?.grantId, GRANT2);
});

test('settle: the exact payment settles the grant and grants the role in one decision; the same payment again changes nothing', () => {
  const after = given(registered(), linked, prepared).when(settle()).then(settled);
  assert.ok(after.status === 'active');
  assert.equal([after.role, findGrant(after, GRANT)!.status, findGrant(after, GRANT)!.txHash], ['organiser', 'SETTLED', TX]);
  given(registered(), linked, prepared, ...settled).when(settle()).then([]);
  given(registered(), linked, prepared, ...settled).when(settle(payment({ txHash: '12'.repeat(32) }))).thenThrows(IllegalStateError, 'grant_already_settled');
  given(registered(), linked, prepared).when(settle(payment(), GRANT2)).thenThrows(NotFoundError, 'grant_not_found');
});

test('settle: every forged payment is refused, naming what is wrong', () => {
  const cases: Array<[Partial<ObservedPayment>, string]> = [
    [{ successful: false }, 'transaction'],
    [{ paymentCount: 2 }, 'transaction'],
    [{ memoHash: null }, 'memo'],
    [{ memoHash: 'cd'.repeat(32) }, 'memo'],
    [{ from: STRANGER }, 'source'],
    [{ to: STRANGER }, 'destination'],
    [{ assetCode: 'XLM', assetIssuer: null }, 'asset'],
    [{ assetCode: 'EURT' }, 'asset'],
    [{ assetIssuer: STRANGER }, 'asset'],
    [{ amount: '2.0000000' }, 'amount'],
    [{ amount: '0.9999999' }, 'amount'],
    [{ amount: '1.00000001' }, 'amount'],
  ];
  for (const [over, field] of cases) {
    const err = given(registered(), linked, prepared).when(settle(payment(over))).thenThrows(ValidationError, 'payment_mismatch');
    assert.ok(err.errors[field], `${JSON.stringify(over)} names ${field}`);
  }
  const state = given(registered(), linked, prepared).state();
  assert.is(paymentMismatch(findGrant(state, GRANT)!, payment({ amount: '1' })), null, '1 and 1.0000000 are the same amount');
});

test('the fold skips the stream\'s mandate and audit events', () => {
  const noise: DomainEvent[] = [
    { type: 'MandateAccepted', data: { mandateId: GRANT2, userId: USER, kind: 'FEE', version: '2026-01', hash: 'aa'.repeat(32), ip: null, acceptedAt: T0 } },
    { type: 'PasswordResetCompleted', data: { userId: USER, sessionsRevoked: 1, ip: null, resetAt: T0 } },
  ];
  assert.equal(given(registered(), ...noise, linked, prepared).state(), given(registered(), linked, prepared).state());
});

test.run();
