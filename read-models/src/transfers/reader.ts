import type { Knex } from 'knex';
import { isUuid } from '../shared';
import { toMinor } from '../reservations/amounts';
import { V1_TRANSFERS_TABLE, v1TransferDocOf, type V1TransferRow } from './tables';
import type { V1TransferDoc } from './fold';

/**
 * What leaves an account's wallet and has not landed yet, in stroops: its transfers submitted, and those built that
 * can still be signed (before their `expiresAt`).
 */
export const pendingFromWallet = async (knex: Knex, userId: string, now: Date): Promise<bigint> => {
  const rows = (await knex(V1_TRANSFERS_TABLE)
    .where('from_user_id', userId)
    .andWhere((w) => {
      w.where('status', 'submitted').orWhere((r) => r.where('status', 'requires_signature').andWhere('expires_at', '>', now));
    })
    .select('amount')) as Array<{ amount: string }>;
  return rows.reduce((sum, r) => sum + toMinor(r.amount), 0n);
};

export interface TransferScope {
  tenantId: string;
  livemode: boolean;
}

export class V1TransferReader {
  constructor(private readonly knex: Knex) {}

  async find(scope: TransferScope, transferId: string): Promise<(V1TransferDoc & { seq: bigint }) | null> {
    if (!isUuid(transferId)) return null;
    const row = (await this.knex(V1_TRANSFERS_TABLE).where({ id: transferId, tenant_id: scope.tenantId, livemode: scope.livemode }).first()) as V1TransferRow | undefined;
    return row ? { ...v1TransferDocOf(row), seq: BigInt(row.seq) } : null;
  }

  /** Newest first; `account`: the transfers it sent or received. */
  async list(
    scope: TransferScope,
    page: { limit: number; after?: bigint | undefined; before?: bigint | undefined; account?: string | undefined },
  ): Promise<{ items: V1TransferDoc[]; hasMore: boolean }> {
    let q = this.knex(V1_TRANSFERS_TABLE).where({ tenant_id: scope.tenantId, livemode: scope.livemode });
    if (page.account !== undefined) {
      const account = page.account;
      q = q.andWhere((w) => {
        w.where('from_user_id', account).orWhere('to_user_id', account);
      });
    }
    if (page.after !== undefined) q = q.andWhere('seq', '<', page.after.toString());
    if (page.before !== undefined) q = q.andWhere('seq', '>', page.before.toString());
    const rows = (await q.orderBy('seq', page.before !== undefined ? 'asc' : 'desc').limit(page.limit + 1)) as V1TransferRow[];
    const hasMore = rows.length > page.limit;
    const kept = rows.slice(0, page.limit);
    if (page.before !== undefined) kept.reverse();
    return { items: kept.map(v1TransferDocOf), hasMore };
  }
}
