import { z } from 'zod';
import type { ShipmentStatus, TrackingUpdate } from '@cagnotte/event-schemas';
import { invalidPayload, isoInstant, parseShape, statusOf, TRACKING_NUMBER, type TrackingPayloadParser } from './payload';

/**
 * Colissimo has no tracking push for merchants: its parcels are tracked through La Poste's Suivi API v2
 * (GET https://api.laposte.fr/suivi/v2/idships/{idship}). The payload this endpoint takes is that API's answer as a
 * poller relays it: an array (or one) of `{returnCode, shipment: {idShip, event: [{code, label, date}]}}`; every event
 * of the timeline is an update (the ones already received are duplicates). Codes are Suivi v2's event codes.
 */
export const COLISSIMO_EVENT_CODES: Readonly<Record<string, ShipmentStatus>> = {
  DR1: 'label_created', // Déclaratif réceptionné
  PC1: 'in_transit', // Pris en charge
  PC2: 'in_transit', // Pris en charge dans le pays d'expédition
  ET1: 'in_transit', // En cours de traitement
  ET2: 'in_transit', // … dans le pays d'expédition
  ET3: 'in_transit', // … dans le pays de destination
  ET4: 'in_transit', // … dans un pays de transit
  EP1: 'in_transit', // En attente de présentation
  DO1: 'in_transit', // Entrée en douane
  DO2: 'in_transit', // Sortie de douane
  PB2: 'in_transit', // Problème résolu
  DO3: 'unknown', // Retenu en douane: a hold, not a step forward
  PB1: 'unknown', // Problème en cours
  MD2: 'out_for_delivery', // Mis en distribution
  AG1: 'available_for_pickup', // En attente d'être retiré au guichet (post office or pick-up point)
  DI1: 'delivered', // Distribué
  DI2: 'returned', // Distribué à l'expéditeur
  RE1: 'returned', // Retourné à l'expéditeur
  ND1: 'failed', // Non distribuable
};

const Event = z.object({ code: z.string().max(16), label: z.string().max(2000).optional(), date: z.string().max(40) }).passthrough();
const Answer = z
  .object({
    returnCode: z.number().int().optional(),
    shipment: z.object({ idShip: z.string().max(64), event: z.array(Event).max(200) }).passthrough().optional(),
  })
  .passthrough();
const Payload = z.union([z.array(Answer).min(1).max(50), Answer]);

export const parseColissimoTracking: TrackingPayloadParser = (payload) => {
  const answers = [parseShape(Payload, payload)].flat();
  const updates: TrackingUpdate[] = [];
  answers.forEach((answer, i) => {
    // A number La Poste does not know (returnCode 400/404) carries no shipment: nothing to record.
    if (!answer.shipment || (answer.returnCode !== undefined && (answer.returnCode < 200 || answer.returnCode > 299))) return;
    const trackingNumber = answer.shipment.idShip;
    if (!TRACKING_NUMBER.test(trackingNumber)) throw invalidPayload(`body.${i}.shipment.idShip`, 'is not a tracking number');
    answer.shipment.event.forEach((event, j) => {
      const occurredAt = isoInstant(event.date);
      if (!occurredAt) throw invalidPayload(`body.${i}.shipment.event.${j}.date`, 'must be an ISO date-time with its offset');
      updates.push({ trackingNumber, carrierStatus: event.code, status: statusOf(COLISSIMO_EVENT_CODES, event.code), occurredAt });
    });
  });
  return updates;
};
