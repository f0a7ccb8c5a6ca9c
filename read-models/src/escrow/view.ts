import { z } from 'zod';
import { PayoutRole } from '@cagnotte/event-schemas';
import { escrowAtPoint } from './fold';
import { ReservationDispute } from '../reservations/escrow-facts';
import { PoolClosing, closingView } from '../pools/closing';
import { fromMinor, toMinor } from '../reservations/amounts';
import type { EscrowDisputeDoc, EscrowDoc, EscrowDocument, EscrowLineDoc, EscrowSettlementDoc, EscrowTally } from './document';

/*
 * The escrow as it is served: the organiser (the pool's owner) sees all of it; a buyer who placed a reservation in
 * the pool sees the summary and only their own disputes and settlement lines; anyone else nothing (a 404). Built
 * from allowlists: every field served is named here.
 */

export const EscrowStatus = z
  .enum(['NONE', 'OPEN', 'HELD', 'SETTLING', 'SETTLED', 'REFUND_DUE', 'REFUNDED'])
  .describe(
    'NONE: no escrow account (a draft, or a pool published before escrows). OPEN: the pool takes deposits. HELD: it closed successfully; ' +
      'the deposits wait for receipt, the inspection period, disputes or the organiser\'s settlement. SETTLING: a settlement is prepared and ' +
      'some of its rounds are not on the ledger yet. SETTLED: a successful pool\'s escrow is paid out and merged back. REFUND_DUE: the pool ' +
      'failed or was cancelled; its deposits go back to their buyers (`held` and `owedBack` say what is left). REFUNDED: that escrow is merged back.',
  );
export type EscrowStatus = z.infer<typeof EscrowStatus>;

/** The status, derived from the document (never stored, so a new rule needs no rebuild). */
export const escrowStatus = (e: EscrowDocument): EscrowStatus => {
  if (!e.account) return 'NONE';
  if (e.currentSettlementId) return 'SETTLING';
  if (e.poolStatus === 'FAILED' || e.poolStatus === 'CANCELLED') return e.mergedAt ? 'REFUNDED' : 'REFUND_DUE';
  if (e.poolStatus === null || e.poolStatus === 'DRAFT' || e.poolStatus === 'OPEN') return 'OPEN';
  return e.mergedAt ? 'SETTLED' : 'HELD';
};

const Tally = z.object({ count: z.number().int(), amount: z.string().describe('Decimal string') });

/** A dispute as the escrow lists it: the reservation's own view of it (../reservations/escrow-facts.ts), and whose it is, and the organiser's statement. */
export const EscrowDispute = ReservationDispute.extend({
  reservationId: z.string().uuid(),
  buyerId: z.string().uuid(),
  statement: z.string().nullable().describe('The organiser\'s answer when contesting'),
  contestedAt: z.string().nullable(),
})
  .describe('EscrowDispute');
export type EscrowDispute = z.infer<typeof EscrowDispute>;

export const EscrowSettlementLine = z
  .object({
    reservationId: z.string().uuid(),
    buyerId: z.string().uuid(),
    settlementId: z.string().uuid(),
    kind: z.enum(['DEPOSIT', 'LATE_DEPOSIT']),
    balanceId: z.string(),
    path: z.enum(['RELEASE', 'RECOVERY']),
    released: z.string(),
    refunded: z.string(),
    txHash: z.string(),
    settledAt: z.string(),
  })
  .describe('EscrowSettlementLine');

const Round = z.object({
  index: z.number().int(),
  items: z.number().int().describe('Balances the round claims'),
  lockHash: z.string(),
  releaseHash: z.string(),
  recoveryHash: z.string(),
  settled: z
    .object({ path: z.enum(['RELEASE', 'RECOVERY']), txHash: z.string(), ledger: z.number().int(), merged: z.boolean(), settledAt: z.string() })
    .nullable()
    .describe('Once on the ledger: the release or the recovery that ran'),
  payouts: z.array(z.object({ role: PayoutRole, destination: z.string(), amount: z.string() })).describe('What the settled round paid, per recipient'),
});

export const EscrowSettlement = z
  .object({
    settlementId: z.string().uuid(),
    kind: z.enum(['RELEASE', 'REFUND']),
    status: z.enum(['PREPARED', 'PARTIAL', 'COMPLETE', 'SUPERSEDED']).describe('SUPERSEDED: replaced by a later settlement before any round reached the ledger'),
    final: z.boolean().describe('The escrow is merged back at its end'),
    supersedes: z.string().nullable(),
    preparedAt: z.string(),
    releaseUntil: z.string(),
    recoveryFrom: z.string(),
    recoveryUntil: z.string(),
    items: z.number().int(),
    amount: z.string(),
    rounds: z.array(Round),
  })
  .describe('EscrowSettlement');

const Settling = z
  .object({
    settlementId: z.string().uuid(),
    kind: z.enum(['RELEASE', 'REFUND']),
    final: z.boolean(),
    rounds: z.number().int(),
    roundsSettled: z.number().int(),
    releaseUntil: z.string().describe('The organiser cosigns the releases until then'),
    recoveryFrom: z.string().describe('From then on the recoveries (every deposit back to its buyer) may run instead'),
    recoveryUntil: z.string(),
  })
  .describe('EscrowSettling');

export const EscrowStray = z
  .object({
    operationId: z.string().describe('The payment operation on the ledger'),
    txHash: z.string(),
    from: z.string().describe('Who paid it (G…): where it goes back'),
    amount: z.string(),
    receivedAt: z.string(),
    status: z.enum(['OWED', 'RETURNED']),
    returned: z.object({ settlementId: z.string().uuid(), txHash: z.string().describe('The lock that paid it back'), returnedAt: z.string() }).nullable(),
  })
  .describe('EscrowStray: money paid straight into the escrow account (not a deposit), owed back to its sender');

const Payouts = z.object({ SELLER: z.string(), ORGANISER: z.string(), PLATFORM: z.string(), BUYER: z.string() }).describe('Paid out on the ledger, per role');
const organiserOnly = 'Organiser only (absent for a buyer)';

export const Escrow = z
  .object({
    poolId: z.string().uuid(),
    view: z.enum(['ORGANISER', 'AUDITOR', 'BUYER']).describe('ORGANISER and AUDITOR (of the pool\'s tenant): everything; BUYER: the summary, and the viewer\'s own disputes and settlement lines'),
    status: EscrowStatus,
    account: z.string().nullable().describe('The escrow account (G…)'),
    reclaimAfter: z.string().nullable().describe('From then on each buyer alone can reclaim a deposit still unclaimed'),
    held: Tally.describe('Deposits of PAID reservations no settlement claimed yet'),
    closing: PoolClosing.nullable(),
    cancelledAt: z.string().nullable(),
    settling: Settling.nullable().describe('The settlement being carried out'),
    mergedAt: z.string().nullable().describe('When the escrow account was merged back: nothing is left in escrow'),
    disputes: z.array(EscrowDispute).describe('Newest first'),
    lines: z.array(EscrowSettlementLine).describe('What each settled round did with each balance, in order'),
    organiserSigner: z.string().nullable().optional().describe(organiserOnly),
    owedBack: Tally.optional().describe(`Late deposits not refunded yet. ${organiserOnly}`),
    released: z.string().optional().describe(`Paid out to the seller, the organiser and the platform. ${organiserOnly}`),
    refunded: z.string().optional().describe(`Paid back to buyers. ${organiserOnly}`),
    payouts: Payouts.optional().describe(organiserOnly),
    fees: z.object({ platformFeePercent: z.string(), organiserCommissionPercent: z.string().nullable() }).nullable().optional().describe(`Frozen at closing. ${organiserOnly}`),
    settlements: z.array(EscrowSettlement).optional().describe(`Oldest first. ${organiserOnly}`),
    strays: z.array(EscrowStray).optional().describe(`Money paid straight into the escrow account, oldest first: the next settlement pays it back to its sender. ${organiserOnly}`),
    straysOwed: Tally.optional().describe(`Stray payments not paid back yet. ${organiserOnly}`),
    revision: z.number().int().describe('Pool stream revision of the last event folded in'),
  })
  .describe('Escrow');
export type Escrow = z.infer<typeof Escrow>;

export interface EscrowViewer {
  userId: string | null;
  /** An auditor of the pool's tenant (the route checked it): sees what the organiser sees. */
  auditor?: boolean;
}

const tally = (t: EscrowTally) => ({ count: t.count, amount: t.amount });
const straysOwed = (e: EscrowDocument) => {
  const owed = (e.strays ?? []).filter((x) => x.status === 'OWED');
  return { count: owed.length, amount: fromMinor(owed.reduce((t, x) => t + toMinor(x.amount), 0n)) };
};

export const escrowDisputeView = (d: EscrowDisputeDoc): EscrowDispute => ({
  disputeId: d.disputeId,
  reservationId: d.reservationId,
  buyerId: d.buyerId,
  status: d.status,
  reason: d.reason,
  details: d.details,
  evidence: [...d.evidence],
  amount: d.amount,
  respondBy: d.respondBy,
  statement: d.statement,
  contestedAt: d.contestedAt,
  lapsesAt: d.lapsesAt,
  refund: d.refund,
  openedAt: d.openedAt,
  resolvedAt: d.resolvedAt,
});

const lineView = (l: EscrowLineDoc): z.infer<typeof EscrowSettlementLine> => ({
  reservationId: l.reservationId,
  buyerId: l.buyerId,
  settlementId: l.settlementId,
  kind: l.kind,
  balanceId: l.balanceId,
  path: l.path,
  released: l.released,
  refunded: l.refunded,
  txHash: l.txHash,
  settledAt: l.settledAt,
});

const settlementStatus = (s: EscrowSettlementDoc) => {
  const settled = s.rounds.filter((r) => r.settled !== null).length;
  if (settled > 0) return settled === s.rounds.length ? 'COMPLETE' : 'PARTIAL';
  return s.supersededBy ? 'SUPERSEDED' : 'PREPARED';
};

const settlementView = (s: EscrowSettlementDoc): z.infer<typeof EscrowSettlement> => ({
  settlementId: s.settlementId,
  kind: s.kind,
  status: settlementStatus(s),
  final: s.final,
  supersedes: s.supersedes,
  preparedAt: s.preparedAt,
  releaseUntil: s.releaseUntil,
  recoveryFrom: s.recoveryFrom,
  recoveryUntil: s.recoveryUntil,
  items: s.items,
  amount: s.amount,
  rounds: s.rounds.map((r) => ({
    index: r.index,
    items: r.items,
    lockHash: r.lockHash,
    releaseHash: r.releaseHash,
    recoveryHash: r.recoveryHash,
    settled: r.settled ? { path: r.settled.path, txHash: r.settled.txHash, ledger: r.settled.ledger, merged: r.settled.merged, settledAt: r.settled.settledAt } : null,
    payouts: (r.payouts ?? []).map((p) => ({ role: p.role, destination: p.destination, amount: p.amount })),
  })),
});

const settlingOf = (e: EscrowDocument): z.infer<typeof Settling> | null => {
  const s = e.currentSettlementId ? e.settlements.find((x) => x.settlementId === e.currentSettlementId) : undefined;
  if (!s) return null;
  const { settlementId, kind, final, releaseUntil, recoveryFrom, recoveryUntil } = s;
  return { settlementId, kind, final, rounds: s.rounds.length, roundsSettled: s.rounds.filter((r) => r.settled !== null).length, releaseUntil, recoveryFrom, recoveryUntil };
};

/** Who the viewer is to this escrow: its organiser, a buyer of the pool, or nobody (null: the escrow does not exist for them). */
export const escrowRole = (e: EscrowDocument, viewer: EscrowViewer): 'ORGANISER' | 'AUDITOR' | 'BUYER' | null => {
  if (viewer.userId === null || e.poolId === null) return null;
  if (viewer.userId === e.organiserId) return 'ORGANISER';
  if (viewer.auditor) return 'AUDITOR';
  return e.buyers.includes(viewer.userId) ? 'BUYER' : null;
};

/** The disputes this viewer may read, newest first: every one for the organiser, their own for a buyer; null for anyone else. */
export const disputesFor = (doc: EscrowDoc, viewer: EscrowViewer): EscrowDispute[] | null => {
  const role = escrowRole(doc.escrow, viewer);
  if (role === null) return null;
  return doc.escrow.disputes.filter((d) => role !== 'BUYER' || d.buyerId === viewer.userId).reverse().map(escrowDisputeView);
};

/** The escrow as this viewer may see it; null when it does not exist for them. */
export const escrowView = (doc: EscrowDoc, viewer: EscrowViewer): Escrow | null => {
  const e = doc.escrow;
  const role = escrowRole(e, viewer);
  if (role === null) return null;
  const summary: Escrow = {
    poolId: e.poolId!,
    view: role,
    status: escrowStatus(e),
    account: e.account?.accountId ?? null,
    reclaimAfter: e.account?.reclaimAfter ?? null,
    held: tally(e.held),
    closing: closingView(e.closing),
    cancelledAt: e.cancelledAt,
    settling: settlingOf(e),
    mergedAt: e.mergedAt,
    disputes: disputesFor(doc, viewer)!,
    lines: e.lines.filter((l) => role !== 'BUYER' || l.buyerId === viewer.userId).map(lineView),
    revision: Number(doc.revision),
  };
  if (role === 'BUYER') return summary;
  return {
    ...summary,
    organiserSigner: e.account?.organiserSigner ?? null,
    owedBack: tally(e.owedBack),
    released: e.released,
    refunded: e.refunded,
    payouts: { SELLER: e.payouts.SELLER, ORGANISER: e.payouts.ORGANISER, PLATFORM: e.payouts.PLATFORM, BUYER: e.payouts.BUYER },
    fees: e.fees ? { platformFeePercent: e.fees.platformFeePercent, organiserCommissionPercent: e.fees.organiserCommissionPercent } : null,
    settlements: e.settlements.map(settlementView),
    strays: (e.strays ?? []).map((x) => ({ ...x, returned: x.returned ? { ...x.returned } : null })),
    straysOwed: straysOwed(e),
  };
};

/** The escrow's extra fold for a pool's state at a point (GET /api/pools/{id}/state, `pnpm cli pool state`): the organiser's view. */
export const escrowStateFold = {
  ...escrowAtPoint,
  view: (doc: EscrowDoc, context: { pool: { organiserId: string } }) => escrowView(doc, { userId: context.pool.organiserId }),
};
