import { parseAmount } from '../money';

/** What the ledger shows of a deposit transaction (a claimable balance created for the escrow), decoded by infra. */
export interface ObservedDeposit {
  txHash: string;
  ledger: number;
  successful: boolean;
  /** When the ledger closed it (ISO), or null when not known (a signed XDR not yet submitted). */
  closedAt: string | null;
  /** The account that created the balance: the operation's source, or the transaction's. */
  from: string;
  /** How many operations the transaction holds (a deposit holds exactly one). */
  operationCount: number;
  /** Whether that one operation is a createClaimableBalance. */
  isClaimableBalance: boolean;
  assetCode: string | null;
  assetIssuer: string | null;
  /** 7-decimal string, as Horizon prints it. */
  amount: string;
  memoHash: string | null;
  balanceId: string | null;
  /**
   * The claimants as `{destination, before}` / `{destination, notBefore}` (epoch seconds), or `other` for any
   * predicate of another shape: the deposit must hold exactly the escrow-before and the buyer-not-before pair.
   */
  claimants: Array<{ destination: string; predicate: { before: number } | { notBefore: number } | 'other' }>;
}

/** The deposit a reservation expects, as its ReservationSigned recorded it plus the asset and amount. */
export interface ExpectedDeposit {
  source: string;
  escrowAccount: string;
  assetCode: string;
  assetIssuer: string;
  amount: string;
  memoHash: string;
  reclaimAfter: string;
}

const stroops = (a: string): bigint | null => {
  try {
    return parseAmount(a);
  } catch {
    return null;
  }
};

/** Why an observed deposit does not pay the expected one, or null when it does. Every forgery ends here. */
export const depositMismatch = (expected: ExpectedDeposit, d: ObservedDeposit): { field: string; message: string } | null => {
  if (!d.successful) return { field: 'transaction', message: 'the transaction failed on the ledger' };
  // No balance id means nothing the escrow could claim (and a ReservationPaid the store would refuse).
  if (d.operationCount !== 1 || !d.isClaimableBalance || d.balanceId === null) return { field: 'transaction', message: 'the transaction must hold exactly one createClaimableBalance operation' };
  if (d.memoHash !== expected.memoHash) return { field: 'memo', message: 'the memo does not bind this reservation' };
  if (d.from !== expected.source) return { field: 'source', message: 'the deposit was not made from your linked ledger account' };
  if (d.assetCode !== expected.assetCode || d.assetIssuer !== expected.assetIssuer) {
    return { field: 'asset', message: `the deposit must be in ${expected.assetCode} issued by ${expected.assetIssuer}` };
  }
  const want = stroops(expected.amount);
  if (want === null || stroops(d.amount) !== want) return { field: 'amount', message: `the amount must be exactly ${expected.amount}` };
  const at = Math.floor(Date.parse(expected.reclaimAfter) / 1000);
  const [first, second, ...rest] = d.claimants;
  const escrowFirst =
    rest.length === 0 &&
    first?.destination === expected.escrowAccount &&
    typeof first.predicate === 'object' &&
    'before' in first.predicate &&
    first.predicate.before === at &&
    second?.destination === expected.source &&
    typeof second.predicate === 'object' &&
    'notBefore' in second.predicate &&
    second.predicate.notBefore === at;
  if (!escrowFirst) return { field: 'claimants', message: 'the deposit must be claimable by the escrow before reclaimAfter and by you from then on, and by no one else' };
  return null;
};
