import { Account, Operation, StrKey, TransactionBuilder, type Asset, type Transaction, type xdr } from '@stellar/stellar-sdk';
import { formatAmount } from '@cagnotte/domain';

/**
 * The escrow's settlement, planned: pure (no I/O, no clock), so the same recorded inputs rebuild byte-identical
 * transactions and the service can check the hashes that were cosigned. Round k (0-based) of a plan is three
 * transactions on the escrow account E, whose sequence is `s` when the plan is made:
 *
 * - lock L_k, sequence s+2k+1, time bounds [0, releaseUntil], signed by the platform P and the organiser O (the
 *   armed layout: O 1, P 1, thresholds 2). Round 0 first removes the dead pre-auth signers the caller names, pays
 *   E's own stablecoin balance (money paid straight into E, never a deposit) out exactly as the caller's
 *   `strayReturns` say (back to each sender) and removes E's trustline (from then on nobody can pay E directly). Every lock
 *   then installs R_k's pre-auth signer (weight 2) and V_k's (weight 3), removes P and sets the thresholds to 3.
 *   Locked: the release needs O's cosignature (2+1); the recovery runs with no signature at all (3) once its
 *   time bound is reached; P can do nothing, O alone nothing.
 * - release R_k, sequence s+2k+2, time bounds [0, releaseUntil], cosigned by O: trustline with a limit of exactly
 *   the round's sum, the claims, the payouts aggregated per destination, removes V_k's signer, trustline closed,
 *   then merge into P (last round of a final plan) or re-arm (P weight 1, thresholds 2).
 * - recovery V_k, the same sequence as R_k, time bounds [recoveryFrom, recoveryUntil], no signature: the same
 *   shape, but each deposit goes back whole to its `refundTo`, and it removes no signer.
 *
 * R_k and V_k share one sequence number: whichever the ledger applies first consumes it, and its own signer, even
 * when it fails once applied, so the other can never run. Their time windows do not overlap either.
 *
 * Why V names no signer of R: L needs both hashes and R removes V's signer, so V must be built first and cannot
 * know R's hash. After V, R's signer stays on E, dead (its sequence is gone) but holding a signer slot and half
 * an XLM of E's reserve. No later lock of the same plan can follow a recovery (every lock expires at
 * releaseUntil, every recovery starts at recoveryFrom, later), so it is the NEXT plan's first lock that removes
 * it: the caller reads E's signers (EscrowLedger.escrowState) and passes, in `deadPreAuthSigners`, the pre-auth
 * signers of an armed escrow, which are all dead (a live one only exists while E is locked, and then no lock can
 * apply). Removing a signer that is not there is a success, in stellar-core (SetOptionsOpFrame deletes what
 * matches) as in the sandbox engine, so a stale list does no harm.
 *
 * Why the trustline dance: closing a trustline with a balance is op_invalid_limit, so a round that leaves E with
 * no trustline proves it paid out exactly what it claimed; that is why payouts must sum exactly to each amount.
 * A round that claims nothing (an empty final plan) touches no trustline: creating one with limit 0 is
 * op_invalid_limit too.
 *
 * What a failed lock costs: a lock that fails once applied (a stray payment landed after planning, so the
 * trustline cannot close) consumes s+1 and installs nothing: R and V never get their weight, E stays armed, and
 * the caller plans again from E's new sequence.
 *
 * Packing: items are taken in order; a round takes items while both its release and its recovery stay within
 * MAX_OPERATIONS, and at least one. E pays its own fees (feePerOperation × operations, per transaction).
 */
export const MAX_OPERATIONS = 100;
export const RELEASE_PREAUTH_WEIGHT = 2;
export const RECOVERY_PREAUTH_WEIGHT = 3;
export const LOCKED_THRESHOLD = 3;

const ARMED_SIGNER_WEIGHT = 1;
const ARMED_THRESHOLD = 2;
const DEFAULT_FEE_PER_OPERATION = 100;

export interface SettlementItem {
  /** The caller's reference (a reservation id or `late:<balanceId>`), echoed in the rounds. */
  ref: string;
  /** Claimable balance id, 72 hex ("00000000" + hash), as Horizon and the SDK write it. */
  balanceId: string;
  /** Stroops; claimed whole. */
  amount: bigint;
  /** Where it goes back on recovery (the depositor). */
  refundTo: string;
  /** Where it goes on release; sums exactly to `amount`. */
  payouts: Array<{ destination: string; amount: bigint }>;
}

export interface SettlementPlanInput {
  networkPassphrase: string;
  /** The stablecoin. */
  asset: Asset;
  escrowAccount: string;
  /** E's current sequence on the ledger. */
  escrowSequence: bigint;
  platform: string;
  /** E's own stablecoin balance now (paid in directly, not a deposit). */
  strayBalance: bigint;
  /** Where round 0's lock pays that balance: they sum exactly to it (a balance left would make the trustline's removal fail). */
  strayReturns: Array<{ destination: string; amount: bigint }>;
  hasTrustline: boolean;
  items: SettlementItem[];
  final: boolean;
  /** Unix seconds. */
  releaseUntil: number;
  /** Unix seconds, after releaseUntil. */
  recoveryFrom: number;
  /** Unix seconds, after recoveryFrom. */
  recoveryUntil: number;
  feePerOperation?: number;
  /** Pre-auth signers (T…) left on an armed E by an earlier recovery: round 0's lock removes them. */
  deadPreAuthSigners?: string[];
}

export interface SettlementRound {
  index: number;
  refs: string[];
  /** Unsigned. */
  lock: Transaction;
  /** Unsigned (pre-authorised by the lock). */
  release: Transaction;
  /** Unsigned (pre-authorised by the lock). */
  recovery: Transaction;
  /** What the release pays, aggregated. */
  payouts: Array<{ destination: string; amount: bigint }>;
  /** What the recovery pays, aggregated. */
  refunds: Array<{ destination: string; amount: bigint }>;
}

type Transfer = { destination: string; amount: bigint };

const stellarAmount = (stroops: bigint): string => formatAmount(stroops, 0);

/** Sums per destination in order of first appearance; what sums to zero pays nothing. */
const aggregate = (transfers: Transfer[]): Transfer[] => {
  const sums = new Map<string, bigint>();
  for (const t of transfers) sums.set(t.destination, (sums.get(t.destination) ?? 0n) + t.amount);
  return [...sums].filter(([, amount]) => amount > 0n).map(([destination, amount]) => ({ destination, amount }));
};

const payoutsOf = (items: SettlementItem[]): Transfer[] => aggregate(items.flatMap((i) => i.payouts));
const refundsOf = (items: SettlementItem[]): Transfer[] => aggregate(items.map((i) => ({ destination: i.refundTo, amount: i.amount })));

const checkItems = (input: SettlementPlanInput): void => {
  const seen = new Set<string>();
  for (const item of input.items) {
    if (!/^00000000[0-9a-f]{64}$/.test(item.balanceId)) throw new Error(`settlement item ${item.ref}: balance id ${item.balanceId} is not 00000000 + 64 lowercase hex`);
    // A second claim of one balance fails once applied (op_does_not_exist) and burns the round's sequence.
    if (seen.has(item.balanceId)) throw new Error(`settlement item ${item.ref}: balance ${item.balanceId} is claimed twice`);
    seen.add(item.balanceId);
    if (item.amount <= 0n) throw new Error(`settlement item ${item.ref}: amount ${item.amount} is not positive`);
    if (item.payouts.some((p) => p.amount < 0n)) throw new Error(`settlement item ${item.ref}: a payout is negative`);
    if ([item.refundTo, ...item.payouts.map((p) => p.destination)].includes(input.escrowAccount)) throw new Error(`settlement item ${item.ref} pays the escrow itself`);
    const paid = item.payouts.reduce((sum, p) => sum + p.amount, 0n);
    if (paid !== item.amount) throw new Error(`settlement item ${item.ref}: payouts sum to ${paid} stroops, the deposit is ${item.amount}`);
  }
};

const preAuthHash = (key: string): Uint8Array => {
  try {
    return StrKey.decodePreAuthTx(key);
  } catch {
    throw new Error(`${key} is not a pre-auth signer key (T…)`);
  }
};

const checkInput = (input: SettlementPlanInput): void => {
  const { releaseUntil, recoveryFrom, recoveryUntil } = input;
  if (![releaseUntil, recoveryFrom, recoveryUntil].every((t) => Number.isSafeInteger(t) && t > 0)) throw new Error('settlement time bounds must be positive whole seconds');
  if (!(releaseUntil < recoveryFrom && recoveryFrom < recoveryUntil)) throw new Error('settlement time bounds must satisfy releaseUntil < recoveryFrom < recoveryUntil');
  const fee = input.feePerOperation ?? DEFAULT_FEE_PER_OPERATION;
  if (!Number.isSafeInteger(fee) || fee < 100) throw new Error(`feePerOperation must be a whole number of stroops ≥ 100, got ${fee}`);
  if (input.strayBalance < 0n) throw new Error('strayBalance is negative');
  if (input.strayBalance > 0n && !input.hasTrustline) throw new Error('a stray balance without a trustline');
  const returned = input.strayReturns.reduce((sum, r) => sum + r.amount, 0n);
  if (returned !== input.strayBalance || input.strayReturns.some((r) => r.amount <= 0n)) {
    throw new Error(`the stray returns pay ${returned} stroops (each positive), the escrow's own balance is ${input.strayBalance}`);
  }
  if (input.strayReturns.some((r) => r.destination === input.escrowAccount)) throw new Error('a stray return pays the escrow itself');
  checkItems(input);
};

/** The destinations an item's release pays (a zero payout pays nothing). */
const payeesOf = (item: SettlementItem): string[] => item.payouts.filter((p) => p.amount > 0n).map((p) => p.destination);

/**
 * A round's release and recovery: one claim per item and one payment per destination, plus these. Both open and
 * close the trustline and end (merge or re-arm); the release also removes the recovery's signer.
 */
const RELEASE_OVERHEAD = 4;
const RECOVERY_OVERHEAD = 3;

interface Tally {
  items: SettlementItem[];
  payees: Set<string>;
  refundees: Set<string>;
}

const emptyTally = (): Tally => ({ items: [], payees: new Set(), refundees: new Set() });
const withItem = (t: Tally, item: SettlementItem): Tally => ({
  items: [...t.items, item],
  payees: new Set([...t.payees, ...payeesOf(item)]),
  refundees: new Set([...t.refundees, item.refundTo]),
});
const fits = (t: Tally): boolean =>
  t.items.length + t.payees.size + RELEASE_OVERHEAD <= MAX_OPERATIONS && t.items.length + t.refundees.size + RECOVERY_OVERHEAD <= MAX_OPERATIONS;

/** Splits the items into rounds, greedily in order, each release and recovery within MAX_OPERATIONS. */
const pack = (items: SettlementItem[]): SettlementItem[][] => {
  const rounds: SettlementItem[][] = [];
  let round = emptyTally();
  for (const item of items) {
    if (!fits(withItem(round, item)) && round.items.length > 0) {
      rounds.push(round.items);
      round = emptyTally();
    }
    const next = withItem(round, item);
    if (!fits(next)) throw new Error(`settlement item ${item.ref} pays ${next.payees.size} destinations: alone it exceeds ${MAX_OPERATIONS} operations`);
    round = next;
  }
  if (round.items.length > 0) rounds.push(round.items);
  return rounds;
};

/** One transaction of E at `sequence`, with explicit time bounds: the same input gives the same bytes. */
const transaction = (input: SettlementPlanInput, sequence: bigint, timebounds: { minTime: number; maxTime: number }, ops: xdr.Operation[]): Transaction => {
  if (ops.length > MAX_OPERATIONS) throw new Error(`a settlement transaction of ${ops.length} operations (at most ${MAX_OPERATIONS})`);
  // The SDK's fee is per operation: it writes fee × operations into the transaction.
  const builder = new TransactionBuilder(new Account(input.escrowAccount, (sequence - 1n).toString()), {
    fee: String(input.feePerOperation ?? DEFAULT_FEE_PER_OPERATION),
    networkPassphrase: input.networkPassphrase,
    timebounds,
  });
  for (const op of ops) builder.addOperation(op);
  return builder.build();
};

const removePreAuth = (hash: Uint8Array) => Operation.setOptions({ signer: { preAuthTx: hash, weight: 0 } });

/** What a release and a recovery share: open the trustline to exactly the sum, claim, pay, then close it. */
const payingOut = (input: SettlementPlanInput, items: SettlementItem[], transfers: Transfer[], beforeClosing: xdr.Operation[], ending: xdr.Operation): xdr.Operation[] => {
  const total = items.reduce((sum, i) => sum + i.amount, 0n);
  const asset = input.asset;
  return [
    ...(total > 0n ? [Operation.changeTrust({ asset, limit: stellarAmount(total) })] : []),
    ...items.map((i) => Operation.claimClaimableBalance({ balanceId: i.balanceId })),
    ...transfers.map((t) => Operation.payment({ destination: t.destination, asset, amount: stellarAmount(t.amount) })),
    ...beforeClosing,
    ...(total > 0n ? [Operation.changeTrust({ asset, limit: '0' })] : []),
    ending,
  ];
};

export const planSettlement = (input: SettlementPlanInput): SettlementRound[] => {
  checkInput(input);
  const dead = (input.deadPreAuthSigners ?? []).map(preAuthHash);
  const groups = input.items.length === 0 ? (input.final ? [[]] : []) : pack(input.items);
  const releaseWindow = { minTime: 0, maxTime: input.releaseUntil };
  const recoveryWindow = { minTime: input.recoveryFrom, maxTime: input.recoveryUntil };
  return groups.map((items, k) => {
    const ending =
      input.final && k === groups.length - 1
        ? Operation.accountMerge({ destination: input.platform })
        : Operation.setOptions({
            signer: { ed25519PublicKey: input.platform, weight: ARMED_SIGNER_WEIGHT },
            lowThreshold: ARMED_THRESHOLD,
            medThreshold: ARMED_THRESHOLD,
            highThreshold: ARMED_THRESHOLD,
          });
    const lockSequence = input.escrowSequence + BigInt(2 * k + 1);
    const payouts = payoutsOf(items);
    const refunds = refundsOf(items);
    // V first (it names nothing), then R (removes V's signer), then L (installs both).
    const recovery = transaction(input, lockSequence + 1n, recoveryWindow, payingOut(input, items, refunds, [], ending));
    const release = transaction(input, lockSequence + 1n, releaseWindow, payingOut(input, items, payouts, [removePreAuth(recovery.hash())], ending));
    const opening =
      k === 0
        ? [
            ...dead.map(removePreAuth),
            ...input.strayReturns.map((r) => Operation.payment({ destination: r.destination, asset: input.asset, amount: stellarAmount(r.amount) })),
            ...(input.hasTrustline ? [Operation.changeTrust({ asset: input.asset, limit: '0' })] : []),
          ]
        : [];
    const lock = transaction(input, lockSequence, releaseWindow, [
      ...opening,
      Operation.setOptions({ signer: { preAuthTx: release.hash(), weight: RELEASE_PREAUTH_WEIGHT } }),
      Operation.setOptions({ signer: { preAuthTx: recovery.hash(), weight: RECOVERY_PREAUTH_WEIGHT } }),
      Operation.setOptions({
        signer: { ed25519PublicKey: input.platform, weight: 0 },
        lowThreshold: LOCKED_THRESHOLD,
        medThreshold: LOCKED_THRESHOLD,
        highThreshold: LOCKED_THRESHOLD,
      }),
    ]);
    return { index: k, refs: items.map((i) => i.ref), lock, release, recovery, payouts, refunds };
  });
};
