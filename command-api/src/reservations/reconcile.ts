import type { Knex } from 'knex';
import { formatAmount, parseAmount } from '@cagnotte/domain';
import type { EscrowLedger, EventStore } from '@cagnotte/infra';
import { POOL_TABLES } from '@cagnotte/read-models';
import { poolStream } from '../shared/context';
import { loadState } from '../shared/run-command';
import { poolAggregate } from '../pools/handler';

export interface PoolReconciliation {
  poolId: string;
  escrowAccount: string;
  /** From the events: PAID reservations (nothing is released or refunded before the escrow issue's closing). */
  paid: { count: number; amount: string };
  /** On the ledger: the escrow account's own balance plus the deposits of PAID reservations it may claim. */
  ledger: { balance: string; paidDeposits: string; held: string };
  /** PAID reservations whose deposit the ledger does not show (reclaimed early? never: the ledger forbids it). */
  missing: Array<{ reservationId: string; balanceId: string; amount: string }>;
  /** Deposits recorded as owed back (late or second payments) that are still on the ledger. */
  owedBack: Array<{ reservationId: string; balanceId: string; amount: string }>;
  /** Claimable balances for the escrow that no event accounts for (someone sent them): listed, not counted. */
  unexpected: Array<{ balanceId: string; amount: string }>;
  ok: boolean;
}

/**
 * Replays a pool's stream and compares it with the ledger: the escrow's holdings (its balance plus the deposits of
 * PAID reservations) equal the sum of PAID reservations, and every PAID deposit exists with its exact amount.
 */
export const reconcilePool = async (deps: { store: EventStore; escrow: EscrowLedger }, poolId: string): Promise<PoolReconciliation | null> => {
  const { pool } = await loadState(deps.store, poolStream(poolId), poolAggregate);
  if (pool.status === 'none' || !pool.escrow) return null;
  const onLedger = await deps.escrow.holdings(pool.escrow.accountId);
  const deposits = new Map(onLedger.deposits.map((d) => [d.balanceId, d]));
  const accounted = new Set<string>();
  let paid = 0n;
  let paidCount = 0;
  let paidOnLedger = 0n;
  const missing: PoolReconciliation['missing'] = [];
  const owedBack: PoolReconciliation['owedBack'] = [];
  for (const r of pool.holdings.byId.values()) {
    if (r.status === 'PAID' && r.payment) {
      paid += parseAmount(r.payment.amount);
      paidCount += 1;
      accounted.add(r.payment.balanceId);
      const d = deposits.get(r.payment.balanceId);
      if (d && parseAmount(d.amount) === parseAmount(r.payment.amount)) paidOnLedger += parseAmount(d.amount);
      else missing.push({ reservationId: r.id, balanceId: r.payment.balanceId, amount: r.payment.amount });
    }
    for (const late of r.latePayments) {
      accounted.add(late.balanceId);
      if (deposits.has(late.balanceId)) owedBack.push({ reservationId: r.id, balanceId: late.balanceId, amount: late.amount });
    }
  }
  const balance = parseAmount(onLedger.balance);
  const held = balance + paidOnLedger;
  return {
    poolId,
    escrowAccount: pool.escrow.accountId,
    paid: { count: paidCount, amount: formatAmount(paid) },
    ledger: { balance: formatAmount(balance), paidDeposits: formatAmount(paidOnLedger), held: formatAmount(held) },
    missing,
    owedBack,
    unexpected: onLedger.deposits.filter((d) => !accounted.has(d.balanceId)).map((d) => ({ balanceId: d.balanceId, amount: formatAmount(parseAmount(d.amount)) })),
    ok: held === paid && missing.length === 0,
  };
};

/** Every published pool (the pools read model lists them; each is then replayed from its own stream), or one. */
export const reconcileAll = async (
  deps: { store: EventStore; escrow: EscrowLedger; knex: Knex },
  options: { poolId?: string; onProgress?: (done: number, total: number) => void } = {},
): Promise<{ ok: boolean; pools: PoolReconciliation[] }> => {
  const ids = options.poolId
    ? [options.poolId]
    : (await deps.knex(POOL_TABLES.pools).whereNot('status', 'DRAFT').orderBy('created_at').select<{ id: string }[]>('id')).map((r) => r.id);
  const pools: PoolReconciliation[] = [];
  for (const [i, id] of ids.entries()) {
    const report = await reconcilePool(deps, id);
    if (report) pools.push(report);
    options.onProgress?.(i + 1, ids.length);
  }
  return { ok: pools.every((p) => p.ok), pools };
};
