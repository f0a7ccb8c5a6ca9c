import type { EscrowFeatureEvent, EventData, ReleaseTerms, SettlementFees } from '@cagnotte/event-schemas';
import { assertNever } from '../errors';
import { parseAmount, type Minor } from '../money';
import type { Holdings } from '../reservations/holdings';

/** How the pool closed, and what its settlement applies (frozen at closing). */
export interface Closing {
  outcome: 'SUCCEEDED' | 'FAILED';
  reason: 'DEADLINE' | 'ORGANISER';
  closedAt: string;
  paidUnits: number;
  paidAmount: string;
  /** Final unit prices by unit id, in stroops. */
  finalPrices: Map<string, Minor>;
  fees: SettlementFees;
  release: ReleaseTerms;
  deliveredAt: string | null;
  inspectionEndsAt: string | null;
}

export type PreparedSettlement = EventData<'EscrowSettlementPrepared'> & {
  /** Rounds applied on the ledger, by index. */
  settledRounds: Map<number, { path: 'RELEASE' | 'RECOVERY'; txHash: string; merged: boolean }>;
};

/** Money paid straight into the escrow account (EscrowStrayPaymentRecorded): its sender's, owed back until returned. */
export interface StrayPayment {
  operationId: string;
  txHash: string;
  from: string;
  amount: string;
  receivedAt: string;
  /** The settlement whose first lock paid it back, once one of its rounds is on the ledger. */
  returned: { settlementId: string; txHash: string; returnedAt: string } | null;
}

export interface SettlementBook {
  byId: Map<string, PreparedSettlement>;
  /** Stray payments by ledger operation id, in the order they were recorded. */
  strays: Map<string, StrayPayment>;
  /** The settlement being carried out (prepared, not every round settled), or null. */
  currentId: string | null;
  /** When the escrow account was merged back (nothing left in escrow). */
  mergedAt: string | null;
  released: Minor;
  refunded: Minor;
}

export const emptySettlementBook = (): SettlementBook => ({ byId: new Map(), strays: new Map(), currentId: null, mergedAt: null, released: 0n, refunded: 0n });

/** The stray payments still owed back to their senders, in the order they were recorded. */
export const owedStrays = (book: SettlementBook): StrayPayment[] => [...book.strays.values()].filter((s) => s.returned === null);

/** Whether every round of a prepared settlement is on the ledger. */
export const isComplete = (s: PreparedSettlement): boolean => s.settledRounds.size === s.rounds.length;

/** The part of the pool the escrow feature folds. */
export interface EscrowFeatureState {
  closing: Closing | null;
  cancelledAt: string | null;
  settlement: SettlementBook;
  holdings: Holdings;
}

/**
 * Folds one escrow-feature event (closing, receipt, disputes, settlement). Holdings are updated in place, like the
 * reservation fold (domain/src/reservations/holdings.ts): a state is never used again after it was evolved.
 */
export const evolveEscrowFeature = <S extends EscrowFeatureState>(state: S, event: EscrowFeatureEvent): S => {
  const h = state.holdings;
  switch (event.type) {
    case 'PoolClosed': {
      const d = event.data;
      const closing: Closing = {
        outcome: d.outcome,
        reason: d.reason,
        closedAt: d.closedAt,
        paidUnits: d.paidUnits,
        paidAmount: d.paidAmount,
        finalPrices: new Map(d.finalPrices.map((p) => [p.unitId, parseAmount(p.price)])),
        fees: d.fees,
        release: d.release,
        deliveredAt: null,
        inspectionEndsAt: null,
      };
      return { ...state, closing };
    }
    case 'PoolCancelled':
      return { ...state, cancelledAt: event.data.cancelledAt };
    case 'PoolDelivered':
      return state.closing ? { ...state, closing: { ...state.closing, deliveredAt: event.data.deliveredAt, inspectionEndsAt: event.data.inspectionEndsAt } } : state;
    case 'ReservationReceiptConfirmed': {
      const r = h.byId.get(event.data.reservationId);
      if (r) r.acceptance = { by: 'BUYER', at: event.data.confirmedAt };
      return state;
    }
    case 'ReservationAutoAccepted': {
      const r = h.byId.get(event.data.reservationId);
      if (r) r.acceptance = { by: 'AUTO', at: event.data.acceptedAt };
      return state;
    }
    case 'DisputeOpened': {
      const d = event.data;
      const r = h.byId.get(d.reservationId);
      if (r) {
        r.dispute = {
          disputeId: d.disputeId,
          status: 'OPEN',
          reason: d.reason,
          details: d.details,
          evidence: d.evidence,
          amount: d.amount,
          respondBy: d.respondBy,
          lapsesAt: null,
          refund: null,
          openedAt: d.openedAt,
          resolvedAt: null,
        };
      }
      return state;
    }
    case 'DisputeContested': {
      const r = h.byId.get(event.data.reservationId);
      if (r?.dispute) r.dispute = { ...r.dispute, status: 'CONTESTED', lapsesAt: event.data.lapsesAt };
      return state;
    }
    case 'DisputeResolved': {
      const r = h.byId.get(event.data.reservationId);
      if (r?.dispute) r.dispute = { ...r.dispute, status: event.data.outcome, refund: event.data.refund, resolvedAt: event.data.resolvedAt };
      return state;
    }
    case 'EscrowSettlementPrepared': {
      const byId = new Map(state.settlement.byId);
      byId.set(event.data.settlementId, { ...event.data, settledRounds: new Map() });
      return { ...state, settlement: { ...state.settlement, byId, currentId: event.data.settlementId } };
    }
    case 'EscrowRoundSettled': {
      const d = event.data;
      const prepared = state.settlement.byId.get(d.settlementId);
      if (!prepared) return state;
      const settledRounds = new Map(prepared.settledRounds).set(d.round, { path: d.path, txHash: d.txHash, merged: d.merged });
      const next: PreparedSettlement = { ...prepared, settledRounds };
      const byId = new Map(state.settlement.byId).set(d.settlementId, next);
      const currentId = isComplete(next) && state.settlement.currentId === d.settlementId ? null : state.settlement.currentId;
      return { ...state, settlement: { ...state.settlement, byId, currentId, mergedAt: d.merged ? d.settledAt : state.settlement.mergedAt } };
    }
    case 'EscrowPayoutSettled':
      return state;
    case 'ReservationSettled': {
      const d = event.data;
      const r = h.byId.get(d.reservationId);
      if (r) {
        r.settled.set(d.balanceId, {
          balanceId: d.balanceId,
          kind: d.kind,
          settlementId: d.settlementId,
          path: d.path,
          released: d.released,
          refunded: d.refunded,
          txHash: d.txHash,
          settledAt: d.settledAt,
        });
      }
      const settlement = { ...state.settlement, released: state.settlement.released + parseAmount(d.released), refunded: state.settlement.refunded + parseAmount(d.refunded) };
      return { ...state, settlement };
    }
    case 'PoolSettled':
      return { ...state, settlement: { ...state.settlement, mergedAt: state.settlement.mergedAt ?? event.data.settledAt } };
    case 'EscrowStrayPaymentRecorded': {
      const { operationId, txHash, from, amount, receivedAt } = event.data;
      if (state.settlement.strays.has(operationId)) return state;
      const strays = new Map(state.settlement.strays).set(operationId, { operationId, txHash, from, amount, receivedAt, returned: null });
      return { ...state, settlement: { ...state.settlement, strays } };
    }
    case 'EscrowStrayPaymentReturned': {
      const { operationId, settlementId, txHash, returnedAt } = event.data;
      const stray = state.settlement.strays.get(operationId);
      if (!stray) return state;
      const strays = new Map(state.settlement.strays).set(operationId, { ...stray, returned: { settlementId, txHash, returnedAt } });
      return { ...state, settlement: { ...state.settlement, strays } };
    }
    default:
      return assertNever(event);
  }
};
