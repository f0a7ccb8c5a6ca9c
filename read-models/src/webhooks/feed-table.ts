import { API_VERSION, type PublicEvent, type PublicEventDraft } from './catalogue';

/** The public feed (migration 025): one row per public event, at its internal event's position plus its index. */
export const PUBLIC_EVENTS_TABLE = 'rm_public_events';
/** The projection's memory of who owns a pool (resource id → tenant, organiser). */
export const PUBLIC_EVENT_OWNERS_TABLE = 'rm_public_event_owners';
/** The channel the projection notifies (payload: the tenant ids of the batch, comma-separated) when it wrote events. */
export const PUBLIC_EVENTS_CHANNEL = 'public_events';

/** The columns of a public event's envelope (the place columns aside). */
interface PublicEventColumns {
  id: string;
  tenant_id: string;
  owner_id: string | null;
  type: string;
  subject: string;
  /** bigint: a decimal string as read (infra/src/db/database.ts). */
  sequence: string;
  api_version: string;
  created_at: Date | string;
  data: Record<string, unknown>;
}

/** A row as the projection inserts it: the xid8 passes as decimal text (PostgreSQL reads it as the column's type). */
export interface PublicEventRowValues extends PublicEventColumns {
  commit_position: string;
  prepare_position: string;
  idx: number;
}

/**
 * A row as read: the xid8 selected as text under a name of its own (`commit_position::text AS commit_text`), so SQL
 * keeps ordering and comparing the xid8 itself, never its text (docs/architecture.md, numbers as numbers).
 */
export interface PublicEventRow extends PublicEventColumns {
  commit_text: string;
  prepare_position: string;
  idx: number;
}

export interface PublicEventOwnerRow {
  resource_id: string;
  tenant_id: string;
  owner_id: string | null;
  /** The pool's mode when its creation recorded one (migration 031); null otherwise. */
  livemode: boolean | null;
  /** The pool's type (migration 031); null for owners remembered before it. */
  pool_type: string | null;
}

/** `evt_` + the internal event's uuid without dashes, + `_<idx>` past the first: a rebuild gives the same ids. */
export const publicEventId = (internalEventId: string, idx: number): string => `evt_${internalEventId.replace(/-/g, '').toLowerCase()}${idx > 0 ? `_${idx}` : ''}`;

/** The internal event a public event comes from: its position, id, revision and time. */
export interface PublicEventSource {
  id: string;
  revision: bigint;
  position: { commit: bigint; prepare: bigint };
  occurredAt: string;
}

/** The row of the `idx`-th public event of `source` (what the projection inserts; the xid8 passes as text). */
export const publicEventRowOf = (source: PublicEventSource, draft: PublicEventDraft, idx: number): PublicEventRowValues => ({
  commit_position: source.position.commit.toString(),
  prepare_position: source.position.prepare.toString(),
  idx,
  id: publicEventId(source.id, idx),
  tenant_id: draft.tenantId,
  owner_id: draft.ownerId,
  type: draft.type,
  subject: draft.subject,
  sequence: source.revision.toString(),
  api_version: API_VERSION,
  created_at: new Date(source.occurredAt).toISOString(),
  data: draft.data as Record<string, unknown>,
});

/** The envelope a partner reads (the feed's items, a webhook's body). */
export const toPublicEvent = (row: PublicEventColumns): PublicEvent => ({
  id: row.id,
  type: row.type,
  createdAt: new Date(row.created_at).toISOString(),
  tenant: row.tenant_id,
  subject: row.subject,
  // A stream revision fits 2^53 (a stream of 9 × 10^15 events is not a stream).
  sequence: Number(row.sequence),
  apiVersion: row.api_version as typeof API_VERSION,
  data: typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data,
});
