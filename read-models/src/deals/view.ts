import { z } from 'zod';
import type { DealDoc } from './fold';
import { prefixedId } from './ids';

// The /v1 deal object (docs/v1/deals.md): what GET /v1/deals/{id} serves and every deal command answers.

const Time = z.string().describe('ISO 8601 date-time');
const Amount = z.string().describe('Decimal string, never a float');
const AccountId = z.string().describe('`acct_…`: an account of the tenant');

/** An account as `expand[]` nests it (the /v1 accounts resource's summary). */
export const DealAccountSchema = z.object({ id: AccountId, object: z.literal('account'), displayName: z.string(), ledgerAccount: z.string().nullable() }).describe('DealAccount');
export type DealAccount = z.infer<typeof DealAccountSchema>;
const Party = z.union([AccountId, DealAccountSchema]);

const Payout = z.object({ role: z.enum(['seller', 'broker', 'payee', 'buyer', 'platform']), account: AccountId.nullable(), destination: z.string().describe('The ledger account paid'), amount: Amount });

export const DealSchema = z
  .object({
    id: z.string().describe('`deal_…`'),
    object: z.literal('deal'),
    livemode: z.boolean(),
    created: Time,
    status: z.enum(['created', 'funded', 'delivered', 'accepted', 'disputed', 'released', 'refunded', 'cancelled']),
    statusTransitions: z
      .object({ created: Time, funded: Time.nullable(), delivered: Time.nullable(), accepted: Time.nullable(), disputed: Time.nullable(), released: Time.nullable(), refunded: Time.nullable(), cancelled: Time.nullable() })
      .describe('When the deal entered each state (null: not yet)'),
    buyer: Party,
    seller: Party,
    broker: Party.nullable(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    items: z.array(z.object({ description: z.string(), quantity: z.number().int(), unitAmount: Amount, amount: Amount })),
    amount: Amount,
    currency: z.literal('EUR'),
    split: z.array(z.object({ account: AccountId, role: z.enum(['seller', 'broker', 'payee']), bps: z.number().int(), amount: Amount.describe('Exactly what the release pays this line') })),
    releaseRule: z.union([z.enum(['on_delivery', 'on_acceptance']), z.object({ at: Time })]),
    inspectionDays: z.number().int(),
    inspectionEndsAt: Time.nullable(),
    disputeResponseDays: z.number().int(),
    escrow: z.object({ account: z.string(), cosigner: z.string().describe('The seller’s ledger account'), reclaimAfter: Time }).nullable(),
    funding: z.object({ txHash: z.string(), balanceId: z.string(), amount: Amount }).nullable(),
    acceptedBy: z.enum(['BUYER', 'AUTO']).nullable(),
    dispute: z.object({ id: z.string(), status: z.enum(['OPEN', 'WITHDRAWN', 'REFUNDED']), reason: z.string(), respondBy: Time, openedAt: Time, resolvedAt: Time.nullable() }).nullable(),
    settlement: z
      .object({ id: z.string(), kind: z.enum(['RELEASE', 'REFUND']), releaseUntil: Time, recoveryFrom: Time, preparedAt: Time })
      .nullable()
      .describe('The latest release or refund prepared for the seller’s cosignature'),
    payouts: z.array(Payout).describe('What the ledger paid, once released or refunded'),
    settledTxHash: z.string().nullable(),
  })
  .describe('Deal');
export type DealView = z.infer<typeof DealSchema>;

const stroops = (a: string): bigint => {
  const [w, f = ''] = a.split('.');
  return BigInt(w!) * 10_000_000n + BigInt((f + '0000000').slice(0, 7));
};
const decimal = (s: bigint): string => {
  const frac = (s % 10_000_000n).toString().padStart(7, '0').replace(/0+$/, '');
  return `${s / 10_000_000n}.${frac.padEnd(2, '0')}`;
};

/** The deal as the API shows it; `accounts` nests the parties named in `expand[]` (a missing one stays an id). */
export const dealView = (doc: DealDoc, accounts: ReadonlyMap<string, DealAccount> = new Map()): DealView => {
  const party = (userId: string) => accounts.get(userId) ?? prefixedId('acct', userId);
  return {
    id: prefixedId('deal', doc.dealId),
    object: 'deal',
    livemode: doc.livemode,
    created: doc.transitions.created!,
    status: doc.status,
    statusTransitions: { ...doc.transitions, created: doc.transitions.created! },
    buyer: party(doc.buyerId),
    seller: party(doc.sellerId),
    broker: doc.brokerId ? party(doc.brokerId) : null,
    description: doc.description,
    metadata: doc.metadata,
    items: doc.items.map((i) => ({ ...i, amount: decimal(BigInt(i.quantity) * stroops(i.unitAmount)) })),
    amount: doc.amount,
    currency: 'EUR',
    split: doc.split.map((l) => ({ account: prefixedId('acct', l.accountId), role: l.role, bps: l.bps, amount: l.amount })),
    releaseRule: doc.releaseRule,
    inspectionDays: doc.inspectionDays,
    inspectionEndsAt: doc.inspectionEndsAt,
    disputeResponseDays: doc.disputeResponseDays,
    escrow: doc.escrow && { account: doc.escrow.accountId, cosigner: doc.escrow.cosigner, reclaimAfter: doc.escrow.reclaimAfter },
    funding: doc.funding,
    acceptedBy: doc.acceptedBy,
    dispute: doc.dispute && { id: doc.dispute.disputeId, status: doc.dispute.status, reason: doc.dispute.reason, respondBy: doc.dispute.respondBy, openedAt: doc.dispute.openedAt, resolvedAt: doc.dispute.resolvedAt },
    settlement: doc.settlement && { id: doc.settlement.settlementId, kind: doc.settlement.kind, releaseUntil: doc.settlement.releaseUntil, recoveryFrom: doc.settlement.recoveryFrom, preparedAt: doc.settlement.preparedAt },
    payouts: (doc.settled?.payouts ?? []).map((p) => ({ role: p.role, account: p.accountId ? prefixedId('acct', p.accountId) : null, destination: p.destination, amount: p.amount })),
    settledTxHash: doc.settled?.txHash ?? null,
  };
};

/** The parties a deal can expand. */
export const DEAL_EXPANDABLE = ['buyer', 'seller', 'broker'] as const;
export const partiesToExpand = (doc: DealDoc, expand: ReadonlySet<string>): string[] =>
  [expand.has('buyer') ? doc.buyerId : null, expand.has('seller') ? doc.sellerId : null, expand.has('broker') ? doc.brokerId : null].filter((x): x is string => x !== null);
