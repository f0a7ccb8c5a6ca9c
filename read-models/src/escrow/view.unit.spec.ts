import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { Escrow, disputesFor, escrowView } from './view';
import { escrowDocOfRow, escrowRowValues } from './tables';
import { B1, B2, B3, DISPUTE, G, ORGANISER, R2, S1, S2, at, depositsPhase, finalSettlement, firstSettlement, foldAll } from './fixtures.testing';

const View = suite('escrow view: organiser, buyers, anyone else');

const STRANGER = '99999999-9999-4999-8999-999999999999';
const midway = foldAll([...depositsPhase, ...firstSettlement, finalSettlement[0]!, finalSettlement[1]!]);

View('the organiser sees everything: account and signer, totals, payouts, fees, every settlement with its rounds, every dispute and line', () => {
  const v = Escrow.parse(escrowView(midway, { userId: ORGANISER }));
  assert.equal([v.view, v.status, v.account, v.organiserSigner, v.reclaimAfter], ['ORGANISER', 'SETTLING', G('E'), G('O'), at(40)]);
  assert.equal([v.held, v.owedBack, v.released, v.refunded], [{ count: 1, amount: '30.00' }, { count: 0, amount: '0.00' }, '20.00', '5.00']);
  assert.equal(v.payouts, { SELLER: '19.00', ORGANISER: '0.00', PLATFORM: '1.00', BUYER: '5.00' });
  assert.equal(v.fees, { platformFeePercent: '5', organiserCommissionPercent: null });
  assert.equal(v.settlements!.map((s) => [s.settlementId, s.status, s.final, s.rounds.length]), [
    [S1, 'COMPLETE', false, 1],
    [S2, 'PREPARED', true, 1],
  ]);
  assert.equal(v.settling, { settlementId: S2, kind: 'RELEASE', final: true, rounds: 1, roundsSettled: 0, releaseUntil: at(20), recoveryFrom: at(21), recoveryUntil: at(39) });
  assert.equal(v.disputes.map((d) => [d.disputeId, d.status, d.refund]), [[DISPUTE, 'REFUNDED', '10.00']]);
  assert.equal(v.lines.map((l) => l.buyerId), [B1, B3]);
  assert.equal(v.closing?.release.after, 'RECEIPT');
  assert.is(v.revision, depositsPhase.length + firstSettlement.length + 1);
});

View('a buyer of the pool sees the summary and only their own disputes and settlement lines, nothing of the organiser\'s', () => {
  const b2 = Escrow.parse(escrowView(midway, { userId: B2 }));
  assert.equal([b2.view, b2.status, b2.account, b2.held.amount, b2.settling?.settlementId], ['BUYER', 'SETTLING', G('E'), '30.00', S2]);
  assert.equal(b2.disputes.map((d) => [d.disputeId, d.reservationId, d.statement]), [[DISPUTE, R2, 'Sent intact']]);
  assert.equal(b2.lines, []);
  for (const key of ['organiserSigner', 'owedBack', 'released', 'refunded', 'payouts', 'fees', 'settlements']) assert.not.ok(key in b2, `${key} is the organiser's`);
  const b1 = escrowView(midway, { userId: B1 })!;
  assert.equal([b1.disputes, b1.lines.map((l) => [l.kind, l.released])], [[], [['DEPOSIT', '20.00']]]);
  assert.equal(escrowView(midway, { userId: B3 })!.lines.map((l) => [l.kind, l.refunded]), [['LATE_DEPOSIT', '5.00']], 'a late depositor is a buyer too');
});

View('anyone else, signed in or not, gets nothing (the route answers 404)', () => {
  assert.is(escrowView(midway, { userId: STRANGER }), null);
  assert.is(escrowView(midway, { userId: null }), null);
  assert.is(disputesFor(midway, { userId: STRANGER }), null);
});

View('disputesFor: every dispute for the organiser, newest first; their own for a buyer', () => {
  assert.equal(disputesFor(midway, { userId: ORGANISER })!.map((d) => d.disputeId), [DISPUTE]);
  assert.equal(disputesFor(midway, { userId: B2 })!.map((d) => d.buyerId), [B2]);
  assert.equal(disputesFor(midway, { userId: B1 }), []);
});

View('a document written as a row and read back renders the same views', () => {
  const v = escrowRowValues(midway);
  const back = escrowDocOfRow({ ...v, doc: JSON.parse(v.doc) });
  for (const userId of [ORGANISER, B2, STRANGER]) assert.equal(escrowView(back, { userId }), escrowView(midway, { userId }));
});

View.run();
