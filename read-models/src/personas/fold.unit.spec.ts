import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { OTHER_USER, TENANT, USER, accountStream, at, foldAll, on } from '../spec-events';
import { foldGrant, grantKeyOf } from './fold';
import { organiserGrantView } from './view';

const G1 = '77777777-8888-4999-8aaa-bbbbbbbbbbbb';
const SOURCE = `G${'S'.repeat(55)}`;
const PLATFORM = `G${'P'.repeat(55)}`;
const ISSUER = `G${'I'.repeat(55)}`;
const prepared: DomainEvent = {
  type: 'OrganiserGrantPrepared',
  data: { grantId: G1, userId: USER, ledgerAccount: SOURCE, destination: PLATFORM, assetCode: 'EURC', assetIssuer: ISSUER, amount: '1.0000000', memoHash: 'c'.repeat(64), nonce: null, preparedAt: at(1) },
};
const settled: DomainEvent = { type: 'OrganiserGrantSettled', data: { grantId: G1, userId: USER, txHash: 'd'.repeat(64), ledger: 42, via: 'txHash', settledAt: at(2) } };

test('grant: prepared on the account stream awaits signature, then settles', () => {
  const awaiting = foldGrant(null, on(accountStream(), 2, prepared));
  assert.equal(awaiting, {
    grantId: G1,
    ownerId: USER,
    tenantId: TENANT,
    status: 'AWAITING_SIGNATURE',
    ledgerAccount: SOURCE,
    destination: PLATFORM,
    assetCode: 'EURC',
    assetIssuer: ISSUER,
    amount: '1.0000000',
    memoHash: 'c'.repeat(64),
    preparedAt: at(1),
    settledAt: null,
    txHash: null,
    revision: 2n,
  });
  const done = foldGrant(awaiting, on(accountStream(), 4, settled));
  assert.equal(done, { ...awaiting!, status: 'SETTLED', settledAt: at(2), txHash: 'd'.repeat(64), revision: 4n });
});

test('grant: replaying either event changes nothing', () => {
  const p = on(accountStream(), 2, prepared);
  const s = on(accountStream(), 4, settled);
  const once = foldAll(foldGrant, [p, s]);
  assert.is(foldAll(foldGrant, [p, s], once), once);
  assert.equal(foldAll(foldGrant, [p, p, s, s]), once);
});

test('grant: another user stream, or a settlement of an unknown grant, changes nothing', () => {
  const doc = foldGrant(null, on(accountStream(), 2, prepared));
  assert.is(foldGrant(doc, on(accountStream(OTHER_USER), 7, settled)), doc);
  assert.is(foldGrant(null, on(accountStream(), 7, settled)), null);
  assert.is(grantKeyOf(on('pool-x', 1, prepared)), null);
});

test('grant view: awaiting shows the payment just built; settled shows the paying transaction and no XDR', () => {
  const awaiting = foldGrant(null, on(accountStream(), 2, prepared))!;
  const view = organiserGrantView(awaiting, 'Spec Network', { xdr: 'AAAA', hash: 'e'.repeat(64), expiresAt: at(9) });
  assert.equal(view, {
    grantId: G1,
    status: 'AWAITING_SIGNATURE',
    networkPassphrase: 'Spec Network',
    payment: { source: SOURCE, destination: PLATFORM, asset: { code: 'EURC', issuer: ISSUER }, amount: '1.0000000', memoHash: 'c'.repeat(64) },
    preparedAt: at(1),
    settledAt: null,
    xdr: 'AAAA',
    txHash: 'e'.repeat(64),
    expiresAt: at(9),
  });
  const done = foldGrant(awaiting, on(accountStream(), 4, settled))!;
  const settledView = organiserGrantView(done, 'Spec Network', null);
  assert.is(settledView.xdr, null);
  assert.is(settledView.expiresAt, null);
  assert.is(settledView.txHash, 'd'.repeat(64));
});

test.run();
