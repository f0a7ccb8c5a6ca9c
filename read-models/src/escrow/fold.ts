import type { EventData, PoolEvent } from '@cagnotte/event-schemas';
import type { PoolClosingDoc } from '../pools/fold';
import { fromMinor, toMinor } from '../reservations/amounts';
import { initialEscrow, type EscrowDisputeDoc, type EscrowDoc, type EscrowDocument, type EscrowSettlementDoc, type EscrowTally } from './document';

// The escrow's document folded from the pool's stream alone (so the projection rebuilds alone), pure and replay-safe.

const ESCROW_TYPES: ReadonlySet<string> = new Set<PoolEvent['type']>([
  'PoolCreated',
  'PoolPublished',
  'PoolEscrowOpened',
  'PoolClosed',
  'PoolCancelled',
  'PoolDelivered',
  'PoolSettled',
  'ReservationPlaced',
  'ReservationPaid',
  'ReservationLatePaymentReceived',
  'DisputeOpened',
  'DisputeContested',
  'DisputeResolved',
  'EscrowSettlementPrepared',
  'EscrowRoundSettled',
  'EscrowPayoutSettled',
  'ReservationSettled',
  'EscrowStrayPaymentRecorded',
  'EscrowStrayPaymentReturned',
]);

/** Whether the escrow read model folds this event type (every other event of a pool stream leaves it as it is). */
export const isEscrowEvent = (e: { type: string }): boolean => ESCROW_TYPES.has(e.type);

const add = (a: string, b: string) => fromMinor(toMinor(a) + toMinor(b));
const tally = (t: EscrowTally, count: number, amount: string, sign: 1 | -1): EscrowTally => ({
  count: t.count + sign * count,
  amount: fromMinor(toMinor(t.amount) + BigInt(sign) * toMinor(amount)),
});
const updateDispute = (doc: EscrowDocument, disputeId: string, change: (d: EscrowDisputeDoc) => EscrowDisputeDoc): EscrowDocument => ({
  ...doc,
  disputes: doc.disputes.map((d) => (d.disputeId === disputeId ? change(d) : d)),
});

/** Every type of ESCROW_TYPES but PoolCreated lands in this switch or in evolveSettlement's. */
const evolve = (doc: EscrowDocument, event: PoolEvent): EscrowDocument => {
  switch (event.type) {
    case 'PoolPublished':
      return { ...doc, poolStatus: 'OPEN' };
    case 'PoolEscrowOpened': {
      const { accountId, organiserSigner, reclaimAfter, openedAt } = event.data;
      return { ...doc, account: { accountId, organiserSigner, reclaimAfter, openedAt } };
    }
    case 'PoolClosed': {
      const { outcome, reason, closedAt, paidUnits, paidAmount, finalPrices, release, fees } = event.data;
      const closing: PoolClosingDoc = { outcome, reason, closedAt, paidUnits, paidAmount, finalPrices, release, deliveredAt: null, inspectionEndsAt: null };
      return { ...doc, poolStatus: outcome === 'SUCCEEDED' ? 'LOCKED' : 'FAILED', closing, fees };
    }
    case 'PoolCancelled':
      return { ...doc, poolStatus: 'CANCELLED', cancelledAt: event.data.cancelledAt };
    case 'PoolDelivered':
      return doc.closing ? { ...doc, closing: { ...doc.closing, deliveredAt: event.data.deliveredAt, inspectionEndsAt: event.data.inspectionEndsAt } } : doc;
    case 'PoolSettled':
      // As the pool's aggregate: a successful pool is SETTLED, a failed or cancelled one keeps its status.
      return { ...doc, poolStatus: doc.poolStatus === 'LOCKED' ? 'SETTLED' : doc.poolStatus, mergedAt: doc.mergedAt ?? event.data.settledAt };
    case 'ReservationPlaced':
      return doc.buyers.includes(event.data.buyerId) ? doc : { ...doc, buyers: [...doc.buyers, event.data.buyerId] };
    case 'ReservationPaid':
      return { ...doc, held: tally(doc.held, 1, event.data.amount, 1) };
    case 'ReservationLatePaymentReceived':
      return { ...doc, owedBack: tally(doc.owedBack, 1, event.data.amount, 1) };
    case 'DisputeOpened': {
      const { poolId: _p, ...d } = event.data;
      return { ...doc, disputes: [...doc.disputes, { ...d, evidence: [...d.evidence], status: 'OPEN', statement: null, contestedAt: null, lapsesAt: null, refund: null, resolvedAt: null }] };
    }
    case 'DisputeContested': {
      const { statement, lapsesAt, contestedAt } = event.data;
      return updateDispute(doc, event.data.disputeId, (d) => ({ ...d, status: 'CONTESTED', statement, lapsesAt, contestedAt }));
    }
    case 'DisputeResolved': {
      const { outcome, refund, resolvedAt } = event.data;
      return updateDispute(doc, event.data.disputeId, (d) => ({ ...d, status: outcome, refund, resolvedAt }));
    }
    default:
      return evolveSettlement(doc, event);
  }
};

const evolveSettlement = (doc: EscrowDocument, event: PoolEvent): EscrowDocument => {
  switch (event.type) {
    case 'EscrowSettlementPrepared': {
      const d = event.data;
      const prepared: EscrowSettlementDoc = {
        settlementId: d.settlementId,
        kind: d.kind,
        final: d.final,
        supersedes: d.supersedes,
        supersededBy: null,
        preparedAt: d.preparedAt,
        releaseUntil: d.releaseUntil,
        recoveryFrom: d.recoveryFrom,
        recoveryUntil: d.recoveryUntil,
        items: d.items.length,
        amount: fromMinor(d.items.reduce((sum, i) => sum + toMinor(i.amount), 0n)),
        rounds: d.rounds.map((r) => ({ index: r.index, items: r.refs.length, lockHash: r.lockHash, releaseHash: r.releaseHash, recoveryHash: r.recoveryHash, settled: null })),
      };
      const earlier = doc.settlements.map((s) => (s.settlementId === d.supersedes ? { ...s, supersededBy: d.settlementId } : s));
      return { ...doc, settlements: [...earlier, prepared], currentSettlementId: d.settlementId };
    }
    case 'EscrowRoundSettled': {
      const { settlementId, round, path, txHash, ledger, merged, settledAt } = event.data;
      const s = doc.settlements.find((x) => x.settlementId === settlementId);
      if (!s) return doc;
      const rounds = s.rounds.map((r) => (r.index === round ? { ...r, settled: { path, txHash, ledger, merged, settledAt } } : r));
      const complete = rounds.every((r) => r.settled !== null);
      return {
        ...doc,
        settlements: doc.settlements.map((x) => (x === s ? { ...s, rounds } : x)),
        currentSettlementId: complete && doc.currentSettlementId === settlementId ? null : doc.currentSettlementId,
        mergedAt: merged ? settledAt : doc.mergedAt,
      };
    }
    case 'EscrowPayoutSettled': {
      const { role, amount, destination, settlementId, round } = event.data;
      const settlements = doc.settlements.map((s) =>
        s.settlementId !== settlementId ? s : { ...s, rounds: s.rounds.map((r) => (r.index === round ? { ...r, payouts: [...(r.payouts ?? []), { role, destination, amount }] } : r)) },
      );
      return { ...doc, settlements, payouts: { ...doc.payouts, [role]: add(doc.payouts[role], amount) } };
    }
    case 'ReservationSettled': {
      const { poolId: _p, ...line } = event.data;
      const total = add(line.released, line.refunded);
      return {
        ...doc,
        held: line.kind === 'DEPOSIT' ? tally(doc.held, 1, total, -1) : doc.held,
        owedBack: line.kind === 'LATE_DEPOSIT' ? tally(doc.owedBack, 1, total, -1) : doc.owedBack,
        released: add(doc.released, line.released),
        refunded: add(doc.refunded, line.refunded),
        lines: [...doc.lines, line],
      };
    }
    case 'EscrowStrayPaymentRecorded': {
      const { operationId, txHash, from, amount, receivedAt } = event.data;
      const strays = doc.strays ?? [];
      if (strays.some((x) => x.operationId === operationId)) return doc;
      return { ...doc, strays: [...strays, { operationId, txHash, from, amount, receivedAt, status: 'OWED', returned: null }] };
    }
    case 'EscrowStrayPaymentReturned': {
      const { operationId, settlementId, txHash, returnedAt } = event.data;
      const strays = (doc.strays ?? []).map((x) => (x.operationId === operationId ? { ...x, status: 'RETURNED' as const, returned: { settlementId, txHash, returnedAt } } : x));
      return { ...doc, strays };
    }
    default:
      return doc;
  }
};

const created = (data: EventData<'PoolCreated'>): EscrowDocument => ({
  ...initialEscrow().escrow,
  poolId: data.poolId,
  tenantId: data.tenantId,
  organiserId: data.organiserId,
  poolStatus: 'DRAFT',
});

/**
 * Pure and replay-safe: an event at or below the document's revision, or one the escrow does not fold, returns the
 * document itself; nothing before PoolCreated. Start from `initialEscrow()`: the projector and a fold up to a point
 * in time (an audit's) fold alike.
 */
export const foldEscrow = (doc: EscrowDoc, event: PoolEvent, revision: bigint): EscrowDoc => {
  if (revision <= doc.revision || !isEscrowEvent(event)) return doc;
  if (event.type === 'PoolCreated') return doc.escrow.poolId === null ? { escrow: created(event.data), revision } : doc;
  if (doc.escrow.poolId === null) return doc;
  return { escrow: evolve(doc.escrow, event), revision };
};

/**
 * The escrow at a point of its pool's history, for time travel (read-models/src/audit/state.ts): the same fold as the
 * projection's, rendered for the pool's organiser (the full view).
 */
export const escrowAtPoint = {
  initial: initialEscrow,
  fold: (doc: EscrowDoc, e: { type: string; data: unknown; revision: bigint }): EscrowDoc => foldEscrow(doc, { type: e.type, data: e.data } as PoolEvent, e.revision),
};
