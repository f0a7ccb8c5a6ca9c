import type { Knex } from 'knex';
import { JOB_QUEUES, type JobQueue } from '@cagnotte/infra';
import { compareFeedPositions, matchesEnabledEvents, positionOfRow, publicEventLivemode, type FeedPosition, type PublicEventRow } from '@cagnotte/read-models';

/**
 * The rows of webhook delivery (migrations 025, 026): one `webhook_deliveries` row per (endpoint, event), and how its
 * jobs are queued. docs/webhooks.md, "Delivery".
 *
 * A job runs one attempt. Its key names the attempt: `<endpointId>:<eventId>` for a delivery's first attempt ever,
 * `<endpointId>:<eventId>:<n>` for its n-th (a retry, or a recovery's). The key of the next attempt follows from the
 * row (`attempts + 1`), so whoever queues it (the dispatcher, the attempt before, the sweeper) queues the same job and
 * the queue keeps one. Retries are new jobs, not the queue's own retries: the queue's backoff is one exponential
 * curve per process, and a delivery needs the Standard Webhooks schedule, a Retry-After and a new key per attempt.
 */
export const WEBHOOK_DELIVERY_QUEUE = JOB_QUEUES.webhookDeliveries;

export interface DeliveryJob {
  endpointId: string;
  eventId: string;
  /** The attempt this job runs (the row's `attempts` + 1 when it was queued). */
  attempt: number;
}

export const deliveryJobKey = (endpointId: string, eventId: string, attempt: number): string =>
  attempt <= 1 ? `${endpointId}:${eventId}` : `${endpointId}:${eventId}:${attempt}`;

export interface PendingRow {
  endpoint_id: string;
  event_id: string;
  attempts: number;
  next_attempt_at: Date | null;
}

const attemptJob = (row: PendingRow) => {
  const attempt = row.attempts + 1;
  const payload: DeliveryJob = { endpointId: row.endpoint_id, eventId: row.event_id, attempt };
  // A delay, not a time: retries are paced in real time (a sandbox clock moved ahead does not bring them forward).
  const options = row.next_attempt_at ? { delayMs: Math.max(0, row.next_attempt_at.getTime() - Date.now()) } : {};
  return { key: deliveryJobKey(row.endpoint_id, row.event_id, attempt), payload, options };
};

export const enqueueAttempt = (jobs: JobQueue, row: PendingRow): Promise<string> => {
  const j = attemptJob(row);
  return jobs.enqueue(WEBHOOK_DELIVERY_QUEUE, j.key, j.payload, j.options);
};

/** The next attempts of many deliveries, in one round trip. */
export const enqueueAttempts = (jobs: JobQueue, rows: PendingRow[]): Promise<void> => jobs.enqueueMany(WEBHOOK_DELIVERY_QUEUE, rows.map(attemptJob));

interface EndpointMatchRow {
  id: string;
  tenant_id: string;
  owner_id: string | null;
  livemode: boolean | null;
  enabled_events: string[];
  ordering: 'none' | 'per_subject';
  from_commit_text: string | null;
  from_prepare: string | null;
  from_idx: number | null;
}

/** The event comes after the endpoint's creation (its `from_*` position, the feed head then), as numbers. */
const after = (e: FeedPosition, w: EndpointMatchRow): boolean =>
  w.from_commit_text === null || compareFeedPositions(e, positionOfRow({ commit_text: w.from_commit_text, prepare_position: w.from_prepare ?? '0', idx: w.from_idx ?? 0 })) > 0;

/** What the dispatcher queues once its batch is committed: every new delivery of `none` endpoints, the subjects of `per_subject` ones. */
export interface Dispatched {
  rows: PendingRow[];
  subjects: Array<{ endpointId: string; subject: string }>;
}

/**
 * In the consumer group's transaction: a pending delivery for every (event, endpoint) that matches (the event's
 * tenant, the endpoint enabled and not deleted, its owner scope, its enabledEvents, created before the event).
 * A batch handled again inserts nothing twice (ON CONFLICT DO NOTHING).
 */
export const insertDeliveries = async (trx: Knex.Transaction, events: PublicEventRow[], deploymentLive = false): Promise<Dispatched> => {
  const tenants = [...new Set(events.map((e) => e.tenant_id))];
  if (tenants.length === 0) return { rows: [], subjects: [] };
  const endpoints = (
    await trx.raw<{ rows: EndpointMatchRow[] }>(
      `SELECT id, tenant_id, owner_id, livemode, enabled_events, ordering, from_commit::text AS from_commit_text, from_prepare, from_idx
         FROM webhook_endpoints WHERE tenant_id = ANY(?::uuid[]) AND status = 'enabled' AND deleted_at IS NULL`,
      [tenants],
    )
  ).rows;
  if (endpoints.length === 0) return { rows: [], subjects: [] };
  const values: Array<Record<string, unknown>> = [];
  for (const e of events) {
    const position = positionOfRow(e);
    const mode = publicEventLivemode(e.data, deploymentLive);
    for (const w of endpoints) {
      if ((w.livemode ?? deploymentLive) !== mode) continue;
      if (w.tenant_id !== e.tenant_id || (w.owner_id !== null && w.owner_id !== e.owner_id) || !matchesEnabledEvents(w.enabled_events, e.type) || !after(position, w)) continue;
      values.push({
        endpoint_id: w.id,
        event_id: e.id,
        commit_position: trx.raw('?::text::xid8', [e.commit_text]),
        prepare_position: e.prepare_position,
        idx: e.idx,
        subject: e.subject,
        sequence: e.sequence,
        status: 'pending',
        trigger: 'dispatch',
        next_attempt_at: null,
      });
    }
  }
  if (values.length === 0) return { rows: [], subjects: [] };
  const inserted: Array<{ endpoint_id: string; event_id: string; subject: string }> = [];
  for (let i = 0; i < values.length; i += 1000) {
    inserted.push(...(await trx('webhook_deliveries').insert(values.slice(i, i + 1000)).onConflict(['endpoint_id', 'event_id']).ignore().returning(['endpoint_id', 'event_id', 'subject'])));
  }
  const perSubject = new Set(endpoints.filter((w) => w.ordering === 'per_subject').map((w) => w.id));
  const subjects = new Map<string, { endpointId: string; subject: string }>();
  const rows: PendingRow[] = [];
  for (const r of inserted) {
    if (perSubject.has(r.endpoint_id)) subjects.set(`${r.endpoint_id} ${r.subject}`, { endpointId: r.endpoint_id, subject: r.subject });
    else rows.push({ endpoint_id: r.endpoint_id, event_id: r.event_id, attempts: 0, next_attempt_at: null });
  }
  return { rows, subjects: [...subjects.values()] };
};

/**
 * per_subject: the oldest pending delivery of each (endpoint, subject), unless an attempt of it is in flight (that
 * attempt queues what follows when it ends). Read after the writer's commit: of two writers (the dispatcher adding
 * a delivery, an attempt ending), the later reader sees both, so the next delivery is always queued by one of them.
 */
export const subjectHeads = async (knex: Knex, keys: Array<{ endpointId: string; subject: string }>): Promise<PendingRow[]> => {
  if (keys.length === 0) return [];
  const r = await knex.raw<{ rows: PendingRow[] }>(
    `SELECT h.endpoint_id, h.event_id, h.attempts, h.next_attempt_at
       FROM unnest(?::text[], ?::text[]) AS k(endpoint_id, subject)
       CROSS JOIN LATERAL (
         SELECT d.endpoint_id, d.event_id, d.attempts, d.next_attempt_at, d.leased_until
           FROM webhook_deliveries d
          WHERE d.endpoint_id = k.endpoint_id AND d.subject = k.subject AND d.status = 'pending' AND d.commit_position IS NOT NULL
          ORDER BY d.commit_position, d.prepare_position, d.idx
          LIMIT 1
       ) h
      WHERE h.leased_until IS NULL OR h.leased_until < now()`,
    [keys.map((k) => k.endpointId), keys.map((k) => k.subject)],
  );
  return r.rows;
};

/** Queues the rows (`none`) and the subjects' heads (`per_subject`); the queue ignores keys it already has. */
export const enqueueDispatched = async (knex: Knex, jobs: JobQueue, d: Dispatched): Promise<void> => {
  const heads = await subjectHeads(knex, d.subjects);
  await enqueueAttempts(jobs, [...d.rows, ...heads]);
};

/**
 * The safety net: pending deliveries whose attempt is overdue by `graceMs` and not in flight (a job lost with Redis,
 * a dispatcher that died between its commit and its queueing, an attempt whose worker died: its lease ran out) get
 * their next attempt queued again; the queue ignores a key it still has. Of a per_subject endpoint, only a subject's
 * oldest pending delivery counts (the others wait for it), so a long backlog behind a failing one is not swept.
 */
export const sweepOverdue = async (knex: Knex, jobs: JobQueue, graceMs: number, limit = 500): Promise<number> => {
  const r = await knex.raw<{ rows: PendingRow[] }>(
    `SELECT d.endpoint_id, d.event_id, d.attempts
       FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
      WHERE d.status = 'pending' AND coalesce(d.next_attempt_at, d.created_at) < now() - (? * interval '1 millisecond')
        AND (d.leased_until IS NULL OR d.leased_until < now())
        AND (w.ordering <> 'per_subject' OR d.commit_position IS NULL OR NOT EXISTS (
              SELECT 1 FROM webhook_deliveries o
               WHERE o.endpoint_id = d.endpoint_id AND o.subject = d.subject AND o.status = 'pending' AND o.commit_position IS NOT NULL
                 AND (o.commit_position, o.prepare_position, o.idx) < (d.commit_position, d.prepare_position, d.idx)))
      ORDER BY coalesce(d.next_attempt_at, d.created_at)
      LIMIT ?`,
    [graceMs, limit],
  );
  // Overdue: the next attempt runs now.
  await enqueueAttempts(
    jobs,
    r.rows.map((row) => ({ ...row, next_attempt_at: null })),
  );
  return r.rows.length;
};
