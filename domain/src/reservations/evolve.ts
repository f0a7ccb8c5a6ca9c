import type { ReservationEvent } from '@cagnotte/event-schemas';
import { assertNever } from '../errors';
import type { Holdings, Reservation } from './holdings';

/** Folds one reservation event into the pool's holdings, in place (see Holdings). */
export const evolveHoldings = (h: Holdings, event: ReservationEvent): Holdings => {
  const d = event.data;
  const r = h.byId.get(d.reservationId);
  switch (event.type) {
    case 'ReservationPlaced': {
      const placed: Reservation = {
        id: d.reservationId,
        buyerId: d.buyerId,
        buyerName: event.data.buyerName,
        status: 'PENDING',
        lines: event.data.lines,
        pledge: event.data.pledge,
        amount: event.data.amount,
        depositFee: event.data.depositFee ?? '0.00',
        relaisId: event.data.relaisId,
        expiresAt: event.data.expiresAt,
        placedAt: event.data.placedAt,
        signed: null,
        payment: null,
        latePayments: [],
        endedAt: null,
        acceptance: null,
        dispute: null,
        settled: new Map(),
      };
      h.byId.set(placed.id, placed);
      h.pending.add(placed.id);
      return h;
    }
    case 'ReservationSigned': {
      if (!r) return h;
      const { poolId: _p, reservationId: _r, buyerId: _b, ip: _ip, ...signed } = event.data;
      r.signed = signed;
      return h;
    }
    case 'ReservationPaid': {
      if (!r) return h;
      const { txHash, ledger, balanceId, amount, via, paidAt } = event.data;
      r.status = 'PAID';
      r.payment = { txHash, ledger, balanceId, amount, via, paidAt };
      // A deposit that landed in time pays a reservation expired since (its units fit again): it holds again.
      r.endedAt = null;
      h.pending.delete(r.id);
      return h;
    }
    case 'ReservationExpired':
      if (!r) return h;
      r.status = 'EXPIRED';
      r.endedAt = event.data.expiredAt;
      h.pending.delete(r.id);
      return h;
    case 'ReservationCancelled':
      if (!r) return h;
      r.status = 'CANCELLED';
      r.endedAt = event.data.cancelledAt;
      h.pending.delete(r.id);
      return h;
    case 'ReservationLatePaymentReceived': {
      if (!r) return h;
      const { txHash, ledger, balanceId, amount, receivedAt } = event.data;
      r.latePayments = [...r.latePayments, { txHash, ledger, balanceId, amount, receivedAt }];
      return h;
    }
    default:
      return assertNever(event);
  }
};
