import { z } from 'zod';
import type { ShipmentStatus, TrackingUpdate } from '@cagnotte/event-schemas';
import { foldLabel, invalidPayload, parisWallClockToIso, parseShape, TRACKING_NUMBER, type TrackingPayloadParser } from './payload';

/**
 * Mondial Relay has no tracking push for merchants: parcels are tracked with the SOAP operation
 * `WSI2_TracingColisDetaille` (https://api.mondialrelay.com/Web_Services.asmx). The payload this endpoint takes is
 * that answer as a poller relays it in JSON, element names kept, with the parcel's number beside it (the answer does
 * not repeat it): `{Expedition, WSI2_TracingColisDetailleResult: {STAT, Libelle01, Relais_Num, Tracing:
 * {ret_WSI2_sub_TracingColisDetaille: [{Libelle, Date: "DD/MM/YY", Heure: "HH:mm", Emplacement}]}}}`.
 * STAT 80–83 (registered, in process, delivered, anomaly) is a tracing answer; any other STAT is an error code.
 * Steps carry free-text labels, no codes: each is read by the rules below, in order, on the label folded to upper
 * case without accents; times are French wall-clock times.
 */
export const MONDIAL_RELAY_LABEL_RULES: ReadonlyArray<{ words: string[]; status: ShipmentStatus }> = [
  { words: ['RETOUR'], status: 'returned' },
  { words: ['RETOURNE'], status: 'returned' },
  { words: ['DISPONIBLE'], status: 'available_for_pickup' },
  { words: ['LIVRE'], status: 'delivered' },
  { words: ['RECUPERE'], status: 'delivered' },
  { words: ['LIVRAISON'], status: 'out_for_delivery' },
  { words: ['RECEPTION', 'DONNEES'], status: 'label_created' },
  { words: ['ENREGISTRE'], status: 'label_created' },
  { words: ['PRISE', 'CHARGE'], status: 'in_transit' },
  { words: ['PRIS', 'CHARGE'], status: 'in_transit' },
  { words: ['ACHEMINEMENT'], status: 'in_transit' },
  { words: ['TRANSIT'], status: 'in_transit' },
  { words: ['AGENCE'], status: 'in_transit' },
];

export const mondialRelayStatusOf = (label: string): ShipmentStatus => {
  const words = new Set(foldLabel(label).split(' '));
  return MONDIAL_RELAY_LABEL_RULES.find((rule) => rule.words.every((w) => words.has(w)))?.status ?? 'unknown';
};

const Step = z
  .object({ Libelle: z.string().max(500).nullish(), Date: z.string().max(20).nullish(), Heure: z.string().max(10).nullish(), Emplacement: z.string().max(200).nullish() })
  .passthrough();
const Steps = z.union([z.array(Step).max(200), Step]).transform((v) => (Array.isArray(v) ? v : [v]));
const Payload = z.object({
  Expedition: z.string().max(64),
  WSI2_TracingColisDetailleResult: z
    .object({
      STAT: z.union([z.string(), z.number()]),
      Tracing: z.object({ ret_WSI2_sub_TracingColisDetaille: Steps.nullish() }).passthrough().nullish(),
    })
    .passthrough(),
});

/** `03/10/26` + `09:12` (Paris time) → ISO UTC. */
const stepTime = (date: string, hour: string): string | null => {
  const d = /^(\d{2})\/(\d{2})\/(\d{2}|\d{4})$/.exec(date.trim());
  const h = /^(\d{2}):(\d{2})$/.exec(hour.trim());
  if (!d || !h) return null;
  const year = d[3]!.length === 2 ? 2000 + Number(d[3]) : Number(d[3]);
  return parisWallClockToIso(year, Number(d[2]), Number(d[1]), Number(h[1]), Number(h[2]));
};

export const parseMondialRelayTracing: TrackingPayloadParser = (payload) => {
  const answer = parseShape(Payload, payload);
  const trackingNumber = answer.Expedition.trim();
  if (!TRACKING_NUMBER.test(trackingNumber)) throw invalidPayload('body.Expedition', 'is not a tracking number');
  const stat = String(answer.WSI2_TracingColisDetailleResult.STAT);
  if (!['80', '81', '82', '83'].includes(stat)) throw invalidPayload('body.WSI2_TracingColisDetailleResult.STAT', `${stat} is an error code, not a tracing answer`);
  const updates: TrackingUpdate[] = [];
  (answer.WSI2_TracingColisDetailleResult.Tracing?.ret_WSI2_sub_TracingColisDetaille ?? []).forEach((step, i) => {
    // The answer pads its table with empty steps.
    const label = step.Libelle?.trim();
    if (!label) return;
    const occurredAt = stepTime(step.Date ?? '', step.Heure ?? '');
    if (!occurredAt) throw invalidPayload(`body.WSI2_TracingColisDetailleResult.Tracing.ret_WSI2_sub_TracingColisDetaille.${i}`, 'Date must be DD/MM/YY and Heure HH:mm');
    updates.push({ trackingNumber, carrierStatus: label, status: mondialRelayStatusOf(label), occurredAt });
  });
  return updates;
};
