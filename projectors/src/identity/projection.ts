import { ACCOUNT_EVENTS, TENANT_EVENTS } from '@cagnotte/read-models';
import type { Knex } from 'knex';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';
import { GRANT_EVENTS, grantRows } from '../personas/projection';
import { MANDATE_EVENTS, mandateRows } from '../mandates/projection';
import { applyFolded } from './folded-rows';
import { accountRows, tenantRows } from './tables';

const HANDLED = new Set([...TENANT_EVENTS, ...ACCOUNT_EVENTS, ...MANDATE_EVENTS, ...GRANT_EVENTS]);

const applyIdentityEvents = async (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap): Promise<void> => {
  await applyFolded(trx, events, tenantRows, table);
  await applyFolded(trx, events, accountRows, table);
  await applyFolded(trx, events, mandateRows, table);
  await applyFolded(trx, events, grantRows, table);
};

/**
 * Tenants and accounts (lookups by slug, id and email), and each user's mandates and organiser grants. One
 * projection, hence one checkpoint: the account commands wait for `identity` before they answer, and that
 * wait covers all four tables (read-your-writes on GET /api/auth/me, /api/mandates and the grant).
 */
export const identityProjection: Projection = {
  name: 'identity',
  tables: [tenantRows.table, accountRows.table, mandateRows.table, grantRows.table],
  handles: (type) => HANDLED.has(type),
  apply: (trx, event, table) => applyIdentityEvents(trx, [event], table),
  applyMany: applyIdentityEvents,
};
