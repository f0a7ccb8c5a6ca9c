import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { PoolEvent } from '@cagnotte/event-schemas';
import { foldEscrow } from './fold';
import { initialEscrow, type EscrowDoc } from './document';
import { Escrow, escrowStatus, escrowView } from './view';
import {
  B1,
  B2,
  B3,
  BAL,
  DISPUTE,
  G,
  ORGANISER,
  POOL,
  R1,
  R3,
  S1,
  S2,
  TENANT,
  at,
  closed,
  created,
  depositsPhase,
  disputeContested,
  escrowOpened,
  finalSettlement,
  firstSettlement,
  foldAll,
  prepared,
  published,
  reservationSettled,
  roundSettled,
  settlementItem,
} from './fixtures.testing';

const Fold = suite('escrow fold');

const status = (events: PoolEvent[]) => escrowStatus(foldAll(events).escrow);

Fold('given nothing but other events, then there is no document; PoolCreated starts one, NONE, with its pool, tenant and organiser', () => {
  assert.equal(foldAll([published]), initialEscrow());
  const doc = foldAll([created()]);
  assert.equal([doc.escrow.poolId, doc.escrow.tenantId, doc.escrow.organiserId, doc.escrow.poolStatus, doc.revision], [POOL, TENANT, ORGANISER, 'DRAFT', 0n]);
  assert.is(escrowStatus(doc.escrow), 'NONE');
  assert.is(status([created(), published]), 'NONE', 'published before escrows: no account');
  assert.is(status([created(), { type: 'PoolCancelled', data: { poolId: POOL, reason: null, cancelledAt: at(2) } }]), 'NONE', 'a cancelled draft had no escrow');
});

Fold('given a published pool with its escrow, when buyers pay (one late), then OPEN: held counts PAID deposits, owedBack the late one; every buyer is known', () => {
  const e = foldAll(depositsPhase).escrow;
  assert.is(escrowStatus(e), 'OPEN');
  assert.equal(e.account, { accountId: G('E'), organiserSigner: G('O'), reclaimAfter: at(40), openedAt: at(2) });
  assert.equal([e.held, e.owedBack], [{ count: 2, amount: '50.00' }, { count: 1, amount: '5.00' }]);
  assert.equal(e.buyers, [B1, B2, B3]);
});

Fold('given the pool closed successfully, a dispute contested and a first, partial settlement, then HELD with what is left', () => {
  const e = foldAll([...depositsPhase, ...firstSettlement]).escrow;
  assert.is(escrowStatus(e), 'HELD');
  assert.equal(e.closing?.release, { after: 'RECEIPT', inspectionDays: 7, disputeResponseDays: 3 });
  assert.equal([e.closing?.deliveredAt, e.closing?.inspectionEndsAt, e.fees], [at(11), at(18), { platformFeePercent: '5', organiserCommissionPercent: null }]);
  assert.equal([e.held, e.owedBack, e.released, e.refunded], [{ count: 1, amount: '30.00' }, { count: 0, amount: '0.00' }, '20.00', '5.00']);
  assert.equal(e.payouts, { SELLER: '19.00', ORGANISER: '0.00', PLATFORM: '1.00', BUYER: '5.00' });
  assert.equal(e.disputes.map((d) => [d.disputeId, d.buyerId, d.status, d.statement, d.lapsesAt]), [[DISPUTE, B2, 'CONTESTED', 'Sent intact', at(17)]]);
  assert.equal(e.lines.map((l) => [l.reservationId, l.kind, l.released, l.refunded]), [
    [R1, 'DEPOSIT', '20.00', '0.00'],
    [R3, 'LATE_DEPOSIT', '0.00', '5.00'],
  ]);
  const [s1] = e.settlements;
  assert.equal([s1!.settlementId, s1!.items, s1!.amount, s1!.rounds[0]!.items, s1!.rounds[0]!.settled?.txHash, e.currentSettlementId], [S1, 2, '25.00', 2, 'b'.repeat(64), null]);
});

Fold('given a settlement prepared, then SETTLING until its last round is on the ledger', () => {
  const base = [...depositsPhase, ...firstSettlement, finalSettlement[0]!, finalSettlement[1]!];
  assert.is(status(base), 'SETTLING');
  assert.is(foldAll(base).escrow.currentSettlementId, S2);
});

Fold('given the final settlement merged the escrow, then SETTLED: nothing held, totals and payouts add up, the dispute refunded', () => {
  const doc = foldAll([...depositsPhase, ...firstSettlement, ...finalSettlement]);
  const e = doc.escrow;
  assert.is(escrowStatus(e), 'SETTLED');
  assert.equal([e.poolStatus, e.mergedAt, e.held, e.released, e.refunded], ['SETTLED', at(16), { count: 0, amount: '0.00' }, '40.00', '15.00']);
  assert.equal(e.payouts, { SELLER: '38.00', ORGANISER: '0.00', PLATFORM: '2.00', BUYER: '15.00' });
  assert.equal([e.disputes[0]!.status, e.disputes[0]!.refund, e.disputes[0]!.resolvedAt], ['REFUNDED', '10.00', at(17)]);
  assert.is(e.lines.length, 3);
});

Fold('given a settlement that never reached the ledger, when another supersedes it, then the new one is carried out and the first is marked replaced', () => {
  const items = [settlementItem(BAL.r1, R1, 'DEPOSIT', BAL.r1, '20.00')];
  const e = foldAll([...depositsPhase, closed(), prepared(S1, items, false), prepared(S2, items, false, S1)]).escrow;
  assert.equal([e.currentSettlementId, e.settlements.map((s) => [s.settlementId, s.supersededBy])], [S2, [[S1, S2], [S2, null]]]);
  assert.is(escrowStatus(e), 'SETTLING');
});

Fold('given a failed pool, then REFUND_DUE until the refund merges the escrow back: REFUNDED (its status stays FAILED)', () => {
  const failed = [...depositsPhase, closed('FAILED')];
  assert.is(status(failed), 'REFUND_DUE');
  const items = [settlementItem(R1, R1, 'DEPOSIT', BAL.r1, '20.00')];
  const refunded = foldAll([
    ...failed,
    prepared(S1, items, true),
    roundSettled(S1, true),
    reservationSettled(S1, R1, B1, 'DEPOSIT', BAL.r1, '0.00', '20.00'),
    { type: 'PoolSettled', data: { poolId: POOL, settlementId: S1, released: '0.00', refunded: '20.00', settledAt: at(16) } },
  ]).escrow;
  assert.equal([escrowStatus(refunded), refunded.poolStatus, refunded.refunded, refunded.held.amount], ['REFUNDED', 'FAILED', '20.00', '30.00']);
  assert.is(status([...depositsPhase, { type: 'PoolCancelled', data: { poolId: POOL, reason: 'supplier gone', cancelledAt: at(6) } }]), 'REFUND_DUE');
});

Fold('given a contest or an end of an unknown dispute, or a round of an unknown settlement, then nothing changes', () => {
  const before = foldAll(depositsPhase);
  const after = foldAll([roundSettled(S1, true), disputeContested], before, depositsPhase.length);
  assert.equal(after.escrow, before.escrow);
});

Fold('given a folded history, when each event is replayed (twice), then nothing changes', () => {
  const history = [...depositsPhase, ...firstSettlement, ...finalSettlement];
  const once = foldAll(history);
  let doc: EscrowDoc = once;
  history.forEach((e, i) => (doc = foldEscrow(doc, e, BigInt(i))));
  assert.is(doc, once);
  const twice = history.flatMap((e, i) => [[e, i], [e, i]] as Array<[PoolEvent, number]>);
  assert.equal(twice.reduce((d, [e, r]) => foldEscrow(d, e, BigInt(r)), initialEscrow()), once);
});

Fold('given events it does not fold, then the very same document comes back (the projection writes nothing)', () => {
  const doc = foldAll([created(), published, escrowOpened]);
  const archived: PoolEvent = { type: 'PoolArchived', data: { poolId: POOL, archivedAt: at(3) } };
  assert.is(foldEscrow(doc, archived, 9n), doc);
});

Fold('given a stray payment recorded (twice), then returned by a settlement’s lock, then it is shown owed back once, then returned; the organiser sees it, a buyer does not', () => {
  const op = '12884905985';
  const recorded: PoolEvent = {
    type: 'EscrowStrayPaymentRecorded',
    data: { poolId: POOL, escrowAccount: G('E'), operationId: op, txHash: 'ab'.repeat(32), from: G('X'), amount: '10.00', receivedAt: at(4), recordedAt: at(5) },
  };
  const returned: PoolEvent = { type: 'EscrowStrayPaymentReturned', data: { poolId: POOL, operationId: op, to: G('X'), amount: '10.00', settlementId: S1, txHash: 'cd'.repeat(32), returnedAt: at(15) } };
  const owed = foldAll([...depositsPhase, recorded, recorded]);
  assert.equal(owed.escrow.strays!.map((x) => [x.from, x.amount, x.status]), [[G('X'), '10.00', 'OWED']]);
  const view = Escrow.parse(escrowView(owed, { userId: ORGANISER }));
  assert.equal([view.strays!.length, view.straysOwed], [1, { count: 1, amount: '10.00' }]);
  const back = foldAll([returned], owed, depositsPhase.length + 2).escrow;
  assert.equal(back.strays!.map((x) => [x.status, x.returned?.txHash]), [['RETURNED', 'cd'.repeat(32)]]);
  assert.equal(escrowView({ escrow: back, revision: 99n }, { userId: ORGANISER })!.straysOwed, { count: 0, amount: '0.00' });
  assert.not.ok('strays' in escrowView(owed, { userId: B1 })!, 'organiser only');
});

Fold.run();
