import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { TENANT, USER, accountStream, at, foldAll, on } from '../spec-events';
import { foldV1Account } from './fold';
import { requirementsOf } from './requirements';

const WALLET = `G${'B'.repeat(55)}`;
const registered = on(accountStream(), 0, {
  type: 'AccountRegistered',
  data: {
    userId: USER,
    tenantId: TENANT,
    email: 'bea@example.test',
    phone: null,
    displayName: 'Bea',
    role: 'user',
    accountType: 'BUSINESS',
    country: 'FR',
    currency: 'EUR',
    timezone: 'Europe/Paris',
    signupSource: 'v1',
    registeredAt: at(1),
  },
});
const byPartner = on(accountStream(), 1, { type: 'AccountCreatedByPartner', data: { userId: USER, tenantId: TENANT, livemode: false, createdVia: 'k1', metadata: { crm: '7' }, createdAt: at(1) } });
const renamed = on(accountStream(), 2, { type: 'AccountProfileUpdated', data: { userId: USER, displayName: 'Béa', updatedAt: at(2) } });
const linked = on(accountStream(), 3, { type: 'LedgerAccountLinked', data: { userId: USER, ledgerAccount: WALLET, challengeHash: 'a'.repeat(64), linkedAt: at(3) } });

test('v1 account: a partner’s creation, a rename and a wallet fold into one row; a replay changes nothing', () => {
  const doc = foldAll(foldV1Account, [registered, byPartner, renamed, linked]);
  assert.ok(doc);
  assert.equal([doc.livemode, doc.createdVia, doc.name, doc.metadata, doc.wallet, doc.revision], [false, 'k1', 'Béa', { crm: '7' }, WALLET, 3n]);
  assert.is(foldAll(foldV1Account, [registered, byPartner, renamed], doc), doc, 'replayed events change nothing');
  const signup = foldAll(foldV1Account, [registered]);
  assert.is(signup?.livemode, null, 'a signup has no mode of its own');
});

test('requirements: a business without its DAC7 identity and a wallet; a wallet that cannot hold the stablecoin is pending', () => {
  const doc = foldAll(foldV1Account, [registered, byPartner])!;
  assert.equal(requirementsOf(doc, null), { currentlyDue: ['business.companyName', 'business.siret', 'wallet'], pendingVerification: [], disabledReason: 'requirements.wallet_missing' });
  const withWallet = { ...doc, wallet: WALLET, business: { companyName: 'Acme', siret: '73282932000074', taxCountry: 'FR', taxId: null, rccm: null } };
  assert.equal(requirementsOf(withWallet, false), { currentlyDue: [], pendingVerification: ['wallet.trustline'], disabledReason: 'requirements.pending_verification' });
  assert.equal(requirementsOf(withWallet, true), { currentlyDue: [], pendingVerification: [], disabledReason: null });
});

test.run();
