import type { Knex } from 'knex';
import { ACCOUNTS_TABLE, type AccountRow } from '../identity/accounts';
import type { DealDoc } from './fold';
import { prefixedId } from './ids';
import type { DealAccount } from './view';

export const DEALS_TABLE = 'rm_deals';

/** A row of rm_deals (migration 032): the document, its tenant, mode and parties, and `seq` for cursor lists. */
export interface DealRow {
  deal_id: string;
  seq: string;
  tenant_id: string;
  livemode: boolean;
  created_by: string;
  buyer_id: string;
  seller_id: string;
  broker_id: string | null;
  status: string;
  doc: unknown;
  revision: string;
}

/** JSON keeps no bigint: the revision rides in its own column. */
export const dealRowValues = (d: DealDoc) => ({
  deal_id: d.dealId,
  tenant_id: d.tenantId,
  livemode: d.livemode,
  created_by: d.createdBy,
  buyer_id: d.buyerId,
  seller_id: d.sellerId,
  broker_id: d.brokerId,
  status: d.status,
  doc: JSON.stringify({ ...d, revision: undefined }),
  revision: d.revision.toString(),
});

export const dealDocOfRow = (r: Pick<DealRow, 'doc' | 'revision'>): DealDoc => ({ ...(r.doc as Omit<DealDoc, 'revision'>), revision: BigInt(r.revision) });

/**
 * Who reads: a user (a session's, or an API key's owner), in a tenant and a mode: the deals they created or take part
 * in. Null: every deal of the tenant's mode (an auditor of the tenant).
 */
export interface DealReader {
  tenantId: string;
  livemode: boolean;
  userId: string | null;
}

export class DealReadModel {
  constructor(private readonly knex: Knex) {}

  private visible(reader: DealReader) {
    const u = reader.userId;
    const q = this.knex<DealRow>(DEALS_TABLE).where({ tenant_id: reader.tenantId, livemode: reader.livemode });
    if (u === null) return q;
    return q.where((w) => w.where({ created_by: u }).orWhere({ buyer_id: u }).orWhere({ seller_id: u }).orWhere({ broker_id: u }).orWhereRaw('doc->\'split\' @> ?::jsonb', [JSON.stringify([{ accountId: u }])]));
  }

  async load(dealId: string, reader: DealReader): Promise<DealDoc | null> {
    const row = await this.visible(reader).where({ deal_id: dealId }).first();
    return row ? dealDocOfRow(row) : null;
  }

  /** The seq of a deal the reader sees (a cursor), or null. */
  async seqOf(dealId: string, reader: DealReader): Promise<bigint | null> {
    const row = await this.visible(reader).where({ deal_id: dealId }).first('seq');
    return row ? BigInt(row.seq) : null;
  }

  /** The deals the reader sees (of one status, if given), unordered: the caller orders by `seq` and applies its cursor. */
  listQuery(reader: DealReader, status?: string): Knex.QueryBuilder<DealRow, DealRow[]> {
    const q = this.visible(reader);
    if (status) q.where({ status });
    return q as unknown as Knex.QueryBuilder<DealRow, DealRow[]>;
  }

  /** The tenant's accounts among `ids`, as `expand[]` nests them. */
  async accounts(tenantId: string, ids: string[]): Promise<Map<string, DealAccount>> {
    if (ids.length === 0) return new Map();
    const rows = (await this.knex<AccountRow>(ACCOUNTS_TABLE).where({ tenant_id: tenantId }).whereIn('id', ids)) as AccountRow[];
    return new Map(rows.map((r) => [r.id, { id: prefixedId('acct', r.id), object: 'account' as const, displayName: r.display_name, ledgerAccount: r.ledger_account }]));
  }
}
