import { MANDATES_TABLE, foldMandate, mandateDocOf, mandateKeyOf, mandateRowOf, type MandateDoc } from '@cagnotte/read-models';
import type { FoldedTable } from '../identity/folded-rows';

export const MANDATE_EVENTS: readonly string[] = ['MandateAccepted', 'MandateRevoked'];

/**
 * rm_mandates, one row per mandate of a user. Written by the `identity` projection (identityProjection): the
 * command routes that accept or revoke a mandate already wait for `identity` before answering, so a read
 * right after the write sees it, as when GET /api/mandates folded the stream itself.
 */
export const mandateRows: FoldedTable<MandateDoc> = {
  table: MANDATES_TABLE,
  key: 'mandate_id',
  keyOf: mandateKeyOf,
  fold: foldMandate,
  toRow: mandateRowOf,
  fromRow: mandateDocOf,
};
