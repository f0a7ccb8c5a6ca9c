import type { Knex } from 'knex';
import { RESERVATION_TABLES, factsOfRow, type ReservationRow } from '../reservations/tables';
import { isSettledBalance } from '../reservations/escrow-facts';
import { toMinor } from '../reservations/amounts';
import { DEALS_TABLE } from '../deals/reader';

/**
 * What an account has paid into escrows and is still there (neither released nor refunded), in stroops, summed over
 * every source. Each source is one feature's read model; a feature that holds buyers' money in escrow (deals) adds
 * its own to `IN_ESCROW_SOURCES` and every balance counts it.
 */
export type InEscrowSource = (knex: Knex, userId: string) => Promise<bigint>;

/** Pools: a paid reservation's deposit, and any late deposit, until a settlement claimed it. */
export const poolDepositsInEscrow: InEscrowSource = async (knex, userId) => {
  const rows = (await knex<ReservationRow>(RESERVATION_TABLES.reservations).where({ buyer_id: userId })) as ReservationRow[];
  let sum = 0n;
  for (const row of rows) {
    const r = factsOfRow(row);
    if (r.status === 'PAID' && r.payment && !isSettledBalance(r, r.payment.balanceId)) sum += toMinor(r.payment.amount);
    for (const late of r.latePayments) if (!isSettledBalance(r, late.balanceId)) sum += toMinor(late.amount);
  }
  return sum;
};

/** Deals: the buyer's funded deposit, until the deal is released or refunded. */
export const dealDepositsInEscrow: InEscrowSource = async (knex, userId) => {
  const rows = (await knex(DEALS_TABLE)
    .where({ buyer_id: userId })
    .whereIn('status', ['funded', 'delivered', 'accepted', 'disputed'])
    .select(knex.raw("doc->'funding'->>'amount' AS amount"))) as Array<{ amount: string | null }>;
  return rows.reduce((sum, r) => (r.amount ? sum + toMinor(r.amount) : sum), 0n);
};

export const IN_ESCROW_SOURCES: InEscrowSource[] = [poolDepositsInEscrow, dealDepositsInEscrow];

export const inEscrowOf = async (knex: Knex, userId: string, sources: readonly InEscrowSource[] = IN_ESCROW_SOURCES): Promise<bigint> => {
  const parts = await Promise.all(sources.map((s) => s(knex, userId)));
  return parts.reduce((a, b) => a + b, 0n);
};
