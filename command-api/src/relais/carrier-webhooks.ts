import { createHash } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, UnauthorizedError, ValidationError } from '@cagnotte/domain';
import type { RelaisNetwork, TrackingUpdate } from '@cagnotte/event-schemas';
import {
  RELAIS_SIGNATURE_HEADER,
  defineRoute,
  isCarrierNetwork,
  parseTrackingPayload,
  relaisSandboxEnabled,
  relaisWebhookSecret,
  reportedNetworkOf,
  verifyRelaisSignature,
  type CarrierNetwork,
  type Config,
  type RouteDef,
} from '@cagnotte/infra';
import { readRawBody } from '../webhooks/inbox';
import type { RelaisDeps, ShipmentStatusOutcome, ShipmentStatusReport } from './ports';
import { recordShipmentStatus } from './shipments';

// Inbound carrier webhooks (docs/relais.md, "Webhook mapping"): verified on the raw body, each update stored once in
// relais_carrier_events (append-only: INSERT, and the one UPDATE of `outcome` where it is null), then handed to the
// shipment (recordShipmentStatus, forward only). A crash between the two leaves a row without outcome: the carrier's
// retry finds it and applies it again, which the forward-only command makes harmless.

export const CARRIER_EVENTS_TABLE = 'relais_carrier_events';
/** A carrier's batch is small; a body past this is refused before its signature is even checked. */
export const RELAIS_WEBHOOK_MAX_BODY_BYTES = 64 * 1024;

export type RecordShipmentStatus = (deps: RelaisDeps, report: ShipmentStatusReport) => Promise<ShipmentStatusOutcome>;

export interface CarrierWebhookOptions {
  /** The shipment side (part D's by default); specs inject a double. */
  recordShipmentStatus?: RecordShipmentStatus;
}

/** What a row's `outcome` says: the shipment command's answer, or that an update in no status was not applied. */
export type CarrierEventOutcome = ShipmentStatusOutcome['outcome'] | 'unknown_status';

const Answer = z.object({
  received: z.number().int().describe('Tracking updates in the payload'),
  applied: z.number().int().describe('Updates that moved a shipment forward'),
  duplicates: z.number().int().describe('Updates already received (a crash left some unapplied: those are applied again)'),
  unknown: z.number().int().describe('Updates for tracking numbers the service does not know (stored, not applied)'),
  duplicate: z.boolean().describe('Every update was already received'),
});
export type CarrierWebhookAnswer = z.infer<typeof Answer>;

/** Whether the sandbox carrier's tracking (its webhook, the advance route) is served: sandbox deployments with the sandbox carrier on. */
export const sandboxTrackingServed = (config: Config): boolean => config.APP_ENV !== 'production' && relaisSandboxEnabled(config);

/** The network's secret, or a 404: unknown networks, networks without a secret, and the sandbox carrier where it is off. */
const secretOf = (config: Config, network: string): { network: CarrierNetwork; secret: string } => {
  if (!isCarrierNetwork(network) || (network === 'sandbox' && !sandboxTrackingServed(config))) throw new NotFoundError('relais_webhook');
  const secret = relaisWebhookSecret(config, network);
  if (!secret) throw new NotFoundError('relais_webhook');
  return { network, secret };
};

const parseJson = (raw: Buffer): unknown => {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ValidationError({ body: ['is not valid JSON'] }, 'Malformed JSON body', 'malformed_json');
  }
};

interface StoredEvent {
  id: string;
  outcome: CarrierEventOutcome | null;
}

/** Inserts the update (a duplicate inserts nothing) and answers its row, new or already there. */
const store = async (deps: RelaisDeps, network: RelaisNetwork, update: TrackingUpdate, bodySha256: string): Promise<{ row: StoredEvent; fresh: boolean }> => {
  const knex = deps.services.knex;
  const key = { network, tracking_number: update.trackingNumber, status: update.status, occurred_at: update.occurredAt };
  const inserted = (await knex(CARRIER_EVENTS_TABLE)
    .insert({ ...key, carrier_status: update.carrierStatus, received_at: deps.clock().toISOString(), body_sha256: bodySha256 })
    .onConflict(['network', 'tracking_number', 'status', 'occurred_at'])
    .ignore()
    .returning(['id', 'outcome'])) as StoredEvent[];
  if (inserted[0]) return { row: inserted[0], fresh: true };
  const existing = (await knex(CARRIER_EVENTS_TABLE).where(key).first('id', 'outcome')) as StoredEvent | undefined;
  if (!existing) throw new Error('a carrier event that conflicted on insert is not found');
  return { row: existing, fresh: false };
};

/** The one UPDATE this table takes: a row's outcome, once. */
const settle = (deps: RelaisDeps, id: string, outcome: CarrierEventOutcome) =>
  deps.services.knex(CARRIER_EVENTS_TABLE).where({ id }).whereNull('outcome').update({ outcome });

export const makeCarrierWebhookRoutes = (deps: RelaisDeps, options: CarrierWebhookOptions = {}): RouteDef[] => {
  const record = options.recordShipmentStatus ?? recordShipmentStatus;
  const { config } = deps.services;
  return [
    defineRoute({
      method: 'post',
      path: '/api/relais/webhooks/{network}',
      operationId: 'receiveRelaisCarrierWebhook',
      summary: 'Receive a carrier’s tracking updates',
      description: [
        'Public, for carriers (or the relay that forwards their tracking): no session, no tenant. `network` is one of',
        '`mondial_relay`, `colissimo`, `chronopost`, `inpost`, `sandbox`; a network this deployment has no secret for is',
        'a 404. The body is the network’s own tracking payload (docs/relais.md, "Webhook mapping"), signed with',
        '`X-Relais-Signature: sha256=<hex of HMAC-SHA256(raw body, the network’s secret)>`; a missing or wrong signature',
        `is a 401 \`invalid_signature\` and stores nothing. At most ${RELAIS_WEBHOOK_MAX_BODY_BYTES} bytes.`,
        'Each update is stored once per (network, tracking number, status, occurredAt): a replay is a duplicate and',
        'changes nothing. Updates are applied oldest first, forward only (a late `in_transit` never downgrades a',
        '`delivered`); unknown tracking numbers are stored and counted in `unknown`.',
      ].join(' '),
      tags: ['Relais (carrier webhooks)'],
      auth: 'none',
      params: z.object({ network: z.string().max(40) }),
      rateLimit: { name: 'relais-carrier-webhooks', limit: config.RATE_LIMIT_RELAIS_WEBHOOKS_PER_MINUTE, windowSeconds: 60 },
      success: { status: 200, description: 'Received', schema: Answer },
      errors: [400, 401, 404, 413, 429],
      handler: async (ctx) => {
        const { network, secret } = secretOf(config, (ctx.params as { network: string }).network);
        const raw = await readRawBody(ctx.req, RELAIS_WEBHOOK_MAX_BODY_BYTES);
        if (!verifyRelaisSignature(secret, raw, ctx.req.headers[RELAIS_SIGNATURE_HEADER])) {
          throw new UnauthorizedError('The X-Relais-Signature header does not sign this body', 'invalid_signature');
        }
        const payload = parseJson(raw);
        const updates = parseTrackingPayload(network, payload).sort((a, b) => a.occurredAt.localeCompare(b.occurredAt));
        const reported = reportedNetworkOf(network, payload);
        const bodySha256 = createHash('sha256').update(raw).digest('hex');
        const answer: CarrierWebhookAnswer = { received: updates.length, applied: 0, duplicates: 0, unknown: 0, duplicate: false };
        // In order, one at a time: each update is decided on the shipment as the one before left it.
        for (const update of updates) {
          const { row, fresh } = await store(deps, reported, update, bodySha256);
          if (!fresh) answer.duplicates += 1;
          // Settled before: a replay changes nothing. Unsettled (a crash between insert and command): apply it again.
          if (row.outcome !== null) continue;
          let outcome: CarrierEventOutcome;
          if (update.status === 'unknown') {
            outcome = 'unknown_status';
          } else {
            const result = await record(deps, {
              network: reported,
              trackingNumber: update.trackingNumber,
              status: update.status,
              carrierStatus: update.carrierStatus,
              occurredAt: update.occurredAt,
              source: network === 'sandbox' ? 'sandbox' : 'carrier',
            });
            outcome = result.outcome;
          }
          if (outcome === 'advanced') answer.applied += 1;
          if (outcome === 'unknown_tracking') answer.unknown += 1;
          await settle(deps, row.id, outcome);
        }
        answer.duplicate = answer.received > 0 && answer.duplicates === answer.received;
        return { data: answer };
      },
    }),
  ];
};
