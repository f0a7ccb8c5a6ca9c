import type { CarrierAdapter, OpeningSlot, PickupPoint, PickupPointKind, PointQuery } from '@cagnotte/event-schemas';
import { CarrierError, ISO_DAYS, callLaPosteSoap, children, hoursOf, laPostePointFields, laPosteShippingDate, slotsFromRanges, textOf, type XmlNode } from './wire';

// Chronopost: SOAP `recherchePointChronopost` and `rechercheDetailPointChronopost` of PointRelaisServiceWS
// (https://ws.chronopost.fr/recherchebt-ws-cxf/PointRelaisServiceWS). Points are `listePointRelais`; their id is
// `identifiant` (older answers of the service named it `identifiantChronopostPointA2PAS`, read as well).

const NAMESPACE = 'http://cxf.rechercheBt.soap.chronopost.fr/';

/** `typeDePoint`: P a Pickup relay shop, C a locker (consigne), B/BP a post office. */
const kindOf = (type: string): PickupPointKind => (type === 'C' ? 'locker' : type === 'B' || type === 'BP' ? 'post_office' : 'relay');

export const mapChronopostPoint = (p: XmlNode, fetchedAt: string): PickupPoint => {
  const byDay: Partial<Record<(typeof ISO_DAYS)[number], OpeningSlot[]>> = {};
  for (const day of children(p, 'listeHoraireOuverture')) {
    const d = textOf(day, 'jour') as (typeof ISO_DAYS)[number];
    if (ISO_DAYS.includes(d)) byDay[d] = slotsFromRanges(textOf(day, 'horairesAsString'));
  }
  const id = textOf(p, 'identifiant') || textOf(p, 'identifiantChronopostPointA2PAS');
  return {
    id: `chronopost:${id}`,
    network: 'chronopost',
    kind: kindOf(textOf(p, 'typeDePoint')),
    name: textOf(p, 'nom') || textOf(p, 'nomEnseigne') || `Chronopost ${id}`,
    ...laPostePointFields(p, 'listePeriodeFermeture', 'FR'),
    openingHours: hoursOf(byDay),
    status: textOf(p, 'actif') === 'false' ? 'temporarily_closed' : 'active',
    fetchedAt,
  };
};

export interface ChronopostOptions {
  account: string;
  password: string;
  url: string;
  now?: () => Date;
}

export class ChronopostAdapter implements CarrierAdapter {
  readonly network = 'chronopost' as const;
  constructor(private readonly o: ChronopostOptions) {}

  private async call(operation: string, params: Array<[string, string]>, signal: AbortSignal): Promise<PickupPoint[] | null> {
    const ret = await callLaPosteSoap(this.network, { ...this.o, namespace: NAMESPACE }, operation, params, signal);
    const code = textOf(ret, 'errorCode');
    if (code !== '0') throw new CarrierError(this.network, `errorCode ${code}: ${textOf(ret, 'errorMessage')}`);
    const fetchedAt = (this.o.now?.() ?? new Date()).toISOString();
    return children(ret, 'listePointRelais').map((p) => mapChronopostPoint(p, fetchedAt));
  }

  private shippingDate = () => laPosteShippingDate(this.o.now?.() ?? new Date());

  async search(q: PointQuery, signal: AbortSignal): Promise<PickupPoint[]> {
    return (
      (await this.call(
        'recherchePointChronopost',
        [
          ['address', ''],
          ['zipCode', q.postalCode ?? ''],
          ['city', ''],
          ['countryCode', q.country],
          ['type', 'P'],
          ['productCode', '86'],
          ['service', 'T'],
          ['weight', String(q.weightG ?? 1000)],
          ['shippingDate', this.shippingDate()],
          ['maxPointChronopost', String(Math.min(25, q.limit))],
          ['maxDistanceSearch', String(Math.round(q.radiusKm))],
          ['holidayTolerant', '1'],
        ],
        signal,
      )) ?? []
    );
  }

  async get(pointId: string, _tenantId: string | null, signal: AbortSignal): Promise<PickupPoint | null> {
    const points = await this.call('rechercheDetailPointChronopost', [['identifiant', pointId], ['countryCode', 'FR'], ['language', 'FR'], ['version', '2.0']], signal);
    return points?.find((p) => p.id === `chronopost:${pointId}`) ?? null;
  }
}
