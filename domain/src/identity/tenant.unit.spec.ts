import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TenantSettings } from '@cagnotte/event-schemas';
import { ConflictError, NotFoundError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { tenantAggregate } from './account-stream';
import { decideTenant, isTenantEvent, type TenantCommand, type TenantInput } from './tenant';

const TENANT = '0b6f3a52-8a0e-4d47-9a8f-6f2f6d1c1a01';
const T0 = '2026-01-01T09:00:00+01:00';

const { given } = deciderSpec({ ...tenantAggregate, evolve: (s, e) => (e.type === 'TenantCreated' ? tenantAggregate.evolve(s, e) : s), decide: decideTenant });

const input: TenantInput = { tenantId: TENANT, slug: 'acme', name: 'Acme', whiteLabel: true, approvedOrigins: ['https://acme.test', 'https://acme.test'] };
const create = (over: Partial<TenantInput> = {}): TenantCommand => ({ type: 'CreateTenant', data: { ...input, ...over }, metadata: { now: T0 } });
const created = { type: 'TenantCreated' as const, data: { ...input, approvedOrigins: ['https://acme.test'], createdAt: T0 } };

const test = suite('tenant decider');

test('create: a new slug records the tenant, approved origins once each', () => {
  given().when(create()).then([created]);
});

test('create: a slug already taken is a conflict (what a racing creation re-decides to)', () => {
  given(created).when(create({ tenantId: '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d', name: 'Other' })).thenThrows(ConflictError, 'tenant_exists');
});

test.run();

// Settings changes: the full fold (the decider above skips them to test creation alone).
const settings = deciderSpec({ ...tenantAggregate, evolve: (s, e) => (e.type === 'TenantCreated' || e.type === 'TenantSettingsChanged' ? tenantAggregate.evolve(s, e) : s), decide: decideTenant });
const change = (s: TenantSettings): TenantCommand => ({ type: 'ChangeTenantSettings', data: { settings: s }, metadata: { now: T0 } });
const changed = (s: TenantSettings) => ({ type: 'TenantSettingsChanged' as const, data: { tenantId: TENANT, settings: s, changedAt: T0 } });

const settingsTest = suite('tenant settings');

settingsTest('the first settings are recorded', () => {
  settings.given(created).when(change({ reservationTtlSeconds: 600, listingFees: { LISTED: '5.00', FEATURED: '20.00' } })).then([changed({ reservationTtlSeconds: 600, listingFees: { LISTED: '5.00', FEATURED: '20.00' } })]);
});

settingsTest('only what changes is recorded; the same values again record nothing', () => {
  const history = [created, changed({ reservationTtlSeconds: 600, listingFees: { LISTED: '5.00', FEATURED: '20.00' } })];
  settings.given(...history).when(change({ reservationTtlSeconds: 600, delistRefundWindowHours: 24 })).then([changed({ delistRefundWindowHours: 24 })]);
  settings.given(...history).when(change({ reservationTtlSeconds: 600, listingFees: { LISTED: '5.00', FEATURED: '20.00' } })).then([]);
  settings.given(...history).when(change({ listingFees: { LISTED: '5.00', FEATURED: '25.00' } })).then([changed({ listingFees: { LISTED: '5.00', FEATURED: '25.00' } })]);
  settings.given(...history).when(change({})).then([]);
});

settingsTest('an unknown tenant has no settings to change', () => {
  settings.given().when(change({ reservationTtlSeconds: 600 })).thenThrows(NotFoundError, 'tenant_not_found');
});

settingsTest.run();

// Auditors: the whole tenant fold, and the account's tenant as the handler read it from the account's own stream.
const auditors = deciderSpec({ ...tenantAggregate, evolve: (s, e) => (isTenantEvent(e) ? tenantAggregate.evolve(s, e) : s), decide: decideTenant });
const AUDITOR = 'a1b2c3d4-e5f6-4a7b-8c9d-0e1f2a3b4c5d';
const OTHER_TENANT = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';
const T1 = '2026-01-02T09:00:00+01:00';
const OTHER_USER = '5a1d2c3b-4e5f-4a6b-8c7d-9e0f1a2b3c4d';
const grant = (accountTenantId: string | null = TENANT, userId = AUDITOR): TenantCommand => ({ type: 'GrantAuditor', data: { userId, accountTenantId }, metadata: { now: T1 } });
const revoke = (userId = AUDITOR): TenantCommand => ({ type: 'RevokeAuditor', data: { userId }, metadata: { now: T1 } });
const granted = (userId = AUDITOR) => ({ type: 'TenantAuditorGranted' as const, data: { tenantId: TENANT, userId, grantedAt: T1 } });
const revoked = (userId = AUDITOR) => ({ type: 'TenantAuditorRevoked' as const, data: { tenantId: TENANT, userId, revokedAt: T1 } });

const auditorTest = suite('tenant auditors');

auditorTest('an account of the tenant becomes an auditor', () => {
  const state = auditors.given(created).when(grant()).then([granted()]);
  assert.equal(state.status === 'created' && state.auditors, [AUDITOR]);
});

auditorTest('granting an auditor again changes nothing', () => {
  auditors.given(created, granted()).when(grant()).then([]);
});

auditorTest('revoking removes the auditor; revoking a non-auditor changes nothing', () => {
  const state = auditors.given(created, granted()).when(revoke()).then([revoked()]);
  assert.equal(state.status === 'created' && state.auditors, []);
  auditors.given(created).when(revoke()).then([]);
  auditors.given(created, granted(), revoked()).when(revoke()).then([]);
});

auditorTest('a revoked auditor can be granted again', () => {
  auditors.given(created, granted(), revoked()).when(grant()).then([granted()]);
});

auditorTest('only an account of this tenant can audit it', () => {
  auditors.given(created).when(grant(OTHER_TENANT)).thenThrows(NotFoundError, 'account_not_found');
  auditors.given(created).when(grant(null)).thenThrows(NotFoundError, 'account_not_found');
});

auditorTest('an unknown tenant has no auditors to grant or revoke', () => {
  auditors.given().when(grant()).thenThrows(NotFoundError, 'tenant_not_found');
  auditors.given().when(revoke()).thenThrows(NotFoundError, 'tenant_not_found');
});

auditorTest('settings changes and auditors fold side by side', () => {
  const state = auditors.given(created, granted(), changed({ reservationTtlSeconds: 600 }), granted(OTHER_USER)).state();
  assert.equal(state.status === 'created' && [state.auditors, state.settings], [[AUDITOR, OTHER_USER], { reservationTtlSeconds: 600 }]);
});

auditorTest.run();

// Verification (live API keys): the full fold.
const verification = deciderSpec({ ...tenantAggregate, evolve: (s, e) => (isTenantEvent(e) ? tenantAggregate.evolve(s, e) : s), decide: decideTenant });
const TV = '2026-02-01T09:00:00+01:00';
const verify = (note: string | null = 'KYB passed'): TenantCommand => ({ type: 'VerifyTenant', data: { note }, metadata: { now: TV } });
const withdraw = (note: string | null = null): TenantCommand => ({ type: 'WithdrawTenantVerification', data: { note }, metadata: { now: TV } });
const verified = { type: 'TenantVerified' as const, data: { tenantId: TENANT, verifiedAt: TV, note: 'KYB passed' } };
const withdrawn = { type: 'TenantVerificationWithdrawn' as const, data: { tenantId: TENANT, withdrawnAt: TV, note: null } };

const verificationTest = suite('tenant verification');

verificationTest('an operator verifies a tenant once; again records nothing', () => {
  verification.given(created).when(verify()).then([verified]);
  verification.given(created, verified).when(verify()).then([]);
  const state = verification.given(created, verified).state();
  assert.is(state.status === 'created' && state.verifiedAt, TV);
});

verificationTest('withdrawing: only a verified tenant; the fold forgets the verification', () => {
  verification.given(created).when(withdraw()).then([]);
  verification.given(created, verified).when(withdraw()).then([withdrawn]);
  const state = verification.given(created, verified, withdrawn).state();
  assert.is(state.status === 'created' && state.verifiedAt, null);
});

verificationTest('no tenant: not found', () => {
  verification.given().when(verify()).thenThrows(NotFoundError, 'tenant_not_found');
});

verificationTest.run();
