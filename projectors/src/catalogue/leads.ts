import { CATALOGUE_TABLES, leadRowOf } from '@cagnotte/read-models';
import type { Projection } from '../runtime';

/** Leads from pilot requests, with their first-touch attribution, for the operators' follow-up. */
export const leadsProjection: Projection = {
  name: 'leads',
  tables: [CATALOGUE_TABLES.leads],
  handles: (type) => type === 'PilotRequested',
  async apply(trx, event, table) {
    if (event.type !== 'PilotRequested') return;
    await trx(table(CATALOGUE_TABLES.leads)).insert(leadRowOf(event.data)).onConflict('id').ignore();
  },
};
