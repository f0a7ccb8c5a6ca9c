import type { DealItem, DealPayout, DealReleaseRule, DealSplitLine, DomainEvent } from '@cagnotte/event-schemas';
import { DEAL_EVENT_TYPES } from '@cagnotte/event-schemas';

// The deals read model's document: a deal's stream folded into what its view shows (GET /v1/deals/{id}, and every
// command's answer through the same fold). Pure and replay-safe: an event at or below `revision` changes nothing.

export type DealEventOf = Extract<DomainEvent, { type: `Deal${string}` }>;
export const DEAL_DOC_EVENTS: ReadonlySet<string> = DEAL_EVENT_TYPES;
export const isDealDocEvent = (e: { type: string }): e is DealEventOf => DEAL_DOC_EVENTS.has(e.type);

export type DealDocStatus = 'created' | 'funded' | 'delivered' | 'accepted' | 'disputed' | 'released' | 'refunded' | 'cancelled';

export interface DealDoc {
  dealId: string;
  tenantId: string;
  livemode: boolean;
  createdBy: string;
  status: DealDocStatus;
  buyerId: string;
  sellerId: string;
  brokerId: string | null;
  description: string | null;
  metadata: Record<string, string>;
  items: DealItem[];
  amount: string;
  split: DealSplitLine[];
  releaseRule: DealReleaseRule;
  inspectionDays: number;
  disputeResponseDays: number;
  inspectionEndsAt: string | null;
  escrow: { accountId: string; cosigner: string; reclaimAfter: string } | null;
  funding: { txHash: string; balanceId: string; amount: string } | null;
  acceptedBy: 'BUYER' | 'AUTO' | null;
  dispute: { disputeId: string; status: 'OPEN' | 'WITHDRAWN' | 'REFUNDED'; reason: string; respondBy: string; openedAt: string; resolvedAt: string | null } | null;
  settlement: { settlementId: string; kind: 'RELEASE' | 'REFUND'; releaseUntil: string; recoveryFrom: string; preparedAt: string } | null;
  settled: { settlementId: string; path: 'RELEASE' | 'RECOVERY'; txHash: string; payouts: DealPayout[] } | null;
  transitions: Record<DealDocStatus, string | null>;
  revision: bigint;
}

const afterDispute = (d: DealDoc): DealDocStatus => (d.acceptedBy ? 'accepted' : d.transitions.delivered ? 'delivered' : 'funded');

const apply = (doc: DealDoc | null, e: DealEventOf, revision: bigint): DealDoc | null => {
  if (e.type === 'DealCreated') {
    const d = e.data;
    return {
      dealId: d.dealId,
      tenantId: d.tenantId,
      livemode: d.livemode,
      createdBy: d.createdBy,
      status: 'created',
      buyerId: d.buyerId,
      sellerId: d.sellerId,
      brokerId: d.brokerId,
      description: d.description,
      metadata: d.metadata,
      items: d.items,
      amount: d.amount,
      split: d.split,
      releaseRule: d.releaseRule,
      inspectionDays: d.inspectionDays,
      disputeResponseDays: d.disputeResponseDays,
      inspectionEndsAt: null,
      escrow: null,
      funding: null,
      acceptedBy: null,
      dispute: null,
      settlement: null,
      settled: null,
      transitions: { created: d.createdAt, funded: null, delivered: null, accepted: null, disputed: null, released: null, refunded: null, cancelled: null },
      revision,
    };
  }
  if (!doc) return null;
  const next = { ...doc, revision };
  const at = (status: DealDocStatus, when: string) => ({ ...doc.transitions, [status]: when });
  switch (e.type) {
    case 'DealEscrowOpened':
      return { ...next, escrow: { accountId: e.data.accountId, cosigner: e.data.cosigner, reclaimAfter: e.data.reclaimAfter } };
    case 'DealFunded':
      return { ...next, status: 'funded', funding: { txHash: e.data.txHash, balanceId: e.data.balanceId, amount: e.data.amount }, transitions: at('funded', e.data.fundedAt) };
    case 'DealDelivered':
      return { ...next, status: doc.status === 'funded' ? 'delivered' : doc.status, inspectionEndsAt: e.data.inspectionEndsAt, transitions: at('delivered', e.data.deliveredAt) };
    case 'DealAccepted':
      return { ...next, status: 'accepted', acceptedBy: e.data.by, transitions: at('accepted', e.data.acceptedAt) };
    case 'DealDisputed':
      return {
        ...next,
        status: 'disputed',
        dispute: { disputeId: e.data.disputeId, status: 'OPEN', reason: e.data.reason, respondBy: e.data.respondBy, openedAt: e.data.disputedAt, resolvedAt: null },
        transitions: at('disputed', e.data.disputedAt),
      };
    case 'DealDisputeWithdrawn': {
      const withdrawn = { ...next, dispute: doc.dispute && { ...doc.dispute, status: 'WITHDRAWN' as const, resolvedAt: e.data.withdrawnAt } };
      return { ...withdrawn, status: afterDispute(withdrawn) };
    }
    case 'DealSettlementPrepared':
      return { ...next, settlement: { settlementId: e.data.settlementId, kind: e.data.kind, releaseUntil: e.data.releaseUntil, recoveryFrom: e.data.recoveryFrom, preparedAt: e.data.preparedAt } };
    case 'DealReleased':
      return { ...next, status: 'released', settled: { settlementId: e.data.settlementId, path: 'RELEASE', txHash: e.data.txHash, payouts: e.data.payouts }, transitions: at('released', e.data.releasedAt) };
    case 'DealRefunded': {
      const dispute = doc.dispute?.status === 'OPEN' ? { ...doc.dispute, status: 'REFUNDED' as const, resolvedAt: e.data.refundedAt } : doc.dispute;
      const payouts: DealPayout[] = [{ role: 'buyer', accountId: doc.buyerId, destination: e.data.destination, amount: e.data.amount }];
      return { ...next, status: 'refunded', dispute, settled: { settlementId: e.data.settlementId, path: e.data.path, txHash: e.data.txHash, payouts }, transitions: at('refunded', e.data.refundedAt) };
    }
    case 'DealCancelled':
      return { ...next, status: 'cancelled', transitions: at('cancelled', e.data.cancelledAt) };
    default:
      return doc;
  }
};

/** The document after `e` at `revision` of the deal's stream; an event already folded in changes nothing. */
export const foldDeal = (doc: DealDoc | null, e: DomainEvent, revision: bigint): DealDoc | null => {
  if (!isDealDocEvent(e)) return doc;
  if (doc && revision <= doc.revision) return doc;
  return apply(doc, e, revision);
};
