import type { DealItem, DealPayout, DealReleaseRule, DealSplitLine, DomainEvent } from '@cagnotte/event-schemas';
import { DEAL_EVENT_TYPES } from '@cagnotte/event-schemas';
import { assertNever } from '../errors';
import type { DisputeClock } from '../escrow/dispute-rules';

/** A deal's events: everything on its stream `deal-<dealId>`. */
export type DealEvent = Extract<
  DomainEvent,
  {
    type:
      | 'DealCreated'
      | 'DealEscrowOpened'
      | 'DealFunded'
      | 'DealDelivered'
      | 'DealAccepted'
      | 'DealDisputed'
      | 'DealDisputeWithdrawn'
      | 'DealSettlementPrepared'
      | 'DealReleased'
      | 'DealRefunded'
      | 'DealCancelled';
  }
>;

export type DealStatus = 'created' | 'funded' | 'delivered' | 'accepted' | 'disputed' | 'released' | 'refunded' | 'cancelled';

/** When the deal entered each state (null: not yet). */
export type DealTransitions = Record<DealStatus, string | null>;

export interface DealDispute extends DisputeClock {
  disputeId: string;
  reason: string;
  openedAt: string;
  resolvedAt: string | null;
}

/** One payout of a deal's settlement, as recorded. */
export type DealPayoutLine = DealPayout;

export interface PreparedDealSettlement {
  settlementId: string;
  kind: 'RELEASE' | 'REFUND';
  escrowAccount: string;
  escrowSequence: string;
  hadTrustline: boolean;
  deadPreAuthSigners: string[];
  balanceId: string;
  amount: string;
  refundTo: string;
  payouts: DealPayout[];
  releaseUntil: string;
  recoveryFrom: string;
  recoveryUntil: string;
  lockHash: string;
  releaseHash: string;
  recoveryHash: string;
  preparedAt: string;
}

export interface ExistingDeal {
  status: Exclude<DealStatus, never>;
  id: string;
  tenantId: string;
  livemode: boolean;
  createdBy: string;
  buyerId: string;
  sellerId: string;
  brokerId: string | null;
  description: string | null;
  metadata: Record<string, string>;
  items: DealItem[];
  amount: string;
  currency: 'EUR';
  split: DealSplitLine[];
  releaseRule: DealReleaseRule;
  inspectionDays: number;
  disputeResponseDays: number;
  escrow: { accountId: string; cosigner: string; reclaimAfter: string; openedAt: string; setupTxHash: string | null } | null;
  funding: { from: string; amount: string; txHash: string; ledger: number; balanceId: string; via: 'txHash' | 'signedXdr'; fundedAt: string } | null;
  deliveredAt: string | null;
  inspectionEndsAt: string | null;
  acceptance: { by: 'BUYER' | 'AUTO'; at: string } | null;
  dispute: DealDispute | null;
  /** Every settlement prepared, oldest first (a later one supersedes an earlier one that never reached the ledger). */
  settlements: PreparedDealSettlement[];
  settled: { settlementId: string; kind: 'RELEASED' | 'REFUNDED'; path: 'RELEASE' | 'RECOVERY'; txHash: string; ledger: number; payouts: DealPayout[]; at: string } | null;
  transitions: DealTransitions;
}

export type Deal = { status: 'none' } | ExistingDeal;

export const initialDeal = (): Deal => ({ status: 'none' });

const noTransitions = (): DealTransitions => ({ created: null, funded: null, delivered: null, accepted: null, disputed: null, released: null, refunded: null, cancelled: null });

/** Where a deal stands once a dispute no longer holds it: accepted, delivered, or funded. */
const afterDispute = (d: ExistingDeal): DealStatus => (d.acceptance ? 'accepted' : d.deliveredAt ? 'delivered' : 'funded');

export const evolveDeal = (state: Deal, event: DealEvent): Deal => {
  if (event.type === 'DealCreated') {
    const d = event.data;
    return {
      status: 'created',
      id: d.dealId,
      tenantId: d.tenantId,
      livemode: d.livemode,
      createdBy: d.createdBy,
      buyerId: d.buyerId,
      sellerId: d.sellerId,
      brokerId: d.brokerId,
      description: d.description,
      metadata: d.metadata,
      items: d.items,
      amount: d.amount,
      currency: d.currency,
      split: d.split,
      releaseRule: d.releaseRule,
      inspectionDays: d.inspectionDays,
      disputeResponseDays: d.disputeResponseDays,
      escrow: null,
      funding: null,
      deliveredAt: null,
      inspectionEndsAt: null,
      acceptance: null,
      dispute: null,
      settlements: [],
      settled: null,
      transitions: { ...noTransitions(), created: d.createdAt },
    };
  }
  if (state.status === 'none') return state;
  const at = (status: DealStatus, when: string): DealTransitions => ({ ...state.transitions, [status]: when });
  switch (event.type) {
    case 'DealEscrowOpened': {
      const d = event.data;
      return { ...state, escrow: { accountId: d.accountId, cosigner: d.cosigner, reclaimAfter: d.reclaimAfter, openedAt: d.openedAt, setupTxHash: d.setupTxHash } };
    }
    case 'DealFunded': {
      const { dealId: _id, livemode: _mode, ...funding } = event.data;
      return { ...state, status: 'funded', funding, transitions: at('funded', funding.fundedAt) };
    }
    case 'DealDelivered': {
      const d = event.data;
      const status = state.status === 'funded' ? 'delivered' : state.status;
      return { ...state, status, deliveredAt: d.deliveredAt, inspectionEndsAt: d.inspectionEndsAt, transitions: at('delivered', d.deliveredAt) };
    }
    case 'DealAccepted':
      return { ...state, status: 'accepted', acceptance: { by: event.data.by, at: event.data.acceptedAt }, transitions: at('accepted', event.data.acceptedAt) };
    case 'DealDisputed': {
      const d = event.data;
      const dispute: DealDispute = { disputeId: d.disputeId, status: 'OPEN', reason: d.reason, respondBy: d.respondBy, lapsesAt: null, openedAt: d.disputedAt, resolvedAt: null };
      return { ...state, status: 'disputed', dispute, transitions: at('disputed', d.disputedAt) };
    }
    case 'DealDisputeWithdrawn': {
      if (!state.dispute) return state;
      const next = { ...state, dispute: { ...state.dispute, status: 'WITHDRAWN' as const, resolvedAt: event.data.withdrawnAt } };
      return { ...next, status: afterDispute(next) };
    }
    case 'DealSettlementPrepared': {
      const { dealId: _id, livemode: _mode, ...s } = event.data;
      return { ...state, settlements: [...state.settlements, s] };
    }
    case 'DealReleased': {
      const d = event.data;
      return { ...state, status: 'released', settled: { settlementId: d.settlementId, kind: 'RELEASED', path: 'RELEASE', txHash: d.txHash, ledger: d.ledger, payouts: d.payouts, at: d.releasedAt }, transitions: at('released', d.releasedAt) };
    }
    case 'DealRefunded': {
      const d = event.data;
      const dispute = state.dispute && (state.dispute.status === 'OPEN' || state.dispute.status === 'CONTESTED') ? { ...state.dispute, status: 'REFUNDED' as const, resolvedAt: d.refundedAt } : state.dispute;
      const payouts = [{ role: 'buyer' as const, accountId: state.buyerId, destination: d.destination, amount: d.amount }];
      return { ...state, status: 'refunded', dispute, settled: { settlementId: d.settlementId, kind: 'REFUNDED', path: d.path, txHash: d.txHash, ledger: d.ledger, payouts, at: d.refundedAt }, transitions: at('refunded', d.refundedAt) };
    }
    case 'DealCancelled':
      return { ...state, status: 'cancelled', transitions: at('cancelled', event.data.cancelledAt) };
    default:
      return assertNever(event);
  }
};

export const DEAL_EVENT_TYPE_SET: ReadonlySet<string> = DEAL_EVENT_TYPES;
export const isDealEvent = (e: DomainEvent): e is DealEvent => DEAL_EVENT_TYPE_SET.has(e.type);
