import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { eventRegistry, type DomainEvent } from '@cagnotte/event-schemas';
import { IllegalStateError, NotFoundError, ValidationError } from '../errors';
import {
  checkBusinessIdentity,
  decideAcceptMandate,
  decideCaptureBusinessIdentity,
  decideLinkLedgerAccount,
  decidePrepareGrant,
  decideRegisterAccount,
  decideRevokeMandate,
  decideSettleGrant,
  evolveAccount,
  paymentMismatch,
  type Account,
  type ObservedPayment,
  type PrepareGrantInput,
} from './identity';

const USER = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const GRANT = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const GRANT2 = '6b2e3d4c-5f60-4b7c-9d8e-0f1a2b3c4d5e';
const MANDATE_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const T0 = '2026-01-01T09:00:00+01:00';
const T1 = '2026-01-02T09:00:00+01:00';
const WALLET = 'GBRPYHIL2CI3FNQ4BXLFMNDLFJUNPU2HY3ZMFSHONUCEOASW7QC7OX2H';
const PLATFORM = 'GAIH3ULLFQ4DGSECF2AR555KZ4KNDGEKN4AFI4SU2M7B43MGK3QJZNSR';
const ISSUER = 'GCKFBEIYV2U22IO2BJ4KVJOIP7XPWQGQFKKWXR6DOSJBV7STMAQSMTGG';
const STRANGER = 'GDQNY3PBOJOKYZSRMK2S7LHHGWZIUISD4QORETLMXEWXBI7KFZZMKTL3';
const MEMO = 'ab'.repeat(32);

/** Replays events through the fold, checking each against its published schema first. */
const given = (...events: DomainEvent[]): Account | null =>
  events.reduce<Account | null>((state, e) => {
    eventRegistry.parse({ type: e.type, schemaVersion: 1, data: e.data, metadata: { tenantId: TENANT, actor: { kind: 'system', id: 't' }, correlationId: USER, causationId: null, occurredAt: T0 } });
    return evolveAccount(state, e);
  }, null);

const registered = (over: Partial<{ role: 'user' | 'organiser'; accountType: 'CONSUMER' | 'BUSINESS' }> = {}): DomainEvent =>
  decideRegisterAccount(false, { userId: USER, tenantId: TENANT, email: 'Ana@Example.test', phone: null, displayName: 'Ana', role: over.role ?? 'user', accountType: over.accountType ?? 'CONSUMER', signupSource: 'acme' }, T0)[0]!;
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

const prepared = (): DomainEvent => {
  const out = decidePrepareGrant(given(registered(), linked), grantInput(), T0);
  if (out.kind !== 'grant') throw new Error('expected a grant');
  return out.events[0]!;
};

const payment = (over: Partial<ObservedPayment> = {}): ObservedPayment => ({
  txHash: 'ef'.repeat(32),
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

const throws = (fn: () => unknown, type: new (...a: never[]) => Error, code?: string) => {
  try {
    fn();
  } catch (e) {
    assert.instance(e, type);
    if (code) assert.is((e as { code: string }).code, code);
    return e as Error & { errors?: Record<string, string[]> };
  }
  assert.unreachable(`expected ${type.name}`);
  return null as never;
};

const test = suite('identity deciders and fold');

test('register: email lower-cased, FR/EUR/Europe/Paris defaults; the fold starts a plain account', () => {
  const state = given(registered());
  assert.equal(
    [state!.email, state!.country, state!.currency, state!.timezone, state!.business, state!.ledgerAccount, state!.grants, state!.mandates],
    ['ana@example.test', 'FR', 'EUR', 'Europe/Paris', null, null, [], []],
  );
});

test('DAC7: company name plus SIRET for France, or tax country with taxId or rccm elsewhere', () => {
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

test('become-seller: a CONSUMER becomes BUSINESS with the identity kept, role unchanged; BUSINESS again changes nothing', () => {
  const events = decideCaptureBusinessIdentity(given(registered()), { companyName: 'Acme', siret: '73282932000074' }, 'become-seller', T1);
  assert.is(events.length, 1);
  const after = given(registered(), ...events);
  assert.equal([after!.accountType, after!.role, after!.business?.companyName], ['BUSINESS', 'user', 'Acme']);
  assert.equal(decideCaptureBusinessIdentity(after, { companyName: 'Other', siret: '73282932000074' }, 'become-seller', T1), []);
  const err = throws(() => decideCaptureBusinessIdentity(given(registered()), { companyName: 'Acme' }, 'become-seller', T1), ValidationError, 'business_identity_invalid');
  assert.ok(err.errors?.siret);
  throws(() => decideCaptureBusinessIdentity(null, { companyName: 'Acme', siret: '73282932000074' }, 'become-seller', T1), NotFoundError);
});

test('linking a ledger account records it once', () => {
  const events = decideLinkLedgerAccount(given(registered()), WALLET, 'cd'.repeat(32), T1);
  assert.is(events[0]!.type, 'LedgerAccountLinked');
  assert.is(given(registered(), ...events)!.ledgerAccount, WALLET);
  assert.equal(decideLinkLedgerAccount(given(registered(), linked), WALLET, 'cd'.repeat(32), T1), [], 'the same account again');
});

test('prepare: needs a linked account; buyers only; organisers are told; an open grant (or the same nonce) is reused', () => {
  throws(() => decidePrepareGrant(given(registered()), grantInput(), T1), ValidationError, 'ledger_account_required');
  throws(() => decidePrepareGrant(given(registered({ accountType: 'BUSINESS' }), linked), grantInput(), T1), IllegalStateError, 'not_a_buyer');
  assert.equal(decidePrepareGrant(given(registered({ role: 'organiser' }), linked), grantInput(), T1), { kind: 'already_organiser' });
  const first = prepared();
  assert.equal(first.data, { ...grantInput(), userId: USER, ledgerAccount: WALLET, preparedAt: T0 });
  const again = decidePrepareGrant(given(registered(), linked, first), grantInput({ grantId: GRANT2, memoHash: 'cd'.repeat(32) }), T1);
  assert.equal([again.kind === 'grant' && again.grant.grantId, again.kind === 'grant' && again.events.length], [GRANT, 0]);
  const nonce = '11111111-2222-4333-8444-555555555555';
  const withNonce = decidePrepareGrant(given(registered(), linked, first), grantInput({ grantId: GRANT2, nonce }), T1);
  assert.ok(withNonce.kind === 'grant' && withNonce.events.length === 1 && withNonce.grant.grantId === GRANT2, 'a new nonce is a new grant');
});

test('settle: the exact payment settles the grant and grants the role in one decision', () => {
  const state = given(registered(), linked, prepared());
  const out = decideSettleGrant(state, GRANT, payment(), 'txHash', T1);
  assert.is(out.kind, 'settled');
  const events = out.kind === 'settled' ? out.events : [];
  assert.equal(events.map((e) => e.type), ['OrganiserGrantSettled', 'RoleGranted']);
  const after = given(registered(), linked, prepared(), ...events);
  assert.equal([after!.role, after!.grants[0]!.status, after!.grants[0]!.txHash], ['organiser', 'SETTLED', 'ef'.repeat(32)]);
  assert.equal(decideSettleGrant(after, GRANT, payment(), 'txHash', T1).kind, 'idempotent', 'the same payment again');
  throws(() => decideSettleGrant(after, GRANT, payment({ txHash: '12'.repeat(32) }), 'txHash', T1), IllegalStateError, 'grant_already_settled');
  throws(() => decideSettleGrant(state, GRANT2, payment(), 'txHash', T1), NotFoundError);
});

test('settle: every forged payment is refused, naming what is wrong', () => {
  const state = given(registered(), linked, prepared());
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
    const err = throws(() => decideSettleGrant(state, GRANT, payment(over), 'txHash', T1), ValidationError, 'payment_mismatch');
    assert.ok(err.errors?.[field], `${JSON.stringify(over)} names ${field}`);
  }
  assert.is(paymentMismatch(state!.grants[0]!, payment({ amount: '1' })), null, '1 and 1.0000000 are the same amount');
});

test('mandates: acceptance recorded with version, hash and IP; the same text again is a no-op; revocation keeps the record', () => {
  const text = { version: '2026-01', hash: 'aa'.repeat(32) };
  const accepted = decideAcceptMandate(given(registered()), { mandateId: MANDATE_ID, kind: 'FEE', text, ip: '203.0.113.9' }, T1);
  assert.equal(accepted.mandate, { mandateId: MANDATE_ID, kind: 'FEE', status: 'ACCEPTED', version: '2026-01', hash: 'aa'.repeat(32), acceptedAt: T1, acceptedIp: '203.0.113.9', revokedAt: null });
  const state = given(registered(), ...accepted.events);
  const again = decideAcceptMandate(state, { mandateId: GRANT2, kind: 'FEE', text, ip: null }, T1);
  assert.equal([again.events, again.mandate.mandateId], [[], MANDATE_ID]);
  const newText = decideAcceptMandate(state, { mandateId: GRANT2, kind: 'FEE', text: { version: '2026-02', hash: 'bb'.repeat(32) }, ip: null }, T1);
  assert.is(newText.events.length, 1, 'a new version needs a new acceptance');
  const revoked = decideRevokeMandate(state, MANDATE_ID, '203.0.113.9', T1);
  assert.equal([revoked.mandate.status, revoked.mandate.revokedAt, revoked.events[0]!.type], ['REVOKED', T1, 'MandateRevoked']);
  const after = given(registered(), ...accepted.events, ...revoked.events);
  assert.equal(decideRevokeMandate(after, MANDATE_ID, null, T1).events, [], 'revoking twice changes nothing');
  throws(() => decideRevokeMandate(after, GRANT2, null, T1), NotFoundError);
});

test.run();
