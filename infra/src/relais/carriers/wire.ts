import { convert } from 'xmlbuilder2';
import type { OpeningHours, OpeningSlot } from '@cagnotte/event-schemas';

// What every carrier adapter shares: one HTTP call under the directory's AbortSignal, SOAP envelopes, reading XML
// answers by element name (namespaces ignored, as the carriers' own clients do), and opening hours.

/** A carrier answered something else than points: an HTTP error, a SOAP fault, an error code of its own. */
export class CarrierError extends Error {
  constructor(
    readonly network: string,
    message: string,
  ) {
    super(`${network}: ${message}`);
    this.name = 'CarrierError';
  }
}

export const callCarrier = async (network: string, url: string, init: RequestInit, signal: AbortSignal): Promise<{ status: number; text: string }> => {
  const res = await fetch(url, { ...init, signal });
  const text = await res.text();
  if (res.status >= 500 || (res.status >= 400 && res.status !== 404)) throw new CarrierError(network, `HTTP ${res.status}`);
  return { status: res.status, text };
};

const escapeXml = (v: string) => v.replace(/[<>&'"]/g, (c) => ({ '<': '&lt;', '>': '&gt;', '&': '&amp;', "'": '&apos;', '"': '&quot;' })[c]!);

/**
 * A SOAP 1.1 envelope around one operation, its parameters written in the given (schema) order. `qualified`: the
 * parameters are in the operation's namespace (Mondial Relay's ASMX schema); else unqualified (CXF services).
 */
export const soapEnvelope = (operation: string, namespace: string, params: Array<[string, string]>, qualified: boolean): string => {
  const open = qualified ? `<${operation} xmlns="${namespace}">` : `<ns:${operation} xmlns:ns="${namespace}">`;
  const close = qualified ? `</${operation}>` : `</ns:${operation}>`;
  return (
    '<?xml version="1.0" encoding="utf-8"?>\n<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body>' +
    open +
    params.map(([k, v]) => `<${k}>${escapeXml(v)}</${k}>`).join('') +
    close +
    '</soap:Body></soap:Envelope>'
  );
};

export type XmlNode = unknown;

export const parseXml = (network: string, text: string): XmlNode => {
  try {
    return convert(text, { format: 'object' });
  } catch {
    throw new CarrierError(network, 'the answer is not XML');
  }
};

const localName = (key: string) => key.slice(key.indexOf(':') + 1);

/** The children named `name` (any namespace prefix) of a node: always an array. */
export const children = (node: XmlNode, name: string): XmlNode[] => {
  if (!node || typeof node !== 'object' || Array.isArray(node)) return [];
  const out: XmlNode[] = [];
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) if (!k.startsWith('@') && localName(k) === name) out.push(...(Array.isArray(v) ? v : [v]));
  return out;
};
export const child = (node: XmlNode, name: string): XmlNode => children(node, name)[0];

/** The first element named `name` anywhere under the node (depth first). */
export const findFirst = (node: XmlNode, name: string): XmlNode | undefined => {
  if (!node || typeof node !== 'object') return undefined;
  if (Array.isArray(node)) {
    for (const n of node) {
      const hit = findFirst(n, name);
      if (hit !== undefined) return hit;
    }
    return undefined;
  }
  for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
    if (k.startsWith('@')) continue;
    if (localName(k) === name) return Array.isArray(v) ? v[0] : v;
    const hit = findFirst(v, name);
    if (hit !== undefined) return hit;
  }
  return undefined;
};

/** An element's text, trimmed ('' for an empty or missing element). */
export const text = (node: XmlNode): string => {
  if (typeof node === 'string') return node.trim();
  if (typeof node === 'number' || typeof node === 'boolean') return String(node);
  if (node && typeof node === 'object' && '#' in (node as Record<string, unknown>)) return String((node as Record<string, unknown>)['#']).trim();
  return '';
};
export const textOf = (node: XmlNode, name: string): string => text(child(node, name));

/** A SOAP fault anywhere in the answer is a carrier error. */
export const throwOnFault = (network: string, doc: XmlNode): void => {
  const fault = findFirst(doc, 'Fault');
  if (fault !== undefined) throw new CarrierError(network, `SOAP fault: ${textOf(fault, 'faultstring') || 'unknown'}`);
};

/** A number written with a comma or a dot as decimal separator (Mondial Relay writes `48,8566`). */
export const decimal = (raw: string): number => Number(raw.replace(',', '.'));

export const ISO_DAYS = ['1', '2', '3', '4', '5', '6', '7'] as const;

/**
 * `"08:30-12:00 14:00-18:00"` → slots; `00:00-00:00` (the carriers' "closed") and malformed pairs are dropped.
 * A day open round the clock is written `00:00-23:59` in our model.
 */
export const slotsFromRanges = (raw: string): OpeningSlot[] => {
  const slots: OpeningSlot[] = [];
  for (const m of raw.matchAll(/(\d{1,2}):?(\d{2})\s*-\s*(\d{1,2}):?(\d{2})/g)) {
    const open = `${m[1]!.padStart(2, '0')}:${m[2]}`;
    let close = `${m[3]!.padStart(2, '0')}:${m[4]}`;
    if (close === '24:00') close = '23:59';
    if (open < close && /^([01]\d|2[0-3]):[0-5]\d$/.test(open) && /^([01]\d|2[0-3]):[0-5]\d$/.test(close)) slots.push({ open, close });
  }
  return slots.slice(0, 4);
};

export const hoursOf = (byDay: Partial<Record<(typeof ISO_DAYS)[number], OpeningSlot[]>>): OpeningHours => {
  const out: OpeningHours = {};
  for (const d of ISO_DAYS) if (byDay[d] && byDay[d]!.length > 0) out[d] = byDay[d];
  return out;
};

export const ROUND_THE_CLOCK: OpeningHours = Object.fromEntries(ISO_DAYS.map((d) => [d, [{ open: '00:00', close: '23:59' }]]));

/** `2026-08-01T00:00:00+02:00` (xs:dateTime, the carriers' closures) → `2026-08-01`; null when not a date. */
export const calendarDate = (raw: string): string | null => (/^\d{4}-\d{2}-\d{2}/.test(raw) ? raw.slice(0, 10) : null);

/** `dd/mm/yyyy` (Colissimo's and Chronopost's shippingDate). */
export const frenchDate = (d: Date): string => `${String(d.getUTCDate()).padStart(2, '0')}/${String(d.getUTCMonth() + 1).padStart(2, '0')}/${d.getUTCFullYear()}`;

export const trimmedJoin = (...parts: string[]): string => parts.map((p) => p.trim()).filter(Boolean).join(' ');

/**
 * What Colissimo's and Chronopost's points (La Poste's PointRetrait and PointRelais services) name alike: the address,
 * the position, the distance, the closures (in `closuresTag`) and the heaviest parcel.
 */
export const laPostePointFields = (p: XmlNode, closuresTag: string, defaultCountry: string) => {
  const closures = children(p, closuresTag)
    .map((c) => ({ from: calendarDate(textOf(c, 'calendarDeDebut')), to: calendarDate(textOf(c, 'calendarDeFin')) }))
    .filter((c): c is { from: string; to: string } => !!c.from && !!c.to && c.from <= c.to);
  const weight = Number(textOf(p, 'poidsMaxi'));
  const distance = Number(textOf(p, 'distanceEnMetre'));
  const line2 = trimmedJoin(textOf(p, 'adresse2'), textOf(p, 'adresse3'));
  return {
    address: { line1: textOf(p, 'adresse1'), ...(line2 ? { line2 } : {}), postalCode: textOf(p, 'codePostal'), city: textOf(p, 'localite'), country: (textOf(p, 'codePays') || defaultCountry).toUpperCase() },
    geo: { lat: decimal(textOf(p, 'coordGeolocalisationLatitude')), lng: decimal(textOf(p, 'coordGeolocalisationLongitude')) },
    ...(textOf(p, 'distanceEnMetre') !== '' && Number.isFinite(distance) ? { distanceM: Math.round(distance) } : {}),
    closures,
    ...(Number.isInteger(weight) && weight > 0 ? { maxWeightG: weight } : {}),
  };
};

/**
 * One call of La Poste's SOAP point services (Colissimo's and Chronopost's share the shape): the account's
 * credentials first, the answer's `return` element, a SOAP fault or a missing `return` a CarrierError.
 */
export const callLaPosteSoap = async (
  network: string,
  o: { url: string; account: string; password: string; namespace: string },
  operation: string,
  params: Array<[string, string]>,
  signal: AbortSignal,
): Promise<XmlNode> => {
  const { text: body } = await callCarrier(
    network,
    o.url,
    { method: 'POST', headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' }, body: soapEnvelope(operation, o.namespace, [['accountNumber', o.account], ['password', o.password], ...params], false) },
    signal,
  );
  const doc = parseXml(network, body);
  throwOnFault(network, doc);
  const ret = findFirst(doc, 'return');
  if (ret === undefined) throw new CarrierError(network, `no return in the ${operation} answer`);
  return ret;
};

/** The shipping date La Poste's searches ask for: tomorrow, as dd/mm/yyyy. */
export const laPosteShippingDate = (now: Date): string => frenchDate(new Date(now.getTime() + 86_400_000));
