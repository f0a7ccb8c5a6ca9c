/**
 * The audit read model's tables (migration 019, projection `audit`): a copy of every event of every pool stream and
 * every deal stream as it is stored, with its hash links, and the auditors of each tenant.
 */
export const AUDIT_TABLES = { events: 'rm_audit_events', auditors: 'rm_tenant_auditors' } as const;

/** Pool streams are `pool-<poolId>`: the audit copies every event of them, whatever its type. */
export const POOL_STREAM_PREFIX = 'pool-';
export const isPoolStream = (streamId: string): boolean => streamId.startsWith(POOL_STREAM_PREFIX);
export const poolStreamOf = (poolId: string): string => `${POOL_STREAM_PREFIX}${poolId}`;

/** Deal streams are `deal-<dealId>`: escrows too, copied the same way. */
export const DEAL_STREAM_PREFIX = 'deal-';
export const isDealStream = (streamId: string): boolean => streamId.startsWith(DEAL_STREAM_PREFIX);
export const dealStreamOf = (dealId: string): string => `${DEAL_STREAM_PREFIX}${dealId}`;

/** The streams the audit copies: every escrow's (pools and deals). */
export const isAuditedStream = (streamId: string): boolean => isPoolStream(streamId) || isDealStream(streamId);

/** The resource a stream is about (column `pool_id`, named before deals: the pool's id, or the deal's). */
const resourceIdOf = (streamId: string): string => streamId.slice((isDealStream(streamId) ? DEAL_STREAM_PREFIX : POOL_STREAM_PREFIX).length);

/**
 * What the projection copies from an event: the content as stored (what its hash covers), the data upcast to its
 * current version (what the read models' folds take, for the state at a point), and where it sits.
 */
export interface AuditSource {
  id: string;
  streamId: string;
  revision: bigint;
  position: { commit: bigint; prepare: bigint };
  type: string;
  hash: string;
  prevHash: string | null;
  recordedAt: Date;
  stored: { schemaVersion: number; data: unknown; metadata: unknown };
  /** The current schema version and the data upcast to it. */
  schemaVersion: number;
  data: unknown;
  metadata: { tenantId: string | null; occurredAt: string; actor: { kind: string; id: string } };
}

/** A row as it is read back (pg gives numeric and bigint as strings, timestamptz as Date, jsonb parsed). */
export interface AuditEventRow {
  stream_id: string;
  revision: string;
  commit_position: string;
  prepare_position: string;
  event_id: string;
  type: string;
  schema_version: number;
  data: unknown;
  metadata: unknown;
  current_version: number;
  current_data: unknown;
  hash: string;
  prev_hash: string | null;
  recorded_at: Date;
  pool_id: string;
  reservation_id: string | null;
  tenant_id: string | null;
  occurred_at: Date;
  actor_kind: string;
  actor_id: string;
}

const reservationIdOf = (data: unknown): string | null => {
  const id = data !== null && typeof data === 'object' ? (data as { reservationId?: unknown }).reservationId : undefined;
  return typeof id === 'string' ? id : null;
};

/** The row the projection writes for an event of a pool stream (jsonb columns as JSON text: pg would write arrays as SQL arrays). */
export const auditEventRowValues = (e: AuditSource) => ({
  stream_id: e.streamId,
  revision: e.revision.toString(),
  commit_position: e.position.commit.toString(),
  prepare_position: e.position.prepare.toString(),
  event_id: e.id,
  type: e.type,
  schema_version: e.stored.schemaVersion,
  data: JSON.stringify(e.stored.data),
  metadata: JSON.stringify(e.stored.metadata),
  current_version: e.schemaVersion,
  current_data: JSON.stringify(e.data),
  hash: e.hash,
  prev_hash: e.prevHash,
  recorded_at: e.recordedAt,
  pool_id: resourceIdOf(e.streamId),
  reservation_id: reservationIdOf(e.data),
  tenant_id: e.metadata.tenantId,
  occurred_at: e.metadata.occurredAt,
  actor_kind: e.metadata.actor.kind,
  actor_id: e.metadata.actor.id,
});

/** An auditor of a tenant: `active` until revoked. `revision` is the tenant stream's, so a replay changes nothing. */
export interface AuditorRow {
  tenant_id: string;
  user_id: string;
  active: boolean;
  granted_at: Date | string;
  revoked_at: Date | string | null;
  revision: string;
}

export type AuditorEvent =
  | { type: 'TenantAuditorGranted'; data: { tenantId: string; userId: string; grantedAt: string }; revision: bigint }
  | { type: 'TenantAuditorRevoked'; data: { tenantId: string; userId: string; revokedAt: string }; revision: bigint };

export const AUDITOR_EVENTS: ReadonlySet<string> = new Set(['TenantAuditorGranted', 'TenantAuditorRevoked']);

/**
 * The row an auditor event leaves: `granted_at` is the latest grant's (a revoked auditor granted again holds the new
 * grant). An event at or below the row's revision leaves it as it is.
 */
export const auditorRowOf = (prev: AuditorRow | null, e: AuditorEvent): AuditorRow => {
  if (prev && BigInt(prev.revision) >= e.revision) return prev;
  const base = { tenant_id: e.data.tenantId, user_id: e.data.userId, revision: e.revision.toString() };
  return e.type === 'TenantAuditorGranted'
    ? { ...base, active: true, granted_at: e.data.grantedAt, revoked_at: null }
    : { ...base, active: false, granted_at: prev?.granted_at ?? e.data.revokedAt, revoked_at: e.data.revokedAt };
};
