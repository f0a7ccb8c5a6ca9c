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
}
