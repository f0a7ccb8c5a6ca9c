import type { Knex } from 'knex';
import { isUuid } from '../shared';
import { ESCROW_TABLES, escrowDocOfRow, type EscrowRow } from './tables';
import type { EscrowDoc } from './document';

/** Reads of the escrow read model (rm_escrows). */
export class EscrowReadModel {
  constructor(private readonly knex: Knex) {}

  /** The escrow of a pool in this tenant; null when there is none, or it is another tenant's (never tells it exists). */
  async inTenant(tenantId: string, poolId: string): Promise<EscrowDoc | null> {
    if (!isUuid(poolId)) return null;
    const row = (await this.knex<EscrowRow>(ESCROW_TABLES.escrows).where({ pool_id: poolId, tenant_id: tenantId }).first()) as EscrowRow | undefined;
    return row ? escrowDocOfRow(row) : null;
  }

  /** A page of the tenant's escrows that were opened (published pools), oldest pool first. */
  async openedInTenant(tenantId: string, page: number, limit: number): Promise<{ docs: EscrowDoc[]; total: number }> {
    const opened = () => this.knex<EscrowRow>(ESCROW_TABLES.escrows).where({ tenant_id: tenantId }).whereRaw(`doc->'account' IS NOT NULL AND doc->'account' <> 'null'::jsonb`);
    const [rows, count] = await Promise.all([
      opened().orderBy('pool_id').offset((page - 1) * limit).limit(limit),
      opened().count<{ count: string }[]>({ count: '*' }),
    ]);
    return { docs: (rows as EscrowRow[]).map(escrowDocOfRow), total: Number(count[0]?.count ?? 0) };
  }
}
