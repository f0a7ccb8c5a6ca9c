import { decideStrays, straysAmong } from '@cagnotte/domain';
import type { EventMetadata } from '@cagnotte/event-schemas';
import { ledgerCall, type EscrowLedger } from '@cagnotte/infra';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { executeCommand, type ExecuteRuntime } from '../shared/execute-command';
import { poolAggregate } from '../pools/aggregate';

// Money paid straight into a pool's escrow account, learnt from the ledger and recorded on the pool's stream with its
// sender (EscrowStrayPaymentRecorded), once per ledger operation. Run before a settlement is planned (its first lock
// pays every stray back), by the reconciliation, and when /pay is handed a transaction that is not the deposit.

export interface StrayDeps extends ExecuteRuntime {
  escrow: EscrowLedger;
}

/** Reads the escrow's payments on the ledger and records the strays not recorded yet: how many it recorded. */
export const recordStrayPayments = async (deps: StrayDeps, poolId: string, metadata: EventMetadata): Promise<number> => {
  const { pool } = await loadState(deps.store, poolStream(poolId), poolAggregate);
  if (pool.status === 'none' || !pool.escrow) return 0;
  const escrowAccount = pool.escrow.accountId;
  const payments = await ledgerCall(() => deps.escrow.escrowPayments(escrowAccount));
  if (straysAmong(payments, escrowAccount).every((p) => pool.settlement.strays.has(p.operationId))) return 0;
  const outcome = await executeCommand(deps, {
    stream: poolStream(poolId),
    aggregate: poolAggregate,
    decide: ({ pool: p }) => decideStrays({ type: 'RecordStrayPayments', data: { payments }, metadata: { now: metadata.occurredAt } }, p),
    // The pool's tenant when the caller acts for none (the operator's reconciliation).
    metadata: { ...metadata, tenantId: metadata.tenantId ?? pool.tenantId },
  });
  return outcome.events.length;
};
