import { createHash } from 'node:crypto';
import type { CarrierAdapter, Closure, PickupPoint, PointQuery } from '@cagnotte/event-schemas';
import { CarrierError, ISO_DAYS, calendarDate, callCarrier, child, children, decimal, findFirst, hoursOf, parseXml, soapEnvelope, text, textOf, throwOnFault, trimmedJoin, type XmlNode } from './wire';

// Mondial Relay: SOAP `WSI4_PointRelais_Recherche` of https://api.mondialrelay.com/Web_Services.asmx. A point's id is
// `<Pays>-<Num>` (Num is a 6-digit number per country): `mondial_relay:FR-011721`.

const NAMESPACE = 'http://www.mondialrelay.fr/webservice/';
const OPERATION = 'WSI4_PointRelais_Recherche';
/** The request's parameters in the schema's order: `Security` signs them in this order. */
export const WSI4_PARAMS = ['Enseigne', 'Pays', 'NumPointRelais', 'Ville', 'CP', 'Latitude', 'Longitude', 'Taille', 'Poids', 'Action', 'DelaiEnvoi', 'RayonRecherche', 'TypeActivite', 'NACE', 'NombreResultats'] as const;
export type Wsi4Params = Partial<Record<(typeof WSI4_PARAMS)[number], string>>;
/** The service's own limit (Mondial Relay publishes none per point). */
const SERVICE_MAX_WEIGHT_G = 30_000;
const DAYS = ['Lundi', 'Mardi', 'Mercredi', 'Jeudi', 'Vendredi', 'Samedi', 'Dimanche'] as const;

/** Upper-case hex MD5 of the parameters' values concatenated in schema order, then the private key. */
export const mondialRelaySecurity = (params: Wsi4Params, privateKey: string): string =>
  createHash('md5')
    .update(WSI4_PARAMS.map((k) => params[k] ?? '').join('') + privateKey, 'utf8')
    .digest('hex')
    .toUpperCase();

/** `48.8566` → `48.8566000`, `2.35` → `002.3500000`: the service's fixed-width coordinates. */
const coordinate = (v: number, intDigits: number) => {
  const [i, f] = Math.abs(v).toFixed(7).split('.');
  return `${v < 0 ? '-' : ''}${i!.padStart(intDigits, '0')}.${f}`;
};

/** `["0900","1230","1400","1900"]` → two slots; `0000` pairs are closed. */
const daySlots = (node: XmlNode) => {
  const v = children(node, 'string').map(text);
  const slots = [];
  for (let i = 0; i + 1 < v.length; i += 2) {
    const [o, c] = [v[i]!, v[i + 1]!];
    if (!/^\d{4}$/.test(o) || !/^\d{4}$/.test(c) || o === c || (o === '0000' && c === '0000')) continue;
    slots.push({ open: `${o.slice(0, 2)}:${o.slice(2)}`, close: c === '2400' ? '23:59' : `${c.slice(0, 2)}:${c.slice(2)}` });
  }
  return slots.filter((s) => s.open < s.close);
};

export const mapMondialRelayPoint = (p: XmlNode, fetchedAt: string): PickupPoint => {
  const country = textOf(p, 'Pays').toUpperCase();
  const name = trimmedJoin(textOf(p, 'LgAdr1'), textOf(p, 'LgAdr2'));
  const closures: Closure[] = children(child(p, 'Informations_Dispo'), 'Periode')
    .map((per) => ({ from: calendarDate(textOf(per, 'Debut')), to: calendarDate(textOf(per, 'Fin')) }))
    .filter((c): c is Closure => !!c.from && !!c.to && c.from <= c.to);
  const distance = Number(textOf(p, 'Distance'));
  const line2 = textOf(p, 'LgAdr4');
  return {
    id: `mondial_relay:${country}-${textOf(p, 'Num')}`,
    network: 'mondial_relay',
    kind: /locker/i.test(name) ? 'locker' : 'relay',
    name: name || `Point Relais ${textOf(p, 'Num')}`,
    address: { line1: textOf(p, 'LgAdr3') || name, ...(line2 ? { line2 } : {}), postalCode: textOf(p, 'CP'), city: textOf(p, 'Ville'), country },
    geo: { lat: decimal(textOf(p, 'Latitude')), lng: decimal(textOf(p, 'Longitude')) },
    ...(Number.isFinite(distance) && textOf(p, 'Distance') !== '' ? { distanceM: Math.round(distance) } : {}),
    openingHours: hoursOf(Object.fromEntries(ISO_DAYS.map((d, i) => [d, daySlots(child(p, `Horaires_${DAYS[i]}`))]))),
    closures,
    maxWeightG: SERVICE_MAX_WEIGHT_G,
    status: 'active',
    fetchedAt,
  };
};

export interface MondialRelayOptions {
  enseigne: string;
  privateKey: string;
  url: string;
  now?: () => Date;
}

export class MondialRelayAdapter implements CarrierAdapter {
  readonly network = 'mondial_relay' as const;
  constructor(private readonly o: MondialRelayOptions) {}

  private async call(params: Wsi4Params, signal: AbortSignal): Promise<PickupPoint[]> {
    const signed: Array<[string, string]> = [...WSI4_PARAMS.map((k): [string, string] => [k, params[k] ?? '']), ['Security', mondialRelaySecurity(params, this.o.privateKey)]];
    const { text: body } = await callCarrier(
      this.network,
      this.o.url,
      { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NAMESPACE}${OPERATION}"` }, body: soapEnvelope(OPERATION, NAMESPACE, signed, true) },
      signal,
    );
    const doc = parseXml(this.network, body);
    throwOnFault(this.network, doc);
    const result = findFirst(doc, `${OPERATION}Result`);
    if (result === undefined) throw new CarrierError(this.network, `no ${OPERATION}Result in the answer`);
    const stat = textOf(result, 'STAT');
    // STAT 0: points follow; 70 (an unknown point number) on a look-up by number: no point.
    if (stat !== '0') {
      if (params.NumPointRelais && stat === '70') return [];
      throw new CarrierError(this.network, `STAT ${stat}`);
    }
    const fetchedAt = (this.o.now?.() ?? new Date()).toISOString();
    return children(child(result, 'PointsRelais'), 'PointRelais_Details').map((p) => mapMondialRelayPoint(p, fetchedAt));
  }

  search(q: PointQuery, signal: AbortSignal): Promise<PickupPoint[]> {
    const byPosition = q.lat !== undefined && q.lng !== undefined;
    return this.call(
      {
        Enseigne: this.o.enseigne,
        Pays: q.country,
        CP: byPosition ? '' : (q.postalCode ?? ''),
        Latitude: byPosition ? coordinate(q.lat!, 2) : '',
        Longitude: byPosition ? coordinate(q.lng!, 3) : '',
        Poids: q.weightG ? String(q.weightG) : '',
        Action: '24R',
        RayonRecherche: String(Math.round(q.radiusKm)),
        NombreResultats: String(Math.min(30, q.limit)),
      },
      signal,
    );
  }

  async get(pointId: string, _tenantId: string | null, signal: AbortSignal): Promise<PickupPoint | null> {
    const m = /^([A-Z]{2})-(\d{6})$/.exec(pointId);
    if (!m) return null;
    const points = await this.call({ Enseigne: this.o.enseigne, Pays: m[1], NumPointRelais: m[2], NombreResultats: '1' }, signal);
    return points.find((p) => p.id === `mondial_relay:${pointId}`) ?? null;
  }
}
