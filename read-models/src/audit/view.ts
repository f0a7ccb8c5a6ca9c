import { z } from 'zod';
import type { AuditEventRow } from './tables';
import { redact } from './redact';

/**
 * An event as its stream stores it: the content its hash covers (stream, revision, id, type, schema version, data,
 * metadata) and its links. A row of the audit read model and an event read from the store both give one.
 */
export interface StoredEvent {
  streamId: string;
  revision: bigint;
  position: { commit: bigint; prepare: bigint };
  id: string;
  type: string;
  schemaVersion: number;
  data: unknown;
  metadata: unknown;
  hash: string;
  prevHash: string | null;
  recordedAt: Date;
}

export const storedOfRow = (r: AuditEventRow): StoredEvent => ({
  streamId: r.stream_id,
  revision: BigInt(r.revision),
  position: { commit: BigInt(r.commit_position), prepare: BigInt(r.prepare_position) },
  id: r.event_id,
  type: r.type,
  schemaVersion: r.schema_version,
  data: r.data,
  metadata: r.metadata,
  hash: r.hash,
  prevHash: r.prev_hash,
  recordedAt: r.recorded_at,
});

export const formatAuditPosition = (p: StoredEvent['position']): string => `${p.commit}-${p.prepare}`;

export const AuditEventSchema = z
  .object({
    position: z.string().describe('Where the event sits in the global feed: "<commit>-<prepare>", as in X-Event-Position'),
    streamId: z.string().describe('`pool-<poolId>`: part of what the hash covers'),
    revision: z.number().int().describe('0-based revision in the pool stream'),
    eventId: z.string().uuid(),
    type: z.string(),
    schemaVersion: z.number().int().describe('The schema version the event was written with: `data` is served as stored, not upcast'),
    occurredAt: z.string().describe('metadata.occurredAt, as stored'),
    recordedAt: z.string().describe('When the event store recorded it'),
    actor: z.object({ kind: z.string(), id: z.string() }).describe('Who caused it: a user, an operator or the system'),
    data: z.unknown().describe('The event data as stored (its published JSON Schema at `schemaVersion`: docs/event-schemas.json)'),
    metadata: z.unknown().describe('The event metadata as stored: tenant, actor, correlation and causation ids, occurredAt, the IP of a request'),
    hash: z.string().describe('sha256(prevHash ‖ "\\n" ‖ canonical JSON of {streamId, revision, id, type, schemaVersion, data, metadata}), hex'),
    prevHash: z.string().nullable().describe('The hash of the previous event of the stream; null at revision 0'),
    verified: z.boolean().describe('The hash recomputed from the stored content equals `hash`, and `prevHash` is the stored hash of revision − 1'),
    redacted: z
      .array(z.string())
      .describe('Paths withheld: secret-shaped values (a Stellar secret seed, a key naming a secret or an XDR: none in events the service writes), and for readers who are not auditors the IP of a request (`metadata.ip`, `data.ip`)'),
  })
  .describe('AuditEvent');
export type AuditEventView = z.infer<typeof AuditEventSchema>;

export const LinkBreakSchema = z.object({
  revision: z.number().int(),
  eventId: z.string().uuid(),
  reason: z.enum(['content does not match its hash', 'previous hash does not match', 'previous event is missing']),
});
export type LinkBreak = z.infer<typeof LinkBreakSchema>;

export const ChainSchema = z
  .object({ verified: z.boolean(), firstBroken: LinkBreakSchema.nullable() })
  .describe('The links checked for the events listed (each one\'s content and its link to revision − 1): walking every page checks the whole stream');

const metaOf = (m: unknown) => (m !== null && typeof m === 'object' ? (m as { occurredAt?: unknown; actor?: { kind?: unknown; id?: unknown } }) : {});

/** Personal data an organiser or a buyer reading a history does not see (only auditors do): the IP a request came from. */
const PERSONAL_KEYS = ['ip'] as const;
export const WITHHELD = '[withheld]';

const withholdPersonal = (redacted: { value: unknown; paths: string[] }, root: string): { value: unknown; paths: string[] } => {
  const v = redacted.value;
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return redacted;
  const copy = { ...(v as Record<string, unknown>) };
  const paths = [...redacted.paths];
  for (const key of PERSONAL_KEYS) {
    if (copy[key] === undefined || copy[key] === null) continue;
    copy[key] = WITHHELD;
    paths.push(`${root}.${key}`);
  }
  return { value: copy, paths };
};

/**
 * One event of a history, as served: its stored content (secret-shaped values withheld; for readers who are not
 * auditors, personal data too: the IP of a request) and whether its link holds. `verified` is computed on the stored
 * content either way.
 */
export const auditEventView = (e: StoredEvent, verified: boolean, options: { personal?: boolean } = { personal: true }): AuditEventView => {
  const meta = metaOf(e.metadata);
  const keep = options.personal ?? true;
  const data = keep ? redact(e.data, 'data') : withholdPersonal(redact(e.data, 'data'), 'data');
  const metadata = keep ? redact(e.metadata, 'metadata') : withholdPersonal(redact(e.metadata, 'metadata'), 'metadata');
  return {
    position: formatAuditPosition(e.position),
    streamId: e.streamId,
    revision: Number(e.revision),
    eventId: e.id,
    type: e.type,
    schemaVersion: e.schemaVersion,
    occurredAt: String(meta.occurredAt ?? ''),
    recordedAt: new Date(e.recordedAt).toISOString(),
    actor: { kind: String(meta.actor?.kind ?? ''), id: String(meta.actor?.id ?? '') },
    data: data.value,
    metadata: metadata.value,
    hash: e.hash,
    prevHash: e.prevHash,
    verified,
    redacted: [...data.paths, ...metadata.paths],
  };
};
