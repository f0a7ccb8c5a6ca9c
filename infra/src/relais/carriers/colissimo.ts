import type { CarrierAdapter, PickupPoint, PickupPointKind, PointQuery } from '@cagnotte/event-schemas';
import { CarrierError, ISO_DAYS, callLaPosteSoap, child, children, hoursOf, laPostePointFields, laPosteShippingDate, slotsFromRanges, textOf, type XmlNode } from './wire';

// Colissimo: SOAP `findRDVPointRetraitAcheminement` and `findPointRetraitAcheminementByID` of PointRetraitServiceWS 2.0
// (https://ws.colissimo.fr/pointretrait-ws-cxf/PointRetraitServiceWS/2.0). Points are `listePointRetraitAcheminement`.

const NAMESPACE = 'http://v2.pointretrait.geopost.com/';
/** 300/301: no point matches (none near, or no point with that id): an empty answer, not a failure. */
const NO_POINT = new Set(['300', '301']);
const DAYS = ['Lundi', 'Mardi', 'Mercredi', 'Jeudi', 'Vendredi', 'Samedi', 'Dimanche'] as const;

/** `typeDePoint`: A2P a relay shop, BPR/BDP/ACP/CDI/CIT a post office, CMT/PCS/BAL a locker. */
const kindOf = (type: string): PickupPointKind => {
  if (/^(BPR|BDP|ACP|CDI|CIT)$/.test(type)) return 'post_office';
  if (/^(CMT|PCS|BAL)$/.test(type)) return 'locker';
  return 'relay';
};

export const mapColissimoPoint = (p: XmlNode, fetchedAt: string): PickupPoint => ({
  id: `colissimo:${textOf(p, 'identifiant')}`,
  network: 'colissimo',
  kind: kindOf(textOf(p, 'typeDePoint')),
  name: textOf(p, 'nom') || `Colissimo ${textOf(p, 'identifiant')}`,
  ...laPostePointFields(p, 'listeConges', ''),
  openingHours: hoursOf(Object.fromEntries(ISO_DAYS.map((d, i) => [d, slotsFromRanges(textOf(p, `horairesOuverture${DAYS[i]}`))]))),
  // `congesTotal`: closed until further notice.
  status: textOf(p, 'congesTotal') === 'true' ? 'temporarily_closed' : 'active',
  fetchedAt,
});

export interface ColissimoOptions {
  account: string;
  password: string;
  url: string;
  now?: () => Date;
}

export class ColissimoAdapter implements CarrierAdapter {
  readonly network = 'colissimo' as const;
  constructor(private readonly o: ColissimoOptions) {}

  private call(operation: string, params: Array<[string, string]>, signal: AbortSignal): Promise<XmlNode> {
    return callLaPosteSoap(this.network, { ...this.o, namespace: NAMESPACE }, operation, params, signal);
  }

  private shippingDate = () => laPosteShippingDate(this.o.now?.() ?? new Date());

  async search(q: PointQuery, signal: AbortSignal): Promise<PickupPoint[]> {
    const ret = await this.call(
      'findRDVPointRetraitAcheminement',
      [
        ['address', ''],
        ['zipCode', q.postalCode ?? ''],
        ['city', ''],
        ['countryCode', q.country],
        ['weight', String(q.weightG ?? 1000)],
        ['shippingDate', this.shippingDate()],
        ['filterRelay', '1'],
        ['requestId', ''],
        ['lang', 'FR'],
        ['optionInter', q.country === 'FR' ? '0' : '1'],
      ],
      signal,
    );
    const code = textOf(ret, 'errorCode');
    if (NO_POINT.has(code)) return [];
    if (code !== '0') throw new CarrierError(this.network, `errorCode ${code}: ${textOf(ret, 'errorMessage')}`);
    const fetchedAt = (this.o.now?.() ?? new Date()).toISOString();
    return children(ret, 'listePointRetraitAcheminement').map((p) => mapColissimoPoint(p, fetchedAt));
  }

  async get(pointId: string, _tenantId: string | null, signal: AbortSignal): Promise<PickupPoint | null> {
    const ret = await this.call('findPointRetraitAcheminementByID', [['id', pointId], ['date', this.shippingDate()], ['weight', '1000'], ['filterRelay', '1'], ['reseau', ''], ['langue', 'FR']], signal);
    const code = textOf(ret, 'errorCode');
    if (NO_POINT.has(code)) return null;
    if (code !== '0') throw new CarrierError(this.network, `errorCode ${code}: ${textOf(ret, 'errorMessage')}`);
    const p = child(ret, 'pointRetraitAcheminement');
    return p === undefined ? null : mapColissimoPoint(p, (this.o.now?.() ?? new Date()).toISOString());
  }
}
