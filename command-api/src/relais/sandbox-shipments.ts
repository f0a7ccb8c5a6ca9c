import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '@cagnotte/domain';
import { SHIPMENT_STATUS_RANK, ShipmentStatus } from '@cagnotte/event-schemas';
import { TRACKING_NUMBER, defineRoute, relaisWebhookSecret, sandboxCodeOf, signRelaisPayload, RELAIS_SIGNATURE_HEADER, type RouteDef, type SandboxPush } from '@cagnotte/infra';
import { CARRIER_EVENTS_TABLE, sandboxTrackingServed } from './carrier-webhooks';
import type { RelaisDeps } from './ports';

// The sandbox carrier's tracking (docs/relais.md, "Sandbox"): a partner walks a delivery end to end without a carrier.
// Each advance is a real carrier webhook: the sandbox carrier's payload, signed with the sandbox secret and POSTed to
// this service's own URL, so it takes the exact path (signature, log, dedup, forward-only command) a carrier's does.
//
// Which shipments exist is part D's lookup table, relais_shipment_lookup (migration 037: network, tracking_number,
// pool_id, shipment_id, tenant_id, …), written when a shipment is created; where a shipment stands is read from what
// this carrier already pushed (relais_carrier_events).

export const SHIPMENT_LOOKUP_TABLE = 'relais_shipment_lookup';

/** The statuses an advance may push. */
export const AdvanceStatus = ShipmentStatus.exclude(['unknown']);
export type AdvanceStatus = z.infer<typeof AdvanceStatus>;

/** The sandbox carrier's road, one step per advance. */
export const SANDBOX_ROAD: readonly AdvanceStatus[] = ['label_created', 'in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered'];

/**
 * The next status of a shipment at `current` (null: nothing pushed yet, the label exists, so `in_transit`); null at
 * an end (delivered, returned, failed).
 */
export const nextSandboxStatus = (current: AdvanceStatus | null): AdvanceStatus | null => {
  if (current === null) return 'in_transit';
  const at = SANDBOX_ROAD.indexOf(current);
  return at >= 0 && at < SANDBOX_ROAD.length - 1 ? SANDBOX_ROAD[at + 1]! : null;
};

/** Magic tracking numbers: a sandbox shipment created with one is carried at once up to that status. */
const MAGIC: Record<string, AdvanceStatus[]> = {
  TRANSIT: ['in_transit'],
  AVAILABLE: ['in_transit', 'out_for_delivery', 'available_for_pickup'],
  DELIVERED: ['in_transit', 'out_for_delivery', 'available_for_pickup', 'delivered'],
  RETURNED: ['in_transit', 'returned'],
  FAILED: ['in_transit', 'failed'],
};

/** The statuses a magic tracking number (`SBX-TRANSIT-…`, `SBX-AVAILABLE-…`, `SBX-DELIVERED-…`, `SBX-RETURNED-…`, `SBX-FAILED-…`) walks through, in order; null for any other. */
export const magicRoadOf = (trackingNumber: string): readonly AdvanceStatus[] | null => {
  const m = /^SBX-(TRANSIT|AVAILABLE|DELIVERED|RETURNED|FAILED)-/i.exec(trackingNumber);
  return m ? MAGIC[m[1]!.toUpperCase()]! : null;
};

export interface AdvanceAnswer {
  tracking: string;
  /** The last status pushed. */
  status: AdvanceStatus;
  /** What the service's carrier webhook answered: its HTTP status and JSON body. */
  webhook: { status: number; body: unknown };
}

/** Builds the sandbox carrier's push, signs it and POSTs it to this service's own webhook URL. */
const pushToSelf = async (
  deps: RelaisDeps,
  shipment: { network: 'sandbox' | 'community'; trackingNumber: string },
  statuses: readonly AdvanceStatus[],
): Promise<AdvanceAnswer> => {
  const base = deps.services.self.url;
  if (!base) throw new Error('the service’s own URL is not known before its HTTP server answers');
  const secret = relaisWebhookSecret(deps.services.config, 'sandbox');
  if (!secret) throw new Error('the sandbox carrier has no webhook secret in this deployment');
  const at = deps.clock().getTime();
  const push: SandboxPush = {
    // One millisecond apart, in order: several statuses of one push are distinct updates, applied oldest first.
    shipment: { tracking_number: shipment.trackingNumber, network: shipment.network, events: statuses.map((s, i) => ({ code: sandboxCodeOf(s), at: new Date(at + i).toISOString() })) },
  };
  const body = JSON.stringify(push);
  const res = await fetch(`${base}/api/relais/webhooks/sandbox`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', [RELAIS_SIGNATURE_HEADER]: signRelaisPayload(secret, body) },
    body,
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  let answered: unknown = text;
  try {
    answered = JSON.parse(text);
  } catch {
    // keep the text
  }
  return { tracking: shipment.trackingNumber, status: statuses[statuses.length - 1]!, webhook: { status: res.status, body: answered } };
};

/** The furthest status this carrier's pushes moved the shipment to (or found it at), null when none. */
const currentStatus = async (deps: RelaisDeps, network: string, trackingNumber: string): Promise<AdvanceStatus | null> => {
  const rows = (await deps.services
    .knex(CARRIER_EVENTS_TABLE)
    .where({ network, tracking_number: trackingNumber })
    .whereIn('outcome', ['advanced', 'unchanged'])
    .select('status')) as Array<{ status: string }>;
  let best: AdvanceStatus | null = null;
  for (const { status } of rows) {
    const parsed = AdvanceStatus.safeParse(status);
    if (parsed.success && (best === null || SHIPMENT_STATUS_RANK[parsed.data] > SHIPMENT_STATUS_RANK[best])) best = parsed.data;
  }
  return best;
};

/**
 * After a sandbox shipment is created (part D's shipments route): a magic tracking number is carried up to its status
 * at once. Null for any other tracking number (nothing pushed).
 */
export const autoAdvanceMagic = async (deps: RelaisDeps, shipment: { trackingNumber: string }): Promise<AdvanceAnswer | null> => {
  const road = magicRoadOf(shipment.trackingNumber);
  return road ? pushToSelf(deps, { network: 'sandbox', trackingNumber: shipment.trackingNumber }, road) : null;
};

/**
 * The shipments route's `afterCreate` (part D): a sandbox shipment with a magic tracking number is advanced at once.
 * The shipment exists whatever happens here, so a failed push is logged, never the creation's answer.
 */
export const advanceMagicAfterCreate = async (deps: RelaisDeps, shipment: { network: string; trackingNumber: string }): Promise<void> => {
  if (shipment.network !== 'sandbox' || !sandboxTrackingServed(deps.services.config)) return;
  try {
    const answer = await autoAdvanceMagic(deps, shipment);
    if (answer && answer.webhook.status !== 200) deps.services.logger.warn({ tracking: shipment.trackingNumber, status: answer.webhook.status }, 'sandbox magic tracking number: the webhook refused the push');
  } catch (error) {
    deps.services.logger.warn({ tracking: shipment.trackingNumber, err: (error as Error).message }, 'sandbox magic tracking number: the push failed');
  }
};

const Body = z.object({ status: z.union([AdvanceStatus, z.literal('auto')]).optional() }).strict();

/** Sandbox deployments with the sandbox carrier on only (nothing in production). */
export const makeSandboxShipmentRoutes = (deps: RelaisDeps): RouteDef[] =>
  !sandboxTrackingServed(deps.services.config)
    ? []
    : [
        defineRoute({
          method: 'post',
          path: '/sandbox/relais/shipments/{tracking}/advance',
          operationId: 'advanceSandboxRelaisShipment',
          summary: 'Advance a sandbox shipment’s tracking',
          description: [
            'Sandbox only, no session. The tracking number must name a shipment of the sandbox carrier or of a community',
            'host (else 404). Pushes `status` (default: the next one of label_created → in_transit → out_for_delivery →',
            'available_for_pickup → delivered; at an end, 409 `shipment_final`) as a signed sandbox-carrier webhook to this',
            'service (`POST /api/relais/webhooks/sandbox`) and answers what that webhook answered. `auto`: a magic tracking',
            'number (`SBX-TRANSIT-…`, `SBX-AVAILABLE-…`, `SBX-DELIVERED-…`, `SBX-RETURNED-…`, `SBX-FAILED-…`) is pushed',
            'through every status up to its own, in order (what shipment creation does for them).',
          ].join(' '),
          tags: ['Relais (sandbox)'],
          auth: 'none',
          params: z.object({ tracking: z.string().regex(TRACKING_NUMBER) }),
          body: Body,
          example: { status: 'in_transit' },
          rateLimit: { name: 'relais-sandbox-advance', limit: 120, windowSeconds: 60 },
          success: {
            status: 200,
            description: 'Pushed',
            schema: z.object({ tracking: z.string(), status: AdvanceStatus, webhook: z.object({ status: z.number().int(), body: z.unknown() }) }),
          },
          errors: [400, 404, 409, 429],
          handler: async (ctx) => {
            const { tracking } = ctx.params as { tracking: string };
            const { status } = ctx.body as z.infer<typeof Body>;
            const shipment = (await deps.services
              .knex(SHIPMENT_LOOKUP_TABLE)
              .where({ tracking_number: tracking })
              .whereIn('network', ['sandbox', 'community'])
              .first('network')) as { network: 'sandbox' | 'community' } | undefined;
            if (!shipment) throw new NotFoundError('shipment');
            let road: readonly AdvanceStatus[];
            if (status === 'auto') {
              const magic = shipment.network === 'sandbox' ? magicRoadOf(tracking) : null;
              if (!magic) throw new ValidationError({ status: ['auto takes a magic tracking number: SBX-TRANSIT-…, SBX-AVAILABLE-…, SBX-DELIVERED-…, SBX-RETURNED-…, SBX-FAILED-…'] });
              road = magic;
            } else if (status) {
              road = [status];
            } else {
              const next = nextSandboxStatus(await currentStatus(deps, shipment.network, tracking));
              if (!next) throw new ConflictError('shipment_final', 'The shipment is at the end of its road; name a status to push one anyway');
              road = [next];
            }
            return { data: await pushToSelf(deps, { network: shipment.network, trackingNumber: tracking }, road) };
          },
        }),
      ];
