import type { EscrowDoc, EscrowDocument } from './document';

/** The escrow read model's table (migration 020): a row per pool, its document folded by fold.ts. */
export const ESCROW_TABLES = { escrows: 'rm_escrows' } as const;

/** A row as it is read back (jsonb parsed, bigint as string). */
export interface EscrowRow {
  pool_id: string;
  tenant_id: string;
  organiser_id: string;
  doc: EscrowDocument;
  revision: string | number | bigint;
}

export const escrowDocOfRow = (row: EscrowRow): EscrowDoc => ({ escrow: row.doc, revision: BigInt(row.revision) });

/** The row values the projection writes (the document as JSON text); only documents of a created pool have a row. */
export const escrowRowValues = ({ escrow, revision }: EscrowDoc) => {
  if (escrow.poolId === null || escrow.tenantId === null || escrow.organiserId === null) throw new Error('an escrow document before PoolCreated has no row');
  return { pool_id: escrow.poolId, tenant_id: escrow.tenantId, organiser_id: escrow.organiserId, doc: JSON.stringify(escrow), revision: revision.toString() };
};
