import { z } from 'zod';
import type { ShipmentStatus, TrackingUpdate } from '@cagnotte/event-schemas';
import { invalidPayload, isoInstant, parseShape, statusOf, TRACKING_NUMBER, type TrackingPayloadParser } from './payload';

/**
 * The sandbox carrier's push (its own format, documented in docs/relais.md): `{shipment: {tracking_number, network?,
 * events: [{code, at}]}}`, codes the vocabulary's names in capitals. `network` is `sandbox` (the default) or
 * `community`: the sandbox carrier also plays the van that brings a community host's parcels. `POST
 * /sandbox/relais/shipments/{tracking}/advance` builds and signs it; a partner may also send it by hand with the
 * sandbox secret.
 */
export const SANDBOX_EVENT_CODES: Readonly<Record<string, ShipmentStatus>> = {
  LABEL_CREATED: 'label_created',
  IN_TRANSIT: 'in_transit',
  OUT_FOR_DELIVERY: 'out_for_delivery',
  AVAILABLE_FOR_PICKUP: 'available_for_pickup',
  DELIVERED: 'delivered',
  RETURNED: 'returned',
  FAILED: 'failed',
};

/** The sandbox carrier's code of a status. */
export const sandboxCodeOf = (status: Exclude<ShipmentStatus, 'unknown'>): string => status.toUpperCase();

const Payload = z.object({
  shipment: z.object({
    tracking_number: z.string().max(64),
    network: z.enum(['sandbox', 'community']).optional(),
    events: z.array(z.object({ code: z.string().min(1).max(40), at: z.string().max(40) })).min(1).max(50),
  }),
});

export interface SandboxPush {
  shipment: { tracking_number: string; network?: 'sandbox' | 'community'; events: Array<{ code: string; at: string }> };
}

export const parseSandboxPush: TrackingPayloadParser = (payload) => {
  const push = parseShape(Payload, payload);
  const trackingNumber = push.shipment.tracking_number;
  if (!TRACKING_NUMBER.test(trackingNumber)) throw invalidPayload('body.shipment.tracking_number', 'is not a tracking number');
  return push.shipment.events.map((event, i): TrackingUpdate => {
    const occurredAt = isoInstant(event.at);
    if (!occurredAt) throw invalidPayload(`body.shipment.events.${i}.at`, 'must be an ISO date-time with its offset');
    return { trackingNumber, carrierStatus: event.code, status: statusOf(SANDBOX_EVENT_CODES, event.code), occurredAt };
  });
};

/** The network a (parsed) sandbox push reports for: its parcels are the sandbox carrier's or a community host's. */
export const sandboxPushNetwork = (payload: unknown): 'sandbox' | 'community' => parseShape(Payload, payload).shipment.network ?? 'sandbox';
