import { z } from 'zod';
import type { ShipmentStatus, TrackingUpdate } from '@cagnotte/event-schemas';
import { invalidPayload, isoInstant, parseShape, statusOf, TRACKING_NUMBER, type TrackingPayloadParser } from './payload';

/**
 * InPost (ShipX) pushes webhooks itself: `{event_ts: "2020-03-20 15:08:42 +0100", event, organization_id, payload:
 * {shipment_id, status, tracking_number}}`. `shipment_confirmed` (a label exists) carries no status; the status names
 * are ShipX's (GET /v1/statuses). Other events (`offers_prepared`, …) are about the offer, not the parcel: no update.
 */
export const INPOST_STATUSES: Readonly<Record<string, ShipmentStatus>> = {
  created: 'label_created',
  offers_prepared: 'label_created',
  offer_selected: 'label_created',
  confirmed: 'label_created',
  dispatched_by_sender: 'in_transit',
  dispatched_by_sender_to_pok: 'in_transit',
  collected_from_sender: 'in_transit',
  taken_by_courier: 'in_transit',
  taken_by_courier_from_pok: 'in_transit',
  adopted_at_source_branch: 'in_transit',
  sent_from_source_branch: 'in_transit',
  adopted_at_sorting_center: 'in_transit',
  sent_from_sorting_center: 'in_transit',
  adopted_at_target_branch: 'in_transit',
  readdressed: 'in_transit',
  redirect_to_box: 'in_transit',
  delay_in_delivery: 'in_transit',
  out_for_delivery: 'out_for_delivery',
  out_for_delivery_to_address: 'out_for_delivery',
  ready_to_pickup: 'available_for_pickup',
  ready_to_pickup_from_pok: 'available_for_pickup',
  ready_to_pickup_from_pok_registered: 'available_for_pickup',
  ready_to_pickup_from_branch: 'available_for_pickup',
  stack_in_box_machine: 'available_for_pickup',
  stack_in_customer_service_point: 'available_for_pickup',
  pickup_reminder_sent: 'available_for_pickup',
  delivered: 'delivered',
  returned_to_sender: 'returned',
  return_pickup_confirmation_to_sender: 'returned',
  canceled: 'failed',
  rejected_by_receiver: 'failed',
  undelivered: 'failed',
  undelivered_wrong_address: 'failed',
  undelivered_incomplete_address: 'failed',
  undelivered_unknown_receiver: 'failed',
  missing: 'failed',
  // Not collected in time: the parcel waits elsewhere or goes back; neither arrival nor an end.
  pickup_time_expired: 'unknown',
  stack_parcel_pickup_time_expired: 'unknown',
  avizo: 'unknown',
  claimed: 'unknown',
  oversized: 'unknown',
  other: 'unknown',
};

const Push = z.object({
  event_ts: z.string().max(40),
  event: z.string().max(64),
  organization_id: z.union([z.number(), z.string()]).optional(),
  payload: z
    .object({
      shipment_id: z.union([z.number(), z.string()]).optional(),
      status: z.string().max(64).nullish(),
      tracking_number: z.string().max(64).nullish(),
    })
    .passthrough(),
});

/** ShipX writes `2020-03-20 15:08:42 +0100`. */
const eventTime = (ts: string): string | null => {
  const m = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2}) ([+-]\d{2})(\d{2})$/.exec(ts.trim());
  return m ? isoInstant(`${m[1]}T${m[2]}${m[3]}:${m[4]}`) : isoInstant(ts.trim());
};

export const parseInpostPush: TrackingPayloadParser = (payload) => {
  const push = parseShape(Push, payload);
  const occurredAt = eventTime(push.event_ts);
  if (!occurredAt) throw invalidPayload('body.event_ts', 'must be a time such as "2020-03-20 15:08:42 +0100"');
  const carrierStatus = push.event === 'shipment_confirmed' ? 'confirmed' : push.event === 'shipment_status_changed' ? push.payload.status : null;
  const trackingNumber = push.payload.tracking_number;
  // An event about offers, or a status change of a shipment that has no tracking number yet: nothing to track.
  if (!carrierStatus || !trackingNumber) return [];
  if (!TRACKING_NUMBER.test(trackingNumber)) throw invalidPayload('body.payload.tracking_number', 'is not a tracking number');
  const update: TrackingUpdate = { trackingNumber, carrierStatus, status: statusOf(INPOST_STATUSES, carrierStatus), occurredAt };
  return [update];
};
