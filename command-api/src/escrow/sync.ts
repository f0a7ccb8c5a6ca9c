import { decideSettlement, type ExistingPool, type PreparedSettlement } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { LedgerRejectedError, ledgerCall, type EscrowLedger, type LedgerGateway, type SettlementRound } from '@cagnotte/infra';

type Transaction = SettlementRound['lock'];
import { poolStream } from '../shared/context';
import { loadState, type CommandRuntime } from '../shared/run-command';
import { executeCommand } from '../shared/execute-command';
import { poolAggregate } from '../pools/aggregate';
import { rebuiltPlan } from './plan';

// What the ledger says of a settlement's rounds, recorded on the pool's stream: whoever submitted the release or the
// recovery (the organiser through the API, the organiser on their own, a buyer, the recovery job), the pool learns it
// from the ledger, round by round, in order, and records each exactly once.

export interface SyncDeps extends CommandRuntime {
  ledger: LedgerGateway;
  escrow: EscrowLedger;
}

/** Settlements with a round not yet recorded, oldest first (a superseded one may still have reached the ledger). */
export const unsettled = (pool: ExistingPool): PreparedSettlement[] =>
  [...pool.settlement.byId.values()].filter((s) => s.settledRounds.size < s.rounds.length).sort((a, b) => Date.parse(a.preparedAt) - Date.parse(b.preparedAt));

/**
 * Reads each unrecorded round's release, then its recovery, from the ledger and records the first that succeeded
 * after the round's own lock; stops at the first round neither settled. Answers how many rounds it recorded.
 */
export const syncSettlements = async (deps: SyncDeps, poolId: string, metadata: EventMetadata): Promise<number> => {
  let recorded = 0;
  const { pool } = await loadState(deps.store, poolStream(poolId), poolAggregate);
  if (pool.status === 'none') return 0;
  for (const s of unsettled(pool)) {
    for (const planned of s.rounds) {
      if (s.settledRounds.has(planned.index)) continue;
      const release = await ledgerCall(() => deps.escrow.transactionOutcome(planned.releaseHash));
      const recovery = release?.successful ? null : await ledgerCall(() => deps.escrow.transactionOutcome(planned.recoveryHash));
      const landed = release?.successful ? { path: 'RELEASE' as const, tx: release } : recovery?.successful ? { path: 'RECOVERY' as const, tx: recovery } : null;
      if (!landed) break;
      // Two plans of one escrow can share a release (the same payouts on the same sequence) and differ only in their
      // lock (what it pays back first): the round is this settlement's only when its own lock is on the ledger.
      if (!(await ledgerCall(() => deps.escrow.transactionOutcome(planned.lockHash)))?.successful) break;
      await executeCommand(deps, {
        stream: poolStream(poolId),
        aggregate: poolAggregate,
        decide: ({ pool: p }) =>
          decideSettlement(
            { type: 'RecordSettledRound', data: { settlementId: s.settlementId, round: planned.index, path: landed.path, txHash: landed.tx.hash, ledger: landed.tx.ledger }, metadata: { now: metadata.occurredAt } },
            p,
          ),
        metadata,
      });
      recorded += 1;
    }
  }
  return recorded;
};

export interface RecoveryAttempt {
  settlementId: string;
  round: number;
  /** submitted: on the ledger now; too_early: before recoveryFrom; not_locked: the round's lock is not on the ledger (nothing is held by it). */
  result: 'submitted' | 'too_early' | 'too_late' | 'not_locked' | 'rejected';
  codes?: string[];
}

/**
 * Submits the keyless recovery of every round whose lock is on the ledger and whose release never came: no key signs
 * it (its pre-authorisation is its signature). Before its time bound the ledger refuses it (`too_early`).
 */
export const submitRecoveries = async (deps: SyncDeps, pool: ExistingPool): Promise<RecoveryAttempt[]> => {
  const attempts: RecoveryAttempt[] = [];
  for (const s of unsettled(pool)) {
    const state = await ledgerCall(() => deps.escrow.escrowState(s.escrowAccount));
    const rounds: SettlementRound[] = rebuiltPlan(deps.ledger, s);
    for (const round of rounds) {
      if (s.settledRounds.has(round.index)) continue;
      const lockSequence = BigInt(round.lock.sequence);
      // The lock applied (the escrow's sequence reached it) and neither twin after it: the recovery is what is left.
      if (!state.exists || state.sequence !== lockSequence) {
        attempts.push({ settlementId: s.settlementId, round: round.index, result: 'not_locked' });
        break;
      }
      attempts.push({ settlementId: s.settlementId, round: round.index, ...(await submitKeyless(deps, round.recovery)) });
      break;
    }
  }
  return attempts;
};

const submitKeyless = async (deps: SyncDeps, tx: Transaction): Promise<Pick<RecoveryAttempt, 'result' | 'codes'>> => {
  try {
    await ledgerCall(() => deps.escrow.submitSigned(tx));
    return { result: 'submitted' };
  } catch (e) {
    if (!(e instanceof LedgerRejectedError)) throw e;
    const code = e.resultCodes.transaction;
    if (code === 'tx_too_early') return { result: 'too_early' };
    if (code === 'tx_too_late') return { result: 'too_late' };
    return { result: 'rejected', codes: [code, ...(e.resultCodes.operations ?? [])].filter((c): c is string => !!c) };
  }
};
