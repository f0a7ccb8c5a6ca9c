import type { DealItem, DealPayout, DealReleaseRule, DealSplitRole } from '@cagnotte/event-schemas';
import { ConflictError, ForbiddenError, IllegalStateError, NotFoundError, ValidationError, assertNever } from '../errors';
import { MAX_LEDGER_AMOUNT, formatAmount, parseAmount } from '../money';
import { depositMismatch, type ObservedDeposit } from '../reservations/deposit';
import { hasLapsed, isOpenDispute, plusDays, reached, requireWithinInspection, respondByOf } from '../escrow/dispute-rules';
import { splitAmount, splitProblem } from './split';
import type { DealEvent, ExistingDeal, Deal, PreparedDealSettlement } from './state';

/** The longest a deal may wait for its release after its escrow opens (a dated release, too): then reclaimAfter's margin. */
export const DEAL_HOLD_DAYS = 90;

/**
 * Who gives a command: a user (a session's, or an API key's owner: a key acts as its owner), or the system (null).
 */
export interface DealActor {
  userId: string;
}
export interface DealMeta {
  actor: DealActor | null;
  now: string;
}

export type DealCommand =
  | {
      type: 'CreateDeal';
      data: {
        dealId: string;
        tenantId: string;
        livemode: boolean;
        buyerId: string;
        sellerId: string;
        brokerId: string | null;
        description: string | null;
        metadata: Record<string, string>;
        items: DealItem[];
        /** Null: 100% to the seller. */
        split: Array<{ accountId: string; bps: number }> | null;
        releaseRule: DealReleaseRule;
        inspectionDays: number;
        disputeResponseDays: number;
      };
      metadata: DealMeta;
    }
  | { type: 'OpenDealEscrow'; data: { accountId: string; cosigner: string; platformSigner: string; threshold: number; reclaimAfter: string; setupTxHash: string | null }; metadata: DealMeta }
  | {
      type: 'RecordFunding';
      /** `buyerAccount`: the buyer's linked ledger account, the only source of a deposit. `memoHash`: sha256("cagnotte:deal:" + dealId), what binds a deposit to its deal (computed outside the domain). */
      data: { deposit: ObservedDeposit; via: 'txHash' | 'signedXdr'; asset: { code: string; issuer: string }; memoHash: string; buyerAccount: string };
      metadata: DealMeta;
    }
  | { type: 'MarkDealDelivered'; data: { note: string | null }; metadata: DealMeta }
  | { type: 'AcceptDeal'; data: Record<string, never>; metadata: DealMeta }
  | { type: 'DisputeDeal'; data: { disputeId: string; reason: string }; metadata: DealMeta }
  | { type: 'PrepareDealSettlement'; data: Omit<PreparedDealSettlement, 'preparedAt'>; metadata: DealMeta }
  | { type: 'RecordDealSettled'; data: { settlementId: string; path: 'RELEASE' | 'RECOVERY'; txHash: string; ledger: number; at: string }; metadata: DealMeta }
  | { type: 'CancelDeal'; data: { reason: string | null }; metadata: DealMeta };

export type DealRole = 'buyer' | 'seller';

/** Whether the actor may read the deal: its creator, a party or a payee of its split. */
export const canReadDeal = (deal: ExistingDeal, actor: DealActor | null): boolean =>
  actor === null || [deal.createdBy, deal.buyerId, deal.sellerId, deal.brokerId, ...deal.split.map((l) => l.accountId)].includes(actor.userId);

/** Whether the actor may act as `role`: the creator (the marketplace acting for its users, with its key) or that party. */
export const actsAs = (deal: ExistingDeal, actor: DealActor | null, role: DealRole): boolean =>
  actor === null || actor.userId === deal.createdBy || actor.userId === (role === 'buyer' ? deal.buyerId : deal.sellerId);

/** The deal as the actor may see it: one they may not read does not exist for them (404, as a random id). */
export const readableDeal = (deal: Deal, actor: DealActor | null): ExistingDeal => {
  if (deal.status === 'none' || !canReadDeal(deal, actor)) throw new NotFoundError('deal');
  return deal;
};

const requireRole = (deal: ExistingDeal, meta: DealMeta, role: DealRole) => {
  if (!actsAs(deal, meta.actor, role)) throw new ForbiddenError(`${role}_only`, `Only the deal's ${role} may do this`);
};

/** Σ quantity × unitAmount, in stroops. */
export const dealAmountOf = (items: readonly DealItem[]): bigint => items.reduce((s, i) => s + BigInt(i.quantity) * parseAmount(i.unitAmount), 0n);

/** Why the escrow may not be released now (null when it may): the release rule, and no open dispute. */
export const releaseNotDue = (deal: ExistingDeal, now: string): string | null => {
  if (!deal.funding) return 'the deal is not funded';
  if (deal.settled) return 'the deal is settled';
  if (isOpenDispute(deal.dispute)) return 'a dispute holds the funds';
  const rule = deal.releaseRule;
  if (rule === 'on_delivery') return deal.deliveredAt ? null : 'the release waits for delivery';
  if (rule === 'on_acceptance') return deal.acceptance || reached(deal.inspectionEndsAt, now) ? null : 'the release waits for the buyer’s acceptance or the end of the inspection period';
  return reached(rule.at, now) ? null : `the release waits until ${rule.at}`;
};

/** Who may ask for the refund now: the seller (or the marketplace) at any time before settlement; the buyer once a dispute lapsed. */
const refundAllowed = (deal: ExistingDeal, meta: DealMeta): boolean =>
  actsAs(deal, meta.actor, 'seller') || (actsAs(deal, meta.actor, 'buyer') && deal.dispute !== null && hasLapsed(deal.dispute, meta.now));

/** What the release pays, per split line (the remainder rule: splitAmount), before destinations are known. */
export const releaseShares = (deal: ExistingDeal) => deal.split.map((l) => ({ ...l, amount: parseAmount(l.amount) }));

const requireOpenForMoney = (deal: ExistingDeal) => {
  if (deal.status === 'cancelled') throw new IllegalStateError('deal_cancelled', 'The deal was cancelled');
  if (deal.settled) throw new IllegalStateError('deal_settled', `The deal is ${deal.status}`);
};

const requireFunded = (deal: ExistingDeal) => {
  requireOpenForMoney(deal);
  if (!deal.funding) throw new IllegalStateError('deal_not_funded', 'The deal is not funded yet');
};

const roleOf = (a: { accountId: string }, sellerId: string, brokerId: string | null): DealSplitRole => (a.accountId === sellerId ? 'seller' : a.accountId === brokerId ? 'broker' : 'payee');

const create = (command: Extract<DealCommand, { type: 'CreateDeal' }>, state: Deal): DealEvent[] => {
  const d = command.data;
  const { now, actor } = command.metadata;
  if (state.status !== 'none') throw new ConflictError('deal_exists', 'This deal exists already');
  if (!actor) throw new ForbiddenError('user_required', 'A deal is created by a user');
  const errors: Record<string, string[]> = {};
  if (d.buyerId === d.sellerId) errors.seller = ['the seller is not the buyer'];
  if (d.brokerId && (d.brokerId === d.buyerId || d.brokerId === d.sellerId)) errors.broker = ['the broker is neither the buyer nor the seller'];
  const amount = dealAmountOf(d.items);
  if (amount <= 0n) errors.items = ['the deal’s amount must be positive'];
  else if (amount > MAX_LEDGER_AMOUNT) errors.items = [`the deal’s amount is at most ${formatAmount(MAX_LEDGER_AMOUNT)}`];
  const split = d.split ?? [{ accountId: d.sellerId, bps: 10_000 }];
  const problem = splitProblem(split);
  if (problem) errors.split = [problem];
  if (split.some((l) => l.accountId === d.buyerId)) errors.split = ['the buyer takes no part of the split'];
  if (typeof d.releaseRule === 'object' && (!reached(now, d.releaseRule.at) || reached(plusDays(now, DEAL_HOLD_DAYS), d.releaseRule.at))) {
    errors.releaseRule = [`a dated release is after now and within ${DEAL_HOLD_DAYS} days`];
  }
  if (Object.keys(errors).length > 0) throw new ValidationError(errors, 'Invalid deal');
  return [
    {
      type: 'DealCreated',
      data: {
        dealId: d.dealId,
        tenantId: d.tenantId,
        livemode: d.livemode,
        createdBy: actor.userId,
        buyerId: d.buyerId,
        sellerId: d.sellerId,
        brokerId: d.brokerId,
        description: d.description,
        metadata: d.metadata,
        items: d.items,
        amount: formatAmount(amount),
        currency: 'EUR',
        split: splitAmount(amount, split.map((l) => ({ accountId: l.accountId, role: roleOf(l, d.sellerId, d.brokerId), bps: l.bps }))).map((l) => ({ ...l, amount: formatAmount(l.amount) })),
        releaseRule: d.releaseRule,
        inspectionDays: d.inspectionDays,
        disputeResponseDays: d.disputeResponseDays,
        createdAt: now,
      },
    },
  ];
};

const payoutsSum = (payouts: readonly DealPayout[]) => payouts.reduce((s, p) => s + parseAmount(p.amount), 0n);

/** The payouts a settlement must make: the split (release) or everything back to the depositor (refund). */
const checkPayouts = (deal: ExistingDeal, s: Omit<PreparedDealSettlement, 'preparedAt'>) => {
  const funding = deal.funding!;
  const fine =
    s.kind === 'REFUND'
      ? s.payouts.length === 1 && s.payouts[0]!.role === 'buyer' && s.payouts[0]!.destination === funding.from && parseAmount(s.payouts[0]!.amount) === parseAmount(funding.amount)
      : s.payouts.length === deal.split.length &&
        releaseShares(deal).every((share, i) => {
          const p = s.payouts[i]!;
          return p.accountId === share.accountId && p.role === share.role && parseAmount(p.amount) === share.amount;
        });
  const exact = payoutsSum(s.payouts) === parseAmount(funding.amount) && s.balanceId === funding.balanceId && s.refundTo === funding.from && s.escrowAccount === deal.escrow!.accountId;
  if (!fine || !exact) throw new Error(`deal ${deal.id}: the planned ${s.kind} does not pay what the deal owes`);
};

const decideExisting = (command: Exclude<DealCommand, { type: 'CreateDeal' }>, deal: ExistingDeal): DealEvent[] => {
  const meta = command.metadata;
  const { now } = meta;
  const dealId = deal.id;
  switch (command.type) {
    case 'OpenDealEscrow': {
      requireRole(deal, meta, 'buyer');
      requireOpenForMoney(deal);
      if (deal.escrow) return [];
      return [{ type: 'DealEscrowOpened', data: { dealId, livemode: deal.livemode, ...command.data, openedAt: now } }];
    }
    case 'RecordFunding': {
      requireRole(deal, meta, 'buyer');
      const { deposit, via, asset, memoHash, buyerAccount } = command.data;
      if (deal.funding) {
        if (deal.funding.txHash === deposit.txHash) return [];
        throw new ConflictError('deal_already_funded', 'The deal is funded by another deposit: this one is the buyer’s to reclaim from reclaimAfter');
      }
      requireOpenForMoney(deal);
      if (!deal.escrow) throw new IllegalStateError('escrow_not_open', 'Ask for the deposit first (POST …/fund)');
      const expected = { source: buyerAccount, escrowAccount: deal.escrow.accountId, assetCode: asset.code, assetIssuer: asset.issuer, amount: deal.amount, memoHash, reclaimAfter: deal.escrow.reclaimAfter };
      const mismatch = depositMismatch(expected, deposit);
      if (mismatch) throw new ValidationError({ [mismatch.field]: [mismatch.message] }, 'The deposit does not fund this deal', 'payment_mismatch');
      return [
        {
          type: 'DealFunded',
          data: { dealId, livemode: deal.livemode, from: deposit.from, amount: deal.amount, txHash: deposit.txHash, ledger: deposit.ledger, balanceId: deposit.balanceId!, via, fundedAt: deposit.closedAt ?? now },
        },
      ];
    }
    case 'MarkDealDelivered': {
      requireRole(deal, meta, 'seller');
      requireFunded(deal);
      if (deal.deliveredAt) return [];
      return [{ type: 'DealDelivered', data: { dealId, livemode: deal.livemode, note: command.data.note, inspectionEndsAt: plusDays(now, deal.inspectionDays), deliveredAt: now } }];
    }
    case 'AcceptDeal': {
      requireRole(deal, meta, 'buyer');
      requireFunded(deal);
      if (deal.acceptance) return [];
      const withdrawn: DealEvent[] = isOpenDispute(deal.dispute) ? [{ type: 'DealDisputeWithdrawn', data: { dealId, livemode: deal.livemode, disputeId: deal.dispute!.disputeId, withdrawnAt: now } }] : [];
      return [...withdrawn, { type: 'DealAccepted', data: { dealId, livemode: deal.livemode, by: 'BUYER', acceptedAt: now } }];
    }
    case 'DisputeDeal': {
      requireRole(deal, meta, 'buyer');
      requireFunded(deal);
      if (deal.dispute) throw new IllegalStateError('dispute_exists', 'This deal already had a dispute');
      if (deal.acceptance) throw new IllegalStateError('deal_accepted', 'The buyer accepted the deal: its release is no longer held');
      requireWithinInspection(deal.inspectionEndsAt, now);
      if (deal.settlements.some((s) => s.kind === 'RELEASE')) throw new IllegalStateError('release_in_progress', 'The release is already prepared for the seller’s signature');
      return [{ type: 'DealDisputed', data: { dealId, livemode: deal.livemode, disputeId: command.data.disputeId, reason: command.data.reason, respondBy: respondByOf(now, deal.disputeResponseDays), disputedAt: now } }];
    }
    case 'PrepareDealSettlement': {
      const s = command.data;
      requireFunded(deal);
      if (s.kind === 'RELEASE') {
        requireRole(deal, meta, 'seller');
        const why = releaseNotDue(deal, now);
        if (why) throw new IllegalStateError('release_not_due', `Not releasable yet: ${why}`);
      } else if (!refundAllowed(deal, meta)) {
        throw new ForbiddenError('seller_only', 'Only the seller may refund, or the buyer once their dispute lapsed');
      }
      checkPayouts(deal, s);
      return [{ type: 'DealSettlementPrepared', data: { dealId, livemode: deal.livemode, ...s, preparedAt: now } }];
    }
    case 'RecordDealSettled': {
      const d = command.data;
      if (deal.settled) return [];
      const s = deal.settlements.find((x) => x.settlementId === d.settlementId);
      if (!s) throw new NotFoundError('settlement');
      if (s.kind === 'RELEASE' && d.path === 'RELEASE') return [{ type: 'DealReleased', data: { dealId, livemode: deal.livemode, settlementId: s.settlementId, txHash: d.txHash, ledger: d.ledger, payouts: s.payouts, releasedAt: d.at } }];
      return [{ type: 'DealRefunded', data: { dealId, livemode: deal.livemode, settlementId: s.settlementId, path: d.path, txHash: d.txHash, ledger: d.ledger, destination: s.refundTo, amount: s.amount, refundedAt: d.at } }];
    }
    case 'CancelDeal': {
      if (!actsAs(deal, meta.actor, 'buyer') && !actsAs(deal, meta.actor, 'seller')) throw new ForbiddenError('party_only', 'Only a party of the deal may cancel it');
      if (deal.status === 'cancelled') return [];
      if (deal.status !== 'created') throw new IllegalStateError('deal_funded', 'A funded deal is refunded, not cancelled');
      return [{ type: 'DealCancelled', data: { dealId, livemode: deal.livemode, reason: command.data.reason, cancelledAt: now } }];
    }
    default:
      return assertNever(command);
  }
};

export const decideDeal = (command: DealCommand, state: Deal): DealEvent[] => {
  if (command.type === 'CreateDeal') return create(command, state);
  return decideExisting(command, readableDeal(state, command.metadata.actor));
};
