import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import type pg from 'pg';
import { ConflictError } from '@cagnotte/domain';
import type { IdempotencyClaim, Replay, WebhookKeyring } from '@cagnotte/infra';
import { PUBLIC_EVENTS_TABLE, WEBHOOK_TABLES, WebhookEndpointReader, type EventPrincipal, type WebhookEndpointRow } from '@cagnotte/read-models';
import type { WebhookCreateInput, WebhookUpdateInput } from './input';

/** Disabled by the delivery side (the receiver answered 410, or failed for 5 days): re-enabling offers the missed window. */
const AUTOMATIC_DISABLES = new Set(['gone', 'failing']);

/** The pg client under a knex transaction: an idempotent answer is recorded in the transaction of what it reports. */
const pgClientOf = (trx: Knex.Transaction): Promise<pg.ClientBase> => (trx.client as { acquireConnection(): Promise<pg.ClientBase> }).acquireConnection();

/**
 * Writes of the endpoints API. Endpoints are configuration and security records, not events (migration 025): each
 * change is one transaction, with the answer of an `Idempotency-Key` recorded in it. A kept answer never holds a
 * secret (secrets are stored encrypted only), so a replay of a creation or rotation answers without it.
 */
export class WebhookEndpointStore {
  private readonly reader: WebhookEndpointReader;

  constructor(
    private readonly knex: Knex,
    private readonly keyring: WebhookKeyring,
    private readonly maxPerTenant: number,
  ) {
    this.reader = new WebhookEndpointReader(knex);
  }

  find(principal: EventPrincipal, id: string): Promise<WebhookEndpointRow | null> {
    return this.reader.find(principal, id);
  }

  async create(
    principal: EventPrincipal,
    input: WebhookCreateInput,
    url: string,
    answer: { idempotency: IdempotencyClaim | null; keep: (row: WebhookEndpointRow) => Replay },
  ): Promise<{ row: WebhookEndpointRow; secret: string }> {
    const id = `we_${randomBytes(16).toString('hex')}`;
    const created = await this.knex.transaction(async (trx) => {
      // One creation at a time per tenant, so the limit holds under concurrent requests.
      await trx.raw('SELECT pg_advisory_xact_lock(hashtext(?))', [`webhook_endpoints:${principal.tenantId}`]);
      if ((await this.reader.countForTenant(principal.tenantId, trx)) >= this.maxPerTenant) {
        throw new ConflictError('webhook_endpoint_limit', `A tenant has at most ${this.maxPerTenant} webhook endpoints: delete one first`);
      }
      // The feed's head now: the endpoint receives the events after it (positions are compared as numbers; the xid8
      // goes to JavaScript as text under a name of its own and comes back through text).
      const head = (
        await trx.raw<{ rows: Array<{ commit_text: string; prepare_position: string; idx: number }> }>(
          'SELECT commit_position::text AS commit_text, prepare_position, idx FROM rm_public_events ORDER BY commit_position DESC, prepare_position DESC, idx DESC LIMIT 1',
        )
      ).rows[0];
      const [row] = (await trx(WEBHOOK_TABLES.endpoints)
        .insert({
          id,
          tenant_id: principal.tenantId,
          owner_id: principal.ownerId,
          livemode: principal.livemode,
          created_by: principal.actorId,
          url,
          description: input.description || null,
          metadata: JSON.stringify(input.metadata ?? {}),
          enabled_events: input.enabledEvents,
          ordering: input.ordering,
          status: 'enabled',
          from_commit: head ? trx.raw('?::text::xid8', [head.commit_text]) : null,
          from_prepare: head?.prepare_position ?? null,
          from_idx: head?.idx ?? null,
        })
        .returning('*')) as WebhookEndpointRow[];
      const secret = await this.keyring.createEndpointSecret(trx, id);
      if (answer.idempotency) await answer.idempotency.recordWithin(await pgClientOf(trx), answer.keep(row!));
      return { row: row!, secret };
    });
    answer.idempotency?.committed();
    return created;
  }

  /** Applies a change; null when the endpoint is not the principal's. `recovery` when it re-enabled an endpoint disabled by failures. */
  async update(
    principal: EventPrincipal,
    id: string,
    input: WebhookUpdateInput & { url?: string },
    now: Date,
  ): Promise<{ row: WebhookEndpointRow; recovery: { since: Date; until: Date } | null } | null> {
    return this.knex.transaction(async (trx) => {
      const current = await this.reader.find(principal, id, trx, { forUpdate: true });
      if (!current) return null;
      const changes: Record<string, unknown> = { updated_at: now };
      if (input.url !== undefined) changes.url = input.url;
      if (input.enabledEvents !== undefined) changes.enabled_events = input.enabledEvents;
      if (input.description !== undefined) changes.description = input.description || null;
      if (input.metadata !== undefined) changes.metadata = JSON.stringify(input.metadata);
      if (input.ordering !== undefined) changes.ordering = input.ordering;
      let recovery: { since: Date; until: Date } | null = null;
      if (input.status === 'disabled' && current.status === 'enabled') Object.assign(changes, { status: 'disabled', disabled_reason: 'manual', disabled_at: now });
      if (input.status === 'enabled' && current.status === 'disabled') {
        if (current.disabled_reason && AUTOMATIC_DISABLES.has(current.disabled_reason)) {
          // The gap starts at the oldest event the endpoint missed, not when it began failing: the event that got the 410
          // (or the first failure) and those cancelled behind it were created before that moment.
          const began = new Date(current.failing_since ?? current.disabled_at ?? now);
          const missed = (await trx.raw(
            `SELECT min(e.created_at) AS oldest FROM ${WEBHOOK_TABLES.deliveries} d JOIN ${PUBLIC_EVENTS_TABLE} e ON e.id = d.event_id
              WHERE d.endpoint_id = ? AND d.status IN ('failed', 'cancelled') AND d.updated_at >= ?::timestamptz - interval '1 second'`,
            [id, began.toISOString()],
          )) as { rows: Array<{ oldest: Date | null }> };
          const oldest = missed.rows[0]?.oldest ? new Date(missed.rows[0].oldest) : null;
          recovery = { since: oldest && oldest < began ? oldest : began, until: now };
        }
        Object.assign(changes, { status: 'enabled', disabled_reason: null, disabled_at: null, failing_since: null });
      }
      const [row] = (await trx(WEBHOOK_TABLES.endpoints).where({ id }).update(changes).returning('*')) as WebhookEndpointRow[];
      return { row: row!, recovery };
    });
  }

  /**
   * Deletes an endpoint: it stops at once (its secrets are erased, its pending deliveries cancelled); its row and
   * attempts stay for the record, out of every list. False when it is not the principal's.
   */
  async remove(principal: EventPrincipal, id: string, now: Date): Promise<boolean> {
    return this.knex.transaction(async (trx) => {
      const current = await this.reader.find(principal, id, trx, { forUpdate: true });
      if (!current) return false;
      await trx(WEBHOOK_TABLES.endpoints).where({ id }).update({ deleted_at: now, updated_at: now, status: 'disabled', disabled_reason: 'deleted', disabled_at: now });
      await trx(WEBHOOK_TABLES.secrets).where({ endpoint_id: id }).delete();
      await trx(WEBHOOK_TABLES.deliveries).where({ endpoint_id: id, status: 'pending' }).update({ status: 'cancelled', next_attempt_at: null, updated_at: now });
      return true;
    });
  }

  /** A new secret; the others sign until `expiresAt`. Null when the endpoint is not the principal's. */
  async rotate(
    principal: EventPrincipal,
    id: string,
    expiresInSeconds: number,
    now: Date,
    answer: { idempotency: IdempotencyClaim | null; keep: (expiresAt: Date) => Replay },
  ): Promise<{ secret: string; expiresAt: Date } | null> {
    const expiresAt = new Date(now.getTime() + expiresInSeconds * 1000);
    const rotated = await this.knex.transaction(async (trx) => {
      const current = await this.reader.find(principal, id, trx, { forUpdate: true });
      if (!current) return null;
      const secret = await this.keyring.rotate(trx, id, expiresInSeconds, now);
      await trx(WEBHOOK_TABLES.endpoints).where({ id }).update({ updated_at: now });
      if (answer.idempotency) await answer.idempotency.recordWithin(await pgClientOf(trx), answer.keep(expiresAt));
      return { secret, expiresAt };
    });
    if (rotated) answer.idempotency?.committed();
    return rotated;
  }
}
