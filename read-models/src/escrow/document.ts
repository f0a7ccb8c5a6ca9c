import type { EventData, PayoutRole, PoolStatus, SettlementFees } from '@cagnotte/event-schemas';
import type { PoolClosingDoc } from '../pools/fold';

/*
 * The escrow read model's document of one pool (rm_escrows.doc): where its buyers' money is. It mirrors the domain's
 * escrow state (domain/src/escrow/state.ts), which the read side may not import, and keeps what the organiser and
 * the buyers are shown: totals, settlements with their rounds, disputes and a line per settled balance. Its status is
 * derived (view.ts), never stored.
 */

export interface EscrowTally {
  count: number;
  amount: string;
}

export interface EscrowRoundDoc {
  index: number;
  items: number;
  lockHash: string;
  releaseHash: string;
  recoveryHash: string;
  settled: { path: 'RELEASE' | 'RECOVERY'; txHash: string; ledger: number; merged: boolean; settledAt: string } | null;
  /** What the settled round paid, per recipient (its EscrowPayoutSettled events): reconciled against the ledger. */
  payouts?: Array<{ role: PayoutRole; destination: string; amount: string }>;
}

export interface EscrowSettlementDoc {
  settlementId: string;
  kind: 'RELEASE' | 'REFUND';
  final: boolean;
  supersedes: string | null;
  /** A later settlement replaced this one before any of its rounds reached the ledger. */
  supersededBy: string | null;
  preparedAt: string;
  releaseUntil: string;
  recoveryFrom: string;
  recoveryUntil: string;
  items: number;
  amount: string;
  rounds: EscrowRoundDoc[];
}

export interface EscrowDisputeDoc {
  disputeId: string;
  reservationId: string;
  buyerId: string;
  status: 'OPEN' | 'CONTESTED' | 'REFUNDED' | 'WITHDRAWN' | 'LAPSED';
  reason: string;
  details: string;
  evidence: string[];
  amount: string;
  respondBy: string;
  /** The organiser's answer when contesting. */
  statement: string | null;
  contestedAt: string | null;
  lapsesAt: string | null;
  refund: string | null;
  openedAt: string;
  resolvedAt: string | null;
}

/** Money paid straight into the escrow account (EscrowStrayPaymentRecorded), owed back to its sender until returned. */
export interface EscrowStrayDoc {
  operationId: string;
  txHash: string;
  from: string;
  amount: string;
  receivedAt: string;
  status: 'OWED' | 'RETURNED';
  /** The settlement whose first lock paid it back, that lock, and when it was recorded. */
  returned: { settlementId: string; txHash: string; returnedAt: string } | null;
}

/** What a settled round did with one balance (ReservationSettled). */
export type EscrowLineDoc = Omit<EventData<'ReservationSettled'>, 'poolId'>;

export interface EscrowDocument {
  /** Null before PoolCreated (initialEscrow): such a document is never stored. */
  poolId: string | null;
  tenantId: string | null;
  organiserId: string | null;
  poolStatus: PoolStatus | null;
  account: { accountId: string; organiserSigner: string; reclaimAfter: string; openedAt: string } | null;
  closing: PoolClosingDoc | null;
  /** The fee rates frozen at closing. */
  fees: SettlementFees | null;
  cancelledAt: string | null;
  /** When the escrow account was merged back: nothing is left in it. */
  mergedAt: string | null;
  /** Deposits of PAID reservations no settlement claimed yet. */
  held: EscrowTally;
  /** Late deposits (the reservation no longer held) no settlement refunded yet. */
  owedBack: EscrowTally;
  released: string;
  refunded: string;
  payouts: Record<PayoutRole, string>;
  /** The settlement being carried out (prepared, some round not on the ledger yet). */
  currentSettlementId: string | null;
  settlements: EscrowSettlementDoc[];
  disputes: EscrowDisputeDoc[];
  lines: EscrowLineDoc[];
  /** Stray payments, in the order they were recorded (absent from documents folded before they existed: none). */
  strays?: EscrowStrayDoc[];
  /** Everyone who placed a reservation in the pool: who may read the escrow's summary. */
  buyers: string[];
}

export interface EscrowDoc {
  escrow: EscrowDocument;
  /** Stream revision of the last event folded in (-1 before any): replays at or below it change nothing. */
  revision: bigint;
}

const zero = (): EscrowTally => ({ count: 0, amount: '0.00' });

export const initialEscrow = (): EscrowDoc => ({
  escrow: {
    poolId: null,
    tenantId: null,
    organiserId: null,
    poolStatus: null,
    account: null,
    closing: null,
    fees: null,
    cancelledAt: null,
    mergedAt: null,
    held: zero(),
    owedBack: zero(),
    released: '0.00',
    refunded: '0.00',
    payouts: { SELLER: '0.00', ORGANISER: '0.00', PLATFORM: '0.00', BUYER: '0.00' },
    currentSettlementId: null,
    settlements: [],
    disputes: [],
    lines: [],
    strays: [],
    buyers: [],
  },
  revision: -1n,
});
