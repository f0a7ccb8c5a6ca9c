import type { Projection } from '../runtime';

/** Leads from pilot requests, with their first-touch attribution, for the operators' follow-up. */
export const leadsProjection: Projection = {
  name: 'leads',
  tables: ['rm_leads'],
  handles: (type) => type === 'PilotRequested',
  async apply(trx, event, table) {
    if (event.type !== 'PilotRequested') return;
    const d = event.data;
    await trx(table('rm_leads'))
      .insert({ id: d.leadId, tenant_id: d.tenantId, visitor_id: d.visitorId, email: d.email, company: d.company, attribution: JSON.stringify(d.attribution), requested_at: d.requestedAt })
      .onConflict('id')
      .ignore();
  },
};
