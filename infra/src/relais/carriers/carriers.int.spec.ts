import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { PickupPoint, closedOn, type PointQuery } from '@cagnotte/event-schemas';
import { ChronopostAdapter } from './chronopost';
import { ColissimoAdapter } from './colissimo';
import { InpostAdapter } from './inpost';
import { MondialRelayAdapter, WSI4_PARAMS, mondialRelaySecurity } from './mondial-relay';

// No carrier is reachable from here: a local HTTP server replays each carrier's recorded answers (in its documented
// format: SOAP XML, ShipX JSON) and each adapter speaks real HTTP to it and parses what comes back.

const RECORDED = join(__dirname, '..', 'recorded');
const recorded = (file: string) => readFileSync(join(RECORDED, file), 'utf8');
const MR_KEY = 'PrivateK';
const NOW = () => new Date('2026-11-27T10:00:00Z');

interface Ctx {
  server: Server;
  base: string;
  requests: Array<{ path: string; body: string; headers: IncomingMessage['headers'] }>;
}
const test = suite<Ctx>('relais carriers against recorded answers (local replay server)');

const xmlValue = (body: string, name: string) => new RegExp(`<${name}>([^<]*)</${name}>`).exec(body)?.[1] ?? '';

test.before(async (ctx) => {
  console.log('  no carrier is reachable from here: recorded responses replayed');
  ctx.requests = [];
  ctx.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      ctx.requests.push({ path: req.url ?? '', body, headers: req.headers });
      const xml = (file: string) => {
        res.writeHead(200, { 'content-type': 'text/xml; charset=utf-8' });
        res.end(recorded(file));
      };
      const url = new URL(req.url ?? '/', 'http://replay');
      if (url.pathname === '/mondialrelay/Web_Services.asmx') {
        // The replay checks the signature as Mondial Relay does: STAT 97 when it is wrong.
        const params = Object.fromEntries(WSI4_PARAMS.map((k) => [k, xmlValue(body, k)]));
        return xml(xmlValue(body, 'Security') === mondialRelaySecurity(params, MR_KEY) ? 'mondial-relay-wsi4-recherche.xml' : 'mondial-relay-wsi4-stat97.xml');
      }
      if (url.pathname === '/colissimo') return xml(body.includes('findPointRetraitAcheminementByID') ? 'colissimo-find-point-by-id.xml' : 'colissimo-find-rdv-point-retrait-acheminement.xml');
      if (url.pathname === '/chronopost') {
        if (body.includes('<zipCode>00000</zipCode>')) {
          res.writeHead(500, { 'content-type': 'text/xml' });
          return res.end(recorded('chronopost-fault.xml'));
        }
        return xml(body.includes('rechercheDetailPointChronopost') ? 'chronopost-recherche-detail-point-chronopost.xml' : 'chronopost-recherche-point-chronopost.xml');
      }
      if (url.pathname.startsWith('/inpost/v1/points')) {
        if (req.headers.authorization !== 'Bearer inpost-token') {
          res.writeHead(401, { 'content-type': 'application/json' });
          return res.end('{"status":401,"error":"token_invalid"}');
        }
        const json = (file: string) => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(recorded(file));
        };
        if (url.pathname === '/inpost/v1/points') return json('inpost-points.json');
        if (url.pathname === '/inpost/v1/points/KRA45AP') return json('inpost-point-KRA45AP.json');
        res.writeHead(404, { 'content-type': 'application/json' });
        return res.end('{"status":404,"error":"resource_not_found"}');
      }
      res.writeHead(404);
      res.end();
    });
  });
  await new Promise<void>((r) => ctx.server.listen(0, '127.0.0.1', () => r()));
  const addr = ctx.server.address();
  ctx.base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});

test.after(async (ctx) => {
  ctx.server.closeAllConnections();
  await new Promise<void>((r) => ctx.server.close(() => r()));
});

const q = (o: Partial<PointQuery>): PointQuery => ({ country: 'FR', radiusKm: 10, limit: 20, tenantId: null, ...o });
const signal = () => AbortSignal.timeout(10_000);
const valid = (points: PickupPoint[]) => points.forEach((p) => assert.ok(PickupPoint.safeParse(p).success, `${p.id}: ${JSON.stringify(PickupPoint.safeParse(p).error?.issues)}`));

test('Mondial Relay: a signed WSI4_PointRelais_Recherche, points mapped (comma decimals, HHMM hours, closures, locker)', async (ctx) => {
  const mr = new MondialRelayAdapter({ enseigne: 'BDTEST13', privateKey: MR_KEY, url: `${ctx.base}/mondialrelay/Web_Services.asmx`, now: NOW });
  const points = await mr.search(q({ postalCode: '69001', weightG: 2500 }), signal());
  const sent = ctx.requests.at(-1)!;
  assert.is(sent.headers.soapaction, '"http://www.mondialrelay.fr/webservice/WSI4_PointRelais_Recherche"');
  assert.match(sent.body, /<WSI4_PointRelais_Recherche xmlns="http:\/\/www.mondialrelay.fr\/webservice\/"><Enseigne>BDTEST13<\/Enseigne><Pays>FR<\/Pays><NumPointRelais><\/NumPointRelais>/);
  valid(points);
  assert.equal(points.map((p) => p.id), ['mondial_relay:FR-066974', 'mondial_relay:FR-070112', 'mondial_relay:FR-011721']);
  const tabac = points[0]!;
  assert.is(tabac.name, 'TABAC PRESSE DE LA PLACE', 'padding trimmed');
  assert.equal(tabac.geo, { lat: 45.76558, lng: 4.83572 }, 'comma decimals read as numbers');
  assert.equal(tabac.openingHours['1'], [{ open: '09:00', close: '12:30' }, { open: '14:00', close: '19:00' }]);
  assert.is(tabac.openingHours['7'], undefined, 'Sunday 0000 0000: closed');
  assert.equal(tabac.closures, [{ from: '2026-12-24', to: '2027-01-02' }]);
  assert.is(closedOn(tabac, '2026-12-28'), true);
  assert.is(tabac.distanceM, 180);
  assert.is(tabac.kind, 'relay');
  assert.is(tabac.status, 'active');
  assert.is(tabac.maxWeightG, 30_000);
  assert.equal(tabac.address, { line1: '12 RUE DE LA REPUBLIQUE', postalCode: '69001', city: 'LYON', country: 'FR' });
  assert.is(points[1]!.kind, 'locker');
  assert.equal(points[1]!.openingHours['7'], [{ open: '00:00', close: '23:59' }]);
  assert.equal(points[2]!.openingHours['6'], [{ open: '10:00', close: '13:00' }]);
  assert.is(tabac.fetchedAt, NOW().toISOString());

  const one = await mr.get('FR-011721', null, signal());
  assert.is(one?.name, 'EPICERIE DU PLATEAU');
  assert.match(ctx.requests.at(-1)!.body, /<NumPointRelais>011721<\/NumPointRelais>/);
  assert.is(await mr.get('not-a-number', null, signal()), null);

  const wrongKey = new MondialRelayAdapter({ enseigne: 'BDTEST13', privateKey: 'wrong', url: `${ctx.base}/mondialrelay/Web_Services.asmx` });
  try {
    await wrongKey.search(q({ postalCode: '69001' }), signal());
    assert.unreachable('a wrong key is STAT 97');
  } catch (e) {
    assert.match((e as Error).message, /STAT 97/);
  }
});

test('Colissimo: findRDVPointRetraitAcheminement mapped (ranges, congés, poidsMaxi, point types, congesTotal)', async (ctx) => {
  const col = new ColissimoAdapter({ account: '123456', password: 'secret', url: `${ctx.base}/colissimo`, now: NOW });
  const points = await col.search(q({ postalCode: '69001' }), signal());
  const sent = ctx.requests.at(-1)!.body;
  assert.match(sent, /<ns:findRDVPointRetraitAcheminement xmlns:ns="http:\/\/v2.pointretrait.geopost.com\/"><accountNumber>123456<\/accountNumber><password>secret<\/password>/);
  assert.match(sent, /<zipCode>69001<\/zipCode>/);
  assert.match(sent, /<shippingDate>28\/11\/2026<\/shippingDate>/);
  valid(points);
  const byId = new Map(points.map((p) => [p.id, p]));
  const bp = byId.get('colissimo:692150')!;
  assert.is(bp.kind, 'post_office');
  assert.equal(bp.openingHours['1'], [{ open: '09:00', close: '18:00' }]);
  assert.equal(bp.openingHours['6'], [{ open: '09:00', close: '12:30' }]);
  assert.is(bp.openingHours['7'], undefined);
  assert.is(bp.maxWeightG, 30_000);
  assert.equal(bp.geo, { lat: 45.7664112, lng: 4.8336421 });
  const relay = byId.get('colissimo:A69012')!;
  assert.is(relay.kind, 'relay');
  assert.equal(relay.closures, [{ from: '2026-12-20', to: '2026-12-31' }]);
  assert.is(relay.maxWeightG, 20_000);
  assert.is(byId.get('colissimo:C69077')!.kind, 'locker');
  assert.is(byId.get('colissimo:A69099')!.status, 'temporarily_closed', 'congesTotal');
  const one = await col.get('A69012', null, signal());
  assert.is(one?.name, 'RELAIS PICKUP PRESSE DU GRIFFON');
  assert.match(ctx.requests.at(-1)!.body, /<ns:findPointRetraitAcheminementByID [^>]*>.*<id>A69012<\/id>/);
});

test('Chronopost: recherchePointChronopost mapped (listeHoraireOuverture per jour, listePeriodeFermeture, locker); a SOAP fault is an error', async (ctx) => {
  const chr = new ChronopostAdapter({ account: '19869502', password: '255562', url: `${ctx.base}/chronopost`, now: NOW });
  const points = await chr.search(q({ postalCode: '69001' }), signal());
  assert.match(ctx.requests.at(-1)!.body, /<ns:recherchePointChronopost xmlns:ns="http:\/\/cxf.rechercheBt.soap.chronopost.fr\/"><accountNumber>19869502<\/accountNumber>/);
  valid(points);
  const [shop, locker] = points;
  assert.is(shop!.id, 'chronopost:1699P');
  assert.equal(shop!.openingHours['3'], [{ open: '09:00', close: '12:30' }, { open: '14:00', close: '19:00' }]);
  assert.is(shop!.openingHours['7'], undefined);
  assert.equal(shop!.closures, [{ from: '2026-08-03', to: '2026-08-17' }]);
  assert.is(shop!.maxWeightG, 20_000);
  assert.is(shop!.kind, 'relay');
  assert.is(locker!.kind, 'locker');
  assert.equal(locker!.openingHours['7'], [{ open: '00:00', close: '23:59' }]);
  assert.is((await chr.get('1699P', null, signal()))?.id, 'chronopost:1699P');
  try {
    await chr.search(q({ postalCode: '00000' }), signal());
    assert.unreachable('HTTP 500 with a SOAP fault');
  } catch (e) {
    assert.match((e as Error).message, /chronopost: HTTP 500/);
  }
});

test('InPost: ShipX points mapped (types, statuses, 24/7, operating_hours_extended in minutes, 25 kg lockers); unknown point 404 → null', async (ctx) => {
  const inpost = new InpostAdapter({ token: 'inpost-token', url: `${ctx.base}/inpost`, now: NOW });
  const points = await inpost.search(q({ country: 'PL', postalCode: '31-042', radiusKm: 3 }), signal());
  const sent = new URL(ctx.requests.at(-1)!.path, 'http://x');
  assert.is(sent.searchParams.get('relative_post_code'), '31-042');
  assert.is(sent.searchParams.get('max_distance'), '3000');
  valid(points);
  const [locker, pop, down] = points;
  assert.is(locker!.id, 'inpost:KRA010M');
  assert.is(locker!.kind, 'locker');
  assert.is(locker!.maxWeightG, 25_000);
  assert.equal(locker!.openingHours['1'], [{ open: '00:00', close: '23:59' }]);
  assert.equal(locker!.geo, { lat: 50.06192, lng: 19.93795 });
  assert.equal(locker!.address, { line1: 'Rynek Główny 1', postalCode: '31-042', city: 'Kraków', country: 'PL' });
  assert.is(pop!.kind, 'relay');
  assert.is(pop!.maxWeightG, undefined);
  assert.equal(pop!.openingHours['1'], [{ open: '08:00', close: '20:00' }]);
  assert.equal(pop!.openingHours['6'], [{ open: '09:00', close: '14:00' }]);
  assert.is(pop!.openingHours['7'], undefined);
  assert.is(down!.status, 'temporarily_closed', 'NonOperating');
  assert.is((await inpost.get('KRA45AP', null, signal()))?.name, 'InPost KRA45AP (Kiosk Ruch)');
  assert.is(await inpost.get('NOPE01', null, signal()), null);
  const noToken = new InpostAdapter({ token: 'wrong', url: `${ctx.base}/inpost` });
  try {
    await noToken.search(q({ postalCode: '31-042' }), signal());
    assert.unreachable('401');
  } catch (e) {
    assert.match((e as Error).message, /HTTP 401/);
  }
});

test.run();
