import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { UnsafeWebhookAddressError, checkWebhookUrl, resolvePublicAddress, signDelivery, type JobQueue, type Logger, type Resolver, type WebhookKeyring } from '@cagnotte/infra';
import { API_VERSION, matchesEnabledEvents, toPublicEvent, type PublicEvent, type PublicEventRow, type WebhookEndpointRow } from '@cagnotte/read-models';
import { enqueueAttempt, enqueueAttempts, subjectHeads, type DeliveryJob, type PendingRow } from './deliveries';
import { MAX_BODY_BYTES, failingTooLong, outcomeOf, type Outcome } from './outcome';
import { postWebhook, type SendResult } from './sender';
import { MicroBatcher } from './batcher';
import type { WebhookDeliveryScheduler } from './ports';

/**
 * One webhook attempt, run by a job of the `webhook-deliveries` queue (docs/webhooks.md, "Delivery"): claim the
 * attempt on the delivery row, check the URL and resolve its address (the SSRF guard, at every attempt), POST the
 * signed public event to that address, record the attempt, then decide (outcome.ts): delivered, retried (a new job at
 * the schedule's next step), failed for good, or the endpoint disabled (410 Gone, or failing for 5 days).
 */
export interface WebhookDeliveryDeps {
  knex: Knex;
  jobs: JobQueue;
  keyring: Pick<WebhookKeyring, 'endpointSecretsOf' | 'signingKey'>;
  logger: Logger;
  production: boolean;
  /** Sandbox: the service's own inbox URL prefix, which http:// may reach. */
  sandboxInboxBase: () => string | undefined;
  /** DNS (specs inject one); the system's otherwise. */
  resolver?: Resolver;
  timeoutMs: number;
  schedule: readonly number[];
  clock: () => Date;
  random?: () => number;
}

export const USER_AGENT = 'Cagnotte-Webhooks/1';
/** An attempt's lease beyond its timeout: past it, the attempt is taken as lost and the sweeper queues the next. */
const LEASE_MARGIN_MS = 30_000;

interface ClaimedRow {
  endpoint_id: string;
  event_id: string;
  attempts: number;
  step: number;
  trigger: 'dispatch' | 'recovery' | 'test';
  subject: string;
  is_test: boolean;
}

/** The event as the claim reads it: a feed row (row_to_json), or a test event's stored envelope. */
type EventRow = Omit<PublicEventRow, 'commit_text' | 'prepare_position' | 'idx'>;

/** The body: the public event's envelope, the same as the feed serves (read-models/src/webhooks/feed-table.ts). */
const bodyOf = (e: EventRow): string => JSON.stringify(toPublicEvent(e));

const cancelPending = (db: Knex | Knex.Transaction, endpointId: string, why: string) =>
  db('webhook_deliveries').where({ endpoint_id: endpointId, status: 'pending' }).update({ status: 'cancelled', last_error: why, leased_until: null, updated_at: db.fn.now() });

/**
 * The claims of many attempts, with the endpoint and the event each needs, in one statement (a delivery's hot path is
 * two round trips, each shared with the attempts that run beside it: batcher.ts). Each (endpoint, event) is claimed
 * at most once (attempts = n - 1 → n under the lease): of two runs of one attempt, one gets the row.
 */
const CLAIM = `
  WITH k AS (
    SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::timestamptz[]) AS k(endpoint_id, event_id, attempts, at)
  ), c AS (
    UPDATE webhook_deliveries d
       SET attempts = d.attempts + 1, step = d.step + 1, leased_until = now() + (? * interval '1 millisecond'), updated_at = now()
      FROM k, webhook_endpoints w
     WHERE d.endpoint_id = k.endpoint_id AND d.event_id = k.event_id AND d.status = 'pending' AND d.attempts = k.attempts
       AND (d.leased_until IS NULL OR d.leased_until < now())
       AND w.id = d.endpoint_id AND w.status = 'enabled' AND w.deleted_at IS NULL
    RETURNING d.endpoint_id, d.event_id, d.attempts, d.step, d.trigger, d.subject, d.commit_position IS NULL AS is_test, k.at
  )
  SELECT c.endpoint_id, c.event_id, c.attempts, c.step, c.trigger, c.subject, c.is_test,
         row_to_json(w) AS endpoint, row_to_json(e) AS event, t.payload AS test_payload,
         ARRAY(SELECT s.secret_ciphertext FROM webhook_secrets s
                WHERE s.endpoint_id = c.endpoint_id AND (s.expires_at IS NULL OR s.expires_at > c.at) ORDER BY s.id DESC) AS secret_ciphertexts
    FROM c JOIN webhook_endpoints w ON w.id = c.endpoint_id
    LEFT JOIN rm_public_events e ON e.id = c.event_id AND NOT c.is_test
    LEFT JOIN webhook_test_events t ON t.id = c.event_id AND c.is_test`;

interface ClaimRequest {
  job: DeliveryJob;
  now: Date;
}

/** One statement for the batch; each request gets its row, or undefined (not claimed: another run has it, or it moved on). */
const claimAll = async (deps: WebhookDeliveryDeps, requests: ClaimRequest[]): Promise<Array<Claimed | undefined>> => {
  const rows = (
    await deps.knex.raw<{ rows: Claimed[] }>(CLAIM, [
      requests.map((r) => r.job.endpointId),
      requests.map((r) => r.job.eventId),
      requests.map((r) => r.job.attempt - 1),
      requests.map((r) => r.now),
      deps.timeoutMs + LEASE_MARGIN_MS,
    ])
  ).rows;
  const byKey = new Map(rows.map((r) => [`${r.endpoint_id} ${r.event_id} ${r.attempts}`, r]));
  // A row goes to one request only: two runs of one attempt in one batch, one sends.
  return requests.map((r) => {
    const key = `${r.job.endpointId} ${r.job.eventId} ${r.job.attempt}`;
    const row = byKey.get(key);
    byKey.delete(key);
    return row;
  });
};

interface DeliveredRecord {
  claimed: ClaimedRow;
  status: number;
  latencyMs: number;
  excerpt: string | null;
  at: Date;
}

/** The delivered attempts of a batch in one statement (atomic): their attempts, their deliveries, their endpoints no longer failing. */
const recordDelivered = async (deps: WebhookDeliveryDeps, records: DeliveredRecord[]): Promise<null[]> => {
  await deps.knex.raw(
    `WITH k AS (
       SELECT * FROM unnest(?::text[], ?::text[], ?::int[], ?::text[], ?::int[], ?::int[], ?::text[], ?::timestamptz[])
         AS k(endpoint_id, event_id, attempt, trigger, status_code, latency_ms, excerpt, at)
     ), a AS (
       INSERT INTO webhook_attempts (endpoint_id, event_id, attempt, trigger, status_code, latency_ms, error, response_excerpt, attempted_at)
       SELECT endpoint_id, event_id, attempt, trigger, status_code, latency_ms, NULL, excerpt, at FROM k
     ), w AS (
       UPDATE webhook_endpoints SET failing_since = NULL, updated_at = now() WHERE id IN (SELECT endpoint_id FROM k) AND failing_since IS NOT NULL
     )
     UPDATE webhook_deliveries d SET status = 'delivered', delivered_at = k.at, leased_until = NULL, next_attempt_at = NULL, last_error = NULL, updated_at = now()
       FROM k WHERE d.endpoint_id = k.endpoint_id AND d.event_id = k.event_id`,
    [
      records.map((r) => r.claimed.endpoint_id),
      records.map((r) => r.claimed.event_id),
      records.map((r) => r.claimed.attempts),
      records.map((r) => r.claimed.trigger),
      records.map((r) => r.status),
      records.map((r) => r.latencyMs),
      // pg sends null elements as SQL NULL.
      records.map((r) => r.excerpt) as string[],
      records.map((r) => r.at),
    ],
  );
  return records.map(() => null);
};

/** Batch sizes: a statement of 200 attempts stays small; two statements in flight keep the pipe full. */
const BATCH = { maxBatch: 200, maxInFlight: 2 };

interface Batchers {
  claim: MicroBatcher<ClaimRequest, Claimed | undefined>;
  delivered: MicroBatcher<DeliveredRecord, null>;
}

/** One pair of batchers per set of deps (a process's delivery side, or a spec's). */
const batchers = new WeakMap<WebhookDeliveryDeps, Batchers>();
const batchersOf = (deps: WebhookDeliveryDeps): Batchers => {
  let b = batchers.get(deps);
  if (!b) {
    b = { claim: new MicroBatcher((r) => claimAll(deps, r), BATCH), delivered: new MicroBatcher((r) => recordDelivered(deps, r), BATCH) };
    batchers.set(deps, b);
  }
  return b;
};

type Claimed = ClaimedRow & {
  endpoint: WebhookEndpointRow;
  event: EventRow | null;
  test_payload: PublicEvent | null;
  /** The secrets that sign now, newest first (encrypted). */
  secret_ciphertexts: string[];
};

export const runDeliveryAttempt = async (deps: WebhookDeliveryDeps, job: DeliveryJob): Promise<Outcome | 'skipped'> => {
  const { knex } = deps;
  const now = deps.clock();
  const claimed = await batchersOf(deps).claim.add({ job, now });
  if (!claimed) {
    // Another run of this attempt got there first, the delivery moved on, or the endpoint is off: then what was
    // pending is cancelled, and says why (a recovery offers it again once re-enabled).
    const endpoint: WebhookEndpointRow | undefined = await knex('webhook_endpoints').where({ id: job.endpointId }).first();
    if (endpoint && (endpoint.deleted_at || endpoint.status !== 'enabled')) {
      await cancelPending(knex, endpoint.id, endpoint.deleted_at ? 'endpoint deleted' : `endpoint disabled (${endpoint.disabled_reason ?? 'by its owner'})`);
    }
    return 'skipped';
  }
  const endpoint = claimed.endpoint;
  const t = claimed.test_payload;
  const event: EventRow | null = t
    ? { id: t.id, type: t.type, created_at: t.createdAt, tenant_id: t.tenant, owner_id: null, subject: t.subject, sequence: String(t.sequence), api_version: t.apiVersion, data: t.data }
    : claimed.event;
  if (!event) throw new Error(`webhook delivery ${job.endpointId}:${job.eventId}: the event is not in the feed`);
  const body = bodyOf(event);

  const started = Date.now();
  let result: SendResult;
  if (Buffer.byteLength(body) >= MAX_BODY_BYTES) {
    result = { kind: 'error', error: `body_too_large: ${Buffer.byteLength(body)} bytes (the limit is ${MAX_BODY_BYTES})`, excerpt: null };
  } else {
    result = await send(deps, endpoint, deps.keyring.endpointSecretsOf(endpoint.id, claimed.secret_ciphertexts), job.eventId, body, now);
  }
  const latencyMs = Date.now() - started;
  const tooLarge = result.kind === 'error' && result.error.startsWith('body_too_large');
  const outcome: Outcome = tooLarge ? { kind: 'failed' } : outcomeOf(result, claimed.step, deps.schedule, now, (deps.random ?? Math.random)());

  if (outcome.kind === 'delivered' && result.kind === 'answered') {
    await batchersOf(deps).delivered.add({ claimed, status: result.status, latencyMs, excerpt: result.excerpt, at: now });
    if (endpoint.ordering === 'per_subject' && !claimed.is_test) await queueSubjectHead(deps, endpoint.id, claimed.subject);
    return outcome;
  }

  let next: PendingRow | null = null;
  await knex.transaction(async (trx) => {
    await trx('webhook_attempts').insert({
      endpoint_id: claimed.endpoint_id,
      event_id: claimed.event_id,
      attempt: claimed.attempts,
      trigger: claimed.trigger,
      status_code: result.kind === 'answered' ? result.status : null,
      latency_ms: latencyMs,
      error: result.kind === 'error' ? result.error : result.kind === 'answered' && outcome.kind !== 'delivered' ? `HTTP ${result.status}` : null,
      response_excerpt: result.excerpt,
      attempted_at: now,
    });
    const where = { endpoint_id: claimed.endpoint_id, event_id: claimed.event_id };
    const lastError = result.kind === 'error' ? result.error : `HTTP ${result.status}`;
    switch (outcome.kind) {
      case 'delivered':
        await trx('webhook_deliveries').where(where).update({ status: 'delivered', delivered_at: now, leased_until: null, next_attempt_at: null, last_error: null, updated_at: trx.fn.now() });
        await trx('webhook_endpoints').where({ id: endpoint.id }).whereNotNull('failing_since').update({ failing_since: null, updated_at: trx.fn.now() });
        return;
      case 'gone':
        await trx('webhook_deliveries').where(where).update({ status: 'failed', leased_until: null, next_attempt_at: null, last_error: lastError, updated_at: trx.fn.now() });
        await disable(trx, endpoint.id, 'gone', now);
        return;
      case 'failed':
      case 'retry': {
        const failingSince = endpoint.failing_since ? new Date(endpoint.failing_since) : now;
        if (!endpoint.failing_since) await trx('webhook_endpoints').where({ id: endpoint.id }).whereNull('failing_since').update({ failing_since: now, updated_at: trx.fn.now() });
        if (outcome.kind === 'failed') {
          await trx('webhook_deliveries').where(where).update({ status: 'failed', leased_until: null, next_attempt_at: null, last_error: lastError, updated_at: trx.fn.now() });
        } else {
          const at = new Date(now.getTime() + outcome.delayMs);
          await trx('webhook_deliveries').where(where).update({ leased_until: null, next_attempt_at: at, last_error: lastError, updated_at: trx.fn.now() });
          next = { endpoint_id: claimed.endpoint_id, event_id: claimed.event_id, attempts: claimed.attempts, next_attempt_at: at };
        }
        if (failingTooLong(failingSince, now)) {
          await trx('webhook_deliveries').where(where).update({ status: 'failed' });
          await disable(trx, endpoint.id, 'failing', now);
          next = null;
        }
        return;
      }
      default:
        outcome satisfies never;
    }
  });
  // After the commit: the next attempt, or the next delivery of this subject (per_subject).
  if (next) await enqueueAttempt(deps.jobs, next);
  else if (endpoint.ordering === 'per_subject' && !claimed.is_test) await queueSubjectHead(deps, endpoint.id, claimed.subject);
  return outcome;
};

const queueSubjectHead = async (deps: WebhookDeliveryDeps, endpointId: string, subject: string) => {
  for (const head of await subjectHeads(deps.knex, [{ endpointId, subject }])) await enqueueAttempt(deps.jobs, head);
};

const disable = async (trx: Knex.Transaction, endpointId: string, reason: 'gone' | 'failing', now: Date) => {
  await trx('webhook_endpoints').where({ id: endpointId, status: 'enabled' }).update({ status: 'disabled', disabled_reason: reason, disabled_at: now, updated_at: trx.fn.now() });
  await cancelPending(trx, endpointId, `endpoint disabled (${reason})`);
};

/** The URL check and the address at this attempt, the signature, the POST. A refused URL or address is a failed attempt. */
const send = async (deps: WebhookDeliveryDeps, endpoint: WebhookEndpointRow, secrets: string[], eventId: string, body: string, now: Date): Promise<SendResult> => {
  const checked = checkWebhookUrl(endpoint.url, { production: deps.production, allowLoopbackHttp: !deps.production, sandboxInboxBase: deps.sandboxInboxBase() });
  if (!checked.ok) return { kind: 'error', error: `url_refused: ${checked.problem}`, excerpt: null };
  let address: { address: string; family: 4 | 6 };
  try {
    address = await resolvePublicAddress(checked.url.hostname, { production: deps.production, resolver: deps.resolver, sandboxInbox: checked.sandboxInbox });
  } catch (e) {
    if (e instanceof UnsafeWebhookAddressError) return { kind: 'error', error: `address_refused: ${e.message}`, excerpt: null };
    throw e;
  }
  const key = await deps.keyring.signingKey(endpoint.tenant_id);
  const signed = signDelivery({ id: eventId, timestamp: Math.floor(now.getTime() / 1000), body, secrets, ed25519: key.privateKey });
  const headers = { ...signed, 'content-type': 'application/json', 'user-agent': USER_AGENT };
  return postWebhook(checked.url, address, headers, body, deps.timeoutMs);
};

/** The test and recover operations of the endpoints API (ports.ts). */
export const makeDeliveryScheduler = (deps: Pick<WebhookDeliveryDeps, 'knex' | 'jobs' | 'clock'>): WebhookDeliveryScheduler => ({
  async scheduleTest(endpoint) {
    const now = deps.clock();
    const id = `evt_${randomUUID().replace(/-/g, '')}`;
    const payload = { id, type: 'webhook.test', createdAt: now.toISOString(), tenant: endpoint.tenant_id, subject: endpoint.id, sequence: 0, apiVersion: API_VERSION, data: { endpointId: endpoint.id } };
    await deps.knex.transaction(async (trx) => {
      await trx('webhook_test_events').insert({ id, endpoint_id: endpoint.id, tenant_id: endpoint.tenant_id, payload: JSON.stringify(payload), created_at: now });
      await trx('webhook_deliveries').insert({ endpoint_id: endpoint.id, event_id: id, subject: endpoint.id, sequence: 0, status: 'pending', trigger: 'test' });
    });
    await enqueueAttempt(deps.jobs, { endpoint_id: endpoint.id, event_id: id, attempts: 0, next_attempt_at: null });
    return { eventId: id };
  },

  async scheduleRecovery(endpoint, since, until) {
    const w = (await deps.knex.raw<{ rows: Array<{ from_commit_text: string | null; from_prepare: string | null; from_idx: number | null }> }>(
      'SELECT from_commit::text AS from_commit_text, from_prepare, from_idx FROM webhook_endpoints WHERE id = ?',
      [endpoint.id],
    )).rows[0];
    const events = (
      await deps.knex.raw<{ rows: Array<{ id: string; type: string; subject: string; sequence: string; commit_text: string; prepare_position: string; idx: number }> }>(
        `SELECT e.id, e.type, e.subject, e.sequence, e.commit_position::text AS commit_text, e.prepare_position, e.idx
           FROM rm_public_events e
          WHERE e.tenant_id = ? AND e.created_at >= ? AND (?::timestamptz IS NULL OR e.created_at < ?::timestamptz)
            AND (?::uuid IS NULL OR e.owner_id = ?::uuid)
            AND (?::text IS NULL OR (e.commit_position, e.prepare_position, e.idx) > (?::text::xid8, ?::bigint, ?::smallint))
          ORDER BY e.commit_position, e.prepare_position, e.idx`,
        [endpoint.tenant_id, since, until, until, endpoint.owner_id, endpoint.owner_id, w?.from_commit_text ?? null, w?.from_commit_text ?? null, w?.from_prepare ?? null, w?.from_idx ?? null],
      )
    ).rows.filter((e) => matchesEnabledEvents(endpoint.enabled_events, e.type));
    const rows: PendingRow[] = [];
    for (let i = 0; i < events.length; i += 500) {
      const values = events.slice(i, i + 500).map((e) => ({
        endpoint_id: endpoint.id,
        event_id: e.id,
        commit_position: deps.knex.raw('?::text::xid8', [e.commit_text]),
        prepare_position: e.prepare_position,
        idx: e.idx,
        subject: e.subject,
        sequence: e.sequence,
        status: 'pending',
        trigger: 'recovery',
      }));
      // A delivery that ended (delivered, failed, cancelled) runs again from the schedule's start; one still pending goes on.
      const r = await deps.knex('webhook_deliveries')
        .insert(values)
        .onConflict(['endpoint_id', 'event_id'])
        .merge({ status: 'pending', step: 0, trigger: 'recovery', next_attempt_at: null, last_error: null, delivered_at: null, updated_at: deps.knex.fn.now() })
        .where('webhook_deliveries.status', '<>', 'pending')
        .returning(['endpoint_id', 'event_id', 'attempts', 'subject']);
      rows.push(...(r as Array<PendingRow & { subject: string }>).map((x) => ({ ...x, next_attempt_at: null })));
    }
    if (endpoint.ordering === 'per_subject') {
      const subjects = [...new Set((rows as Array<PendingRow & { subject: string }>).map((r) => r.subject))].map((subject) => ({ endpointId: endpoint.id, subject }));
      await enqueueAttempts(deps.jobs, await subjectHeads(deps.knex, subjects));
    } else {
      await enqueueAttempts(deps.jobs, rows);
    }
    return { scheduled: rows.length };
  },
});
