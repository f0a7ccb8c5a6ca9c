import type { Knex } from 'knex';
import { z } from 'zod';
import type { EventPrincipal } from './principal';

/**
 * Webhook endpoints as the API shows them, and who sees which (docs/webhooks.md). The tables are configuration and
 * security records outside the event log (migration 025); the command side writes them, both sides read them here.
 *
 * Owner scope: an endpoint belongs to the principal that created it. An organiser's endpoint (`owner_id` = them)
 * receives their own resources' events and only they see and manage it; a tenant-wide one (`owner_id` null, created
 * by an auditor or, later, an API key) receives the whole tenant's and is managed by those principals. Any other
 * endpoint, another tenant's included, is not found (404), never forbidden: its existence is not told.
 */
export const WEBHOOK_TABLES = {
  endpoints: 'webhook_endpoints',
  secrets: 'webhook_secrets',
  deliveries: 'webhook_deliveries',
  attempts: 'webhook_attempts',
  inbox: 'webhook_inbox',
} as const;

export interface WebhookEndpointRow {
  id: string;
  tenant_id: string;
  owner_id: string | null;
  /** Its mode: a test key's endpoint receives test events only (NULL: the deployment's mode). */
  livemode: boolean | null;
  created_by: string;
  url: string;
  description: string | null;
  metadata: Record<string, string>;
  enabled_events: string[];
  ordering: 'none' | 'per_subject';
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

/** `we_` + 32 hex digits. */
export const WEBHOOK_ENDPOINT_ID = /^we_[0-9a-f]{32}$/;

const Time = z.string().describe('ISO 8601 date-time');

export const WebhookEndpointSchema = z
  .object({
    id: z.string().regex(WEBHOOK_ENDPOINT_ID).describe('`we_…`'),
    url: z.string(),
    description: z.string().nullable(),
    metadata: z.record(z.string(), z.string()),
    enabledEvents: z.array(z.string()).describe('Public event types, `<prefix>.*` or `*`'),
    ordering: z.enum(['none', 'per_subject']).describe('per_subject: one delivery at a time per subject, in `sequence` order'),
    status: z.enum(['enabled', 'disabled']),
    disabledReason: z.string().nullable().describe('manual, gone (the receiver answered 410) or failing (5 days of failures)'),
    disabledAt: Time.nullable(),
    failingSince: Time.nullable().describe('The first failure of the current run of failures; null while deliveries succeed'),
    scope: z.enum(['tenant', 'owner']).describe('tenant: every event of the tenant; owner: the events of its owner’s resources'),
    ownerId: z.string().uuid().nullable(),
    createdAt: Time,
    updatedAt: Time,
  })
  .describe('WebhookEndpoint');
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;

const iso = (d: Date | null): string | null => (d ? new Date(d).toISOString() : null);

/** The endpoint as the API shows it: never a secret (they live in another table and leave only when created). */
export const toWebhookEndpoint = (r: WebhookEndpointRow): WebhookEndpoint => ({
  id: r.id,
  url: r.url,
  description: r.description,
  metadata: r.metadata ?? {},
  enabledEvents: r.enabled_events,
  ordering: r.ordering,
  status: r.status,
  disabledReason: r.disabled_reason,
  disabledAt: iso(r.disabled_at),
  failingSince: iso(r.failing_since),
  scope: r.owner_id ? 'owner' : 'tenant',
  ownerId: r.owner_id,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

export const WebhookAttemptSchema = z
  .object({
    id: z.string().describe('The attempt (a decimal number, newest highest)'),
    eventId: z.string().describe('The event delivered: the `webhook-id` header'),
    attempt: z.number().int().describe('1 for the first try of this delivery'),
    trigger: z.string().describe('What made this attempt: a new event, a retry, a recovery or a test'),
    statusCode: z.number().int().nullable().describe('The receiver’s HTTP status; null when none came (timeout, refused connection)'),
    latencyMs: z.number().int(),
    error: z.string().nullable(),
    responseExcerpt: z.string().nullable().describe('The first 1 KB of the receiver’s answer'),
    attemptedAt: Time,
  })
  .describe('WebhookAttempt');

interface AttemptRow {
  id: string;
  event_id: string;
  attempt: number;
  trigger: string;
  status_code: number | null;
  latency_ms: number;
  error: string | null;
  response_excerpt: string | null;
  attempted_at: Date;
}

const toAttempt = (r: AttemptRow): z.infer<typeof WebhookAttemptSchema> => ({
  id: String(r.id),
  eventId: r.event_id,
  attempt: r.attempt,
  trigger: r.trigger,
  statusCode: r.status_code,
  latencyMs: r.latency_ms,
  error: r.error,
  responseExcerpt: r.response_excerpt === null ? null : r.response_excerpt.slice(0, 1024),
  attemptedAt: new Date(r.attempted_at).toISOString(),
});

/** The endpoints a principal manages, and their attempts. Every query starts with the tenant and the owner scope. */
export class WebhookEndpointReader {
  constructor(private readonly knex: Knex | Knex.Transaction) {}

  /** The endpoints of the principal's scope (not deleted), tenant first, then owner. */
  scoped(principal: EventPrincipal, db: Knex | Knex.Transaction = this.knex): Knex.QueryBuilder {
    // An endpoint of the other mode is none of the principal's (NULL: the deployment's mode).
    const q = db(WEBHOOK_TABLES.endpoints)
      .where({ tenant_id: principal.tenantId })
      .whereNull('deleted_at')
      .whereRaw('coalesce(livemode, ?::boolean) = ?::boolean', [principal.deploymentLive, principal.livemode]);
    return principal.ownerId === null ? q.whereNull('owner_id') : q.where({ owner_id: principal.ownerId });
  }

  /** The principal's endpoint, or null (a malformed id, another scope's or another tenant's endpoint alike). */
  async find(principal: EventPrincipal, id: string, db: Knex | Knex.Transaction = this.knex, o: { forUpdate?: boolean } = {}): Promise<WebhookEndpointRow | null> {
    if (!WEBHOOK_ENDPOINT_ID.test(id)) return null;
    const q = this.scoped(principal, db).where({ id }).first();
    return ((await (o.forUpdate ? q.forUpdate() : q)) as WebhookEndpointRow | undefined) ?? null;
  }

  async list(principal: EventPrincipal, page: number, limit: number): Promise<{ items: WebhookEndpoint[]; total: number }> {
    const [rows, count] = await Promise.all([
      this.scoped(principal).orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).offset((page - 1) * limit).limit(limit),
      this.scoped(principal).count<{ n: string }[]>({ n: '*' }),
    ]);
    return { items: (rows as WebhookEndpointRow[]).map(toWebhookEndpoint), total: Number(count[0]?.n ?? 0) };
  }

  /** An endpoint's attempts, newest first. The caller has found the endpoint in the principal's scope. */
  async attempts(endpointId: string, page: number, limit: number): Promise<{ items: Array<z.infer<typeof WebhookAttemptSchema>>; total: number }> {
    const [rows, count] = await Promise.all([
      this.knex(WEBHOOK_TABLES.attempts).where({ endpoint_id: endpointId }).orderBy('id', 'desc').offset((page - 1) * limit).limit(limit),
      this.knex(WEBHOOK_TABLES.attempts).where({ endpoint_id: endpointId }).count<{ n: string }[]>({ n: '*' }),
    ]);
    return { items: (rows as AttemptRow[]).map(toAttempt), total: Number(count[0]?.n ?? 0) };
  }

  /** Endpoints the tenant has (every scope, not deleted): the per-tenant limit counts these. */
  async countForTenant(tenantId: string, db: Knex | Knex.Transaction = this.knex): Promise<number> {
    const [row] = await db(WEBHOOK_TABLES.endpoints).where({ tenant_id: tenantId }).whereNull('deleted_at').count<{ n: string }[]>({ n: '*' });
    return Number(row?.n ?? 0);
  }
}
