import { z } from 'zod';
import type { ShipmentStatus, TrackingUpdate } from '@cagnotte/event-schemas';
import { foldLabel, invalidPayload, isoInstant, parseShape, statusOf, TRACKING_NUMBER, type TrackingPayloadParser } from './payload';

/**
 * Chronopost has no tracking push for merchants: parcels are tracked with its TrackingServiceWS (`trackSkybillV2`,
 * SOAP). The payload this endpoint takes is that operation's `return` as a poller relays it in JSON, element names
 * kept: `{errorCode, listEventInfoComp: {skybillNumber, events: [{code, eventDate, eventLabel, officeLabel, zipCode}]}}`
 * (`events` one object or a list, as XML→JSON converters give it; `listEventInfoComp` one or a list).
 */
export const CHRONOPOST_EVENT_CODES: Readonly<Record<string, ShipmentStatus>> = {
  DC: 'label_created', // Envoi en préparation chez l'expéditeur
  DB: 'in_transit', // Remis par l'expéditeur
  DY: 'in_transit', // Enregistré par le bureau de poste
  PC: 'in_transit', // Pris en charge
  SC: 'in_transit', // Tri effectué dans l'agence de départ
  TS: 'in_transit', // En transit
  SD: 'in_transit', // Tri effectué dans l'agence de distribution
  TA: 'out_for_delivery', // En cours de livraison
  D: 'delivered', // Livré
};

/**
 * A code the table does not name is read from its label: the relay-point arrival ("… disponible … relais Pickup")
 * and the return to the sender, whose codes no public source we found confirms. Anything else stays `unknown`.
 */
const fromLabel = (label: string | undefined): ShipmentStatus => {
  const words = new Set(foldLabel(label ?? '').split(' '));
  if (words.has('RETOUR') && (words.has('EXPEDITEUR') || words.has('RETOURNE'))) return 'returned';
  if ((words.has('DISPONIBLE') || words.has('AVAILABLE')) && ['RELAIS', 'PICKUP', 'CONSIGNE', 'AGENCE', 'LOCKER'].some((w) => words.has(w))) return 'available_for_pickup';
  return 'unknown';
};

const one = <T extends z.ZodType>(item: T) => z.union([z.array(item).max(200), item]).transform((v) => (Array.isArray(v) ? v : [v]) as z.infer<T>[]);
const Event = z
  .object({ code: z.string().min(1).max(16), eventDate: z.string().max(40), eventLabel: z.string().max(2000).optional(), officeLabel: z.string().max(200).nullish() })
  .passthrough();
const Events = z.object({ skybillNumber: z.string().max(64), events: one(Event).optional() }).passthrough();
const Return = z.object({ errorCode: z.union([z.number(), z.string()]).optional(), listEventInfoComp: one(Events).optional() }).passthrough();

export const parseChronopostTracking: TrackingPayloadParser = (payload) => {
  const answer = parseShape(Return, payload);
  if (answer.errorCode !== undefined && String(answer.errorCode) !== '0') throw invalidPayload('body.errorCode', 'the tracking answer is an error (errorCode ≠ 0)');
  const updates: TrackingUpdate[] = [];
  (answer.listEventInfoComp ?? []).forEach((list, i) => {
    const trackingNumber = list.skybillNumber;
    if (!TRACKING_NUMBER.test(trackingNumber)) throw invalidPayload(`body.listEventInfoComp.${i}.skybillNumber`, 'is not a tracking number');
    (list.events ?? []).forEach((event, j) => {
      const occurredAt = isoInstant(event.eventDate);
      if (!occurredAt) throw invalidPayload(`body.listEventInfoComp.${i}.events.${j}.eventDate`, 'must be an ISO date-time with its offset');
      const status = Object.hasOwn(CHRONOPOST_EVENT_CODES, event.code) ? statusOf(CHRONOPOST_EVENT_CODES, event.code) : fromLabel(event.eventLabel);
      updates.push({ trackingNumber, carrierStatus: event.code, status, occurredAt });
    });
  });
  return updates;
};
