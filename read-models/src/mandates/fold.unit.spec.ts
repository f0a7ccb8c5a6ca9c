import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { currentMandate, type DomainEvent } from '@cagnotte/event-schemas';
import { OTHER_USER, TENANT, USER, accountStream, at, foldAll, on } from '../spec-events';
import { foldMandate, mandateKeyOf } from './fold';
import { mandateView } from './view';

const M1 = '11111111-2222-4333-8444-555555555555';
const fee = currentMandate('FEE');
const accepted = (mandateId = M1): DomainEvent => ({
  type: 'MandateAccepted',
  data: { mandateId, userId: USER, kind: 'FEE', version: fee.version, hash: fee.hash, ip: '10.0.0.1', acceptedAt: at(1) },
});
const revoked = (mandateId = M1): DomainEvent => ({ type: 'MandateRevoked', data: { mandateId, userId: USER, kind: 'FEE', ip: '10.0.0.2', revokedAt: at(2) } });

test('mandate: accepted on the account stream, then revoked', () => {
  const doc = foldAll(foldMandate, [on(accountStream(), 3, accepted()), on(accountStream(), 5, revoked())]);
  assert.equal(doc, {
    mandateId: M1,
    ownerId: USER,
    tenantId: TENANT,
    kind: 'FEE',
    status: 'REVOKED',
    version: fee.version,
    hash: fee.hash,
    acceptedAt: at(1),
    acceptedIp: '10.0.0.1',
    acceptedRevision: 3n,
    revokedAt: at(2),
    revokedIp: '10.0.0.2',
    revision: 5n,
  });
});

test('mandate: replaying the acceptance or the revocation changes nothing', () => {
  const a = on(accountStream(), 3, accepted());
  const r = on(accountStream(), 5, revoked());
  const once = foldAll(foldMandate, [a, r]);
  assert.is(foldAll(foldMandate, [a, r], once), once);
  assert.equal(foldAll(foldMandate, [a, a, r, r]), once);
  const acceptedOnly = foldMandate(null, a);
  assert.is(foldMandate(acceptedOnly, a), acceptedOnly);
});

test('mandate: a COMMISSION acceptance in a pool stream is the pool history, not the user list', () => {
  const inPool = on('pool-22222222-3333-4444-8555-666666666666', 1, accepted());
  assert.is(mandateKeyOf(inPool), null);
  assert.is(foldMandate(null, inPool), null);
});

test('mandate: a revocation from another user stream, or of an unknown mandate, changes nothing', () => {
  const doc = foldMandate(null, on(accountStream(), 3, accepted()));
  assert.is(foldMandate(doc, on(accountStream(OTHER_USER), 9, revoked())), doc);
  assert.is(foldMandate(null, on(accountStream(), 9, revoked())), null);
});

test('mandate view: current while the accepted version and hash are the text of today', () => {
  const doc = foldMandate(null, on(accountStream(), 3, accepted()))!;
  assert.equal(mandateView(doc), { id: M1, kind: 'FEE', status: 'ACCEPTED', version: fee.version, hash: fee.hash, current: true, acceptedAt: at(1), acceptedIp: '10.0.0.1', revokedAt: null });
  assert.is(mandateView({ ...doc, version: '2025-01' }).current, false);
  assert.is(mandateView({ ...doc, hash: '0'.repeat(64) }).current, false);
});

test.run();
