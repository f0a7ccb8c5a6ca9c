import type { Knex } from 'knex';
import { isUuid } from '../shared';
import type { GrantDoc } from './fold';

export const ORGANISER_GRANTS_TABLE = 'rm_organiser_grants';

export interface GrantRow {
  grant_id: string;
  owner_id: string;
  tenant_id: string | null;
  status: string;
  ledger_account: string;
  destination: string;
  asset_code: string;
  asset_issuer: string;
  amount: string;
  memo_hash: string;
  prepared_at: string;
  settled_at: string | null;
  tx_hash: string | null;
  revision: string;
}

export const grantRowOf = (d: GrantDoc): GrantRow => ({
  grant_id: d.grantId,
  owner_id: d.ownerId,
  tenant_id: d.tenantId,
  status: d.status,
  ledger_account: d.ledgerAccount,
  destination: d.destination,
  asset_code: d.assetCode,
  asset_issuer: d.assetIssuer,
  amount: d.amount,
  memo_hash: d.memoHash,
  prepared_at: d.preparedAt,
  settled_at: d.settledAt,
  tx_hash: d.txHash,
  revision: d.revision.toString(),
});

export const grantDocOf = (r: GrantRow): GrantDoc => ({
  grantId: r.grant_id,
  ownerId: r.owner_id,
  tenantId: r.tenant_id,
  status: r.status as GrantDoc['status'],
  ledgerAccount: r.ledger_account,
  destination: r.destination,
  assetCode: r.asset_code,
  assetIssuer: r.asset_issuer,
  amount: r.amount,
  memoHash: r.memo_hash,
  preparedAt: r.prepared_at,
  settledAt: r.settled_at,
  txHash: r.tx_hash,
  revision: BigInt(r.revision),
});

/** The caller's own organiser grants: scoped to the owner, so another user's grant id finds nothing (a 404). */
export class OrganiserGrantReadModel {
  constructor(private readonly knex: Knex) {}

  async findOwn(ownerId: string, grantId: string): Promise<GrantDoc | null> {
    if (!isUuid(grantId)) return null;
    const row = await this.knex<GrantRow>(ORGANISER_GRANTS_TABLE).where({ owner_id: ownerId, grant_id: grantId }).first();
    return row ? grantDocOf(row) : null;
  }
}
