import { initialPaymentRequest, paymentRequestAggregate, type PaymentRequest } from '@cagnotte/domain';
import type { DomainEvent } from '@cagnotte/event-schemas';
import { foldRequest, type RequestDoc } from '@cagnotte/read-models';
import type { Aggregate } from '../shared/run-command';

/** A request's stream: `request-<requestId>` (published). */
export const requestStream = (requestId: string) => `request-${requestId}`;

/**
 * One read of the request's stream feeds both folds: the decider's state and the read model's document (what the
 * answer renders through the view the query side serves). Revisions are 0-based and consecutive.
 */
export interface RequestCommandState {
  request: PaymentRequest;
  doc: RequestDoc | null;
  revision: bigint;
}

export const requestAggregate: Aggregate<RequestCommandState, DomainEvent> = {
  initial: () => ({ request: initialPaymentRequest(), doc: null, revision: -1n }),
  evolve: (s, e) => ({ request: paymentRequestAggregate.evolve(s.request, e), doc: foldRequest(s.doc, { ...e, revision: s.revision + 1n }), revision: s.revision + 1n }),
};

/**
 * The request as a caller may see it: another tenant's, another mode's (live / test) or another payee's request does
 * not exist (404, the same answer as a random id).
 */
export const requestInScope = (r: PaymentRequest, scope: { tenantId: string; livemode: boolean; payeeId: string }): PaymentRequest =>
  r.status !== 'none' && (r.tenantId !== scope.tenantId || r.livemode !== scope.livemode || r.payeeId !== scope.payeeId) ? initialPaymentRequest() : r;
