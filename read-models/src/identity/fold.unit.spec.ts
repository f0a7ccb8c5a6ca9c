import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TENANT, USER, accountStream, at, foldAll, on } from '../spec-events';
import { foldAccount, foldTenant, accountKeyOf, tenantKeyOf } from './fold';

const LEDGER = `G${'A'.repeat(55)}`;
const registered = on(accountStream(), 0, {
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
    signupSource: 'web',
    registeredAt: at(1),
  },
});
const business = on(accountStream(), 1, {
  type: 'BusinessIdentityCaptured',
  data: { userId: USER, companyName: 'Ana SARL', siret: '12345678901234', taxCountry: 'FR', taxId: null, rccm: null, via: 'become-seller', capturedAt: at(2) },
});
const linked = on(accountStream(), 2, { type: 'LedgerAccountLinked', data: { userId: USER, ledgerAccount: LEDGER, challengeHash: 'a'.repeat(64), linkedAt: at(3) } });
const organiser = on(accountStream(), 3, { type: 'RoleGranted', data: { userId: USER, role: 'organiser', reason: 'fee paid', grantId: null, grantedAt: at(4) } });
const tenantCreated = (revision: number, name: string) =>
  on('tenant-acme', revision, { type: 'TenantCreated', data: { tenantId: TENANT, slug: 'acme', name, whiteLabel: true, approvedOrigins: ['https://acme.test'], createdAt: at(revision) } });

test('account: registered, then business identity, ledger link and role fold into one document at the last revision', () => {
  const doc = foldAll(foldAccount, [registered, business, linked, organiser]);
  assert.equal(doc, {
    userId: USER,
    tenantId: TENANT,
    email: 'ana@example.test',
    phone: null,
    displayName: 'Ana',
    role: 'organiser',
    accountType: 'BUSINESS',
    country: 'FR',
    currency: 'EUR',
    timezone: 'Europe/Paris',
    signupSource: 'web',
    registeredAt: at(1),
    ledgerAccount: LEDGER,
    companyName: 'Ana SARL',
    siret: '12345678901234',
    taxCountry: 'FR',
    taxId: null,
    rccm: null,
    revision: 3n,
  });
});

test('account: every event replayed (twice, or the whole stream again) changes nothing', () => {
  const once = foldAll(foldAccount, [registered, business, linked, organiser]);
  assert.is(foldAll(foldAccount, [registered, business, linked, organiser], once), once);
  const twice = foldAll(foldAccount, [registered, registered, business, business, linked, linked, organiser, organiser]);
  assert.equal(twice, once);
});

test('account: nothing before the registration, and a later registration does not overwrite the first', () => {
  assert.is(foldAll(foldAccount, [business, linked]), null);
  const doc = foldAccount(null, registered)!;
  assert.is(foldAccount(doc, { ...registered, revision: 9n }), doc);
});

test('tenant: created, restated at a later revision (createdAt kept), replays ignored', () => {
  const first = foldTenant(null, tenantCreated(0, 'Acme'))!;
  assert.equal(first, { tenantId: TENANT, slug: 'acme', name: 'Acme', whiteLabel: true, approvedOrigins: ['https://acme.test'], createdAt: at(0), revision: 0n });
  assert.is(foldTenant(first, tenantCreated(0, 'Replayed')), first);
  const restated = foldTenant(first, tenantCreated(1, 'Acme Co'))!;
  assert.is(restated.name, 'Acme Co');
  assert.is(restated.createdAt, at(0));
  assert.is(restated.revision, 1n);
});

test('keys: each event names its document; other events none', () => {
  assert.is(tenantKeyOf(tenantCreated(0, 'Acme')), TENANT);
  assert.is(accountKeyOf(registered), USER);
  assert.is(accountKeyOf(organiser), USER);
  assert.is(accountKeyOf(tenantCreated(0, 'Acme')), null);
  assert.is(tenantKeyOf(registered), null);
});

test.run();
