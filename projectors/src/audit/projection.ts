import type { Knex } from 'knex';
import { AUDITOR_EVENTS, AUDIT_TABLES, auditEventRowValues, auditorRowOf, isAuditedStream, type AuditorEvent, type AuditorRow } from '@cagnotte/read-models';
import type { ProjectedEvent, Projection, TableMap } from '../runtime';

/**
 * Every event of the pool and deal streams, copied as stored. Selected by stream, not by type: an event type added to
 * those streams later (the escrow's) is copied with no change here. A row per (stream, revision): a replay inserts nothing.
 */
const copyPoolEvents = async (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap): Promise<void> => {
  const rows = events.filter((e) => isAuditedStream(e.streamId)).map(auditEventRowValues);
  for (let i = 0; i < rows.length; i += 500) await trx(table(AUDIT_TABLES.events)).insert(rows.slice(i, i + 500)).onConflict().ignore();
};

const isAuditorEvent = (e: ProjectedEvent): e is Extract<ProjectedEvent, { type: AuditorEvent['type'] }> => AUDITOR_EVENTS.has(e.type);

/** The auditors a batch grants and revokes, folded in memory over the rows it touches, then upserted once each. */
const applyAuditorEvents = async (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap): Promise<void> => {
  const changes: AuditorEvent[] = events.filter(isAuditorEvent);
  if (changes.length === 0) return;
  const key = (tenantId: string, userId: string) => `${tenantId}/${userId}`;
  const existing = (await trx(table(AUDIT_TABLES.auditors))
    .whereIn(['tenant_id', 'user_id'], changes.map((e) => [e.data.tenantId, e.data.userId]))
    .select('*')) as AuditorRow[];
  const rows = new Map<string, AuditorRow>(existing.map((r) => [key(r.tenant_id, r.user_id), r]));
  for (const e of changes) rows.set(key(e.data.tenantId, e.data.userId), auditorRowOf(rows.get(key(e.data.tenantId, e.data.userId)) ?? null, e));
  await trx(table(AUDIT_TABLES.auditors)).insert([...rows.values()]).onConflict(['tenant_id', 'user_id']).merge();
};

const applyAuditEvents = async (trx: Knex.Transaction, events: ProjectedEvent[], table: TableMap): Promise<void> => {
  await copyPoolEvents(trx, events, table);
  await applyAuditorEvents(trx, events, table);
};

/** The auditor's read model: pool and deal histories as stored (hash links included) and each tenant's auditors. */
export const auditProjection: Projection = {
  name: 'audit',
  tables: [AUDIT_TABLES.events, AUDIT_TABLES.auditors],
  handles: (type, streamId) => isAuditedStream(streamId) || AUDITOR_EVENTS.has(type),
  apply: (trx, event, table) => applyAuditEvents(trx, [event], table),
  applyMany: applyAuditEvents,
};
