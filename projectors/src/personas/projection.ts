import { ORGANISER_GRANTS_TABLE, foldGrant, grantDocOf, grantKeyOf, grantRowOf, type GrantDoc } from '@cagnotte/read-models';
import type { FoldedTable } from '../identity/folded-rows';

export const GRANT_EVENTS: readonly string[] = ['OrganiserGrantPrepared', 'OrganiserGrantSettled'];

/**
 * rm_organiser_grants, one row per become-organiser grant. Written by the `identity` projection
 * (identityProjection), which the grant's command routes wait for before answering (read-your-writes).
 */
export const grantRows: FoldedTable<GrantDoc> = {
  table: ORGANISER_GRANTS_TABLE,
  key: 'grant_id',
  keyOf: grantKeyOf,
  fold: foldGrant,
  toRow: grantRowOf,
  fromRow: grantDocOf,
};
