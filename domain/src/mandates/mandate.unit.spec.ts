import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { NotFoundError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { mandateAggregate } from '../identity/account-stream';
import { acceptedMandate, decideMandate, findMandate, type MandateCommand, type MandateEvent } from './mandate';

const USER = '7d1f0a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const MANDATE_ID = 'c3e1b7a2-1f4d-4c8e-9b2a-7d6e5f4a3b21';
const OTHER_ID = '6b2e3d4c-5f60-4b7c-9d8e-0f1a2b3c4d5e';
const T0 = '2026-01-01T09:00:00+01:00';
const T1 = '2026-01-02T09:00:00+01:00';
const TEXT = { version: '2026-01', hash: 'aa'.repeat(32) };

const { given } = deciderSpec({ ...mandateAggregate, decide: decideMandate });

const registered: DomainEvent = {
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
};
const accept = (over: Partial<(MandateCommand & { type: 'AcceptMandate' })['data']> = {}): MandateCommand => ({
  type: 'AcceptMandate',
  data: { mandateId: MANDATE_ID, kind: 'FEE', text: TEXT, ip: '203.0.113.9', ...over },
  metadata: { now: T1 },
});
const accepted: MandateEvent = { type: 'MandateAccepted', data: { mandateId: MANDATE_ID, userId: USER, kind: 'FEE', version: TEXT.version, hash: TEXT.hash, ip: '203.0.113.9', acceptedAt: T1 } };
const revoke = (mandateId = MANDATE_ID, ip: string | null = '203.0.113.9'): MandateCommand => ({ type: 'RevokeMandate', data: { mandateId, ip }, metadata: { now: T1 } });
const revoked: MandateEvent = { type: 'MandateRevoked', data: { mandateId: MANDATE_ID, userId: USER, kind: 'FEE', ip: '203.0.113.9', revokedAt: T1 } };

const test = suite('mandate decider and fold');

test('accept: recorded with version, hash and IP; the same text again is a no-op that answers the standing record', () => {
  const state = given(registered).when(accept()).then([accepted]);
  assert.equal(acceptedMandate(state, 'FEE', TEXT), {
    mandateId: MANDATE_ID,
    kind: 'FEE',
    status: 'ACCEPTED',
    version: '2026-01',
    hash: 'aa'.repeat(32),
    acceptedAt: T1,
    acceptedIp: '203.0.113.9',
    revokedAt: null,
  });
  given(registered, accepted).when(accept({ mandateId: OTHER_ID, ip: null })).then([]);
  assert.is(acceptedMandate(given(registered, accepted).state(), 'FEE', TEXT)?.mandateId, MANDATE_ID);
});

test('accept: a new version needs a new acceptance; become-seller records its acceptance even when one stands', () => {
  given(registered, accepted)
    .when(accept({ mandateId: OTHER_ID, text: { version: '2026-02', hash: 'bb'.repeat(32) }, ip: null }))
    .then([{ type: 'MandateAccepted', data: { mandateId: OTHER_ID, userId: USER, kind: 'FEE', version: '2026-02', hash: 'bb'.repeat(32), ip: null, acceptedAt: T1 } }]);
  given(registered, accepted)
    .when(accept({ mandateId: OTHER_ID, recordAgain: true }))
    .then([{ type: 'MandateAccepted', data: { ...accepted.data, mandateId: OTHER_ID } as never }]);
  given().when(accept()).thenThrows(NotFoundError, 'account_not_found');
});

test('revoke: the record stays, REVOKED with its time; twice changes nothing; an unknown id is not found', () => {
  const after = given(registered, accepted).when(revoke()).then([revoked]);
  assert.equal([findMandate(after, MANDATE_ID)?.status, findMandate(after, MANDATE_ID)?.revokedAt], ['REVOKED', T1]);
  given(registered, accepted, revoked).when(revoke(MANDATE_ID, null)).then([]);
  given(registered, accepted, revoked).when(revoke(OTHER_ID)).thenThrows(NotFoundError, 'mandate_not_found');
  given().when(revoke()).thenThrows(NotFoundError, 'mandate_not_found');
});

test.run();
