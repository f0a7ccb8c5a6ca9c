import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { formatAmount, parseAmount, type ExistingPool } from '@cagnotte/domain';
import type { EscrowLedger } from '@cagnotte/infra';
import { POOL_TABLES, reconcileEscrow, type EscrowFacts, type EscrowReconciliation, type LedgerFacts } from '@cagnotte/read-models';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { poolAggregate } from '../pools/aggregate';
import { recordStrayPayments, type StrayDeps } from '../escrow/strays';

export type PoolReconciliation = EscrowReconciliation;

/** What the pool's own stream says the escrow holds, settled and paid (the domain's fold of it). */
export const escrowFactsOf = (pool: ExistingPool): EscrowFacts => {
  const held: EscrowFacts['held'] = [];
  const owedBack: EscrowFacts['owedBack'] = [];
  const settled: EscrowFacts['settled'] = [];
  let paid = 0n;
  let count = 0;
  for (const r of pool.holdings.byId.values()) {
    const deposits = [...(r.status === 'PAID' && r.payment ? [{ ...r.payment, late: false }] : []), ...r.latePayments.map((l) => ({ ...l, late: true }))];
    if (r.status === 'PAID' && r.payment) {
      paid += parseAmount(r.payment.amount);
      count += 1;
    }
    for (const d of deposits) {
      const deposit = { reservationId: r.id, balanceId: d.balanceId, amount: formatAmount(parseAmount(d.amount)) };
      const done = r.settled.get(d.balanceId);
      if (done) settled.push({ ...deposit, path: done.path, released: done.released, refunded: done.refunded, txHash: done.txHash });
      else (d.late ? owedBack : held).push(deposit);
    }
  }
  const rounds: EscrowFacts['rounds'] = [];
  for (const s of pool.settlement.byId.values()) {
    for (const [round, done] of s.settledRounds) {
      const refs = new Set(s.rounds[round]?.refs ?? []);
      const items = s.items.filter((i) => refs.has(i.ref));
      const payments =
        done.path === 'RELEASE' ? items.flatMap((i) => i.payouts.map((p) => ({ destination: p.destination, amount: p.amount }))) : items.map((i) => ({ destination: i.refundTo, amount: i.amount }));
      rounds.push({ settlementId: s.settlementId, round, path: done.path, txHash: done.txHash, payments });
    }
  }
  return {
    poolId: pool.id,
    escrowAccount: pool.escrow!.accountId,
    paid: { count, amount: formatAmount(paid) },
    held,
    owedBack,
    settled,
    rounds,
    merged: pool.settlement.mergedAt !== null,
    strays: [...pool.settlement.strays.values()].map((s) => ({
      operationId: s.operationId,
      txHash: s.txHash,
      from: s.from,
      amount: s.amount,
      status: s.returned ? ('RETURNED' as const) : ('OWED' as const),
      returnedTxHash: s.returned?.txHash ?? null,
    })),
  };
};

/** What the ledger shows of an escrow and of the transactions the facts name. */
export const ledgerFactsFor = (escrow: EscrowLedger, facts: EscrowFacts): Promise<LedgerFacts> =>
  escrow.reconciliationFacts(
    facts.escrowAccount,
    facts.rounds.map((r) => r.txHash),
  );

const operatorMetadata = () => ({ tenantId: null, actor: { kind: 'system' as const, id: 'escrow-reconcile' }, correlationId: randomUUID(), causationId: null, occurredAt: new Date().toISOString() });

/**
 * Records the stray payments the ledger shows (each once), then replays a pool's stream and compares it with the
 * ledger: every held deposit stands, exactly; every settled deposit is gone; every recorded round's transaction
 * exists, succeeded and paid exactly what its events say, to whom; the platform received no more than its fee lines;
 * the escrow's own balance is stray payments owed back; the escrow account exists until the events say it was merged.
 */
export const reconcilePool = async (deps: StrayDeps, poolId: string): Promise<PoolReconciliation | null> => {
  await recordStrayPayments(deps, poolId, operatorMetadata());
  const { pool } = await loadState(deps.store, poolStream(poolId), poolAggregate);
  if (pool.status === 'none' || !pool.escrow) return null;
  const facts = escrowFactsOf(pool);
  return reconcileEscrow(facts, await ledgerFactsFor(deps.escrow, facts));
};

/** Every published pool (the pools read model lists them; each is then replayed from its own stream), or one. */
export const reconcileAll = async (
  deps: StrayDeps & { knex: Knex },
  options: { poolId?: string; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ ok: boolean; pools: PoolReconciliation[]; failed?: Array<{ poolId: string; error: string }> }> => {
  const ids = options.poolId
    ? [options.poolId]
    : (await deps.knex(POOL_TABLES.pools).whereNot('status', 'DRAFT').orderBy('created_at').select<{ id: string }[]>('id')).map((r) => r.id);
  const pools: PoolReconciliation[] = [];
  const failed: Array<{ poolId: string; error: string }> = [];
  for (const [i, id] of ids.entries()) {
    // One pool that cannot be read (its stream, the ledger) is reported and the run goes on: a long run's report
    // names every pool it could not reconcile instead of stopping at the first.
    try {
      const report = await reconcilePool(deps, id);
      if (report) pools.push(report);
    } catch (e) {
      failed.push({ poolId: id, error: (e as Error).message });
    }
    options.onProgress?.(i + 1, ids.length);
  }
  return { ok: failed.length === 0 && pools.every((p) => p.ok), pools, ...(failed.length > 0 ? { failed } : {}) };
};
