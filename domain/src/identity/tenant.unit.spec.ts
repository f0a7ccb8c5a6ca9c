import { suite } from 'uvu';
import type { TenantSettings } from '@cagnotte/event-schemas';
import { ConflictError, NotFoundError } from '../errors';
import { deciderSpec } from '../testing/decider';
import { tenantAggregate } from './account-stream';
import { decideTenant, type TenantCommand, type TenantInput } from './tenant';

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
